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

// A persistent block's loop over its tiles (blockIdx.x, then every gridDim.x-th, below
// tiles) with each tile's keys copied in one tile ahead: stage(locate(tile)) starts a tile's
// copy (tile_prefetch::start), and body(tile, locate(tile), start_next) works on it, calling
// start_next() once it has read the staged keys, which stages the block's next tile (if any).
template <class Locate, class Stage, class Body>
__device__ __forceinline__ void for_each_tile_staged_ahead(unsigned long long tiles,
                                                           Locate&& locate, Stage&& stage,
                                                           Body&& body) {
  unsigned long long tile = blockIdx.x;
  if (tile >= tiles) return;
  auto item = locate(tile);
  stage(item);
  for (;;) {
    const unsigned long long next = tile + gridDim.x;
    const bool has_next = next < tiles;  // the same for the whole block
    const auto next_item = has_next ? locate(next) : item;
    body(tile, item, [&] {
      if (has_next) stage(next_item);
    });
    if (!has_next) break;
    tile = next;
    item = next_item;
  }
}

}  // namespace gpusort::backends
