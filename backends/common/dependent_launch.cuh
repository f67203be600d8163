// Programmatic dependent launch (sm_90 and newer): a kernel launched with
// launch_dependent may start while the kernel before it in the stream is still running its
// last blocks, which hides the launch gap between short kernels. Such a kernel calls
// wait_for_previous_kernel() before it touches global memory that earlier kernels read or
// write: that waits until the previous kernel has finished and its writes are visible. A
// kernel may call let_next_kernel_start() once its own launch has nothing left to overlap
// (after its loads): the next kernel's blocks may then be placed; without it they are placed
// as its blocks end (the radix LSD passes, which ran slower placed early). On older GPUs the
// launch is an ordinary one and both calls compile to nothing. Also the cooperative launch
// (every block resident at once), which shares the launch with one attribute.
#pragma once

#include <gpusort/error.cuh>

#include <cuda_runtime_api.h>
#include <nv/target>

#include <cstddef>
#include <utility>

namespace gpusort::backends {

__device__ __forceinline__ void wait_for_previous_kernel() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (cudaGridDependencySynchronize();));
}

__device__ __forceinline__ void let_next_kernel_start() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (cudaTriggerProgrammaticLaunchCompletion();));
}

// Kernels of disjoint work that run at once (launch_dependent's exception below). The first
// one launched waits for the kernel before it at its top; every one lets the next start by
// its end, and a later one waits for its predecessor there instead, so that each ends after
// the one before it. Every block calls both, a block without work too.
__device__ __forceinline__ void begin_running_at_once(bool first_launched) {
  if (first_launched) wait_for_previous_kernel();
}
__device__ __forceinline__ void end_running_at_once(bool first_launched) {
  let_next_kernel_start();
  if (!first_launched) wait_for_previous_kernel();
}

// kernel<<<grid, block, shared_bytes, stream>>>(args...) with `count` launch attributes. A
// failed launch throws gpusort::error, naming `kernel_name`.
template <class... Params, class... Args>
void launch_with_attributes(cudaLaunchAttribute* attributes, unsigned count,
                            void (*kernel)(Params...), unsigned grid, int block,
                            std::size_t shared_bytes, cudaStream_t stream,
                            const char* kernel_name, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(unsigned(block));
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = attributes;
  config.numAttrs = count;
  detail::check_cuda(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...),
                     kernel_name);
}

// The attribute that lets a launch overlap the end of the kernel before it in the stream.
inline cudaLaunchAttribute overlap_previous_kernel() {
  cudaLaunchAttribute overlap{};
  overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  return overlap;
}

// kernel<<<grid, block, shared_bytes, stream>>>(args...), allowed to overlap the previous
// kernel's end. The kernel calls wait_for_previous_kernel() before it touches what earlier
// kernels wrote, and in at least one block before it ends even where it has nothing to do:
// a later kernel's wait covers this one's predecessors only through this one's own wait.
// One exception, for kernels of disjoint work that run at once (the segmented sort's
// classes, segmented/kernels.cuh): the first of them waits at its top and then lets the
// next start; each later one reads only what that first wait covered (it is placed after
// every block of the first issued the trigger, past its wait), and waits at its end instead,
// so that each ends after the one before it (begin_running_at_once, end_running_at_once).
template <class... Params, class... Args>
void launch_dependent(void (*kernel)(Params...), unsigned grid, int block,
                      std::size_t shared_bytes, cudaStream_t stream, const char* kernel_name,
                      Args&&... args) {
  cudaLaunchAttribute attributes[1] = {overlap_previous_kernel()};
  launch_with_attributes(attributes, 1, kernel, grid, block, shared_bytes, stream, kernel_name,
                         std::forward<Args>(args)...);
}

// kernel<<<grid, block, shared_bytes, stream>>>(args...) as a cooperative launch: every
// block resident at once (grid at most the resident blocks), for grid-wide barriers.
template <class... Params, class... Args>
void launch_cooperative(void (*kernel)(Params...), unsigned grid, int block,
                        std::size_t shared_bytes, cudaStream_t stream, const char* kernel_name,
                        Args&&... args) {
  cudaLaunchAttribute attributes[1] = {};
  attributes[0].id = cudaLaunchAttributeCooperative;
  attributes[0].val.cooperative = 1;
  launch_with_attributes(attributes, 1, kernel, grid, block, shared_bytes, stream, kernel_name,
                         std::forward<Args>(args)...);
}

}  // namespace gpusort::backends
