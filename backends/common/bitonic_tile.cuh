// Block-wide bitonic sort of one tile of words held in registers (K. E. Batcher, "Sorting
// networks and their applications", 1968): how the bucket + bitonic backend sorts a unit.
// The words are unsigned integers (a key's ordered bits, or its bits and its position packed
// into 64), or 64-bit bits beside a position (tagged_word), so every compare-exchange is a
// min and a max of numbers: no comparator, no direction.
// Thread t holds tile positions t * Items + i, i < Items. Level k = 2, 4, ..., tile sorts
// every block of k positions ascending: its first step pairs p with its mirror p ^ (k - 1)
// (the two sorted halves, one read backwards, form a bitonic sequence), the following steps
// pair p with p ^ j for j = k/4, ..., 1. Every compare-exchange is ascending (the smaller
// word to the lower position), so none needs a direction. A step whose partner differs from
// p in
//   bits below Items          has both words in one thread's registers;
//   bits below 32 * Items     has them in two lanes of one warp: exchanged with shuffles;
//   higher bits               has them in two warps: exchanged through shared memory.
#pragma once

#include "striped_tile.cuh"
#include "tiles.cuh"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpusort::backends {

// Shared-memory index of tile position p: one pad word per 32 positions keeps the exchanges
// free of bank conflicts (thread t touches t * Items + i; the pad spreads the stride).
__host__ __device__ constexpr int padded(int position) { return position + position / 32; }

// A key's 64-bit ordered bits tagged with the position it came from: ordered by the bits,
// then by the position, so that every word of a tile is distinct.
struct tagged_word {
  std::uint64_t bits;
  unsigned position;
};

__device__ __forceinline__ bool word_less(std::uint64_t a, std::uint64_t b) { return a < b; }
__device__ __forceinline__ bool word_less(const tagged_word& a, const tagged_word& b) {
  // Bitwise & and |, not && and ||: no branches.
  return (a.bits < b.bits) | ((a.bits == b.bits) & (a.position < b.position));
}

// The smaller of two words where `smaller`, else the larger. Equal words are equal bit for
// bit, so which one is kept does not matter.
template <class Word>
__device__ __forceinline__ Word keep_word(const Word& mine, const Word& other, bool smaller) {
  if constexpr (std::is_same_v<Word, std::uint32_t>) {
    return smaller ? min(mine, other) : max(mine, other);
  } else {
    // Values, not references, in the select (a selected reference into a register array
    // pushes it to local memory).
    const bool other_first = word_less(other, mine);
    return other_first == smaller ? other : mine;
  }
}

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

__device__ __forceinline__ tagged_word shuffle_xor(const tagged_word& word, int lane_mask) {
  return {shuffle_xor(word.bits, lane_mask),
          __shfl_xor_sync(0xffffffffu, word.position, lane_mask)};
}

// Shared memory for a tile of words (the exchanges between warps, and staging the sorted
// tile): a tagged word keeps its position in 16 bits.
template <class Word, int TileItems>
struct word_buffer {
  Word words[padded(TileItems)];
  __device__ __forceinline__ void put(int position, const Word& word) {
    words[padded(position)] = word;
  }
  __device__ __forceinline__ Word get(int position) const { return words[padded(position)]; }
};
template <int TileItems>
struct word_buffer<tagged_word, TileItems> {
  static_assert(TileItems <= 65536, "positions are 16-bit in shared memory");
  std::uint64_t bits[padded(TileItems)];
  unsigned short position[padded(TileItems)];
  __device__ __forceinline__ void put(int p, const tagged_word& word) {
    bits[padded(p)] = word.bits;
    position[padded(p)] = static_cast<unsigned short>(word.position);
  }
  __device__ __forceinline__ tagged_word get(int p) const {
    return {bits[padded(p)], position[padded(p)]};
  }
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

// One compare-exchange step between this thread's words and another thread's (another lane
// when `Shuffle`, another warp through shared memory otherwise). `partner_bits` = j, or k - 1
// for the mirror step; `lower_bit` is the bit of the position that is clear in the lower
// partner (j, or k / 2), which keeps the smaller word.
template <int Items, bool Shuffle, class Word, class Buffer>
__device__ __forceinline__ void exchange_across_threads(Word (&words)[Items], Buffer& shared,
                                                        int partner_bits, int lower_bit) {
  const int thread = int(threadIdx.x);
  const bool lower = ((thread * Items) & lower_bit) == 0;
  Word other[Items];
  if constexpr (Shuffle) {
    // The partner's register: i, or Items - 1 - i when the step also mirrors within a thread.
    const int register_flip = partner_bits % Items;
    const int lane_mask = partner_bits / Items;
#pragma unroll
    for (int i = 0; i < Items; ++i) other[i] = shuffle_xor(words[i ^ register_flip], lane_mask);
  } else {
#pragma unroll
    for (int i = 0; i < Items; ++i) shared.put(thread * Items + i, words[i]);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Items; ++i) other[i] = shared.get((thread * Items + i) ^ partner_bits);
    __syncthreads();  // the next exchange overwrites what the partner is reading
  }
#pragma unroll
  for (int i = 0; i < Items; ++i) words[i] = keep_word(words[i], other[i], lower);
}

template <int Items, class Word, class Buffer>
__device__ __forceinline__ void bitonic_step(Word (&words)[Items], Buffer& shared,
                                             int partner_bits, int lower_bit) {
  if (partner_bits >= 32 * Items) {
    exchange_across_threads<Items, false>(words, shared, partner_bits, lower_bit);
  } else if (partner_bits >= Items) {
    exchange_across_threads<Items, true>(words, shared, partner_bits, lower_bit);
  } else {
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      if ((i & lower_bit) != 0) continue;
      const int partner = i ^ partner_bits;
      const Word low = keep_word(words[i], words[partner], true);
      const Word high = keep_word(words[i], words[partner], false);
      words[i] = low;
      words[partner] = high;
    }
  }
}

// Sorts the block's tile of words ascending; every thread of the block must call it. Levels
// and steps are unrolled at compile time, so register indices and step kinds are constants.
template <int Threads, int Items, class Word, class Buffer>
__device__ void bitonic_sort_words(Word (&words)[Items], Buffer& shared) {
  static_assert((Items & (Items - 1)) == 0 && Threads % 32 == 0, "power-of-two tile of warps");
  constexpr int log_tile = log2_of(Threads * Items);
#pragma unroll
  for (int level = 1; level <= log_tile; ++level) {
    const int k = 1 << level;
    bitonic_step(words, shared, k - 1, k / 2);  // the mirror step
#pragma unroll
    for (int step = level - 2; step >= 0; --step)
      bitonic_step(words, shared, 1 << step, 1 << step);
  }
}

}  // namespace gpusort::backends
