// A tile's elements copied from global into shared memory without the block waiting for
// them, so that a persistent block's next tile loads while it works on the current one.
#pragma once

#include "striped_tile.cuh"

#include <cuda_pipeline.h>

namespace gpusort::backends {

// start() issues the copies of in[0, count) to staged[0, count) (striped: thread t copies
// elements t, t + Threads, ...); wait() makes this thread's copies visible to it, and a
// barrier after it, to the block. cp.async on sm_80 and later for elements of 4, 8 or 16
// bytes; a plain copy otherwise (and __pipeline_memcpy_async's own fallback before sm_80).
template <int Threads, int Items, class T>
struct tile_prefetch {
  static constexpr bool async =
      (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16) && alignof(T) >= sizeof(T);

  __device__ __forceinline__ static void start(const T* in, int count, T* staged) {
    for_each_striped<Threads, Items>(count, [&](int, int i) {
      if constexpr (async)
        __pipeline_memcpy_async(staged + i, in + i, sizeof(T));
      else
        staged[i] = in[i];
    });
    if constexpr (async) __pipeline_commit();
  }

  __device__ __forceinline__ static void wait() {
    if constexpr (async) __pipeline_wait_prior(0);
  }
};

}  // namespace gpusort::backends
