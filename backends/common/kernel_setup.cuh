// Per-kernel settings that a launch needs but that stay set once made: done once per device
// (the setting belongs to the device's context), not at every sort call.
#pragma once

#include <gpusort/detail/per_device.cuh>
#include <gpusort/error.cuh>
#include "block_shared.cuh"
#include "resident_grid.cuh"

#include <cuda_runtime_api.h>

namespace gpusort::backends {

// The most shared memory a block may opt in to on every GPU nvcc 13 compiles for: sm_75's
// 64 KB (sm_80 163 KB, sm_86/89/120 99 KB, sm_90/100 227 KB). Tile shapes stay within it, so
// that the sm_90 shapes run everywhere. Only two ask more, each after checking the device it
// runs on: the cluster sort (cluster_launch.cuh, which sets its kernels' limit itself) and
// the radix sort's large-input tiles (large_input_tile.cuh, whose launch passes
// CheckedOnDevice).
inline constexpr int every_gpu_shared_bytes = 64 * 1024;

// Lets Kernel use `Bytes` of dynamic shared memory on the current device (above 48 KB a
// kernel must opt in).
template <auto Kernel, int Bytes, bool CheckedOnDevice = false>
void allow_dynamic_shared_memory(const char* doing) {
  static_assert(CheckedOnDevice || Bytes <= every_gpu_shared_bytes,
                "gpusort: this tile needs more shared memory than a block has on sm_75 (64 KB); "
                "give it fewer items per thread");
  static detail::per_device<bool> allowed;
  allowed.get(detail::current_device(), [doing](int) {
    detail::check_cuda(
        cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Bytes), doing);
    return true;
  });
}

// The dynamic shared memory a launch of Kernel gives its block's Storage: 0 where static
// shared memory holds it (block_shared.cuh), else its size, allowed on the current device.
template <auto Kernel, class Storage, bool CheckedOnDevice = false>
int allowed_dynamic_shared_bytes(const char* doing) {
  constexpr int bytes = dynamic_shared_bytes<Storage>;
  if constexpr (bytes > 0) allow_dynamic_shared_memory<Kernel, bytes, CheckedOnDevice>(doing);
  return bytes;
}

// A persistent kernel's launch, its block holding one Storage: the dynamic shared memory
// (allowed first: the occupancy query counts it, and above 48 KB no block fits without it)
// and as many blocks as are resident at once, at most `most`.
struct persistent_launch {
  unsigned grid;
  int shared_bytes;
};

template <auto Kernel, int Threads, class Storage>
persistent_launch persistent_launch_for(std::size_t most, const char* doing) {
  const int shared_bytes = allowed_dynamic_shared_bytes<Kernel, Storage>(doing);
  return {resident_grid<Kernel, Threads, dynamic_shared_bytes<Storage>>(most), shared_bytes};
}

}  // namespace gpusort::backends
