// Host side of the cluster sort (cluster_kernels.cuh): how many keys one cluster can take on
// the current device, and the single launch (cluster_launch.cuh). No temporary storage, no
// synchronisation.
#pragma once

#include <gpusort/detail/device_facts.cuh>
#include <gpusort/detail/policies/comparator_traits.cuh>
#include <gpusort/error.cuh>
#include <gpusort/sort_request.cuh>
#include "../common/cluster_launch.cuh"
#include "cluster_kernels.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpusort::backends::radix {

template <class Tiling, class Key, class Value>
struct cluster_sorter {
  using shape = cluster_shape<Tiling, Key, Value>;
  using storage_t = cluster_storage<shape, Value>;
  static_assert(sizeof(storage_t) <= cluster_shared_limit,
                "gpusort: a cluster-sort tiling needs more shared memory than a block has; give "
                "it fewer items per thread for this key and value type");
  static constexpr auto kernel = cluster_sort_kernel<shape, Value>;

  // The most blocks one cluster of this shape can have on the current device: 0 before
  // sm_90 (no clusters); below shape::max_blocks where the GPU's layout allows fewer. Asked
  // once per device (launch_clusters grants the launched kernel its shared memory).
  static int max_blocks() {
    static detail::per_device<int> known;
    return known.get(detail::current_device(), ask_max_blocks);
  }

  static std::size_t capacity() { return std::size_t(shape::tile_items) * max_blocks(); }

  // Sorts the request's keys (and values), count <= capacity(), in one launch on its stream.
  template <class Compare, bool Stable>
  static void sort(const sort_request<Key, Value, Compare, Stable>& request) {
    constexpr bool descending = comparator_order_v<Compare, Key> == key_order::descending;
    using bits_type = typename shape::bits_type;
    const bits_type flip = order_flip<Key>(descending);
    const unsigned blocks = unsigned(tile_count(request.count, shape::tile_items));
    launch_clusters(kernel, 1, blocks, shape::block_threads, sizeof(storage_t), request.stream,
                    /*overlap_previous=*/false, "radix sort: cluster_sort_kernel", request.keys,
                    request.values, int(request.count), flip);
  }

 private:
  static int ask_max_blocks(int device) {
    return ask_max_cluster_blocks(device, kernel, shape::block_threads, sizeof(storage_t),
                                  shape::max_blocks);
  }
};

// Sorts the request in one cluster launch where one cluster of Tiling holds it on the current
// device; false, and nothing done, where not (n too large here, or no cluster sort on this
// GPU: cluster_sort_runs_on).
template <class Tiling, class Key, class Value, class Compare, bool Stable>
bool sort_in_one_cluster(const sort_request<Key, Value, Compare, Stable>& request) {
  using sorter = cluster_sorter<Tiling, Key, Value>;
  if (request.count > sorter::capacity()) return false;
  sorter::sort(request);
  return true;
}

}  // namespace gpusort::backends::radix
