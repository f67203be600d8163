// Grid sizes for kernels that loop over their work (persistent blocks): as many blocks as
// can be resident on the current device at once. Occupancy is asked once per kernel, block
// size and device, not at every sort call.
#pragma once

#include <gpusort/detail/device_facts.cuh>
#include <gpusort/error.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpusort::backends {

inline int multiprocessor_count() { return detail::current_device_facts().multiprocessors; }

// Blocks of Kernel at Threads per block (and DynamicSharedBytes of dynamic shared memory,
// which must be allowed first where above 48 KB: else no block fits) resident at once on the
// current device (at least one per SM).
template <auto Kernel, int Threads, int DynamicSharedBytes = 0>
std::size_t resident_blocks() {
  static detail::per_device<std::size_t> resident;
  return resident.get(detail::current_device(), [](int d) {
    int per_multiprocessor = 0;
    detail::check_cuda(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, Kernel, Threads,
                                                      DynamicSharedBytes),
        "querying a kernel's occupancy");
    return std::size_t(per_multiprocessor > 0 ? per_multiprocessor : 1) *
           detail::facts_of_device(d).multiprocessors;
  });
}

// As many blocks of Kernel as are resident at once (resident_blocks), at most `most` (at
// least one).
template <auto Kernel, int Threads, int DynamicSharedBytes = 0>
unsigned resident_grid(std::size_t most) {
  const std::size_t resident = resident_blocks<Kernel, Threads, DynamicSharedBytes>();
  const std::size_t grid = resident < most ? resident : most;
  return unsigned(grid > 0 ? grid : 1);
}

}  // namespace gpusort::backends
