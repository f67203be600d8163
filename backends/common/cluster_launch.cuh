// Thread-block clusters (sm_90 and newer), as the backends whose small sorts run in one
// cluster launch them: whether a kernel can run as a cluster on a device, the largest cluster
// it may have there, the launch itself, and the clusters' shared storage (dynamic, so that
// distributed shared memory addresses the same offset in every block).
#pragma once

#include <gpusort/detail/device_facts.cuh>
#include <gpusort/error.cuh>
#include "dependent_launch.cuh"
#include "kernel_attributes.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpusort::backends {

// An sm_90 block opts in to at most 227 KB of shared memory (sm_100 too; sm_120 99 KB).
inline constexpr std::size_t cluster_shared_limit = 227 * 1024;

// Whether a cluster sort (radix's or merge's) can run on a device, from what the device and
// the kernel as loaded there say: clusters (sm_90 and newer), a kernel compiled for a virtual architecture
// that has them (ptxVersion; one compiled for compute_80, even if the JIT or ptxas made sm_90
// code of it, has an empty body), and the block's shared memory (sm_120 and sm_121 have
// clusters but opt in to 99 KB per block). Where not, the backends' other paths run.
inline bool cluster_sort_runs_on(int compute_major, const cudaFuncAttributes& kernel,
                                 std::size_t shared_optin_bytes, std::size_t storage_bytes) {
  return compute_major >= 9 && kernel.ptxVersion >= 90 && storage_bytes <= shared_optin_bytes;
}

// What a cluster kernel's launch needs set on the current device, on the copy of the kernel
// at `kernel` (kernel_attributes.cuh): its storage_bytes of dynamic shared memory, and
// clusters of up to `cluster_blocks` blocks.
inline void set_cluster_kernel_attributes(const void* kernel, std::size_t storage_bytes,
                                          int cluster_blocks) {
  if (storage_bytes > 0) {
    set_kernel_attribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(storage_bytes),
                         "cluster launch: granting the kernel its shared memory");
    // As many blocks per SM as the shared memory holds, not as the default split with L1
    // allows (the sort by buckets runs many clusters at once).
    set_kernel_attribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                         int(cudaSharedmemCarveoutMaxShared),
                         "cluster launch: preferring shared memory to L1");
  }
  if (cluster_blocks > 8)
    set_kernel_attribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1,
                         "cluster launch: allowing clusters of more than 8 blocks");
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
                     "cluster launch: querying the kernel's attributes");
  if (!cluster_sort_runs_on(facts.compute_major, attributes,
                            std::size_t(facts.shared_bytes_per_block_optin), storage_bytes))
    return 0;
  set_cluster_kernel_attributes(reinterpret_cast<const void*>(kernel), storage_bytes, max_blocks);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(max_blocks));
  config.blockDim = dim3(unsigned(block_threads));
  config.dynamicSmemBytes = storage_bytes;
  int blocks = 0;
  detail::check_cuda(cudaOccupancyMaxPotentialClusterSize(&blocks, kernel, &config),
                     "cluster launch: querying the largest cluster");
  return blocks < max_blocks ? blocks : max_blocks;
}

// Launches `kernel` as `clusters` clusters of `cluster_blocks` blocks each (a plain launch
// for clusters of one block), with the shape's threads and shared memory, set on this copy of
// the kernel first (ask_max_cluster_blocks may have asked another file's copy). With
// `overlap_previous`, the launch may overlap the previous kernel's end (launch_dependent's
// rules: the kernel waits for it with wait_for_previous_kernel).
template <class... Params, class... Args>
void launch_clusters(void (*kernel)(Params...), unsigned clusters, unsigned cluster_blocks,
                     int block_threads, std::size_t storage_bytes, cudaStream_t stream,
                     bool overlap_previous, const char* what, Args... args) {
  set_cluster_kernel_attributes(reinterpret_cast<const void*>(kernel), storage_bytes,
                                int(cluster_blocks));
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

// The block's Storage in dynamic shared memory: the launch gives it sizeof(Storage) bytes.
template <class Storage>
__device__ __forceinline__ Storage& cluster_shared() {
  extern __shared__ __align__(16) unsigned char cluster_dynamic_storage[];
  return *reinterpret_cast<Storage*>(cluster_dynamic_storage);
}

}  // namespace gpusort::backends
