// gpusort's front door: everything a user needs comes from this header.
//
//   gpusort::sort(gpusort::par.on(stream), keys.begin(), keys.end());
//   gpusort::stable_sort_by_key(gpusort::radix, keys, keys + n, values, gpusort::greater<>{});
//   gpusort::segmented_sort(gpusort::par, keys, keys + n, offsets, offsets + segments + 1);
//
// Every call checks its arguments, unwraps iterators to raw device pointers, and hands a
// gpusort::sort_request to the policy's backend_sort overload (built-in or user-defined,
// found by argument-dependent lookup).
#pragma once

#include <gpusort/detail/policies/backend_sort.cuh>
#include <gpusort/detail/policies/comparator_traits.cuh>
#include <gpusort/detail/policies/key_traits.cuh>
#include <gpusort/detail/policies/select.cuh>
#include "detail/device_range.cuh"
#include "error.cuh"
#include "execution_policy.cuh"
#include "functional.cuh"
#include "memory.cuh"
#include "sort_request.cuh"

#include <cstddef>
#include <type_traits>

namespace gpusort {
namespace detail {

template <class Policy>
using if_policy_t = std::enable_if_t<is_execution_policy_v<Policy>>;

template <bool Stable, class Policy, class KeyIterator, class Value, class Compare>
void sort_front_door(const Policy& policy, KeyIterator keys_first, KeyIterator keys_last,
                     Value* values, Compare comp) {
  auto* keys = to_raw_pointer(keys_first);
  using Key = std::remove_pointer_t<decltype(keys)>;
  const auto signed_count = keys_last - keys_first;
  if (signed_count < 0) throw_usage_error("the range's last precedes its first");
  const auto count = static_cast<std::size_t>(signed_count);
  if (count < 2) return;  // already sorted; null pointers are fine here

  // First, so that an earlier failure is reported as such and not as one of the checks'.
  require_no_pending_error();
  require_sortable_ranges(keys, values, count, policy.stream(), current_device());

  const sort_request<Key, Value, Compare, Stable> request{
      keys, values, count, comp, policy.stream(), policy.allocator()};
  backend_sort(policy, request);  // unqualified: ADL finds user backends too
}

template <class ValueIterator>
auto values_pointer(ValueIterator values_first) {
  return to_raw_pointer(values_first);
}

}  // namespace detail

// Sorts [first, last) in the order of `comp` (default gpusort::less<>). The radix
// backends are stable even here; other backends need not be.
template <class Policy, class RandomIt, class Compare = less<>, class = detail::if_policy_t<Policy>>
void sort(const Policy& policy, RandomIt first, RandomIt last, Compare comp = {}) {
  detail::sort_front_door<false>(policy, first, last, static_cast<no_values*>(nullptr), comp);
}

// As sort, and equal keys keep their input order.
template <class Policy, class RandomIt, class Compare = less<>, class = detail::if_policy_t<Policy>>
void stable_sort(const Policy& policy, RandomIt first, RandomIt last, Compare comp = {}) {
  detail::sort_front_door<true>(policy, first, last, static_cast<no_values*>(nullptr), comp);
}

// Sorts the keys [keys_first, keys_last) and moves the values starting at values_first
// (as many as keys) along with them.
template <class Policy, class KeyIt, class ValueIt, class Compare = less<>,
          class = detail::if_policy_t<Policy>>
void sort_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                 Compare comp = {}) {
  detail::sort_front_door<false>(policy, keys_first, keys_last,
                                 detail::values_pointer(values_first), comp);
}

// As sort_by_key, and pairs with equal keys keep their input order.
template <class Policy, class KeyIt, class ValueIt, class Compare = less<>,
          class = detail::if_policy_t<Policy>>
void stable_sort_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                        ValueIt values_first, Compare comp = {}) {
  detail::sort_front_door<true>(policy, keys_first, keys_last,
                                detail::values_pointer(values_first), comp);
}

}  // namespace gpusort

#include "segmented_sort.cuh"  // many independent sorts in one call
