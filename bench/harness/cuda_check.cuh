// The one checking helper of the benchmark harness: every CUDA call goes through it.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace gpusort_bench {

// Throws std::runtime_error naming what we were doing and what CUDA said. The benchmark
// bodies turn it into state.SkipWithError; the demo prints it and exits non-zero.
inline void check_cuda(cudaError_t status, const char* doing) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(doing) + ": " + cudaGetErrorName(status) + " (" +
                             cudaGetErrorString(status) + ")");
}

// After a kernel launch: catches bad launch configurations (and, on a GPU the binary has no
// code for, "no kernel image is available") at once.
inline void check_launch(const char* kernel_name) {
  check_cuda(cudaGetLastError(), kernel_name);
}

}  // namespace gpusort_bench
