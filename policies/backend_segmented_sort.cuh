// The built-in policies' overloads of backend_segmented_sort: how each policy sorts segments.
// User policies add their own overload in their own namespace (found by ADL), or get a
// compile-time error saying that they take no segmented requests.
//
// Every built-in policy sorts segments with the segmented comparison sort
// (backends/segmented/): a group of lanes, a warp, a block or several blocks per segment by
// its size. Radix keys ordered by less/greater (par, radix, bucket_bitonic) are compared in
// the radix order, so that each segment comes out as the radix sort would leave it (stable;
// floats: -0.0 equal to +0.0, NaNs after +inf), and a single segment that turns out (on the
// device) to be the whole input is radix sorted, as gpusort::sort would; merge and par with
// any other comparator use the comparator.
#pragma once

#include <gpusort/detail/backends/common/ordered_bits.cuh>
#include <gpusort/detail/backends/radix/dispatch.cuh>
#include <gpusort/detail/backends/segmented/dispatch.cuh>
#include <gpusort/execution_policy.cuh>
#include <gpusort/segmented_sort_request.cuh>
#include <gpusort/sort_request.cuh>
#include "comparator_traits.cuh"
#include "policy_requirements.cuh"
#include "select.cuh"

#include <type_traits>

namespace gpusort {
namespace detail {

// A single segment that is the whole input, sorted as gpusort::sort sorts large inputs: the
// one-sweep radix sort, gated on the device's finding that the segment is the whole input.
template <class Key, class Value, class Compare, bool Stable>
struct whole_input_radix_sort {
  static constexpr bool enabled = true;
  sort_request<Key, Value, Compare, Stable> request;
  void operator()(const unsigned* gate) const {
    backends::radix::onesweep_sort<radix_tuning_sm90>(request, backends::radix::no_buckets{},
                                                      gate);
  }
};

// Radix keys compared as the radix sort orders them.
template <class Key, class Value, class Offset, class Compare, bool Stable>
void segmented_sort_in_radix_order(
    const segmented_sort_request<Key, Value, Offset, Compare, Stable>& request) {
  constexpr bool descending = comparator_order_v<Compare, Key> == key_order::descending;
  using radix_order = backends::radix_order_less<Key, descending>;
  const segmented_sort_request<Key, Value, Offset, radix_order, Stable> in_radix_order{
      request.keys,          request.values,        request.count,
      request.begin_offsets, request.end_offsets,   request.segment_count,
      radix_order{},         request.stream,        request.allocator};
  const whole_input_radix_sort<Key, Value, Compare, Stable> whole_input{
      {request.keys, request.values, request.count, request.comp, request.stream,
       request.allocator}};
  backends::segmented::sort<merge_tuning_sm90>(in_radix_order, whole_input);
}

template <class Key, class Value, class Offset, class Compare, bool Stable>
void segmented_sort_automatic(
    const segmented_sort_request<Key, Value, Offset, Compare, Stable>& request) {
  if constexpr (std::is_same_v<automatic_backend_t<Key, Compare>, radix_backend>) {
    segmented_sort_in_radix_order(request);
  } else {
    if constexpr (par_comparison_serves<Key, Compare>())
      backends::segmented::sort<merge_tuning_sm90>(request);
  }
}

}  // namespace detail

template <class Key, class Value, class Offset, class Compare, bool Stable>
void backend_segmented_sort(const par_policy&,
    const segmented_sort_request<Key, Value, Offset, Compare, Stable>& request) {
  detail::segmented_sort_automatic(request);
}

template <par_strategy Strategy, class Key, class Value, class Offset, class Compare, bool Stable>
void backend_segmented_sort(const pinned_par_policy<Strategy>&,
    const segmented_sort_request<Key, Value, Offset, Compare, Stable>& request) {
  detail::segmented_sort_automatic(request);
}

template <class Tuning, class Key, class Value, class Offset, class Compare, bool Stable>
void backend_segmented_sort(const radix_policy<Tuning>&,
    const segmented_sort_request<Key, Value, Offset, Compare, Stable>& request) {
  if constexpr (detail::radix_policy_serves<Key, Compare>())
    detail::segmented_sort_in_radix_order(request);
}

template <class Tuning, class Key, class Value, class Offset, class Compare, bool Stable>
void backend_segmented_sort(const bucket_bitonic_policy<Tuning>&,
    const segmented_sort_request<Key, Value, Offset, Compare, Stable>& request) {
  if constexpr (detail::bucket_bitonic_policy_serves<Key, Compare, Stable>())
    detail::segmented_sort_in_radix_order(request);
}

template <class Tuning, class Key, class Value, class Offset, class Compare, bool Stable>
void backend_segmented_sort(const merge_policy<Tuning>&,
    const segmented_sort_request<Key, Value, Offset, Compare, Stable>& request) {
  if constexpr (detail::merge_policy_serves<Key, Compare>())
    backends::segmented::sort<Tuning>(request);
}

// Chosen only when no overload matches the policy more closely.
template <class Policy, class Request>
void backend_segmented_sort(const execution_policy<Policy>&, const Request&) {
  static_assert(detail::always_false_v<Policy, Request>,
                "gpusort: this policy takes no segmented sorts. A user-defined policy that "
                "does needs, in its own namespace, `template <class K, class V, class O, class "
                "C, bool S> void backend_segmented_sort(const my_policy&, const "
                "gpusort::segmented_sort_request<K, V, O, C, S>&);` (see README, segmented "
                "sort).");
}

}  // namespace gpusort
