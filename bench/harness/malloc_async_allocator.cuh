// gpusort's temporary storage the way the default policies took it before gpusort had its own
// pool: cudaMallocAsync / cudaFreeAsync on the device's default pool, whose release threshold
// (0 unless an application raised it) unmaps the memory again at every synchronisation. The
// bench's "par_mallocasync" rows use it, so that each run shows what the own pool saves.
#pragma once

#include "cuda_check.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpusort_bench {

struct malloc_async_allocator {
  void* allocate(std::size_t bytes, cudaStream_t stream) {
    void* p = nullptr;
    check_cuda(cudaMallocAsync(&p, bytes, stream), "cudaMallocAsync");
    return p;
  }
  void deallocate(void* p, std::size_t, cudaStream_t stream) noexcept { cudaFreeAsync(p, stream); }
};

}  // namespace gpusort_bench
