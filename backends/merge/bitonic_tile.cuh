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
// comparator-only types work), and a stable sort breaks ties by position.
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
      if (a_index >= valid) return false;
      if (b_index >= valid) return true;
      if (comp(a, b)) return true;
      if constexpr (Stable) return a_index < b_index && !comp(b, a);
      return false;
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

// Sorts the block's tile; every thread of the block must call it.
template <int Threads, int Items, class Key, class Order, class Storage>
__device__ void bitonic_sort_tile(Key (&keys)[Items], unsigned (&index)[Items], Storage& shared,
                                  const Order& order) {
  static_assert((Items & (Items - 1)) == 0 && Threads % 32 == 0, "power-of-two tile of warps");
  constexpr int tile_items = Threads * Items;
  const int thread = int(threadIdx.x);

  for (int k = 2; k <= tile_items; k *= 2) {
    // Steps whose partner is in another thread.
    for (int j = k / 2; j >= Items; j /= 2) {
      const bool ascending = ((thread * Items) & k) == 0;
      if (j >= 32 * Items) {
        // Another warp: write every key, read the partner's.
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          shared.keys[padded(thread * Items + i)] = keys[i];
          if constexpr (Order::tracks_index) shared.index[padded(thread * Items + i)] = index[i];
        }
        __syncthreads();
        const bool lower = ((thread * Items) & j) == 0;
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          const int partner = padded((thread * Items + i) ^ j);
          const Key other = shared.keys[partner];
          const unsigned other_index = Order::tracks_index ? shared.index[partner] : 0u;
          // Both threads of a pair evaluate the same comparison on (lower, upper) keys, so
          // exactly one of them takes the other's key when they swap, even on ties.
          const bool swap = (lower == ascending)
                                ? order.before(other, other_index, keys[i], index[i])
                                : order.before(keys[i], index[i], other, other_index);
          if (swap) {
            keys[i] = other;
            index[i] = other_index;
          }
        }
        __syncthreads();  // the next step overwrites what the partner is reading
      } else {
        // Another lane of this warp.
        const int lane_mask = j / Items;
        const bool lower = (thread & lane_mask) == 0;
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          const Key other = shuffle_xor(keys[i], lane_mask);
          const unsigned other_index =
              Order::tracks_index ? __shfl_xor_sync(0xffffffffu, index[i], lane_mask) : 0u;
          const bool swap = (lower == ascending)
                                ? order.before(other, other_index, keys[i], index[i])
                                : order.before(keys[i], index[i], other, other_index);
          if (swap) {
            keys[i] = other;
            index[i] = other_index;
          }
        }
      }
    }
    // Steps within one thread's registers.
#pragma unroll
    for (int j = Items / 2; j > 0; j /= 2) {
      if (j >= k) continue;
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        if ((i & j) != 0) continue;
        const bool ascending = ((thread * Items + i) & k) == 0;
        const int upper = i | j;
        const bool swap = ascending ? order.before(keys[upper], index[upper], keys[i], index[i])
                                    : order.before(keys[i], index[i], keys[upper], index[upper]);
        if (swap) {
          const Key key = keys[i];
          keys[i] = keys[upper];
          keys[upper] = key;
          const unsigned position = index[i];
          index[i] = index[upper];
          index[upper] = position;
        }
      }
    }
  }
}

}  // namespace gpusort::backends::merge
