// Distributed sort over the ranks of a communicator: every rank passes its own device
// range, and afterwards the ranges, taken in rank order, hold the sorted union. Each rank
// keeps as many elements as it passed in; the returned shard says which global ranks
// they are.
//
//   auto comms = gpusort::distributed::communicator::for_local_devices();
//   // on rank r's thread (or process), with its data on comms[r].device():
//   gpusort::distributed::sort(comms[r], keys.begin(), keys.end());
//
// All ranks must call with the same operation, comparator and types. The call blocks the
// host until the exchange is sized; the final merge is ordered on the local policy's
// stream. The local policy (default gpusort::par) sorts each rank's data and supplies the
// stream and allocator. The overloads with a local policy take, after the comparator,
// step_events to time the sort's steps (profiling.cuh).
#pragma once

#include "../execution_policy.cuh"
#include "../functional.cuh"
#include "../sort_request.cuh"
#include "communicator.cuh"
#include "detail/sharded_sort.cuh"
#include "profiling.cuh"
#include "shard.cuh"

#include <type_traits>

namespace gpusort::distributed {
namespace detail {

template <class T>
using if_not_policy_t = std::enable_if_t<!gpusort::is_execution_policy_v<T>>;
template <class T>
using if_policy_t = std::enable_if_t<gpusort::is_execution_policy_v<T>>;

template <bool Stable, class Policy, class KeyIt, class Value, class Compare>
shard distributed_front_door(const communicator& comm, const Policy& local, KeyIt first,
                             KeyIt last, Value* values, const Compare& comp,
                             const step_events& events) {
  const auto signed_count = last - first;
  if (signed_count < 0) gpusort::detail::throw_usage_error("the range's last precedes its first");
  return sharded_sort<Stable>(comm, local, gpusort::detail::to_raw_pointer(first), values,
                              std::size_t(signed_count), comp, events);
}

}  // namespace detail

template <class Policy, class RandomIt, class Compare = less<>,
          class = detail::if_policy_t<Policy>>
shard sort(const communicator& comm, const Policy& local, RandomIt first, RandomIt last,
           Compare comp = {}, const step_events& events = {}) {
  return detail::distributed_front_door<false>(comm, local, first, last,
                                               static_cast<no_values*>(nullptr), comp, events);
}
template <class RandomIt, class Compare = less<>, class = detail::if_not_policy_t<RandomIt>>
shard sort(const communicator& comm, RandomIt first, RandomIt last, Compare comp = {}) {
  return sort(comm, gpusort::par, first, last, comp);
}

template <class Policy, class RandomIt, class Compare = less<>,
          class = detail::if_policy_t<Policy>>
shard stable_sort(const communicator& comm, const Policy& local, RandomIt first, RandomIt last,
                  Compare comp = {}, const step_events& events = {}) {
  return detail::distributed_front_door<true>(comm, local, first, last,
                                              static_cast<no_values*>(nullptr), comp, events);
}
template <class RandomIt, class Compare = less<>, class = detail::if_not_policy_t<RandomIt>>
shard stable_sort(const communicator& comm, RandomIt first, RandomIt last, Compare comp = {}) {
  return stable_sort(comm, gpusort::par, first, last, comp);
}

template <class Policy, class KeyIt, class ValueIt, class Compare = less<>,
          class = detail::if_policy_t<Policy>>
shard sort_by_key(const communicator& comm, const Policy& local, KeyIt keys_first,
                  KeyIt keys_last, ValueIt values_first, Compare comp = {},
                  const step_events& events = {}) {
  return detail::distributed_front_door<false>(comm, local, keys_first, keys_last,
                                               gpusort::detail::to_raw_pointer(values_first),
                                               comp, events);
}
template <class KeyIt, class ValueIt, class Compare = less<>,
          class = detail::if_not_policy_t<KeyIt>>
shard sort_by_key(const communicator& comm, KeyIt keys_first, KeyIt keys_last,
                  ValueIt values_first, Compare comp = {}) {
  return sort_by_key(comm, gpusort::par, keys_first, keys_last, values_first, comp);
}

template <class Policy, class KeyIt, class ValueIt, class Compare = less<>,
          class = detail::if_policy_t<Policy>>
shard stable_sort_by_key(const communicator& comm, const Policy& local, KeyIt keys_first,
                         KeyIt keys_last, ValueIt values_first, Compare comp = {},
                         const step_events& events = {}) {
  return detail::distributed_front_door<true>(comm, local, keys_first, keys_last,
                                              gpusort::detail::to_raw_pointer(values_first),
                                              comp, events);
}
template <class KeyIt, class ValueIt, class Compare = less<>,
          class = detail::if_not_policy_t<KeyIt>>
shard stable_sort_by_key(const communicator& comm, KeyIt keys_first, KeyIt keys_last,
                         ValueIt values_first, Compare comp = {}) {
  return stable_sort_by_key(comm, gpusort::par, keys_first, keys_last, values_first, comp);
}

}  // namespace gpusort::distributed
