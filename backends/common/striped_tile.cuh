// Striped tiles: thread t of a block of Threads holds items t, t + Threads, t + 2 Threads, ...
// of its tile, so that each step of a load or store is one coalesced access of the whole block.
// `count` is the tile's item count (fewer than Threads x Items only in the last tile); with
// FullTile the bounds checks compile away.
#pragma once

namespace gpusort::backends {

// The tile index of a thread's j-th item.
template <int Threads>
__device__ __forceinline__ int striped_index(int j) {
  return j * Threads + int(threadIdx.x);
}

// Calls step(j, i) for each of the thread's items j whose tile index i is below `count`.
template <int Threads, int Items, bool FullTile = false, class Step>
__device__ __forceinline__ void for_each_striped(int count, Step&& step) {
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int i = striped_index<Threads>(j);
    if (FullTile || i < count) step(j, i);
  }
}

// items[j] = in[striped_index(j)] where that is below count; other items keep their value.
template <int Threads, int Items, bool FullTile = false, class T>
__device__ __forceinline__ void load_striped(const T* in, int count, T (&items)[Items]) {
  for_each_striped<Threads, Items, FullTile>(count, [&](int j, int i) { items[j] = in[i]; });
}

// out[striped_index(j)] = items[j] where that is below count.
template <int Threads, int Items, bool FullTile = false, class T>
__device__ __forceinline__ void store_striped(T* out, int count, const T (&items)[Items]) {
  for_each_striped<Threads, Items, FullTile>(count, [&](int j, int i) { out[i] = items[j]; });
}

}  // namespace gpusort::backends
