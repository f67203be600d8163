// Programmatic dependent launch (sm_90 and newer): a kernel launched with
// launch_dependent may start while the kernel before it in the stream is still running its
// last blocks, which hides the launch gap between short kernels. Such a kernel calls
// wait_for_previous_kernel() before it touches global memory that earlier kernels read or
// write: that waits until the previous kernel has finished and its writes are visible. Each
// kernel calls let_next_kernel_start() once its own launch has nothing left to overlap (after
// its loads): the next kernel's blocks may then be placed. On older GPUs the launch is an
// ordinary one and both calls compile to nothing. Also the cooperative launch (every block
// resident at once), which shares the launch with one attribute.
#pragma once

#include <gpusort/error.cuh>

#include <cuda_runtime_api.h>
#include <nv/target>

#include <utility>

namespace gpusort::backends {

__device__ __forceinline__ void wait_for_previous_kernel() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (cudaGridDependencySynchronize();));
}

__device__ __forceinline__ void let_next_kernel_start() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (cudaTriggerProgrammaticLaunchCompletion();));
}

// kernel<<<grid, block, 0, stream>>>(args...) with one launch attribute. A failed launch
// throws gpusort::error, naming `kernel_name`.
template <class... Params, class... Args>
void launch_with_attribute(const cudaLaunchAttribute& attribute, void (*kernel)(Params...),
                           unsigned grid, int block, cudaStream_t stream,
                           const char* kernel_name, Args&&... args) {
  cudaLaunchAttribute attributes[1] = {attribute};
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(unsigned(block));
  config.stream = stream;
  config.attrs = attributes;
  config.numAttrs = 1;
  detail::check_cuda(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...),
                     kernel_name);
}

// kernel<<<grid, block, 0, stream>>>(args...), allowed to overlap the previous kernel's end.
template <class... Params, class... Args>
void launch_dependent(void (*kernel)(Params...), unsigned grid, int block, cudaStream_t stream,
                      const char* kernel_name, Args&&... args) {
  cudaLaunchAttribute overlap{};
  overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  launch_with_attribute(overlap, kernel, grid, block, stream, kernel_name,
                        std::forward<Args>(args)...);
}

// kernel<<<grid, block, 0, stream>>>(args...) as a cooperative launch: every block resident
// at once (grid at most the resident blocks), for grid-wide barriers.
template <class... Params, class... Args>
void launch_cooperative(void (*kernel)(Params...), unsigned grid, int block,
                        cudaStream_t stream, const char* kernel_name, Args&&... args) {
  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  launch_with_attribute(cooperative, kernel, grid, block, stream, kernel_name,
                        std::forward<Args>(args)...);
}

}  // namespace gpusort::backends
