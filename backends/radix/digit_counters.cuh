// A block's counters of the up-front histogram (count_all_digits): how many of the block's
// keys have each digit in each pass, added into the global histograms at the end.
//   digit_rows          one 32-bit counter per pass and digit, shared by the whole block:
//                       the lanes of a warp add to random digits, and each of their
//                       shared-memory atomics waits on its busiest bank;
//   digit_lane_columns  a column of counters per lane of a warp, shared by the block's
//                       warps: lane l's counters all lie in bank l, so a warp's 32 atomics
//                       never share a bank. 32-bit counters where the columns fit
//                       lane_columns_most_bytes (keys of up to 4 bytes: 128 KB), else 16-bit
//                       ones, two digits to a word (8-byte keys: 128 KB), added out every so
//                       many chunks, before one could overflow.
// Both: every thread of the block calls clear() first, add() for each key's digit in each
// pass, and add_to() at the end, and after every chunks_before_full(...) chunks of keys also
// add_to() and clear() (between barriers). H200, the counting alone (bench/results/NOTES.md,
// 2026-11-30): 32-bit keys in 32-bit columns at 1024 x 8 keys a block -17 to -25 % against
// the rows at 384 x 8 (2^24-2^28), 8-byte keys in 16-bit columns -6 to -14 %; the same
// columns in blocks of 384 lost to the rows (fewer loads in flight).
#pragma once

#include <climits>

namespace gpusort::backends::radix {

template <int Passes, int Digits>
struct digit_rows {
  unsigned int counts[Passes][Digits];

  __device__ __forceinline__ void clear() {
    for (int i = threadIdx.x; i < Passes * Digits; i += blockDim.x) (&counts[0][0])[i] = 0;
  }
  __device__ __forceinline__ void add(int pass, int digit) {
    atomicAdd(&counts[pass][digit], 1u);
  }
  // Never full: a block counts fewer than 2^32 keys of one digit.
  __host__ __device__ static constexpr int chunks_before_full(int /*warps*/, int /*items*/) {
    return INT_MAX;
  }
  // Adds the counts into histograms[pass][digit], after a barrier.
  __device__ __forceinline__ void add_to(unsigned long long* histograms) const {
    for (int i = threadIdx.x; i < Passes * Digits; i += blockDim.x) {
      const unsigned int c = (&counts[0][0])[i];
      if (c != 0) atomicAdd(&histograms[i], static_cast<unsigned long long>(c));
    }
  }
};

inline constexpr int lane_columns_most_bytes = 128 * 1024;

template <int Passes, int Digits>
struct digit_lane_columns {
  // Counters of 32 bits where they fit, else of 16, two digits to a word.
  static constexpr int counter_bits = Passes * Digits * 32 * 4 <= lane_columns_most_bytes ? 32 : 16;
  static constexpr int digits_per_word = 32 / counter_bits;
  static_assert(Digits % digits_per_word == 0, "whole words of digits");
  // words[pass][digit / digits_per_word][lane]; with 16-bit counters an even digit's count in
  // the low half, an odd one's in the high half.
  unsigned int words[Passes][Digits / digits_per_word][32];

  __device__ __forceinline__ void clear() {
    for (int i = threadIdx.x; i < Passes * Digits / digits_per_word * 32; i += blockDim.x)
      (&words[0][0][0])[i] = 0;
  }
  __device__ __forceinline__ void add(int pass, int digit) {
    const int shift = counter_bits * (digit % digits_per_word);
    atomicAdd(&words[pass][digit / digits_per_word][threadIdx.x % 32], 1u << shift);
  }
  // Chunks of `items` keys per thread of `warps` warps that a counter surely holds: each
  // adds at most one per warp and item to it.
  __host__ __device__ static constexpr int chunks_before_full(int warps, int items) {
    return counter_bits == 32 ? INT_MAX : 65535 / (warps * items);
  }
  // Adds the counts into histograms[pass][digit], after a barrier.
  __device__ __forceinline__ void add_to(unsigned long long* histograms) const {
    constexpr unsigned int mask = counter_bits == 32 ? ~0u : 0xffffu;
    for (int i = threadIdx.x; i < Passes * Digits; i += blockDim.x) {
      const unsigned int(&column)[32] = words[i / Digits][i % Digits / digits_per_word];
      const int shift = counter_bits * (i % digits_per_word);
      unsigned int c = 0;
      // Lanes read in a staggered order: the threads of a warp read 32 different banks.
#pragma unroll 8
      for (int k = 0; k < 32; ++k) c += (column[(k + i) % 32] >> shift) & mask;
      if (c != 0) atomicAdd(&histograms[i], static_cast<unsigned long long>(c));
    }
  }
};

}  // namespace gpusort::backends::radix
