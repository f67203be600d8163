// Many independent sorts in one call: the keys of each segment are sorted among themselves.
//
//   // segment i is keys[offsets[i], offsets[i + 1]), i < offsets.size() - 1
//   gpusort::segmented_sort(gpusort::par.on(s), keys.begin(), keys.end(),
//                           offsets.begin(), offsets.end());
//   // CUB's form: segment i is keys[begins[i], ends[i]); gaps between segments stay as they are
//   gpusort::stable_segmented_sort_by_key(gpusort::merge, keys, keys + n, values,
//                                         begins, ends, segment_count, my_less{});
//
// Offsets live in device memory and may be of any integral type. The call never synchronises
// (it can be captured into a CUDA graph), so the offsets are checked on the device: where a
// segment's end precedes its begin, its begin is negative or its end is past the keys' end,
// the call sorts nothing, and the next segmented sort call on that device (or
// gpusort::check_segmented_sorts()) throws gpusort::error naming the segment.
// Every request goes to the policy's backend_segmented_sort overload (found by ADL).
#pragma once

#include <gpusort/detail/policies/backend_segmented_sort.cuh>
#include "detail/device_range.cuh"
#include "detail/offsets_report.cuh"
#include "error.cuh"
#include "execution_policy.cuh"
#include "functional.cuh"
#include "memory.cuh"
#include "segmented_sort_request.cuh"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpusort {
namespace detail {

template <class Policy, class Compare>
using if_policy_and_comparator_t =
    std::enable_if_t<is_execution_policy_v<Policy> && !std::is_integral_v<Compare>>;
template <class Policy, class Count>
using if_policy_and_count_t =
    std::enable_if_t<is_execution_policy_v<Policy> && std::is_integral_v<Count>>;

template <bool Stable, class Policy, class KeyIterator, class Value, class BeginIterator,
          class EndIterator, class Compare>
void segmented_front_door(const Policy& policy, KeyIterator keys_first, KeyIterator keys_last,
                          Value* values, BeginIterator begins_first, EndIterator ends_first,
                          long long segment_count, Compare comp) {
  auto* keys = to_raw_pointer(keys_first);
  using Key = std::remove_pointer_t<decltype(keys)>;
  const auto* begins = to_raw_pointer(begins_first);
  const auto* ends = to_raw_pointer(ends_first);
  using Offset = std::remove_cv_t<std::remove_pointer_t<decltype(begins)>>;
  static_assert(std::is_same_v<Offset, std::remove_cv_t<std::remove_pointer_t<decltype(ends)>>>,
                "gpusort::segmented_sort: begin and end offsets are of the same type");
  static_assert(std::is_integral_v<Offset> && !std::is_same_v<Offset, bool>,
                "gpusort::segmented_sort: offsets are of an integral type (int, unsigned, "
                "long long, std::size_t, ...)");

  const auto signed_count = keys_last - keys_first;
  if (signed_count < 0) throw_usage_error("the range's last precedes its first");
  if (segment_count < 0) throw_usage_error("the segment count is negative");
  if (static_cast<unsigned long long>(segment_count) > 0xffffffffull)
    throw_usage_error("at most 2^32 - 1 segments per call");
  const auto count = static_cast<std::size_t>(signed_count);

  require_no_pending_error();
  const int device = current_device();
  report_bad_offsets(device);  // an earlier call's, that the device has checked since
  if (segment_count == 0) return;
  require_device_memory(begins, "the segment offsets", device);
  if (ends != begins + 1) require_device_memory(ends, "the segment end offsets", device);
  if (count < 2) return;  // nothing to sort
  require_sortable_ranges(keys, values, count, policy.stream(), device);

  const segmented_sort_request<Key, Value, Offset, Compare, Stable> request{
      keys,        values, count, begins, ends, static_cast<std::size_t>(segment_count),
      comp,        policy.stream(), policy.allocator()};
  backend_segmented_sort(policy, request);  // unqualified: ADL finds user backends too
}

// The offsets form: offsets_last - offsets_first - 1 segments (none for an empty range).
template <class OffsetIterator>
long long segments_between(OffsetIterator offsets_first, OffsetIterator offsets_last) {
  const auto offsets = offsets_last - offsets_first;
  if (offsets < 0) throw_usage_error("the offset range's last precedes its first");
  return offsets == 0 ? 0 : static_cast<long long>(offsets) - 1;
}

}  // namespace detail

// Sorts each segment keys[offsets[i], offsets[i + 1]) in the order of `comp`.
template <class Policy, class KeyIt, class OffsetIt, class Compare = less<>,
          class = detail::if_policy_and_comparator_t<Policy, Compare>>
void segmented_sort(const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                    OffsetIt offsets_first, OffsetIt offsets_last, Compare comp = {}) {
  detail::segmented_front_door<false>(policy, keys_first, keys_last,
                                      static_cast<no_values*>(nullptr), offsets_first,
                                      offsets_first + 1,
                                      detail::segments_between(offsets_first, offsets_last), comp);
}

// Sorts each segment keys[begin_offsets[i], end_offsets[i]), i < segment_count.
template <class Policy, class KeyIt, class BeginIt, class EndIt, class Count,
          class Compare = less<>, class = detail::if_policy_and_count_t<Policy, Count>>
void segmented_sort(const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                    BeginIt begin_offsets, EndIt end_offsets, Count segment_count,
                    Compare comp = {}) {
  detail::segmented_front_door<false>(policy, keys_first, keys_last,
                                      static_cast<no_values*>(nullptr), begin_offsets,
                                      end_offsets, static_cast<long long>(segment_count), comp);
}

// As segmented_sort, and equal keys keep their input order within each segment.
template <class Policy, class KeyIt, class OffsetIt, class Compare = less<>,
          class = detail::if_policy_and_comparator_t<Policy, Compare>>
void stable_segmented_sort(const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                           OffsetIt offsets_first, OffsetIt offsets_last, Compare comp = {}) {
  detail::segmented_front_door<true>(policy, keys_first, keys_last,
                                     static_cast<no_values*>(nullptr), offsets_first,
                                     offsets_first + 1,
                                     detail::segments_between(offsets_first, offsets_last), comp);
}

template <class Policy, class KeyIt, class BeginIt, class EndIt, class Count,
          class Compare = less<>, class = detail::if_policy_and_count_t<Policy, Count>>
void stable_segmented_sort(const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                           BeginIt begin_offsets, EndIt end_offsets, Count segment_count,
                           Compare comp = {}) {
  detail::segmented_front_door<true>(policy, keys_first, keys_last,
                                     static_cast<no_values*>(nullptr), begin_offsets,
                                     end_offsets, static_cast<long long>(segment_count), comp);
}

// Sorts each segment's keys and moves the values (as many as keys, from values_first) along.
template <class Policy, class KeyIt, class ValueIt, class OffsetIt, class Compare = less<>,
          class = detail::if_policy_and_comparator_t<Policy, Compare>>
void segmented_sort_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                           ValueIt values_first, OffsetIt offsets_first, OffsetIt offsets_last,
                           Compare comp = {}) {
  detail::segmented_front_door<false>(policy, keys_first, keys_last,
                                      detail::to_raw_pointer(values_first), offsets_first,
                                      offsets_first + 1,
                                      detail::segments_between(offsets_first, offsets_last), comp);
}

template <class Policy, class KeyIt, class ValueIt, class BeginIt, class EndIt, class Count,
          class Compare = less<>, class = detail::if_policy_and_count_t<Policy, Count>>
void segmented_sort_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                           ValueIt values_first, BeginIt begin_offsets, EndIt end_offsets,
                           Count segment_count, Compare comp = {}) {
  detail::segmented_front_door<false>(policy, keys_first, keys_last,
                                      detail::to_raw_pointer(values_first), begin_offsets,
                                      end_offsets, static_cast<long long>(segment_count), comp);
}

// As segmented_sort_by_key, and pairs with equal keys keep their input order.
template <class Policy, class KeyIt, class ValueIt, class OffsetIt, class Compare = less<>,
          class = detail::if_policy_and_comparator_t<Policy, Compare>>
void stable_segmented_sort_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                                  ValueIt values_first, OffsetIt offsets_first,
                                  OffsetIt offsets_last, Compare comp = {}) {
  detail::segmented_front_door<true>(policy, keys_first, keys_last,
                                     detail::to_raw_pointer(values_first), offsets_first,
                                     offsets_first + 1,
                                     detail::segments_between(offsets_first, offsets_last), comp);
}

template <class Policy, class KeyIt, class ValueIt, class BeginIt, class EndIt, class Count,
          class Compare = less<>, class = detail::if_policy_and_count_t<Policy, Count>>
void stable_segmented_sort_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                                  ValueIt values_first, BeginIt begin_offsets,
                                  EndIt end_offsets, Count segment_count, Compare comp = {}) {
  detail::segmented_front_door<true>(policy, keys_first, keys_last,
                                     detail::to_raw_pointer(values_first), begin_offsets,
                                     end_offsets, static_cast<long long>(segment_count), comp);
}

// Throws gpusort::error where a segmented sort on the current device, one that the device
// has already run (synchronise first to be sure), found bad offsets; then forgets them.
inline void check_segmented_sorts() {
  detail::report_bad_offsets(detail::current_device());
}

}  // namespace gpusort
