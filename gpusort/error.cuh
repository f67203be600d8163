// gpusort::error and the one helper every CUDA call goes through.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace gpusort {

// Thrown for every failure gpusort detects: a CUDA error (code() says which), or bad
// arguments (code() is cudaSuccess). what() says what gpusort was doing.
class error : public std::runtime_error {
 public:
  error(const std::string& message, cudaError_t code = cudaSuccess)
      : std::runtime_error(message), code_(code) {}

  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

namespace detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* doing) {
  throw error(std::string("gpusort: ") + doing + ": " + cudaGetErrorName(status) + " (" +
                  cudaGetErrorString(status) + ")",
              status);
}

inline void check_cuda(cudaError_t status, const char* doing) {
  if (status != cudaSuccess) throw_cuda_error(status, doing);
}

// After a kernel launch: catches bad launch configurations at once; faults inside the
// kernel surface at the next synchronising call, as everywhere in CUDA.
inline void check_launch(const char* kernel_name) {
  check_cuda(cudaGetLastError(), kernel_name);
}

[[noreturn]] inline void throw_usage_error(const std::string& message) {
  throw error("gpusort: " + message);
}

}  // namespace detail
}  // namespace gpusort
