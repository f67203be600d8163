// Is there a GPU to run on? Asked before anything else touches CUDA, so that a machine
// without one gets a clear sentence and exit status 0 instead of a failed run.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace gpusort_bench {

struct gpu_lookup {
  bool found = false;
  cudaDeviceProp properties{};  // of the current device (device 0 unless CUDA_VISIBLE_DEVICES says otherwise)
  std::string why_not;          // when !found: what CUDA said
};

inline gpu_lookup find_gpu() {
  gpu_lookup result;
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    result.why_not = cudaGetErrorString(status);
    cudaGetLastError();  // not sticky, but leave no trace either
    return result;
  }
  if (count == 0) {
    result.why_not = "the CUDA runtime reports 0 devices";
    return result;
  }
  int device = 0;
  status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaGetDeviceProperties(&result.properties, device);
  if (status != cudaSuccess) {
    result.why_not = cudaGetErrorString(status);
    return result;
  }
  result.found = true;
  return result;
}

}  // namespace gpusort_bench
