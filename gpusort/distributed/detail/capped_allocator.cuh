// A device allocator that refuses to hold more than a set number of bytes at once: how the
// pinned-host sort keeps to the device memory limit its user gave (and how tests make it
// split small inputs across GPUs).
#pragma once

#include "../../error.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace gpusort::distributed::detail {

class capped_allocator {
 public:
  explicit capped_allocator(std::size_t limit_bytes) : limit_(limit_bytes) {}

  void* allocate(std::size_t bytes, cudaStream_t stream) {
    if (bytes > limit_ - in_use_)
      gpusort::detail::throw_usage_error(
          "the device memory limit of " + std::to_string(limit_) + " bytes would be exceeded (" +
          std::to_string(in_use_) + " in use, " + std::to_string(bytes) + " more asked)");
    void* p = nullptr;
    const cudaError_t status = cudaMallocAsync(&p, bytes, stream);
    if (status != cudaSuccess) {
      cudaGetLastError();
      gpusort::detail::throw_allocation_error(status, bytes);
    }
    in_use_ += bytes;
    return p;
  }

  void deallocate(void* p, std::size_t bytes, cudaStream_t stream) noexcept {
    cudaFreeAsync(p, stream);
    in_use_ -= bytes;
  }

 private:
  std::size_t limit_;
  std::size_t in_use_ = 0;
};

}  // namespace gpusort::distributed::detail
