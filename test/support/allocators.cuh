// Allocators for the tests of gpusort's `.with_allocator(...)`.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpusort::test {

// Counts what passes through it, and hands out cudaMalloc'd memory.
struct counting_allocator {
  int allocations = 0;
  int deallocations = 0;
  cudaStream_t last_stream = nullptr;
  void* allocate(std::size_t bytes, cudaStream_t stream) {
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) return nullptr;
    ++allocations;
    last_stream = stream;
    return p;
  }
  void deallocate(void* p, std::size_t, cudaStream_t stream) {
    cudaStreamSynchronize(stream);  // plain cudaFree is not stream-ordered
    cudaFree(p);
    ++deallocations;
  }
};

// Hands out cudaMalloc'd memory with every byte set to `fill` (in stream order), so that a
// sort that reads temporary memory it did not clear first goes wrong.
struct dirty_allocator {
  unsigned char fill = 0xa5;
  void* allocate(std::size_t bytes, cudaStream_t stream) {
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) return nullptr;
    if (cudaMemsetAsync(p, fill, bytes, stream) != cudaSuccess) {
      cudaFree(p);
      return nullptr;
    }
    return p;
  }
  void deallocate(void* p, std::size_t, cudaStream_t stream) {
    cudaStreamSynchronize(stream);  // plain cudaFree is not stream-ordered
    cudaFree(p);
  }
};

// Has no memory to give.
struct refusing_allocator {
  void* allocate(std::size_t, cudaStream_t) { return nullptr; }
  void deallocate(void*, std::size_t, cudaStream_t) {}
};

}  // namespace gpusort::test
