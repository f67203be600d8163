// The built-in policies' overloads of backend_sort: how each policy reaches its backend.
// User policies add their own overload in their own namespace (found by ADL).
#pragma once

#include <gpusort/detail/backends/bucket_bitonic/dispatch.cuh>
#include <gpusort/detail/backends/common/ordered_bits.cuh>
#include <gpusort/detail/backends/merge/dispatch.cuh>
#include <gpusort/detail/backends/radix/cluster_dispatch.cuh>
#include <gpusort/detail/backends/radix/dispatch.cuh>
#include <gpusort/detail/backends/radix/msd_buckets.cuh>
#include <gpusort/detail/backends/radix/network_dispatch.cuh>
#include <gpusort/execution_policy.cuh>
#include <gpusort/sort_request.cuh>
#include "policy_requirements.cuh"
#include "select.cuh"
#include <gpusort/detail/device_facts.cuh>
#include "tuning/par_tables.cuh"

#include <cstddef>
#include <type_traits>

namespace gpusort {

namespace detail {

// The merge, mid-tile and pair-tile strategies cost compile time in every TU that sorts keys
// with par; each is compiled only for keys (and values) whose class a table gives it (merge:
// 8-byte keys on the H100 and H200) or where a pinned policy asks.
constexpr bool any_par_table_names(par_strategy strategy, int key_bytes, bool with_values) {
  for (const par_tuned_table& table : par_tuned_tables)
    if (table_names_for(table.rows, table.row_count, key_bytes, with_values, strategy))
      return true;
  return table_names_for(par_table_other_gpus.rows, par_table_other_gpus.row_count, key_bytes,
                         with_values, strategy);
}
template <class Key>
inline constexpr bool par_tables_name_merge_for =
    any_par_table_names(par_strategy::merge, int(sizeof(Key)), false) ||
    any_par_table_names(par_strategy::merge, int(sizeof(Key)), true);
template <class Key, class Value>
inline constexpr bool par_tables_name_mid_tiles_for =
    any_par_table_names(par_strategy::onesweep_mid_tiles, int(sizeof(Key)), has_values_v<Value>);
template <class Key, class Value>
inline constexpr bool par_tables_name_pair_tiles_for =
    any_par_table_names(par_strategy::onesweep_pair_tiles, int(sizeof(Key)), has_values_v<Value>);

// The dispatch table of a device, chosen once per device from its compute capability and
// memory bandwidth.
inline const par_tuned_table& par_table_of_current_device() {
  static per_device<const par_tuned_table*> chosen;
  return *chosen.get(current_device(), [](int device) {
    const device_facts& facts = facts_of_device(device);
    const par_tuned_table* table = choose_par_table(
        par_tuned_tables, facts.compute_major, facts.compute_minor, facts.peak_memory_bandwidth);
    return table != nullptr ? table : &par_table_other_gpus;
  });
}

template <class Key, class Value, class Compare>
par_strategy par_strategy_for(const par_tuned_table& table, std::size_t n) {
  constexpr bool with_values = has_values_v<Value>;
  return choose_par_strategy(table.rows, table.row_count, int(sizeof(Key)), with_values, n,
                             par_tables_name_merge_for<Key>, std::is_integral_v<Key>);
}

// gpusort::par on radix keys: the strategy the table names, run. No synchronisation, no
// device-to-host copy: n and the device's properties decide. The merge strategy is compiled
// only with MergeCompiled, the mid tiles only with MidTilesCompiled, the pair tiles only with
// PairTilesCompiled (else the one-sweep sort runs in their place).
template <bool MergeCompiled, bool MidTilesCompiled, bool PairTilesCompiled, class Key,
          class Value, class Compare, bool Stable>
void run_par_strategy(par_strategy strategy,
                      const sort_request<Key, Value, Compare, Stable>& request) {
  namespace radix = backends::radix;
  switch (strategy) {
    // Where the cluster sort cannot run (a GPU without clusters or without the shared memory,
    // code compiled for an older target) or n is more than a cluster holds here, the small
    // tiles take its place: at the sizes tables give clusters, they beat the large tiles on
    // every GPU measured (bench/results/2026-11-23-h100-par-sweep.json.xz).
    case par_strategy::cluster_small:
      if (!radix::sort_in_one_cluster<cluster_tiling_small_sm90>(request))
        radix::sort<radix_tuning_small_tiles_sm90>(request);
      return;
    case par_strategy::cluster_medium:
      if (!radix::sort_in_one_cluster<cluster_tiling_medium_sm90>(request))
        radix::sort<radix_tuning_small_tiles_sm90>(request);
      return;
    case par_strategy::merge:
      if constexpr (MergeCompiled) {
        // Keys compared in the radix order (floats: -0.0 equal to +0.0, every NaN one value
        // after +inf), reversed for a descending sort, and stable even for sort_by_key: the
        // output is the radix sort's, bit for bit, as par promises at every size.
        constexpr bool descending = comparator_order_v<Compare, Key> == key_order::descending;
        using radix_order = backends::radix_order_less<Key, descending>;
        const sort_request<Key, Value, radix_order, true> stable{
            request.keys, request.values, request.count, radix_order{}, request.stream,
            request.allocator};
        // (par gives merge only sizes far below the sample sort's.)
        backends::merge::sort<merge_tuning_sm90, false>(stable);
        return;
      }
      break;
    case par_strategy::onesweep_small_tiles:
      radix::sort<radix_tuning_small_tiles_sm90>(request);
      return;
    case par_strategy::onesweep_mid_tiles:
      if constexpr (MidTilesCompiled) {
        radix::sort<radix_tuning_mid_tiles_sm90>(request);
        return;
      }
      break;
    case par_strategy::onesweep_pair_tiles:
      if constexpr (PairTilesCompiled) {
        radix::sort<radix_tuning_pair_tiles_sm90>(request);
        return;
      }
      break;
    // Where the buckets' clusters cannot run or n is too large for them here, the small tiles.
    // Narrow keys are counted from the counting sort's threshold on, as in radix::sort.
    case par_strategy::msd_buckets:
      if (radix::sort_by_counting_if_narrow<radix_tuning_small_tiles_sm90>(request)) return;
      if (!radix::sort_by_msd_buckets<radix_tuning_small_tiles_sm90,
                                      cluster_tiling_buckets_sm90>(request))
        radix::sort<radix_tuning_small_tiles_sm90>(request);
      return;
    case par_strategy::onesweep:
      break;
  }
  radix::sort<radix_tuning_sm90>(request);
}

}  // namespace detail

template <class Tuning, class Key, class Value, class Compare, bool Stable>
void backend_sort(const radix_policy<Tuning>&, const sort_request<Key, Value, Compare, Stable>& request) {
  if constexpr (detail::radix_policy_serves<Key, Compare>())
    backends::radix::sort<Tuning>(request);
}

template <class Key, class Value, class Compare, bool Stable>
void backend_sort(const par_policy&, const sort_request<Key, Value, Compare, Stable>& request) {
  if constexpr (std::is_same_v<automatic_backend_t<Key, Compare>, radix_backend>) {
    // The smallest inputs of 32-bit keys: one sorting network, faster there than every
    // strategy the tables choose among (tuning/sm90.cuh, network_tiling_sm90 and
    // network_tiling_with_values_sm90); pairs up to as many keys as the device's table says.
    // The device's table is looked up once a call, after the keys' network (which needs none).
    if constexpr (!has_values_v<Value>)
      if (backends::radix::sort_by_network_if_small<network_tiling_sm90>(request)) return;
    const par_tuned_table& table = detail::par_table_of_current_device();
    if constexpr (has_values_v<Value> && backends::radix::network_sorts_v<Key, Value>)
      if (backends::radix::sort_by_network_if_small<network_tiling_with_values_sm90>(
              request, table.network_pairs_max_keys))
        return;
    detail::run_par_strategy<detail::par_tables_name_merge_for<Key>,
                             detail::par_tables_name_mid_tiles_for<Key, Value>,
                             detail::par_tables_name_pair_tiles_for<Key, Value>>(
        detail::par_strategy_for<Key, Value, Compare>(table, request.count), request);
  } else {
    if constexpr (detail::par_comparison_serves<Key, Compare>())
      backends::merge::sort<merge_tuning_sm90>(request);
  }
}

template <par_strategy Strategy, class Key, class Value, class Compare, bool Stable>
void backend_sort(const pinned_par_policy<Strategy>&,
                  const sort_request<Key, Value, Compare, Stable>& request) {
  if constexpr (std::is_same_v<automatic_backend_t<Key, Compare>, radix_backend>)
    detail::run_par_strategy<Strategy == par_strategy::merge,
                             Strategy == par_strategy::onesweep_mid_tiles,
                             Strategy == par_strategy::onesweep_pair_tiles>(Strategy, request);
  else
    backend_sort(par, request);
}

template <class Tuning, class Key, class Value, class Compare, bool Stable>
void backend_sort(const bucket_bitonic_policy<Tuning>&,
                  const sort_request<Key, Value, Compare, Stable>& request) {
  if constexpr (detail::bucket_bitonic_policy_serves<Key, Compare, Stable>())
    backends::bucket_bitonic::sort<Tuning>(request);
}

template <class Tuning, class Key, class Value, class Compare, bool Stable>
void backend_sort(const merge_policy<Tuning>&, const sort_request<Key, Value, Compare, Stable>& request) {
  if constexpr (detail::merge_policy_serves<Key, Compare>())
    backends::merge::sort<Tuning>(request);
}

// Chosen only when no overload matches the policy more closely.
template <class Policy, class Request>
void backend_sort(const execution_policy<Policy>&, const Request&) {
  static_assert(detail::always_false_v<Policy, Request>,
                "gpusort: this policy has no backend. A user-defined policy needs, in its own "
                "namespace, `template <class K, class V, class C, bool S> void backend_sort(const "
                "my_policy&, const gpusort::sort_request<K, V, C, S>&);` (see README, custom "
                "backends).");
}

}  // namespace gpusort
