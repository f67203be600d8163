// The memory gpusort keeps between calls. A policy without an allocator takes its temporary
// storage from gpusort's own stream-ordered pool on the current device (one per device, made
// at the first sort there that needs storage). The pool keeps what it has mapped, so that
// the next sort costs no mapping: by default everything, that is the most that sorts running
// at once on the device have needed. Besides, the block a sort on a stream gave back is kept
// for the next sort on the same stream (up to 4 streams per device, blocks of up to 64 MiB:
// detail/kept_blocks.cuh), so that such a sort makes no allocation call at all. Kept blocks
// are part of the pool's memory. These calls let you see, cap and give back that memory. A
// policy with .with_allocator() never uses the pool.
#pragma once

#include "detail/per_device.cuh"
#include "detail/temporary_pool.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpusort {

// Bytes the pool of `device` (default: the current one) holds mapped right now: the storage
// of sorts in flight plus what it keeps for the next ones. 0 before its first use.
inline std::size_t cached_memory_bytes(int device = -1) {
  if (device < 0) device = detail::current_device();
  const cudaMemPool_t* pool = detail::temporary_pools().find(device);
  return pool == nullptr
             ? 0
             : std::size_t(detail::pool_attribute(*pool, cudaMemPoolAttrReservedMemCurrent));
}

// Gives back to the device everything the pools keep beyond the storage of sorts still in
// flight, on every device where gpusort made one, the blocks kept per stream included. Waits
// for the work on each such device first (as cudaDeviceSynchronize), so that storage whose
// stream-ordered release is pending is given back too. The current device is left as it was.
inline void release_cached_memory() {
  auto& pools = detail::temporary_pools();
  for (int device = 0; device < pools.device_count(); ++device)
    if (const cudaMemPool_t* pool = pools.find(device))
      detail::trim_temporary_pool(device, *pool, 0);
}

// Caps what the pool of the current device keeps once the device's streams synchronise: beyond
// `bytes`, memory is unmapped again at each synchronisation (the pool's release threshold). 0
// keeps nothing (every sort maps its storage anew, as cudaMallocAsync on the default pool
// does); SIZE_MAX (the default) keeps everything. Blocks kept per stream stay within the cap
// too (a block kept before it was lowered goes back at the next sort on its stream, or with
// release_cached_memory()). Sorts in flight are never affected, and a sort that needs more
// than the cap still gets it.
inline void set_cached_memory_limit(std::size_t bytes) {
  const int device = detail::current_device();
  std::uint64_t threshold = bytes;
  detail::check_cuda(cudaMemPoolSetAttribute(detail::temporary_pool(device),
                                             cudaMemPoolAttrReleaseThreshold, &threshold),
                     "setting gpusort's cached memory limit");
  detail::kept_blocks_of(device).set_limit(bytes);
}

}  // namespace gpusort
