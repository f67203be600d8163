// Pure arithmetic of the bucket partition: which bucket a key falls in, how many buckets a
// level uses, how small buckets are packed into sort units, and how a persistent block finds
// the work item a tile belongs to. All __host__ __device__ so the host tests check it.
//
// Buckets live in the keys' radix bit space (radix_key_traits::sort_bits, reversed for a
// descending sort), not in value space: there, min/max and widths need no floating-point
// arithmetic, NaN and infinities are ordinary patterns, and a float range spanning many
// orders of magnitude is cut by exponent as well as by mantissa (an equal-width split of
// [1e-30, 1e30] in value space puts almost every key in bucket 0).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpusort::backends::bucket_bitonic {

// Number of significant bits of x (0 for 0).
__host__ __device__ constexpr int bit_length(std::uint64_t x) {
  int length = 0;
  while (x != 0) {
    ++length;
    x >>= 1;
  }
  return length;
}

// Buckets are equal-width power-of-two slices of [min, max]: bucket(bits) = (bits - min) >>
// shift. The shift leaves at most 2^bucket_bits buckets and at least 2^(bucket_bits-1) when
// the range is wide enough. A bucket's own range then has at most `shift` significant bits,
// so each level removes bucket_bits bits of range and the recursion ends after
// key_bits / bucket_bits levels with every bucket holding one value.
__host__ __device__ constexpr int bucket_shift(std::uint64_t min_bits, std::uint64_t max_bits,
                                               int bucket_bits) {
  const int range_bits = bit_length(max_bits - min_bits);
  return range_bits > bucket_bits ? range_bits - bucket_bits : 0;
}

__host__ __device__ constexpr unsigned bucket_of(std::uint64_t bits, std::uint64_t min_bits,
                                                 int shift) {
  return unsigned((bits - min_bits) >> shift);
}

// The largest bits of bucket `bucket` of [min_bits, max_bits] (shift from bucket_shift).
__host__ __device__ constexpr std::uint64_t bucket_end_bits(std::uint64_t min_bits,
                                                            std::uint64_t max_bits,
                                                            std::uint64_t bucket, int shift) {
  const std::uint64_t end = (bucket << shift) + ((std::uint64_t(1) << shift) - 1);
  return end > max_bits - min_bits ? max_bits : min_bits + end;
}

// The same buckets of a window [min_bits, ...] of a wider range, with the keys below the
// window in bucket 0 and those above it in the last: still never decreasing as the bits grow,
// so a sorted order. Only the inner buckets' ranges are exact; the first and the last may hold
// any range, so a level after such a window may have to cut all of the key's bits again
// (plan_sort's level count).
__host__ __device__ constexpr unsigned clamped_bucket_of(std::uint64_t bits,
                                                         std::uint64_t min_bits, int shift,
                                                         unsigned last) {
  if (bits < min_bits) return 0;
  const std::uint64_t bucket = (bits - min_bits) >> shift;
  return bucket < last ? unsigned(bucket) : last;
}

// Whether the first level cuts the sample's window [sample_low, sample_high] (the buckets of
// the whole range that the sample fills) instead of the whole [min_bits, max_bits]: where the
// window is at most 1/2^window_gain_bits of the range (one far outlier beside keys in a narrow
// band: cut by the range, the band falls into a handful of buckets, and every key takes one
// more level). Keys outside the window (those the sample missed) land in the two end
// buckets, for the levels after it to cut.
inline constexpr int window_gain_bits = 3;
__host__ __device__ constexpr bool cuts_sample_window(std::uint64_t min_bits,
                                                      std::uint64_t max_bits,
                                                      std::uint64_t sample_low,
                                                      std::uint64_t sample_high) {
  return sample_low < sample_high &&
         bit_length(sample_high - sample_low) + window_gain_bits <= bit_length(max_bits - min_bits);
}

// The tuning's bucket sizes in keys, for sort units of unit_items keys: the tuning gives them
// as fractions of a unit (and says why); bucket_shape keeps them for its own unit.
// The keys per bucket a level aims at:
template <class Tuning>
__host__ __device__ constexpr std::size_t target_bucket_keys(int unit_items) {
  return std::size_t(unit_items) / Tuning::knobs.target_buckets_per_unit;
}
// The most keys a small bucket holds:
template <class Tuning>
__host__ __device__ constexpr std::size_t small_bucket_limit(int unit_items) {
  return std::size_t(unit_items) / Tuning::knobs.small_buckets_per_unit;
}
// The window that the first keys of one unit's small buckets fall in:
template <class Tuning>
__host__ __device__ constexpr std::size_t unit_window(int unit_items) {
  return std::size_t(unit_items) / 4 * Tuning::knobs.unit_window_quarters;
}

// Buckets the first level splits n keys into: the fewest that average at most target_keys
// keys, never more than 2^max_bits, at least two.
__host__ __device__ constexpr int first_level_bucket_bits(std::size_t n, std::size_t target_keys,
                                                          int max_bits) {
  int bits = 1;
  while (bits < max_bits && (n >> bits) > target_keys) ++bits;
  return bits;
}

// Buckets the first level splits n keys into when they need more bits than one level takes:
// the bits they need (to average at most target_keys keys per bucket) shared evenly among
// the fewest levels of at most max_bits each. Every level is a scatter of all the keys, and
// a scatter writes runs of about tile / buckets keys per tile, so two levels of 8 bits cost
// less than one of 11 followed by one of 5 (2^24 u64 keys: 2.00 against 2.44 ms on an H100).
__host__ __device__ constexpr int balanced_first_level_bits(std::size_t n, std::size_t target_keys,
                                                            int max_bits) {
  const int needed = first_level_bucket_bits(n, target_keys, 64);
  const int levels = (needed + max_bits - 1) / max_bits;
  return (needed + levels - 1) / levels;
}

// That even split suits keys spread evenly over their range. Skewed keys leave a few
// first-level buckets far heavier than the average, and one that the next level's 2^max_bits
// buckets cannot cut to the target costs a third pass over its keys. So the first level
// takes, between the even split and max_bits, the fewest bits whose heaviest bucket,
// estimated from a sample, holds at most heavy_bucket_limit keys: what 2^max_bits buckets
// cut to the target (half a small bucket), which leaves room for sampling noise and for
// skew within the bucket.
__host__ __device__ constexpr std::size_t heavy_bucket_limit(std::size_t target_keys,
                                                             int max_bits) {
  return target_keys << max_bits;
}
__host__ __device__ constexpr bool heaviest_bucket_fits(std::size_t heaviest_in_sample,
                                                        std::size_t samples, std::size_t n,
                                                        std::size_t limit) {
  // heaviest / samples * n <= limit, in integers (samples and heaviest <= 2^20, n < 2^43).
  return heaviest_in_sample * n <= limit * samples;
}

// Buckets a deeper level splits a segment of `count` keys into: as at level 0, but at least
// 2^min_bits, so that each level still removes min_bits bits of range (partition_levels).
// A segment that needs more than max_bits (one the level before could not cut to size: a
// narrow window of keys beside a far outlier, the crowded bottom of exponential keys) still
// takes max_bits where its buckets average at most 7/4 of the target (7/8 of a small bucket),
// and otherwise half the bits it needs, as the balanced first level does. Buckets of about a
// small bucket's limit, half of them over it, would each become a segment of the next level,
// cut into buckets of a few keys, and leave their neighbours units of one bucket each (u32,
// 2^24 keys in a window of 2^24 values beside one key of 0: 1.8 ms with max_bits, 1.2 ms with
// 8 bits, against 0.9 ms for uniform keys; u64 normal keys at 2^28, whose largest segments
// average 0.8 of a small bucket, lost 18 % with half; H100, bench/results/NOTES.md).
__host__ __device__ constexpr int deeper_level_bucket_bits(std::size_t count,
                                                           std::size_t target_keys,
                                                           int min_bits, int max_bits) {
  const int needed = first_level_bucket_bits(count, target_keys, 64);
  const bool one_level = needed <= max_bits || (count >> max_bits) <= target_keys * 7 / 4;
  const int bits = one_level ? needed : (needed + 1) / 2;  // clamped below
  return bits < min_bits ? min_bits : bits > max_bits ? max_bits : bits;
}

// Partition levels that can still find a bucket with more than one distinct value: after
// them every oversized bucket is all-equal (see bucket_shift).
__host__ __device__ constexpr int partition_levels(int key_bits, int first_bits, int deeper_bits) {
  const int left = key_bits > first_bits ? key_bits - first_bits : 0;
  return 1 + (left + deeper_bits - 1) / deeper_bits;
}

// Packing small buckets into sort units. A bucket is small when it holds at most
// small_limit keys. Within a segment, a unit is a run of consecutive small buckets (no other
// non-empty bucket between them) whose first keys fall in the same window of `window` keys;
// with small_limit + window - 1 at most unit_items, no unit holds more than a sort unit.
__host__ __device__ constexpr bool is_small_bucket(std::size_t count, std::size_t small_limit) {
  return count <= small_limit;
}
__host__ __device__ constexpr std::size_t window_of(std::size_t start, std::size_t window) {
  return start / window;
}
// What a non-empty bucket starting at `start` (relative to its segment) tells the buckets
// after it; 0 stands for "no bucket". The largest marker before a bucket is the previous
// non-empty bucket's (starts grow), so a block-wide max-scan finds it.
__host__ __device__ constexpr unsigned long long bucket_marker(std::size_t start, bool small) {
  return (static_cast<unsigned long long>(start) + 1) * 2 + (small ? 0 : 1);
}
// Whether a non-empty small bucket opens a unit, given the previous non-empty bucket's marker.
__host__ __device__ constexpr bool opens_unit(unsigned long long previous_marker,
                                              std::size_t start, std::size_t window) {
  return previous_marker == 0 || (previous_marker & 1) != 0 ||
         window_of(std::size_t(previous_marker / 2 - 1), window) != window_of(start, window);
}

// Work lists. Entries are appended concurrently; each append reserves its entries and their
// tiles with one 64-bit atomicAdd on a packed counter, so entries come out ordered by their
// first tile and a persistent block finds a tile's entry by binary search.
inline constexpr int list_tile_bits = 34;  // up to 2^30 entries and 2^34 tiles
__host__ __device__ constexpr unsigned long long pack_reservation(unsigned long long entries,
                                                                  unsigned long long tiles) {
  return (entries << list_tile_bits) | tiles;
}
__host__ __device__ constexpr unsigned long long entries_of(unsigned long long packed) {
  return packed >> list_tile_bits;
}
__host__ __device__ constexpr unsigned long long tiles_of(unsigned long long packed) {
  return packed & ((1ull << list_tile_bits) - 1);
}

// Index of the last entry whose first_tile is <= tile (entries sorted by first_tile, the
// first one starting at 0). Each round probes `ways` evenly spaced entries at once:
// highest(low, step, high) returns the largest j < ways with low + j * step < high and
// entries[low + j * step].first_tile <= tile (j = 0 always qualifies). With one probe per
// round (below) it is a binary search; a warp probes 32 (kernels.cuh), 4 rounds instead of
// 17 dependent loads for 10^5 entries.
template <class Entry, class Highest>
__host__ __device__ std::size_t entry_of_tile(const Entry* entries, std::size_t count,
                                              unsigned long long tile, int ways,
                                              Highest highest) {
  std::size_t low = 0;
  std::size_t high = count;  // entries[low].first_tile <= tile < entries[high].first_tile
  while (high - low > 1) {
    const std::size_t step = (high - low + std::size_t(ways) - 1) / std::size_t(ways);
    low += std::size_t(highest(low, step, high)) * step;
    high = low + step < high ? low + step : high;
  }
  return low;
}

template <class Entry>
__host__ __device__ std::size_t entry_of_tile(const Entry* entries, std::size_t count,
                                              unsigned long long tile) {
  return entry_of_tile(entries, count, tile, 2,
                       [&](std::size_t low, std::size_t step, std::size_t high) {
                         const std::size_t probe = low + step;
                         return probe < high && entries[probe].first_tile <= tile ? 1 : 0;
                       });
}

}  // namespace gpusort::backends::bucket_bitonic
