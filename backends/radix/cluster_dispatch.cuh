// Host side of the cluster sort (cluster_kernels.cuh): how many keys one cluster can take on
// the current device, and the single launch. No temporary storage, no synchronisation.
#pragma once

#include "../../gpusort/detail/device_facts.cuh"
#include "../../gpusort/error.cuh"
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

template <class Tiling, int DigitBits, class Key, class Value>
struct cluster_sorter {
  using shape = cluster_shape<Tiling, DigitBits, Key, Value>;
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

  // Sorts keys[0, n), n <= capacity(), in one launch on `stream`.
  static void sort(Key* keys, Value* values, std::size_t n, bool descending, cudaStream_t stream) {
    using bits_type = typename shape::bits_type;
    const bits_type flip =
        descending ? descending_mask<bits_type>(shape::traits::bits) : bits_type(0);
    const unsigned blocks = unsigned(tile_count(n, shape::tile_items));
    cudaLaunchAttribute cluster_size{};
    cluster_size.id = cudaLaunchAttributeClusterDimension;
    cluster_size.val.clusterDim.x = blocks;
    cluster_size.val.clusterDim.y = 1;
    cluster_size.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(shape::block_threads);
    config.dynamicSmemBytes = sizeof(storage_t);
    config.stream = stream;
    config.attrs = &cluster_size;
    config.numAttrs = blocks > 1 ? 1 : 0;  // one block: a plain launch
    detail::check_cuda(cudaLaunchKernelEx(&config, kernel, keys, values, int(n), flip),
                       "radix sort: cluster_sort_kernel");
  }

 private:
  static int ask_max_blocks(int device) {
    if (detail::facts_of_device(device).compute_major < 9) return 0;  // nothing to ask
    cudaFuncAttributes attributes{};
    detail::check_cuda(cudaFuncGetAttributes(&attributes, kernel),
                       "cluster sort: querying the kernel's attributes");
    int shared_optin = 0;
    detail::check_cuda(
        cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
        "cluster sort: querying the shared memory per block");
    if (!cluster_sort_runs_on(detail::facts_of_device(device).compute_major, attributes,
                              std::size_t(shared_optin), sizeof(storage_t)))
      return 0;
    detail::check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            int(sizeof(storage_t))),
                       "cluster sort: granting the kernel its shared memory");
    if (shape::max_blocks > 8)
      detail::check_cuda(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
          "cluster sort: allowing clusters of more than 8 blocks");
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(shape::max_blocks);
    config.blockDim = dim3(shape::block_threads);
    config.dynamicSmemBytes = sizeof(storage_t);
    int blocks = 0;
    detail::check_cuda(cudaOccupancyMaxPotentialClusterSize(&blocks, kernel, &config),
                       "cluster sort: querying the largest cluster");
    return blocks < shape::max_blocks ? blocks : shape::max_blocks;
  }
};

}  // namespace gpusort::backends::radix
