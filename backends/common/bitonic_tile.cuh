// Block-wide bitonic sort of one tile held in registers (K. E. Batcher, "Sorting networks and
// their applications", 1968): how the bucket + bitonic backend sorts a unit.
// Thread t holds tile positions t * Items + i, i < Items. Level k = 2, 4, ..., tile sorts
// every block of k positions ascending: its first step pairs p with its mirror p ^ (k - 1)
// (the two sorted halves, one read backwards, form a bitonic sequence), the following steps
// pair p with p ^ j for j = k/4, ..., 1. Every compare-exchange is ascending (the smaller key
// to the lower position), so none needs a direction. A step whose partner differs from p in
//   bits below Items          has both keys in one thread's registers;
//   bits below 32 * Items     has them in two lanes of one warp: exchanged with shuffles;
//   higher bits               has them in two warps: exchanged through shared memory.
#pragma once

#include "striped_tile.cuh"
#include "tiles.cuh"

#include <cstddef>
#include <type_traits>

namespace gpusort::backends {

// Shared-memory index of tile position p: one pad word per 32 positions keeps the exchanges
// free of bank conflicts (thread t touches t * Items + i; the pad spreads the stride).
__host__ __device__ constexpr int padded(int position) { return position + position / 32; }

// The order the network sorts by. Without a tracked index it is the comparator. With one,
// each key carries its position in the input tile: positions at or past `valid` are the
// padding of a short last tile and go after every real key (no sentinel key is needed).
// Padding slots must hold some key: comp is called on them, its result ignored.
template <class Compare, bool TrackIndex>
struct tile_order {
  static constexpr bool tracks_index = TrackIndex;
  Compare comp;
  unsigned valid;

  template <class Key>
  __device__ __forceinline__ bool before(const Key& a, unsigned a_index, const Key& b,
                                         unsigned b_index) const {
    if constexpr (!TrackIndex) {
      return comp(a, b);
    } else {
      // Bitwise & and |, not && and ||: no branches. Padding slots hold some key, so calling
      // comp on them is safe; their index decides.
      const bool ordered = comp(a, b);
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

__host__ __device__ constexpr int power_of_two_at_most(int x) {
  int p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

// Shared memory per key of a tile: the key, its 2-byte position, and the 1/32 padding.
template <class Key>
inline constexpr int bitonic_bytes_per_item = int(sizeof(Key) + 2) * 33 / 32 + 1;

// Keys per thread of a Threads-wide bitonic tile of Key that fits `exchange_bytes` of shared
// memory: `wanted`, or fewer, a power of two. 0 when not even one fits.
template <class Key>
__host__ __device__ constexpr int bitonic_items_per_thread(int threads, int wanted,
                                                           int exchange_bytes) {
  const int fitting = exchange_bytes / (bitonic_bytes_per_item<Key> * threads);
  return fitting < 1 ? 0 : power_of_two_at_most(wanted < fitting ? wanted : fitting);
}

__host__ __device__ constexpr int log2_of(int power_of_two) {
  int log = 0;
  while ((1 << log) < power_of_two) ++log;
  return log;
}

// One compare-exchange step between this thread's keys and another thread's (another lane
// when `Shuffle`, another warp through shared memory otherwise). `partner_bits` = j, or k - 1
// for the mirror step; `lower_bit` is the bit of the position that is clear in the lower
// partner (j, or k / 2).
template <int Items, bool Shuffle, class Key, class Order, class Storage>
__device__ __forceinline__ void exchange_across_threads(Key (&keys)[Items],
                                                        unsigned (&index)[Items],
                                                        Storage& shared, const Order& order,
                                                        int partner_bits, int lower_bit) {
  const int thread = int(threadIdx.x);
  const bool lower = ((thread * Items) & lower_bit) == 0;
  // The partner's register: i, or Items - 1 - i when the step also mirrors within a thread.
  const int register_flip = partner_bits % Items;
  Key other[Items];
  unsigned other_index[Items] = {};
  if constexpr (Shuffle) {
    const int lane_mask = partner_bits / Items;
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      other[i] = shuffle_xor(keys[i ^ register_flip], lane_mask);
      if constexpr (Order::tracks_index)
        other_index[i] = __shfl_xor_sync(0xffffffffu, index[i ^ register_flip], lane_mask);
    }
  } else {
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      shared.keys[padded(thread * Items + i)] = keys[i];
      if constexpr (Order::tracks_index) shared.index[padded(thread * Items + i)] = index[i];
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int partner = padded((thread * Items + i) ^ partner_bits);
      other[i] = shared.keys[partner];
      if constexpr (Order::tracks_index) other_index[i] = shared.index[partner];
    }
    __syncthreads();  // the next exchange overwrites what the partner is reading
  }
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    // Both threads of a pair evaluate before(upper key, lower key), so exactly one of them
    // takes the other's key when they swap, even on ties. Values, not references, in the
    // selects (a selected reference into a register array pushes it to local memory), and
    // selects, not branches (the swap is data-dependent and would diverge).
    const Key mine = keys[i];
    const unsigned mine_index = index[i];
    const Key upper = lower ? other[i] : mine;
    const Key lower_key = lower ? mine : other[i];
    const bool swap = order.before(upper, lower ? other_index[i] : mine_index, lower_key,
                                   lower ? mine_index : other_index[i]);
    keys[i] = swap ? other[i] : mine;
    index[i] = swap ? other_index[i] : mine_index;
  }
}

// Ascending compare-exchange of two of this thread's registers.
template <class Key, class Order>
__device__ __forceinline__ void exchange_in_thread(Key& low, unsigned& low_index, Key& high,
                                                   unsigned& high_index, const Order& order) {
  const Key a = low;
  const Key b = high;
  const unsigned a_index = low_index;
  const unsigned b_index = high_index;
  const bool swap = order.before(b, b_index, a, a_index);
  low = swap ? b : a;
  high = swap ? a : b;
  low_index = swap ? b_index : a_index;
  high_index = swap ? a_index : b_index;
}

template <int Items, class Key, class Order, class Storage>
__device__ __forceinline__ void bitonic_step(Key (&keys)[Items], unsigned (&index)[Items],
                                             Storage& shared, const Order& order,
                                             int partner_bits, int lower_bit) {
  if (partner_bits >= 32 * Items) {
    exchange_across_threads<Items, false>(keys, index, shared, order, partner_bits, lower_bit);
  } else if (partner_bits >= Items) {
    exchange_across_threads<Items, true>(keys, index, shared, order, partner_bits, lower_bit);
  } else {
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      if ((i & lower_bit) != 0) continue;
      const int partner = i ^ partner_bits;
      exchange_in_thread(keys[i], index[i], keys[partner], index[partner], order);
    }
  }
}

// Sorts the block's tile ascending; every thread of the block must call it. Levels and steps
// are unrolled at compile time, so register indices and step kinds are constants.
template <int Threads, int Items, class Key, class Order, class Storage>
__device__ void bitonic_sort_tile(Key (&keys)[Items], unsigned (&index)[Items], Storage& shared,
                                  const Order& order) {
  static_assert((Items & (Items - 1)) == 0 && Threads % 32 == 0, "power-of-two tile of warps");
  constexpr int log_tile = log2_of(Threads * Items);
#pragma unroll
  for (int level = 1; level <= log_tile; ++level) {
    const int k = 1 << level;
    bitonic_step(keys, index, shared, order, k - 1, k / 2);  // the mirror step
#pragma unroll
    for (int step = level - 2; step >= 0; --step)
      bitonic_step(keys, index, shared, order, 1 << step, 1 << step);
  }
}

// Loads in_keys[0, count), count <= Threads * Items, sorts them by `comp` and writes them to
// out_keys[0, count); keys only. in and out may be the same memory. Every thread of the block
// must call it. Positions past `count` hold `padding`: a key that no key precedes and that is
// bit for bit equal to every key it ties with (so which copies land past `count` does not
// matter).
template <int Threads, int Items, class Key, class Compare, class Storage>
__device__ __forceinline__ void sort_tile(const Key* in_keys, Key* out_keys, int count,
                                          const Compare& comp, Storage& shared,
                                          const Key& padding) {
  const int thread = int(threadIdx.x);

  // Striped, coalesced loads. Which tile position a key starts in does not matter to a
  // sorting network.
  Key keys[Items];
  unsigned index[Items];
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    index[i] = unsigned(striped_index<Threads>(i));
    keys[i] = int(index[i]) < count ? in_keys[index[i]] : padding;
  }
  const tile_order<Compare, false> order{comp, unsigned(count)};
  bitonic_sort_tile<Threads, Items>(keys, index, shared, order);

  // Stage in tile order, then striped, coalesced stores.
#pragma unroll
  for (int i = 0; i < Items; ++i) shared.keys[padded(thread * Items + i)] = keys[i];
  __syncthreads();
  for_each_striped<Threads, Items>(
      count, [&](int, int position) { out_keys[position] = shared.keys[padded(position)]; });
}

}  // namespace gpusort::backends
