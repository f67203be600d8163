// gpusort's own stream-ordered memory pool, one per device: where a policy without an
// allocator gets its temporary storage. The device's default pool releases its memory at
// every synchronisation (release threshold 0), so each sort mapped its storage again: 10-50 %
// of a mid-size sort on an H100 (bench/results/NOTES.md). This pool keeps what it has
// mapped, up to a limit (unlimited unless set), and never touches the default pool's
// settings. In front of it, a few blocks kept per stream (kept_blocks.cuh) spare a sort on the
// same stream the pool's own calls.
#pragma once

#include "../error.cuh"
#include "kept_blocks.cuh"
#include "per_device.cuh"
#include "stream_capture.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpusort::detail {

inline cudaMemPool_t make_temporary_pool(int device) {
  cudaMemPoolProps properties{};
  properties.allocType = cudaMemAllocationTypePinned;
  properties.handleTypes = cudaMemHandleTypeNone;
  properties.location.type = cudaMemLocationTypeDevice;
  properties.location.id = device;
  cudaMemPool_t pool = nullptr;
  const relaxed_capture_mode relaxed;  // the first sort may be a captured one
  check_cuda(cudaMemPoolCreate(&pool, &properties), "creating gpusort's memory pool");
  std::uint64_t keep_everything = UINT64_MAX;
  check_cuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything),
             "setting gpusort's memory pool's release threshold");
  return pool;
}

// Made on first use, never destroyed: the process's exit gives the memory back, and CUDA's
// teardown order makes destroying it from a static destructor unsafe.
inline per_device<cudaMemPool_t>& temporary_pools() {
  static per_device<cudaMemPool_t> pools;
  return pools;
}

inline cudaMemPool_t temporary_pool(int device) {
  return temporary_pools().get(device, make_temporary_pool);
}

// The blocks kept per stream on each device; made on first use, never destroyed (as the pools).
inline per_device<kept_blocks*>& kept_blocks_per_device() {
  static per_device<kept_blocks*> tables;
  return tables;
}

inline kept_blocks& kept_blocks_of(int device) {
  return *kept_blocks_per_device().get(device, [](int) { return new kept_blocks; });
}

// Whether a block of a sort on `stream` may come from, or go to, the kept blocks, and if so
// the id CUDA gives the stream (unique in the process) in *id. Not while the stream is
// captured into a graph: there the allocation belongs to the graph, a kept block would be
// shared between the graph's launches and later sorts, and cudaStreamGetId would end the
// capture (so it is asked only after cudaStreamIsCapturing). Not where CUDA cannot say.
inline bool keeps_blocks_for(cudaStream_t stream, unsigned long long* id) noexcept {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  if (status != cudaStreamCaptureStatusNone) return false;
  if (cudaStreamGetId(stream, id) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return true;
}

inline std::uint64_t pool_attribute(cudaMemPool_t pool, cudaMemPoolAttr which) {
  std::uint64_t value = 0;
  check_cuda(cudaMemPoolGetAttribute(pool, which, &value), "reading gpusort's memory pool");
  return value;
}

// Waits for `device`'s work (so that every block whose stream-ordered free is still pending
// becomes free), gives the blocks kept per stream back to the pool, then unmaps what the pool
// keeps beyond `keep` bytes. The current device is left as it was.
inline void trim_temporary_pool(int device, cudaMemPool_t pool, std::size_t keep) {
  const int caller_device = current_device();
  if (caller_device != device) check_cuda(cudaSetDevice(device), "selecting a device");
  kept_blocks& kept = kept_blocks_of(device);
  const unsigned long long mark = kept.given_back_count();  // blocks whose work the wait covers
  cudaError_t synced = cudaDeviceSynchronize();
  if (synced == cudaSuccess) {
    kept.release_all(mark);
    synced = cudaDeviceSynchronize();  // the frees release_all enqueued
  }
  const cudaError_t trimmed = cudaMemPoolTrimTo(pool, keep);
  if (caller_device != device) cudaSetDevice(caller_device);
  check_cuda(synced, "waiting for the device before giving cached memory back");
  check_cuda(trimmed, "giving gpusort's cached memory back");
}

// `bytes` in stream order: the block kept for `stream` where it is large enough, else from the
// current device's pool. When the device has no room, the pool gives back everything it keeps
// (the kept blocks too) and the allocation is tried once more; a second failure is the usual
// out-of-memory error, raised before any of the sort's work is enqueued. (Not while `stream`
// is being captured into a graph: there the allocation belongs to the graph, and waiting for
// the device is not allowed.)
inline void* allocate_temporary(std::size_t bytes, cudaStream_t stream) {
  const int device = current_device();
  unsigned long long id = 0;
  if (keeps_blocks_for(stream, &id))
    if (void* kept = kept_blocks_of(device).take(id, bytes, stream)) return kept;
  const cudaMemPool_t pool = temporary_pool(device);
  void* p = nullptr;
  cudaError_t status = cudaMallocFromPoolAsync(&p, bytes, pool, stream);
  if (status == cudaErrorMemoryAllocation && !stream_is_capturing(stream)) {
    cudaGetLastError();  // an out-of-memory error is not sticky; leave no trace of it
    trim_temporary_pool(device, pool, 0);
    status = cudaMallocFromPoolAsync(&p, bytes, pool, stream);
  }
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw_allocation_error(status, bytes);
  }
  return p;
}

// Takes back what allocate_temporary gave: kept for the stream's next sort, or freed in
// stream order. Never throws (it runs from destructors).
inline void deallocate_temporary(void* p, std::size_t bytes, cudaStream_t stream) noexcept {
  unsigned long long id = 0;
  int device = 0;
  if (keeps_blocks_for(stream, &id) && cudaGetDevice(&device) == cudaSuccess) {
    try {
      kept_blocks_of(device).give_back(id, p, bytes, stream);
      return;
    } catch (...) {  // no table for the device (no host memory left): freed as before
    }
  }
  cudaFreeAsync(p, stream);
}

}  // namespace gpusort::detail
