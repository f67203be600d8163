// Grid sizes for kernels that loop over their work (persistent blocks): as many blocks as
// can be resident on the current device at once.
#pragma once

#include "../../gpusort/error.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpusort::backends {

inline int multiprocessor_count() {
  int device = 0;
  int count = 0;
  detail::check_cuda(cudaGetDevice(&device), "querying the current device");
  detail::check_cuda(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device),
                     "querying the multiprocessor count");
  return count;
}

// Resident blocks of `kernel` at `threads` per block, at most `most` (at least one).
template <class Kernel>
unsigned resident_grid(Kernel kernel, int threads, std::size_t most) {
  int per_multiprocessor = 0;
  detail::check_cuda(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, threads, 0),
      "querying a kernel's occupancy");
  const std::size_t resident =
      std::size_t(per_multiprocessor > 0 ? per_multiprocessor : 1) * multiprocessor_count();
  const std::size_t grid = resident < most ? resident : most;
  return unsigned(grid > 0 ? grid : 1);
}

}  // namespace gpusort::backends
