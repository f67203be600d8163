// Host side of the sorting network for the smallest inputs (network_kernels.cuh): whether it
// takes a request here, and its one launch. No temporary storage, no synchronisation.
#pragma once

#include <gpusort/detail/device_facts.cuh>
#include <gpusort/detail/per_device.cuh>
#include <gpusort/detail/policies/comparator_traits.cuh>
#include <gpusort/detail/policies/tuning/knobs.cuh>
#include <gpusort/error.cuh>
#include <gpusort/sort_request.cuh>
#include "../common/tiles.cuh"
#include "cluster_dispatch.cuh"
#include "network_kernels.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpusort::backends::radix {

template <class NetworkTiling, int ClusterBlocks>
using network_shape_of =
    network_shape<NetworkTiling::knobs.block_threads, NetworkTiling::knobs.items_per_thread,
                  ClusterBlocks>;

// The network's kernel for keys only, or for keys with values.
template <class Shape, class Key, class Value>
constexpr auto network_kernel() {
  if constexpr (has_values_v<Value>)
    return network_sort_pairs_kernel<Shape, Key, Value>;
  else
    return network_sort_kernel<Shape, Key>;
}

// Whether clusters of the network's blocks run on the current device: sm_90 and newer, with
// the kernel compiled for a virtual architecture that has them (cluster_sort_runs_on).
template <class Shape, class Key, class Value>
bool network_clusters_run_here() {
  static detail::per_device<bool> known;
  return known.get(detail::current_device(), [](int device) {
    const detail::device_facts& facts = detail::facts_of_device(device);
    if (facts.compute_major < 9) return false;
    cudaFuncAttributes attributes{};
    detail::check_cuda(cudaFuncGetAttributes(&attributes, network_kernel<Shape, Key, Value>()),
                       "sorting network: querying the kernel's attributes");
    return cluster_sort_runs_on(facts.compute_major, attributes,
                                std::size_t(facts.shared_bytes_per_block_optin), 0);
  });
}

// Sorts the request with one sorting network where it takes it: keys (and values) of types
// network_sorts_v names, and count at most max_keys and one cluster's keys (one block's
// before sm_90). False, and nothing done, where not.
template <class NetworkTiling, class Key, class Value, class Compare, bool Stable>
bool sort_by_network_if_small(const sort_request<Key, Value, Compare, Stable>& request,
                              std::size_t max_keys = ~std::size_t(0)) {
  if constexpr (!network_sorts_v<Key, Value>) {
    return false;
  } else {
    if (request.count > max_keys) return false;
    constexpr network_knobs knobs = NetworkTiling::knobs;
    constexpr int block_keys = knobs.block_threads * knobs.items_per_thread;
    const std::size_t blocks = tile_count(request.count, block_keys);
    if (blocks > std::size_t(knobs.max_cluster_blocks)) return false;
    constexpr bool descending = comparator_order_v<Compare, Key> == key_order::descending;
    const ordered_bits_t<Key> flip = order_flip<Key>(descending);
    const auto launch = [&](auto cluster_blocks) {
      using shape = network_shape_of<NetworkTiling, decltype(cluster_blocks)::value>;
      if (shape::cluster_blocks > 1 && !network_clusters_run_here<shape, Key, Value>())
        return false;
      if constexpr (has_values_v<Value>)
        launch_clusters(network_kernel<shape, Key, Value>(), 1, shape::cluster_blocks,
                        shape::block_threads, 0, request.stream, /*overlap_previous=*/false,
                        "radix sort: network_sort_pairs_kernel", request.keys, request.values,
                        int(request.count), flip);
      else
        launch_clusters(network_kernel<shape, Key, Value>(), 1, shape::cluster_blocks,
                        shape::block_threads, 0, request.stream, /*overlap_previous=*/false,
                        "radix sort: network_sort_kernel", request.keys, int(request.count),
                        flip);
      return true;
    };
    if (blocks <= 1) return launch(std::integral_constant<int, 1>{});
    if constexpr (knobs.max_cluster_blocks >= 2)
      if (blocks <= 2) return launch(std::integral_constant<int, 2>{});
    if constexpr (knobs.max_cluster_blocks >= 4)
      if (blocks <= 4) return launch(std::integral_constant<int, 4>{});
    if constexpr (knobs.max_cluster_blocks >= 8) return launch(std::integral_constant<int, 8>{});
    return false;
  }
}

}  // namespace gpusort::backends::radix
