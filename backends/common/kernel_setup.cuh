// Per-kernel settings that a launch needs but that stay set once made: done once per device
// (the setting belongs to the device's context), not at every sort call.
#pragma once

#include "../../gpusort/detail/per_device.cuh"
#include "../../gpusort/error.cuh"

#include <cuda_runtime_api.h>

namespace gpusort::backends {

// Lets Kernel use `Bytes` of dynamic shared memory on the current device (above 48 KB a
// kernel must opt in).
template <auto Kernel, int Bytes>
void allow_dynamic_shared_memory(const char* doing) {
  static detail::per_device<bool> allowed;
  allowed.get(detail::current_device(), [doing](int) {
    detail::check_cuda(
        cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Bytes), doing);
    return true;
  });
}

}  // namespace gpusort::backends
