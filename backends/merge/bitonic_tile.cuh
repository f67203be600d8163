// Block-wide bitonic sort of one tile held in registers (Batcher 1968; seed 003's tile step).
// Thread t holds tile positions t * Items + i, i < Items. A compare-exchange step of distance
// j pairs positions p and p ^ j, so
//   j <  Items        both keys are in one thread's registers;
//   j <  32 * Items   they are in two lanes of one warp: exchanged with shuffles;
//   otherwise         they are in two warps: exchanged through shared memory.
// Levels k = 2, 4, ..., tile sort blocks of k positions, ascending where (p & k) == 0, so the
// last level leaves the whole tile ascending.
#pragma once

#include <cstddef>

namespace gpusort::backends::merge {

// Shared-memory index of tile position p: one pad word per 32 positions keeps the exchanges
// free of bank conflicts (thread t touches t * Items + i; the pad spreads the stride).
__host__ __device__ constexpr int padded(int position) { return position + position / 32; }

// The order the network sorts by. Without a tracked index it is the user's comparator. With
// one, each key carries its position in the input tile: positions at or past `valid` are the
// padding of a short last tile and go after every real key (no sentinel key is needed, so
// comparator-only types work), and a stable sort breaks ties by position. Padding slots must
// hold some real key (the tile's first): comp is called on them, its result ignored.
template <class Compare, bool TrackIndex, bool Stable>
struct tile_order {
  static_assert(TrackIndex || !Stable, "a stable tile sort needs the input positions");
  static constexpr bool tracks_index = TrackIndex;
  Compare comp;
  unsigned valid;

  template <class Key>
  __device__ __forceinline__ bool before(const Key& a, unsigned a_index, const Key& b,
                                         unsigned b_index) const {
    if constexpr (!TrackIndex) {
      return comp(a, b);
    } else {
      // Bitwise & and |, not && and ||: no branches. Padding slots hold a copy of a real
      // key, so calling comp on them is safe; their index decides.
      bool ordered = comp(a, b);
      if constexpr (Stable) ordered = ordered | ((a_index < b_index) & !comp(b, a));
      return (a_index < valid) & ((b_index >= valid) | ordered);
    }
  }
};

// A shuffle of any trivially copyable type, one 32-bit word at a time.
template <class T>
__device__ __forceinline__ T shuffle_xor(const T& value, int lane_mask) {
  constexpr int words = int((sizeof(T) + sizeof(unsigned) - 1) / sizeof(unsigned));
  unsigned in[words] = {};
  memcpy(in, &value, sizeof(T));
  unsigned out[words];
#pragma unroll
  for (int w = 0; w < words; ++w) out[w] = __shfl_xor_sync(0xffffffffu, in[w], lane_mask);
  T result;
  memcpy(&result, out, sizeof(T));
  return result;
}

// Shared memory for the exchanges between warps (and for staging the sorted tile).
template <int TileItems, class Key, bool TrackIndex>
struct bitonic_tile_storage {
  Key keys[padded(TileItems)];
  unsigned short index[TrackIndex ? padded(TileItems) : 1];
};

__host__ __device__ constexpr int log2_of(int power_of_two) {
  int log = 0;
  while ((1 << log) < power_of_two) ++log;
  return log;
}

// One compare-exchange step between this thread's keys and another thread's (another lane
// when `Shuffle`, another warp through shared memory otherwise), distance j, level k.
template <int Items, bool Shuffle, class Key, class Order, class Storage>
__device__ __forceinline__ void exchange_across_threads(Key (&keys)[Items],
                                                        unsigned (&index)[Items],
                                                        Storage& shared, const Order& order,
                                                        int j, int k) {
  const int thread = int(threadIdx.x);
  const bool ascending = ((thread * Items) & k) == 0;
  const bool lower = ((thread * Items) & j) == 0;
  if constexpr (!Shuffle) {
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      shared.keys[padded(thread * Items + i)] = keys[i];
      if constexpr (Order::tracks_index) shared.index[padded(thread * Items + i)] = index[i];
    }
    __syncthreads();
  }
  // This thread keeps whichever key of its pair sorts first when it holds the lower
  // position of an ascending pair or the upper one of a descending pair.
  const bool keep_first = lower == ascending;
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    Key other;
    unsigned other_index = 0;
    if constexpr (Shuffle) {
      other = shuffle_xor(keys[i], j / Items);
      if constexpr (Order::tracks_index)
        other_index = __shfl_xor_sync(0xffffffffu, index[i], j / Items);
    } else {
      const int partner = padded((thread * Items + i) ^ j);
      other = shared.keys[partner];
      if constexpr (Order::tracks_index) other_index = shared.index[partner];
    }
    // Both threads of a pair evaluate the same comparison on the same two keys, so exactly
    // one of them takes the other's key when they swap, even on ties. Selects, not
    // branches: the swap is data-dependent and would diverge.
    // Values, not references, in the selects: a selected reference into the register array
    // would push the array to local memory.
    const Key mine = keys[i];
    const unsigned mine_index = index[i];
    const Key x = keep_first ? other : mine;
    const Key y = keep_first ? mine : other;
    const bool take_other = order.before(x, keep_first ? other_index : mine_index, y,
                                         keep_first ? mine_index : other_index);
    keys[i] = take_other ? other : mine;
    index[i] = take_other ? other_index : mine_index;
  }
  if constexpr (!Shuffle) __syncthreads();  // the next step overwrites what the partner reads
}

// Sorts the block's tile; every thread of the block must call it. The levels and steps are
// unrolled at compile time, so register indices, step kinds and the in-thread directions
// are constants.
template <int Threads, int Items, class Key, class Order, class Storage>
__device__ void bitonic_sort_tile(Key (&keys)[Items], unsigned (&index)[Items], Storage& shared,
                                  const Order& order) {
  static_assert((Items & (Items - 1)) == 0 && Threads % 32 == 0, "power-of-two tile of warps");
  constexpr int log_tile = log2_of(Threads * Items);
  const int thread = int(threadIdx.x);
#pragma unroll
  for (int level = 1; level <= log_tile; ++level) {
    const int k = 1 << level;
#pragma unroll
    for (int step = level - 1; step >= 0; --step) {
      const int j = 1 << step;
      if (j >= 32 * Items) {
        exchange_across_threads<Items, false>(keys, index, shared, order, j, k);
      } else if (j >= Items) {
        exchange_across_threads<Items, true>(keys, index, shared, order, j, k);
      } else {
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          if ((i & j) != 0) continue;
          const bool ascending = ((thread * Items + i) & k) == 0;
          const int upper = i | j;
          const Key low = keys[i];
          const Key high = keys[upper];
          const unsigned low_index = index[i];
          const unsigned high_index = index[upper];
          const Key x = ascending ? high : low;
          const Key y = ascending ? low : high;
          const bool swap = order.before(x, ascending ? high_index : low_index, y,
                                         ascending ? low_index : high_index);
          const Key first = swap ? high : low;
          const Key second = swap ? low : high;
          const unsigned first_index = swap ? high_index : low_index;
          const unsigned second_index = swap ? low_index : high_index;
          keys[i] = first;
          keys[upper] = second;
          index[i] = first_index;
          index[upper] = second_index;
        }
      }
    }
  }
}

}  // namespace gpusort::backends::merge
