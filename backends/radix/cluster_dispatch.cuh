// Host side of the cluster sort (cluster_kernels.cuh): how many keys one cluster can take on
// the current device, and the single launch. No temporary storage, no synchronisation.
#pragma once

#include <gpusort/detail/device_facts.cuh>
#include <gpusort/detail/policies/comparator_traits.cuh>
#include <gpusort/error.cuh>
#include <gpusort/sort_request.cuh>
#include "../common/dependent_launch.cuh"
#include "cluster_kernels.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpusort::backends::radix {

// An sm_90 block opts in to at most 227 KB of shared memory (sm_100 too; sm_120 99 KB).
inline constexpr std::size_t cluster_shared_limit = 227 * 1024;

// Whether the cluster sort can run on a device, from what the device and the kernel as
// loaded there say: clusters (sm_90 and newer), a kernel compiled for a virtual architecture
// that has them (ptxVersion; one compiled for compute_80, even if the JIT or ptxas made sm_90
// code of it, has an empty body), and the block's shared memory (sm_120 and sm_121 have
// clusters but opt in to 99 KB per block). Where not, par's other strategies run.
inline bool cluster_sort_runs_on(int compute_major, const cudaFuncAttributes& kernel,
                                 std::size_t shared_optin_bytes, std::size_t storage_bytes) {
  return compute_major >= 9 && kernel.ptxVersion >= 90 && storage_bytes <= shared_optin_bytes;
}

// The most blocks one cluster of `kernel` (block_threads threads, storage_bytes of dynamic
// shared memory each) can have on `device`, at most max_blocks: 0 before sm_90 (no clusters)
// or where the kernel cannot run there (cluster_sort_runs_on). Grants the kernel its shared
// memory on the device (and clusters of more than 8 blocks where max_blocks asks for them).
template <class Kernel>
int ask_max_cluster_blocks(int device, Kernel* kernel, int block_threads,
                           std::size_t storage_bytes, int max_blocks) {
  const detail::device_facts& facts = detail::facts_of_device(device);
  if (facts.compute_major < 9) return 0;  // nothing to ask
  cudaFuncAttributes attributes{};
  detail::check_cuda(cudaFuncGetAttributes(&attributes, kernel),
                     "cluster sort: querying the kernel's attributes");
  if (!cluster_sort_runs_on(facts.compute_major, attributes,
                            std::size_t(facts.shared_bytes_per_block_optin), storage_bytes))
    return 0;
  detail::check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          int(storage_bytes)),
                     "cluster sort: granting the kernel its shared memory");
  // As many blocks per SM as the shared memory holds, not as the default split with L1 allows
  // (the sort by buckets runs many clusters at once).
  detail::check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                          int(cudaSharedmemCarveoutMaxShared)),
                     "cluster sort: preferring shared memory to L1");
  if (max_blocks > 8)
    detail::check_cuda(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
        "cluster sort: allowing clusters of more than 8 blocks");
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(max_blocks));
  config.blockDim = dim3(unsigned(block_threads));
  config.dynamicSmemBytes = storage_bytes;
  int blocks = 0;
  detail::check_cuda(cudaOccupancyMaxPotentialClusterSize(&blocks, kernel, &config),
                     "cluster sort: querying the largest cluster");
  return blocks < max_blocks ? blocks : max_blocks;
}

// Launches `kernel` as `clusters` clusters of `cluster_blocks` blocks each (a plain launch
// for clusters of one block), with the shape's threads and shared memory. With
// `overlap_previous`, the launch may overlap the previous kernel's end (launch_dependent's
// rules: the kernel waits for it with wait_for_previous_kernel).
template <class... Params, class... Args>
void launch_clusters(void (*kernel)(Params...), unsigned clusters, unsigned cluster_blocks,
                     int block_threads, std::size_t storage_bytes, cudaStream_t stream,
                     bool overlap_previous, const char* what, Args... args) {
  cudaLaunchAttribute attributes[2]{};
  unsigned count = 0;
  if (cluster_blocks > 1) {
    attributes[count].id = cudaLaunchAttributeClusterDimension;
    attributes[count].val.clusterDim.x = cluster_blocks;
    attributes[count].val.clusterDim.y = 1;
    attributes[count].val.clusterDim.z = 1;
    ++count;
  }
  if (overlap_previous) attributes[count++] = overlap_previous_kernel();
  launch_with_attributes(attributes, count, kernel, clusters * cluster_blocks, block_threads,
                         storage_bytes, stream, what, args...);
}

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
  // once per device; the first call also grants the kernel its shared memory there.
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
