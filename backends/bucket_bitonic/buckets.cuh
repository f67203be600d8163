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

// Buckets the first level splits n keys into: about four buckets' worth of keys per sort
// unit (see unit_window), never more than 2^max_bits, at least two.
__host__ __device__ constexpr int first_level_bucket_bits(std::size_t n, int unit_items,
                                                          int max_bits) {
  const std::size_t per_bucket = std::size_t(unit_items) / 4;
  int bits = 1;
  while (bits < max_bits && (n >> bits) > per_bucket) ++bits;
  return bits;
}

// Partition levels that can still find a bucket with more than one distinct value: after
// them every oversized bucket is all-equal (see bucket_shift).
__host__ __device__ constexpr int partition_levels(int key_bits, int first_bits, int deeper_bits) {
  const int left = key_bits > first_bits ? key_bits - first_bits : 0;
  return 1 + (left + deeper_bits - 1) / deeper_bits;
}

// Packing small buckets into sort units of at most unit_items keys. A bucket is small when it
// holds at most half a unit; within a segment, the small buckets whose first key falls in the
// same window of half a unit form one unit. A unit therefore spans less than one window plus
// one small bucket: at most unit_items keys. A bucket of more than half a unit spans more
// than a window, so no unit reaches across it.
__host__ __device__ constexpr std::size_t unit_window(int unit_items) {
  return std::size_t(unit_items) / 2;
}
__host__ __device__ constexpr bool is_small_bucket(std::size_t count, int unit_items) {
  return count <= unit_window(unit_items);
}
__host__ __device__ constexpr std::size_t window_of(std::size_t start, int unit_items) {
  return start / unit_window(unit_items);
}
// A non-empty small bucket starting at `start` (relative to its segment) opens a unit unless
// the previous non-empty bucket of the segment started in the same window.
// `previous_start_plus_one` is that bucket's start + 1, or 0 when there is none.
__host__ __device__ constexpr bool opens_unit(std::size_t previous_start_plus_one,
                                              std::size_t start, int unit_items) {
  return previous_start_plus_one == 0 ||
         window_of(previous_start_plus_one - 1, unit_items) != window_of(start, unit_items);
}

// Work lists. Entries are appended concurrently; each append reserves its entries and their
// tiles with one 64-bit atomicAdd on a packed counter, so entries come out ordered by their
// first tile and a persistent block finds a tile's entry by binary search.
inline constexpr int list_tile_bits = 38;  // up to 2^26 entries and 2^38 tiles
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
// first one starting at 0).
template <class Entry>
__host__ __device__ std::size_t entry_of_tile(const Entry* entries, std::size_t count,
                                              unsigned long long tile) {
  std::size_t low = 0;
  std::size_t high = count;  // entries[low].first_tile <= tile < entries[high].first_tile
  while (high - low > 1) {
    const std::size_t middle = low + (high - low) / 2;
    if (entries[middle].first_tile <= tile) low = middle;
    else high = middle;
  }
  return low;
}

}  // namespace gpusort::backends::bucket_bitonic
