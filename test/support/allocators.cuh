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

// Has no memory to give.
struct refusing_allocator {
  void* allocate(std::size_t, cudaStream_t) { return nullptr; }
  void deallocate(void*, std::size_t, cudaStream_t) {}
};

}  // namespace gpusort::test
