// gpusort's own stream-ordered memory pool, one per device: where a policy without an
// allocator gets its temporary storage. The device's default pool releases its memory at
// every synchronisation (release threshold 0), so each sort mapped its storage again: 10-50 %
// of a mid-size sort on an H100 (bench/results/NOTES.md). This pool keeps what it has
// mapped, up to a limit (unlimited unless set), and never touches the default pool's
// settings.
#pragma once

#include "../error.cuh"
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

inline std::uint64_t pool_attribute(cudaMemPool_t pool, cudaMemPoolAttr which) {
  std::uint64_t value = 0;
  check_cuda(cudaMemPoolGetAttribute(pool, which, &value), "reading gpusort's memory pool");
  return value;
}

// Waits for `device`'s work (so that every block whose stream-ordered free is still pending
// becomes free), then unmaps what the pool keeps beyond `keep` bytes. The current device is
// left as it was.
inline void trim_temporary_pool(int device, cudaMemPool_t pool, std::size_t keep) {
  const int caller_device = current_device();
  if (caller_device != device) check_cuda(cudaSetDevice(device), "selecting a device");
  const cudaError_t synced = cudaDeviceSynchronize();
  const cudaError_t trimmed = cudaMemPoolTrimTo(pool, keep);
  if (caller_device != device) cudaSetDevice(caller_device);
  check_cuda(synced, "waiting for the device before giving cached memory back");
  check_cuda(trimmed, "giving gpusort's cached memory back");
}

// `bytes` from the current device's pool, in stream order. When the device has no room, the
// pool gives back everything it keeps and the allocation is tried once more; a second failure
// is the usual out-of-memory error, raised before any of the sort's work is enqueued. (Not
// while `stream` is being captured into a graph: there the allocation belongs to the graph,
// and waiting for the device is not allowed.)
inline void* allocate_temporary(std::size_t bytes, cudaStream_t stream) {
  const int device = current_device();
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

}  // namespace gpusort::detail
