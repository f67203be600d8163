// Pure index arithmetic of the LSD radix sort: digits, passes, portions, and the pass plan.
// All __host__ __device__ so the host tests can check it without a GPU, but for what CUB's
// block rank needs of a thread (its items' order, its digit callbacks): device only.
#pragma once

#include "../common/tiles.cuh"

#include <cstddef>
#include <cstdint>

namespace gpusort::backends::radix {

// Keys of at most 64 bits with digits of at least one bit.
inline constexpr int max_passes = 64;

__host__ __device__ constexpr int pass_count(int key_bits, int digit_bits) {
  return (key_bits + digit_bits - 1) / digit_bits;
}

// Digit `pass` of `bits`, least significant first.
template <class Bits>
__host__ __device__ constexpr unsigned digit_of(Bits bits, int pass, int digit_bits) {
  return unsigned(bits >> (pass * digit_bits)) & ((1u << digit_bits) - 1u);
}

// The digit extractor of CUB's block rank for one pass.
template <class Bits>
struct pass_digit {
  int pass;
  int digit_bits;
  __device__ __forceinline__ std::uint32_t Digit(Bits bits) const {
    return digit_of(bits, pass, digit_bits);
  }
};

// The order of CUB's match-based rank: item j of lane l in warp w is tile element
// w*32*Items + j*32 + l. The rank orders a warp's keys item-major, lane-minor, and the warps
// in order: exactly the input order, so equal digits stay stable.
template <int Items>
__device__ __forceinline__ int warp_striped_index(int j) {
  constexpr int warp_threads = 32;
  return int(threadIdx.x) / warp_threads * warp_threads * Items + j * warp_threads +
         int(threadIdx.x) % warp_threads;
}

// Calls step(j, i) for each of the thread's items j whose warp-striped tile index i is below
// `count`; with FullTile the bounds checks compile away.
template <int Items, bool FullTile = false, class Step>
__device__ __forceinline__ void for_each_warp_striped(int count, Step&& step) {
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int i = warp_striped_index<Items>(j);
    if (FullTile || i < count) step(j, i);
  }
}

// The early-count callback of CUB's block rank: the tile's count of each of the thread's
// digits, known before the keys are ranked, into `counts` and handed to `use(digit, count)`
// (publish it to later tiles, or to the other blocks of a cluster). Keys past the end of a
// short tile are ranked as the top digit and taken off its count.
template <int BinsPerThread, class Use>
struct tile_digit_counts {
  int digits;
  int padding;
  int (&counts)[BinsPerThread];
  Use use;

  __device__ __forceinline__ void operator()(int (&bins)[BinsPerThread]) {
#pragma unroll
    for (int b = 0; b < BinsPerThread; ++b) {
      const int digit = int(threadIdx.x) * BinsPerThread + b;
      if (digit >= digits) continue;
      counts[b] = bins[b] - (digit == digits - 1 ? padding : 0);
      use(digit, counts[b]);
    }
  }
};

// The one-sweep passes sort the input in portions of whole tiles of at most `limit` keys, so
// that every count the look-back publishes fits its 30-bit field (lookback.cuh).
inline constexpr std::size_t max_portion_items = (std::size_t(1) << 30) - 1;

__host__ __device__ constexpr std::size_t portion_items(int tile_items, std::size_t limit) {
  const std::size_t tiles = limit / std::size_t(tile_items);
  return (tiles > 0 ? tiles : 1) * std::size_t(tile_items);
}

__host__ __device__ constexpr std::size_t portion_count(std::size_t n, std::size_t portion) {
  return (n + portion - 1) / portion;
}

// The portion size a sort of n keys uses: as many portions as `most` (a whole number of
// tiles) requires, of nearly equal tiles each. Each launch clears the next launch's look-back
// table with its own blocks, so a short last portion after a long one would leave a few
// blocks clearing a large table: 2^29 keys in portions of 2^29 - 1 and 1 took twice as
// long as in two of 2^28 (H200).
__host__ __device__ constexpr std::size_t balanced_portion_items(std::size_t n, int tile_items,
                                                                 std::size_t most) {
  const std::size_t portions = n == 0 ? 1 : portion_count(n, most);
  const std::size_t tiles = tile_count(n, tile_items);
  const std::size_t tiles_each = (tiles + portions - 1) / portions;
  return (tiles_each > 0 ? tiles_each : 1) * std::size_t(tile_items);
}

// Which buffer each pass reads (0: the user's, 1: the alternate), which passes are skipped
// because every key has the same digit there, and where the result ends up. Kept on the
// device so that skipping needs no round trip to the host. `canonical_digits`: some key's
// sort bits differ from its encoding (a -0.0 or a NaN), so the passes take every digit from
// the sort bits (set by the histogram pass, not by plan_passes).
// `msd_pass` (0: none) names the one pass that runs in a sort by buckets (plan_msd_buckets).
struct pass_plan {
  std::uint8_t skip[max_passes];
  std::uint8_t source[max_passes];
  std::uint8_t result_in_alternate;
  std::uint8_t canonical_digits;
  std::uint8_t msd_pass;
};

// `single_digit[p]`: every key has the same digit in pass p (so the pass would not move
// anything). Each pass that runs moves the data to the other buffer; where that would leave
// the result in the alternate buffer and a single-digit pass exists, that pass runs too (as a
// copy), so that the result ends in the user's buffer without a copy-back launch. Only a sort
// whose pass count is odd and that skips nothing ends in the alternate buffer.
__host__ __device__ inline pass_plan plan_passes(const bool* single_digit, int passes) {
  int moving = 0;
  for (int p = 0; p < passes; ++p) moving += single_digit[p] ? 0 : 1;
  bool run_one_more = moving % 2 == 1 && moving < passes;
  pass_plan plan{};
  std::uint8_t current = 0;
  for (int p = 0; p < passes; ++p) {
    bool skip = single_digit[p];
    if (skip && run_one_more) {
      skip = false;
      run_one_more = false;
    }
    plan.skip[p] = skip;
    plan.source[p] = current;
    if (!skip) current ^= 1;
  }
  plan.result_in_alternate = current;
  return plan;
}

// The plan of a sort by buckets (backends/radix/msd_buckets.cuh): only the pass of the most
// significant digit that differs between keys runs, moving the keys into one bucket per digit
// value in the alternate buffer; each bucket then sorts itself by the lower digits, back into
// the user's buffer. Every digit above that one is the same for every key, so the buckets in
// digit order are the sorted order. Taken where that digit is not the lowest (else one pass
// sorts everything) and no bucket holds more than `bucket_capacity` keys (`widest_bucket[p]`:
// the most keys of one digit value in pass p); otherwise the LSD plan (plan_passes).
__host__ __device__ inline pass_plan plan_msd_buckets(const bool* single_digit,
                                                      const unsigned long long* widest_bucket,
                                                      int passes,
                                                      unsigned long long bucket_capacity) {
  int msd = passes - 1;
  while (msd > 0 && single_digit[msd]) --msd;
  if (msd == 0 || widest_bucket[msd] > bucket_capacity) return plan_passes(single_digit, passes);
  pass_plan plan{};
  for (int p = 0; p < passes; ++p) plan.skip[p] = p != msd;
  plan.msd_pass = std::uint8_t(msd);
  return plan;
}

// The blocks a bucket's cluster needs for n keys spread evenly over `digits` buckets, with
// headroom_percent more keys than the even share (so that uniform keys fit with room to spare
// and skewed keys fall back to the LSD passes), in tiles of tile_items.
__host__ __device__ constexpr int bucket_cluster_blocks(std::size_t n, int digits,
                                                        int tile_items, int headroom_percent) {
  const std::size_t share = (n + std::size_t(digits) - 1) / std::size_t(digits);
  const std::size_t wanted = share + share * std::size_t(headroom_percent) / 100;
  return int((wanted + std::size_t(tile_items) - 1) / std::size_t(tile_items));
}

// Whether a sort with this many passes may end in the alternate buffer (see plan_passes).
__host__ __device__ constexpr bool may_end_in_alternate(int passes) { return passes % 2 == 1; }

}  // namespace gpusort::backends::radix
