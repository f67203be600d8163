// Kernels of the bucket + bitonic sort, in the order they run:
//   start_lists          level 0 holds one segment, the whole input (or, for an input that
//                        fits one sort unit, the unit list holds it directly)
//   per partition level:
//     segment_min_max    min and max ordered bits of every segment of the level (and the
//                        next level's list and counter pool emptied)
//     choose_first_level_bits   (level 0 of a sampled sort: dispatch.cuh, plan_sort) its
//                        bucket count, and perhaps a window of the range, from a sample
//                        of the keys
//     bucket_histogram   each segment's keys counted per equal-width bucket
//     plan_buckets       per segment: bucket starts, and the buckets' fate: small ones
//                        packed into sort units, oversized ones to the next level as
//                        segments of their own, oversized all-equal ones straight to units
//     bucket_scatter     each tile ordered by bucket in shared memory, then each bucket's run
//                        written to the bucket's next free positions (coalesced)
//   sort_units           every unit of every level in one launch: a bitonic network in
//                        shared memory, or a plain copy for all-equal keys
// The partition kernels are persistent: a grid of resident blocks walks the level's tiles,
// however many the previous level left, so the host never waits to learn how data split.
// Every kernel after start_lists is launched to overlap the end of the one before it
// (dependent_launch.cuh) and waits for it first. Each kernel's work is one block-level
// function, so that the levels past the first two or three run the same steps in one
// cooperative kernel, which stops at the first empty level (deeper_levels.cuh).
#pragma once

#include <gpusort/detail/policies/key_traits.cuh>
#include "../common/launch_bounds.cuh"
#include "../common/tiles.cuh"
#include "../common/ordered_bits.cuh"
#include "../common/striped_tile.cuh"
#include "../common/bitonic_tile.cuh"
#include "../common/dependent_launch.cuh"
#include "../common/block_shared.cuh"
#include "../common/tile_prefetch.cuh"
#include "buckets.cuh"
#include "value_buckets.cuh"
#include "work_lists.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpusort::backends::bucket_bitonic {

// Whether units of Key sort 32-bit prefix words first (sort_as_prefix_words), the full words
// only where those leave keys out of order (sort_units_by_full_words): keys of 64-bit bits. A
// compare-exchange of 64-bit words takes a two-part compare and two selects per word where
// 32-bit words take a min or a max, and the networks are bound by those integer instructions
// (ncu: the ALU pipe the busiest, at 71-78 %).
template <class Key>
inline constexpr bool has_prefix_words_v = sizeof(ordered_bits_t<Key>) == 8;

// The shapes of the kernels for one (key, value) pair: what Tuning asks for, shrunk to fit
// its shared-memory budgets.
template <class Tuning, class Key, class Value = no_values>
struct bucket_shape {
  using traits = radix_key_traits<Key>;
  using bits_type = typename traits::bits_type;

  static constexpr int partition_threads = Tuning::knobs.partition_threads;
  static constexpr int widest_element =
      int(sizeof(Key) > sizeof(Value) ? sizeof(Key) : sizeof(Value));
  static constexpr int fitting_partition_items =
      Tuning::knobs.partition_exchange_bytes / (widest_element * partition_threads);
  static_assert(fitting_partition_items >= 1,
                "gpusort::bucket_bitonic: the key or value type is too large for a tile in "
                "shared memory; sort an index payload and gather the values afterwards");
  static constexpr int partition_items =
      Tuning::knobs.partition_items_per_thread < fitting_partition_items
          ? Tuning::knobs.partition_items_per_thread
          : fitting_partition_items;
  static constexpr int partition_tile = partition_threads * partition_items;
  static_assert(partition_tile <= 65536, "ranks within a tile are 16-bit");

  static constexpr int max_bucket_bits = Tuning::knobs.first_bucket_bits;
  static constexpr int min_deeper_bucket_bits = Tuning::knobs.deeper_bucket_bits;
  static constexpr int max_buckets = 1 << max_bucket_bits;
  static_assert(Tuning::knobs.deeper_bucket_bits <= Tuning::knobs.first_bucket_bits &&
                    max_buckets % partition_threads == 0,
                "bucket counts: powers of two, a multiple of partition_threads");
  static constexpr int buckets_per_thread = max_buckets / partition_threads;
  // Whether the first level may take fewer bits than it can, to share them evenly with the
  // next level (buckets.cuh: balanced_first_level_bits), and keys sampled to check it
  // (choose_first_level_bits). Not for floats: their bit space is crowded at the top of each
  // exponent, and they took up to 1.4x as long with it (H100, uniform f32 and f64,
  // 2^20-2^22 keys) where integers sorted 1.1-1.6x faster (bench/results/NOTES.md).
  static constexpr bool balanced_first_level = detail::is_radix_integer_v<Key>;
  // Whether the first level may cut equal widths of value instead (value_buckets.cuh): float
  // and double keys, chosen by the same sample where it finds them lighter. Those buckets
  // then take the balanced bit count too.
  static constexpr bool value_space_first_level = std::is_floating_point_v<Key>;
  static constexpr int first_level_samples = 64 * partition_threads;
  // From how many keys the first level is sampled for a window alone (plan_sort); 0: never.
  static constexpr std::size_t window_sample_min_keys =
      std::size_t(Tuning::knobs.window_sample_min_keys);
  static constexpr int scatter_blocks_per_multiprocessor =
      Tuning::knobs.scatter_blocks_per_multiprocessor;

  // The sort unit's knobs: the tuning's, or its own for float and double keys.
  struct unit_knobs {
    int threads, items_per_thread, exchange_bytes, blocks_per_multiprocessor;
  };
  static constexpr unit_knobs sort_unit =
      std::is_floating_point_v<Key> && Tuning::knobs.float_sort_threads != 0
          ? unit_knobs{Tuning::knobs.float_sort_threads, Tuning::knobs.float_sort_items_per_thread,
                       Tuning::knobs.float_exchange_bytes,
                       Tuning::knobs.float_sort_blocks_per_multiprocessor}
          : unit_knobs{Tuning::knobs.sort_threads, Tuning::knobs.sort_items_per_thread,
                       Tuning::knobs.exchange_bytes,
                       has_prefix_words_v<Key> &&
                               Tuning::knobs.wide_integer_sort_blocks_per_multiprocessor != 0
                           ? Tuning::knobs.wide_integer_sort_blocks_per_multiprocessor
                           : Tuning::knobs.sort_blocks_per_multiprocessor};
  static constexpr int sort_threads = sort_unit.threads;
  static constexpr int sort_items = bitonic_items_per_thread<bits_type>(
      sort_threads, sort_unit.items_per_thread, sort_unit.exchange_bytes);
  static_assert(sort_items >= 1,
                "gpusort::bucket_bitonic: the key type is too large for a sort unit in shared "
                "memory");
  static constexpr int unit_items = sort_threads * sort_items;
  static_assert(unit_items <= 65536, "positions are 16-bit in shared memory");
  static constexpr int sort_blocks_per_multiprocessor = sort_unit.blocks_per_multiprocessor;

  // The tuning's bucket sizes, in keys of this shape's sort unit (buckets.cuh).
  static constexpr int target_buckets_per_unit = Tuning::knobs.target_buckets_per_unit;
  static constexpr std::size_t target_bucket_keys =
      bucket_bitonic::target_bucket_keys<Tuning>(unit_items);
  static constexpr std::size_t small_bucket_limit =
      bucket_bitonic::small_bucket_limit<Tuning>(unit_items);
  static constexpr std::size_t unit_window = bucket_bitonic::unit_window<Tuning>(unit_items);
  static_assert(unit_items % target_buckets_per_unit == 0,
                "bucket_bitonic: the counter pools' bound (capacities_for) takes whole targets");
  static_assert(small_bucket_limit >= 1 && unit_window >= 1 &&
                    small_bucket_limit + unit_window - 1 <= std::size_t(unit_items),
                "bucket_bitonic: a small bucket and a window fit a sort unit together");
};

// A key's ordered bits, widened to the 64 bits in which segments keep their min and max.
template <class Key>
__device__ __forceinline__ unsigned long long widened_ordered_bits(const Key& key,
                                                                   ordered_bits_t<Key> flip) {
  return static_cast<unsigned long long>(ordered_bits(key, flip));
}

// The bucket of a segment that a key falls in (buckets.cuh: bucket_shift, bucket_of).
template <class Key>
struct key_bucket {
  unsigned long long min_bits;
  int shift;
  ordered_bits_t<Key> flip;
  __device__ __forceinline__ unsigned operator()(const Key& key) const {
    return bucket_of(widened_ordered_bits(key, flip), min_bits, shift);
  }
};

// The key at one end of a segment, from its (widened) ordered bits.
template <class Key>
__device__ __forceinline__ Key key_of_segment_end(unsigned long long bits,
                                                  ordered_bits_t<Key> flip) {
  return key_of_encoded_bits<Key>(ordered_bits_t<Key>(bits), flip);
}

// The bucket a key falls in within its segment: equal widths of ordered bits, or for float
// keys in a segment that chose them, equal widths of value; or with Windowed, equal widths of
// the bits of the first level's window (work_lists.cuh: segment::clamped). Windowed is a
// template parameter, so that the kernels of every other segment compile as if windows did not
// exist: a per-key test of the segment's flag cost the histogram of u32 keys a third of its
// speed (H200, bench/results/NOTES.md).
template <class Key, bool Windowed = false>
struct segment_bucket {
  static constexpr bool may_take_values = std::is_floating_point_v<Key>;
  key_bucket<Key> by_bits;
  value_buckets<std::conditional_t<may_take_values, Key, float>> by_value{};  // (floats only)
  bool in_value = false;
  unsigned last_bucket = 0;  // (Windowed only)

  __device__ __forceinline__ segment_bucket(const segment& seg, ordered_bits_t<Key> flip)
      : by_bits{seg.min_bits, bucket_shift(seg.min_bits, seg.max_bits, seg.bucket_bits), flip} {
    if constexpr (may_take_values) {
      in_value = seg.value_scale != 0;
      by_value = {key_of_segment_end<Key>(seg.min_bits, flip), Key(seg.value_scale),
                  (1u << seg.bucket_bits) - 1};
    }
    if constexpr (Windowed) last_bucket = (1u << seg.bucket_bits) - 1;
  }
  __device__ __forceinline__ unsigned operator()(const Key& key) const {
    if constexpr (Windowed)
      return clamped_bucket_of(widened_ordered_bits(key, by_bits.flip), by_bits.min_bits,
                               by_bits.shift, last_bucket);
    if constexpr (may_take_values)
      if (in_value) return by_value(key);
    return by_bits(key);
  }
};

// Block reductions and scans of ordered bits and bucket markers.
struct minimum {
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const {
    return a < b ? a : b;
  }
};
struct maximum {
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const {
    return a < b ? b : a;
  }
};

// One key per lane into shared bucket counters. Returns the key's rank among this call's
// keys of its bucket (in no particular order). A warp whose keys all share one bucket (runs
// of equal keys, heavy skew) adds once instead of serialising 32 atomics on one counter;
// otherwise each lane adds its own (aggregating every warp with __match_any_sync made the
// histogram of uniform keys 7x slower). Every lane of the warp must call it; `valid` false
// counts nothing.
__device__ __forceinline__ unsigned count_in_bucket(unsigned* counters, unsigned bucket,
                                                    bool valid) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned valid_lanes = __ballot_sync(0xffffffffu, valid);
  const unsigned first_bucket = __shfl_sync(0xffffffffu, bucket, 0);
  if (valid_lanes == 0xffffffffu && __all_sync(0xffffffffu, bucket == first_bucket)) {
    unsigned first = 0;
    if (lane == 0) first = atomicAdd(&counters[bucket], 32u);
    return __shfl_sync(0xffffffffu, first, 0) + lane;
  }
  return valid ? atomicAdd(&counters[bucket], 1u) : 0u;
}

// Where a level's tile lies: its segment and its keys.
struct segment_tile {
  std::size_t segment;
  std::size_t begin;
  int count;
  bool first_of_segment;
};

// entry_of_tile with the 32 lanes of a warp probing at once. Every lane must call it.
template <class Entry>
__device__ __forceinline__ std::size_t warp_entry_of_tile(const Entry* entries,
                                                          std::size_t count,
                                                          unsigned long long tile) {
  const unsigned lane = threadIdx.x % 32;
  return entry_of_tile(entries, count, tile, 32,
                       [&](std::size_t low, std::size_t step, std::size_t high) {
                         const std::size_t probe = low + lane * step;
                         const bool at_or_before =
                             probe < high && entries[probe].first_tile <= tile;
                         return 31 - __clz(int(__ballot_sync(0xffffffffu, at_or_before)));
                       });
}

__device__ __forceinline__ segment_tile locate_tile(const work_list<segment>& list,
                                                    std::size_t segments,
                                                    unsigned long long tile, int tile_items) {
  const std::size_t s = warp_entry_of_tile(list.entries, segments, tile);
  const segment& seg = list.entries[s];
  const std::size_t within = std::size_t(tile - seg.first_tile) * std::size_t(tile_items);
  const std::size_t left = seg.count - within;
  return {s, seg.begin + within,
          int(left < std::size_t(tile_items) ? left : std::size_t(tile_items)), within == 0};
}

// Walks the level's tiles as one block of a persistent grid: on_tile(place) for each of the
// block's tiles, and end_segment(s) after its last tile of each segment s it visited. A
// block's tiles come in segment order, so it can total a segment's tiles before it touches
// global memory once.
template <int TileItems, class OnTile, class EndSegment>
__device__ __forceinline__ void for_each_tile_by_segment(const work_list<segment>& list,
                                                         OnTile&& on_tile,
                                                         EndSegment&& end_segment) {
  const unsigned long long reserved = *list.reservation;
  const std::size_t segments = entries_of(reserved);
  const unsigned long long tiles = tiles_of(reserved);
  std::size_t current = ~std::size_t(0);
  for (unsigned long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const segment_tile place = locate_tile(list, segments, tile, TileItems);
    if (place.segment != current) {
      if (current != ~std::size_t(0)) end_segment(current);
      current = place.segment;
    }
    on_tile(place);
  }
  if (current != ~std::size_t(0)) end_segment(current);
}

// Lists the whole input: as level 0's one segment, or as the one sort unit.
template <class Shape>
__global__ void start_lists(work_list<segment> first_level, work_list<sort_unit> units,
                            work_list<sort_unit> full_word_units, std::size_t n,
                            int first_bucket_bits, bool one_unit) {
  *full_word_units.reservation = 0;
  if (one_unit) {
    units.entries[0] = {0, n, 0, 0, 0};
    *units.reservation = pack_reservation(1, 1);
  } else {
    first_level.entries[0] = {0, n, 0, ~0ull, 0, 0, first_bucket_bits, 0.0,
                              first_level_counter_stride};
    *first_level.reservation = pack_reservation(1, tile_count(n, Shape::partition_tile));
    *units.reservation = 0;
  }
}

// Shared memory of find_segment_min_max.
template <class Shape>
struct min_max_storage {
  using reduce_t = cub::BlockReduce<unsigned long long, Shape::partition_threads>;
  typename reduce_t::TempStorage reduce[2];
};

// Counts a sample of the first level's n keys into `counts` (already zeroed) by `bucket_of`.
template <class Shape, class Key, class BucketOf>
__device__ __forceinline__ void count_sample(const Key* keys, std::size_t n,
                                             const BucketOf& bucket_of, unsigned* counts) {
  constexpr int threads = Shape::partition_threads;
  static_assert(Shape::first_level_samples % threads == 0, "whole samples per thread");
  constexpr int samples_per_thread = Shape::first_level_samples / threads;
  constexpr std::size_t samples = Shape::first_level_samples;
#pragma unroll 16
  for (int j = 0; j < samples_per_thread; ++j) {
    const std::size_t sample = std::size_t(j) * threads + threadIdx.x;
    atomicAdd(&counts[bucket_of(keys[sample * n / samples])], 1u);
  }
  __syncthreads();
}

// The heaviest of the 2^max_bucket_bits counts, merged in runs of 2^merged (a coarser
// bucket of either kind is such a run of finer ones). Every thread gets it.
template <class Shape>
struct heaviest_sampled_bucket {
  static constexpr int threads = Shape::partition_threads;
  using reduce_t = cub::BlockReduce<unsigned long long, threads>;
  struct storage_t {
    typename reduce_t::TempStorage reduce;
    unsigned long long heaviest;
  };
  storage_t& shared;

  __device__ __forceinline__ unsigned long long operator()(const unsigned* counts,
                                                            int merged) const {
    unsigned long long local = 0;
    for (int b = int(threadIdx.x); b < (Shape::max_buckets >> merged); b += threads) {
      unsigned long long sum = 0;
      for (int f = b << merged; f < (b + 1) << merged; ++f) sum += counts[f];
      local = sum > local ? sum : local;
    }
    const unsigned long long block_heaviest = reduce_t(shared.reduce).Reduce(local, maximum{});
    if (threadIdx.x == 0) shared.heaviest = block_heaviest;
    __syncthreads();
    const unsigned long long heaviest = shared.heaviest;
    __syncthreads();  // the heaviest and the reduction's storage are reused
    return heaviest;
  }
};

// The fewest bucket bits, from most_bits down to fewest_bits, whose heaviest sampled bucket
// still fits (buckets.cuh: heaviest_bucket_fits); merged_at(bits) says how many of the
// finest counts make one bucket at `bits`.
template <class Shape, class MergedAt>
__device__ __forceinline__ int fewest_fitting_bits(const unsigned* counts, std::size_t n,
                                                   int fewest_bits, MergedAt merged_at,
                                                   const heaviest_sampled_bucket<Shape>& heaviest) {
  constexpr int most_bits = Shape::max_bucket_bits;
  constexpr std::size_t samples = std::size_t(Shape::first_level_samples);
  int chosen = most_bits;
  for (int bits = most_bits - 1; bits >= fewest_bits; --bits) {
    if (!heaviest_bucket_fits(heaviest(counts, merged_at(bits)), samples, n,
                              heavy_bucket_limit(Shape::target_bucket_keys, most_bits)))
      break;
    chosen = bits;
  }
  return chosen;
}

// The smallest and largest of the block's threads' `low` and `high`; every thread gets them.
struct bits_range {
  unsigned long long low, high;
};
template <class Shape>
struct block_range_storage {
  min_max_storage<Shape> min_max;
  bits_range range;
};
template <class Shape>
__device__ __forceinline__ bits_range block_range(block_range_storage<Shape>& shared,
                                                  unsigned long long low,
                                                  unsigned long long high) {
  using reduce_t = typename min_max_storage<Shape>::reduce_t;
  const unsigned long long block_low = reduce_t(shared.min_max.reduce[0]).Reduce(low, minimum{});
  const unsigned long long block_high =
      reduce_t(shared.min_max.reduce[1]).Reduce(high, maximum{});
  if (threadIdx.x == 0) shared.range = {block_low, block_high};
  __syncthreads();
  return shared.range;
}

// The first and last of the 2^max_bucket_bits counts that are not zero; every thread gets
// them (at least one is: the sample is not empty).
template <class Shape>
__device__ __forceinline__ bits_range filled_buckets(block_range_storage<Shape>& shared,
                                                     const unsigned* counts) {
  unsigned long long first = ~0ull;
  unsigned long long last = 0;
  for (int b = int(threadIdx.x); b < Shape::max_buckets; b += Shape::partition_threads)
    if (counts[b] != 0) {
      first = b < first ? b : first;
      last = b > last ? b : last;
    }
  return block_range(shared, first, last);
}

// Sets the first level's buckets from a sample of its keys, after segment_min_max. Where the
// buckets the sample fills are a sliver of the segment's range (buckets.cuh:
// cuts_sample_window), bits of that window, for every key type. Otherwise, integer keys: the
// bucket bits (buckets.cuh: heaviest_bucket_fits) of the whole range; the sample is counted
// in 2^max_bucket_bits buckets, then in ever fewer (each bucket of b bits is a run of finer
// ones) down to fewest_bits or the first count whose heaviest bucket is too heavy. Float
// keys: buckets of value where the sample's heaviest is lighter in them than in buckets of
// bits, then their bits as for integers; else buckets of bits as they were (2^max_bucket_bits).
// One block.
template <class Shape, class Key>
__global__ void __launch_bounds__(Shape::partition_threads)
    choose_first_level_bits(const Key* keys, work_list<segment> first_level, int fewest_bits,
                            typename Shape::bits_type flip) {
  wait_for_previous_kernel();  // launched to overlap the previous kernel's end
  constexpr int threads = Shape::partition_threads;
  constexpr int most_bits = Shape::max_bucket_bits;
  __shared__ unsigned counts[Shape::max_buckets];
  __shared__ typename heaviest_sampled_bucket<Shape>::storage_t heaviest_storage;
  const heaviest_sampled_bucket<Shape> heaviest{heaviest_storage};

  segment& seg = first_level.entries[0];
  const unsigned long long min_bits = seg.min_bits;
  const unsigned long long max_bits = seg.max_bits;
  const std::size_t n = seg.count;
  if (holds_one_value(seg)) return;  // no buckets are counted

  const auto clear_counts = [&] {
    for (int b = int(threadIdx.x); b < Shape::max_buckets; b += threads) counts[b] = 0;
    __syncthreads();
  };
  // The sample in 2^most_bits buckets of the whole range, and the range of the buckets it
  // fills: its own range, rounded out to whole buckets.
  const int whole_shift = bucket_shift(min_bits, max_bits, most_bits);
  clear_counts();
  count_sample<Shape>(keys, n, key_bucket<Key>{min_bits, whole_shift, flip}, counts);
  __shared__ block_range_storage<Shape> range_storage;
  const bits_range filled = filled_buckets<Shape>(range_storage, counts);
  const bits_range window{min_bits + (filled.low << whole_shift),
                          bucket_end_bits(min_bits, max_bits, filled.high, whole_shift)};

  // A window takes the even split's bits (fewest_bits), as keys spread evenly over it would:
  // the counts are of the whole range's buckets, too coarse to weigh the window's, and a
  // second pass over the sample to count those made this kernel twice as slow for every sort
  // (the compiler no longer overlapped the first pass's loads; H200, bench/results/NOTES.md).
  if (cuts_sample_window(min_bits, max_bits, window.low, window.high)) {
    if (threadIdx.x == 0) {
      seg.bucket_bits = fewest_bits;
      seg.min_bits = window.low;
      seg.max_bits = window.high;
      seg.clamped = true;
    }
    return;
  }
  if constexpr (Shape::value_space_first_level) {
    // Where value buckets cannot be made, bits stay as they are.
    const Key low = key_of_segment_end<Key>(min_bits, flip);
    const Key high = key_of_segment_end<Key>(max_bits, flip);
    value_buckets<Key> by_value;
    if (!make_value_buckets(low, high, most_bits, by_value)) return;
    const unsigned long long heaviest_by_bits = heaviest(counts, 0);
    clear_counts();
    count_sample<Shape>(keys, n, by_value, counts);
    if (heaviest(counts, 0) >= heaviest_by_bits) return;
    const int chosen = fewest_fitting_bits<Shape>(
        counts, n, fewest_bits, [](int bits) { return most_bits - bits; }, heaviest);
    make_value_buckets(low, high, chosen, by_value);  // fewer buckets: finite as well
    if (threadIdx.x == 0) {
      seg.bucket_bits = chosen;
      seg.value_scale = double(by_value.scale);
    }
  } else {
    const int chosen = fewest_fitting_bits<Shape>(
        counts, n, fewest_bits,
        [&](int bits) { return bucket_shift(min_bits, max_bits, bits) - whole_shift; },
        heaviest);
    if (threadIdx.x == 0) seg.bucket_bits = chosen;
  }
}

// Zeroes a segment's bucket counters: the pools are reused every other level.
template <int Threads>
__device__ __forceinline__ void clear_bucket_counters(const segment& seg,
                                                      const counter_pool& counters) {
  for (int b = int(threadIdx.x); b < (1 << seg.bucket_bits); b += Threads)
    counters.counters[counter_of(seg, b)] = 0;
}

// One block's part of segment_min_max. Also clears the bucket counters of each segment,
// before the histogram fills them.
template <class Shape, class Key>
__device__ __forceinline__ void find_segment_min_max(min_max_storage<Shape>& shared,
                                                     const Key* keys,
                                                     const work_list<segment>& list,
                                                     const counter_pool& counters,
                                                     typename Shape::bits_type flip,
                                                     unsigned long long* next_reservation,
                                                     unsigned long long* next_used) {
  // The next level's list and counter pool start empty (the level before last read them).
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *next_reservation = 0;
    *next_used = 0;
  }
  constexpr int threads = Shape::partition_threads;
  using reduce_t = typename min_max_storage<Shape>::reduce_t;

  unsigned long long low = ~0ull;
  unsigned long long high = 0;
  const auto accumulate_tile = [&](const segment_tile& place) {
    if (place.first_of_segment)
      clear_bucket_counters<threads>(list.entries[place.segment], counters);
    for_each_striped<threads, Shape::partition_items>(place.count, [&](int, int i) {
      const unsigned long long bits = widened_ordered_bits(keys[place.begin + i], flip);
      low = bits < low ? bits : low;
      high = bits > high ? bits : high;
    });
  };
  // Tiles of one segment accumulate; one pair of atomics per segment a block visited.
  const auto publish_segment = [&](std::size_t s) {
    const unsigned long long block_low = reduce_t(shared.reduce[0]).Reduce(low, minimum{});
    const unsigned long long block_high = reduce_t(shared.reduce[1]).Reduce(high, maximum{});
    if (threadIdx.x == 0) {
      atomicMin(&list.entries[s].min_bits, block_low);
      atomicMax(&list.entries[s].max_bits, block_high);
    }
    __syncthreads();  // the storage is reused by the next segment's reduction
    low = ~0ull;
    high = 0;
  };
  for_each_tile_by_segment<Shape::partition_tile>(list, accumulate_tile, publish_segment);
}

template <class Shape, class Key>
__global__ void __launch_bounds__(Shape::partition_threads)
    segment_min_max(const Key* keys, work_list<segment> list, counter_pool counters,
                    typename Shape::bits_type flip, unsigned long long* next_reservation,
                    unsigned long long* next_used) {
  wait_for_previous_kernel();  // launched to overlap the previous kernel's end
  __shared__ min_max_storage<Shape> shared;
  find_segment_min_max<Shape>(shared, keys, list, counters, flip, next_reservation, next_used);
}

// Shared memory of count_segment_buckets: one block's counts of the buckets of a segment.
template <class Shape>
struct histogram_storage {
  unsigned counts[Shape::max_buckets];
};

// One block's part of bucket_histogram; Windowed for the first level's window only.
template <class Shape, bool Windowed = false, class Key>
__device__ __forceinline__ void count_segment_buckets(histogram_storage<Shape>& shared,
                                                      const Key* keys,
                                                      const work_list<segment>& list,
                                                      const counter_pool& counters,
                                                      typename Shape::bits_type flip) {
  constexpr int threads = Shape::partition_threads;
  unsigned* counts = shared.counts;
  for (int b = int(threadIdx.x); b < Shape::max_buckets; b += threads) counts[b] = 0;
  __syncthreads();

  const auto count_tile = [&](const segment_tile& place) {
    const segment& seg = list.entries[place.segment];
    if (holds_one_value(seg)) return;  // plan_buckets needs no counts
    const segment_bucket<Key, Windowed> bucket_of_key(seg, flip);
#pragma unroll
    for (int j = 0; j < Shape::partition_items; ++j) {
      const int i = striped_index<threads>(j);
      const bool valid = i < place.count;  // every lane calls count_in_bucket
      count_in_bucket(counts, valid ? bucket_of_key(keys[place.begin + i]) : 0u, valid);
    }
  };
  // Tiles of one segment accumulate in shared memory; one global atomic per bucket per
  // segment a block visited.
  const auto publish_segment = [&](std::size_t s) {
    __syncthreads();
    const segment& seg = list.entries[s];
    for (int b = int(threadIdx.x); b < (1 << seg.bucket_bits); b += threads) {
      if (counts[b] != 0)
        atomicAdd(&counters.counters[counter_of(seg, b)],
                  static_cast<unsigned long long>(counts[b]));
      counts[b] = 0;
    }
    __syncthreads();
  };
  for_each_tile_by_segment<Shape::partition_tile>(list, count_tile, publish_segment);
}

// MayBeWindowed: the first level of a sampled sort, whose one segment the sample may have
// given a window (choose_first_level_bits). A kernel of its own, not a run-time flag: with
// both bodies in one kernel every level's histogram held the window's registers (f32 keys 36
// -> 40, one resident block fewer per SM).
template <class Shape, class Key, bool MayBeWindowed = false>
__global__ void __launch_bounds__(Shape::partition_threads)
    bucket_histogram(const Key* keys, work_list<segment> list, counter_pool counters,
                     typename Shape::bits_type flip) {
  wait_for_previous_kernel();  // launched to overlap the previous kernel's end
  __shared__ histogram_storage<Shape> shared;
  if (MayBeWindowed && list.entries[0].clamped)
    count_segment_buckets<Shape, true>(shared, keys, list, counters, flip);
  else
    count_segment_buckets<Shape>(shared, keys, list, counters, flip);
}

// What one bucket adds to the lists; summed over a segment's buckets by a block scan, which
// gives every bucket its place in them.
struct list_additions {
  unsigned long long units;
  unsigned long long unit_tiles;
  unsigned long long segments;
  unsigned long long segment_tiles;
  unsigned long long counters;
};
struct add_list_additions {
  __device__ list_additions operator()(const list_additions& a, const list_additions& b) const {
    return {a.units + b.units, a.unit_tiles + b.unit_tiles, a.segments + b.segments,
            a.segment_tiles + b.segment_tiles, a.counters + b.counters};
  }
};

// The buckets of one segment that a thread plans: blocked (thread t owns buckets
// t * PerThread + i), so that block scans run in bucket order.
template <int PerThread>
struct planned_buckets {
  unsigned long long count[PerThread];
  unsigned long long start[PerThread];  // relative to the segment
  bool opens[PerThread];                // a small bucket that opens a sort unit
  bool joins[PerThread];                // a small bucket that joins the unit opened before it
  int child_bits[PerThread];            // bucket bits of the segment it would become
  list_additions adds[PerThread];       // what it adds to the lists
  list_additions before[PerThread];     // what the segment's buckets before it add
};

// plan_buckets for one block: the segment's bucket counts become the buckets' first
// positions (bucket_scatter's cursors) and their fates become list entries. The segment's
// data is in the alternate buffer when `level_in_alternate`; its buckets go to the other.
template <class Shape, int BucketsPerThread>
struct bucket_planner {
  static constexpr int threads = Shape::partition_threads;
  static constexpr int per_thread = BucketsPerThread;
  static_assert(per_thread == 1 || threads * per_thread >= Shape::max_buckets,
                "the wide plan covers the widest segments");
  using start_scan_t = cub::BlockScan<unsigned long long, threads>;
  using plan_scan_t = cub::BlockScan<list_additions, threads>;
  using buckets_t = planned_buckets<per_thread>;
  struct storage_t {
    union {
      typename start_scan_t::TempStorage starts;
      typename plan_scan_t::TempStorage plan;
    } scan;
    list_additions first;  // the segment's first entries and tiles in the lists
  };

  storage_t& shared;
  const work_list<segment>& next_level;
  const counter_pool& next_counters;
  const work_list<sort_unit>& units;
  int level_in_alternate;

  // Two instantiations share a level: BucketsPerThread 1 plans the segments of at most
  // `threads` buckets (light in registers, many blocks), a larger one the wider segments.
  __device__ __forceinline__ static bool plans(const segment& seg) {
    const int buckets = 1 << seg.bucket_bits;
    return per_thread == 1 ? buckets <= threads : buckets > threads;
  }

  // All equal: sorted already; it only has to reach the user's buffer.
  __device__ __forceinline__ void finish_all_equal(const segment& seg) const {
    if (threadIdx.x == 0 && level_in_alternate) {
      const unsigned long long at = reserve(units, 1, tile_count(seg.count, Shape::unit_items));
      units.entries[entries_of(at)] = {seg.begin, seg.begin + seg.count, tiles_of(at), 1, 1};
    }
  }

  // Plans a segment of distinct keys, in the order of the steps below.
  __device__ __forceinline__ void plan(const segment& seg, unsigned long long* pool) const {
    const int buckets = 1 << seg.bucket_bits;
    // A bucket of bits one value wide (shift 0) holds one value; a bucket of value may hold
    // several however narrow (value_buckets.cuh), and so may the end buckets of a window.
    const bool one_value_each = seg.value_scale == 0 && !seg.clamped &&
                                bucket_shift(seg.min_bits, seg.max_bits, seg.bucket_bits) == 0;
    buckets_t own;
    scan_starts(own, seg, pool, buckets);
    unsigned long long previous[per_thread];
    find_previous_buckets(own, previous);
    decide_fates(own, previous, one_value_each);
    reserve_entries(own);
    write_entries(own, seg, pool, buckets);
    extend_units(own, seg);
  }

  // Each bucket's first position in the segment: an exclusive scan of the counts.
  __device__ __forceinline__ void scan_starts(buckets_t& own, const segment& seg,
                                              const unsigned long long* pool,
                                              int buckets) const {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int b = int(threadIdx.x) * per_thread + i;
      own.count[i] = b < buckets ? pool[counter_of(seg, b)] : 0;
    }
    start_scan_t(shared.scan.starts).ExclusiveSum(own.count, own.start);
    __syncthreads();
  }

  // The previous non-empty bucket decides whether a small bucket opens a unit (buckets.cuh:
  // opens_unit); a max-scan of the buckets' markers finds its marker.
  __device__ __forceinline__ void find_previous_buckets(
      const buckets_t& own, unsigned long long (&previous)[per_thread]) const {
    unsigned long long marker[per_thread];
#pragma unroll
    for (int i = 0; i < per_thread; ++i)
      marker[i] = own.count[i] != 0 ? bucket_marker(own.start[i], is_small(own.count[i])) : 0;
    start_scan_t(shared.scan.starts).ExclusiveScan(marker, previous, 0ull, maximum{});
    __syncthreads();
  }

  // Small buckets open or join units; oversized ones become segments of the next level, or
  // units when all equal.
  __device__ __forceinline__ void decide_fates(buckets_t& own,
                                               const unsigned long long (&previous)[per_thread],
                                               bool one_value_each) const {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const unsigned long long count = own.count[i];
      const bool small = is_small(count);
      own.opens[i] =
          count != 0 && small && opens_unit(previous[i], own.start[i], Shape::unit_window);
      own.joins[i] = count != 0 && small && !own.opens[i];
      // An oversized bucket that holds one value is all equal: a unit, not a segment,
      // and only if the scatter puts it in the alternate buffer (else it is done).
      const bool equal_unit = count != 0 && !small && one_value_each && !level_in_alternate;
      const bool child = count != 0 && !small && !one_value_each;
      own.child_bits[i] = deeper_level_bucket_bits(count, Shape::target_bucket_keys,
                                                   Shape::min_deeper_bucket_bits,
                                                   Shape::max_bucket_bits);
      // An opening bucket's unit is one tile; an all-equal one takes a tile per unit_items.
      const unsigned long long unit_tiles =
          own.opens[i] ? 1ull : equal_unit ? tile_count(count, Shape::unit_items) : 0ull;
      own.adds[i] = {own.opens[i] || equal_unit ? 1ull : 0ull, unit_tiles, child ? 1ull : 0ull,
                     child ? tile_count(count, Shape::partition_tile) : 0ull,
                     child ? 1ull << own.child_bits[i] : 0ull};
    }
  }

  // One reservation per list for the whole segment (thread 0), each bucket's place in it by a
  // block scan of the additions.
  __device__ __forceinline__ void reserve_entries(buckets_t& own) const {
    list_additions total;
    plan_scan_t(shared.scan.plan)
        .ExclusiveScan(own.adds, own.before, list_additions{0, 0, 0, 0, 0}, add_list_additions{},
                       total);
    if (threadIdx.x == 0) {
      if (total.units != 0) {
        const unsigned long long at = reserve(units, total.units, total.unit_tiles);
        shared.first.units = entries_of(at);
        shared.first.unit_tiles = tiles_of(at);
      }
      if (total.segments != 0) {
        const unsigned long long at = reserve(next_level, total.segments, total.segment_tiles);
        shared.first.segments = entries_of(at);
        shared.first.segment_tiles = tiles_of(at);
        shared.first.counters = reserve(next_counters, total.counters);
      }
    }
    __syncthreads();
  }

  // The units the buckets open, the segments they become, and every bucket's first position
  // in place of its count: its cursor for bucket_scatter.
  __device__ __forceinline__ void write_entries(const buckets_t& own, const segment& seg,
                                                unsigned long long* pool, int buckets) const {
    const list_additions& first = shared.first;
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int b = int(threadIdx.x) * per_thread + i;
      if (b >= buckets) continue;
      const std::size_t position = seg.begin + own.start[i];
      const list_additions& before = own.before[i];
      if (own.adds[i].units != 0)
        units.entries[first.units + before.units] = {
            position, position + own.count[i], first.unit_tiles + before.unit_tiles,
            level_in_alternate ? 0 : 1, own.opens[i] ? 0 : 1};
      if (own.adds[i].segments != 0)
        next_level.entries[first.segments + before.segments] = {
            position, own.count[i], first.segment_tiles + before.segment_tiles, ~0ull, 0,
            first.counters + before.counters, own.child_bits[i], 0.0};
      pool[counter_of(seg, b)] = position;
    }
    __syncthreads();  // the opening bucket wrote its unit before members extend it
  }

  // The last unit opened before a joining bucket is its own (a bucket that is not small
  // between them would have made it open one): the bucket extends its end.
  __device__ __forceinline__ void extend_units(const buckets_t& own, const segment& seg) const {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      if (own.joins[i])
        atomicMax(reinterpret_cast<unsigned long long*>(
                      &units.entries[shared.first.units + own.before[i].units - 1].end),
                  static_cast<unsigned long long>(seg.begin + own.start[i] + own.count[i]));
    }
    __syncthreads();  // the shared bases are reused by the next segment
  }

  // Small buckets are packed into units rather than partitioned further (buckets.cuh).
  __device__ __forceinline__ static bool is_small(unsigned long long count) {
    return is_small_bucket(count, Shape::small_bucket_limit);
  }
};

// plan_buckets' narrow instantiation: segments of at most partition_threads buckets.
inline constexpr int narrow_plan_buckets_per_thread = 1;

// One block per segment (persistent). Turns each segment's bucket counts into the buckets'
// first positions and their fates into list entries (bucket_planner).
template <class Shape, int BucketsPerThread>
__device__ __forceinline__ void plan_segments(
    typename bucket_planner<Shape, BucketsPerThread>::storage_t& shared,
    const work_list<segment>& list, const work_list<segment>& next_level,
    const counter_pool& counters, const counter_pool& next_counters,
    const work_list<sort_unit>& units, int level_in_alternate) {
  using planner_t = bucket_planner<Shape, BucketsPerThread>;
  const planner_t planner{shared, next_level, next_counters, units, level_in_alternate};

  const std::size_t segments = entries_of(*list.reservation);
  for (std::size_t s = blockIdx.x; s < segments; s += gridDim.x) {
    const segment seg = list.entries[s];
    if (!planner_t::plans(seg)) continue;  // the other instantiation's
    if (holds_one_value(seg))
      planner.finish_all_equal(seg);
    else
      planner.plan(seg, counters.counters);
  }
}

template <class Shape, int BucketsPerThread>
__global__ void __launch_bounds__(Shape::partition_threads)
    plan_buckets(work_list<segment> list, work_list<segment> next_level, counter_pool counters,
                 counter_pool next_counters, work_list<sort_unit> units, int level_in_alternate) {
  wait_for_previous_kernel();  // launched to overlap the previous kernel's end
  __shared__ typename bucket_planner<Shape, BucketsPerThread>::storage_t shared;
  plan_segments<Shape, BucketsPerThread>(shared, list, next_level, counters, next_counters,
                                         units, level_in_alternate);
}

// Shared memory of bucket_scatter.
template <class Shape, class Key, class Value>
struct scatter_storage {
  using scan_t = cub::BlockScan<unsigned, Shape::partition_threads>;
  unsigned tile_start[Shape::max_buckets];  // counts, then exclusive starts
  // Global position of each bucket's first key in this tile, minus its start in the tile.
  unsigned long long tile_base[Shape::max_buckets];
  union {
    typename scan_t::TempStorage scan;
    Key keys[Shape::partition_tile];
    Value values[has_values_v<Value> ? Shape::partition_tile : 1];
  } exchange;
  Key staged[Shape::partition_tile];  // the tile's keys, copied in during the tile before
};

// One tile of bucket_scatter: its keys (staged in shared memory) ranked within their
// buckets, each bucket's run reserved in the output with one atomic, then the tile ordered by
// bucket in shared memory and written out striped: consecutive threads write consecutive
// positions of each run.
template <class Shape, class Key, class Value, bool Windowed>
struct scatter_tile {
  static constexpr int threads = Shape::partition_threads;
  static constexpr int items = Shape::partition_items;
  static constexpr int per_thread = Shape::buckets_per_thread;
  static constexpr bool has_values = has_values_v<Value>;
  using storage_t = scatter_storage<Shape, Key, Value>;

  storage_t& shared;
  const segment_tile& place;
  const segment& seg;
  segment_bucket<Key, Windowed> bucket_of_key;
  int buckets;

  // Scatters the tile, in the order of the steps below; start_next() once the staged keys
  // are read, so that the next tile's may take their place.
  template <class StartNext>
  __device__ __forceinline__ void run(Key* out_keys, const Value* in_values, Value* out_values,
                                      const counter_pool& cursors, StartNext&& start_next) const {
    Key keys[items];
    unsigned bucket_and_rank[items];  // bucket << 16 | rank among the tile's keys of the bucket
    load_and_rank(keys, bucket_and_rank);
    start_next();
    reserve_runs(cursors);
    unsigned striped_bucket[has_values ? items : 1];
    scatter_keys(keys, bucket_and_rank, out_keys, striped_bucket);
    if constexpr (has_values)
      scatter_values(in_values, out_values, bucket_and_rank, striped_bucket);
    __syncthreads();  // shared memory is reused by the next tile
  }

  // Reads the staged tile and counts it per bucket in shared memory; a key's rank is its
  // count's value before it.
  __device__ __forceinline__ void load_and_rank(Key (&keys)[items],
                                                unsigned (&bucket_and_rank)[items]) const {
    for (int b = int(threadIdx.x); b < buckets; b += threads) shared.tile_start[b] = 0;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int i = striped_index<threads>(j);
      const bool valid = i < place.count;  // every lane calls count_in_bucket
      if (valid) keys[j] = shared.staged[i];
      const unsigned bucket = valid ? bucket_of_key(keys[j]) : 0u;
      bucket_and_rank[j] = bucket << 16 | count_in_bucket(shared.tile_start, bucket, valid);
    }
    __syncthreads();
  }

  // Each bucket's run in the tile (a block scan of the counts) and in the output (one atomic
  // on the bucket's cursor).
  __device__ __forceinline__ void reserve_runs(const counter_pool& cursors) const {
    unsigned count[per_thread];
    unsigned start[per_thread];
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int b = int(threadIdx.x) * per_thread + i;
      count[i] = b < buckets ? shared.tile_start[b] : 0u;
    }
    typename storage_t::scan_t(shared.exchange.scan).ExclusiveSum(count, start);
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int b = int(threadIdx.x) * per_thread + i;
      if (b < buckets) shared.tile_start[b] = start[i];
      if (count[i] != 0)
        shared.tile_base[b] =
            atomicAdd(&cursors.counters[counter_of(seg, b)], count[i]) - start[i];
    }
    __syncthreads();
  }

  // Where a ranked key goes in the tile ordered by bucket.
  __device__ __forceinline__ unsigned position_in_tile(unsigned bucket_and_rank) const {
    return shared.tile_start[bucket_and_rank >> 16] + (bucket_and_rank & 0xffffu);
  }

  // Keys to their bucket's place in the exchange, then from there to the output, striped.
  __device__ __forceinline__ void scatter_keys(const Key (&keys)[items],
                                               const unsigned (&bucket_and_rank)[items],
                                               Key* out_keys,
                                               unsigned (&striped_bucket)[has_values ? items : 1])
      const {
    for_each_striped<threads, items>(place.count, [&](int j, int) {
      shared.exchange.keys[position_in_tile(bucket_and_rank[j])] = keys[j];
    });
    __syncthreads();
    for_each_striped<threads, items>(place.count, [&](int j, int i) {
      const Key key = shared.exchange.keys[i];
      const unsigned bucket = bucket_of_key(key);
      if constexpr (has_values) striped_bucket[j] = bucket;
      out_keys[shared.tile_base[bucket] + i] = key;
    });
  }

  // The values take the way of their keys, through the same exchange.
  __device__ __forceinline__ void scatter_values(const Value* in_values, Value* out_values,
                                                 const unsigned (&bucket_and_rank)[items],
                                                 const unsigned (&striped_bucket)[items]) const {
    Value values[items];
    load_striped<threads, items>(in_values + place.begin, place.count, values);
    __syncthreads();  // every key is read out of the exchange
    for_each_striped<threads, items>(place.count, [&](int j, int) {
      shared.exchange.values[position_in_tile(bucket_and_rank[j])] = values[j];
    });
    __syncthreads();
    for_each_striped<threads, items>(place.count, [&](int j, int i) {
      out_values[shared.tile_base[striped_bucket[j]] + i] = shared.exchange.values[i];
    });
  }
};

// One block's part of bucket_scatter; Windowed for the first level's window only.
template <class Shape, bool Windowed = false, class Key, class Value>
__device__ __forceinline__ void scatter_segment_tiles(scatter_storage<Shape, Key, Value>& shared,
                                                      const Key* in_keys, Key* out_keys,
                                                      const Value* in_values, Value* out_values,
                                                      const work_list<segment>& list,
                                                      const counter_pool& cursors,
                                                      typename Shape::bits_type flip) {
  using tile_t = scatter_tile<Shape, Key, Value, Windowed>;
  using prefetch_t = tile_prefetch<Shape::partition_threads, Shape::partition_items, Key>;

  const unsigned long long reserved = *list.reservation;
  const std::size_t segments = entries_of(reserved);
  const unsigned long long tiles = tiles_of(reserved);
  // Each tile's keys are copied into shared memory while the block scatters the tile before
  // it, so that their loads overlap its atomics, exchange and writes (a persistent block has
  // nothing else to hide them behind: 6 warps per scheduler). Not the tiles of all-equal
  // segments, which are skipped unread (copying them cost all-equal keys 30-45 % of their
  // speed at 2^24-2^28).
  const auto stage = [&](const segment_tile& place) {
    if (!holds_one_value(list.entries[place.segment]))
      prefetch_t::start(in_keys + place.begin, place.count, shared.staged);
  };
  const auto locate = [&](unsigned long long tile) {
    return locate_tile(list, segments, tile, Shape::partition_tile);
  };
  for_each_tile_staged_ahead(tiles, locate, stage, [&](unsigned long long,
                                                       const segment_tile& place,
                                                       auto&& start_next) {
    prefetch_t::wait();
    __syncthreads();  // every thread's copies of this tile are in
    const segment& seg = list.entries[place.segment];
    if (holds_one_value(seg)) {  // plan_buckets made it a unit as it is; not staged
      start_next();
    } else {
      const int buckets = 1 << seg.bucket_bits;
      const segment_bucket<Key, Windowed> bucket_of_key(seg, flip);
      tile_t{shared, place, seg, bucket_of_key, buckets}.run(out_keys, in_values, out_values,
                                                              cursors, start_next);
    }
  });
}

template <class Shape, class Key, class Value>
__global__ void __launch_bounds__(Shape::partition_threads,
                                  min_blocks_per_multiprocessor(
                                      Shape::scatter_blocks_per_multiprocessor,
                                      Shape::partition_threads))
    bucket_scatter(const Key* in_keys, Key* out_keys, const Value* in_values, Value* out_values,
                   work_list<segment> list, counter_pool cursors, typename Shape::bits_type flip,
                   bool may_be_windowed) {  // (bucket_histogram)
  wait_for_previous_kernel();  // launched to overlap the previous kernel's end
  auto& shared = block_shared<scatter_storage<Shape, Key, Value>>();
  if (may_be_windowed && list.entries[0].clamped)
    scatter_segment_tiles<Shape, true>(shared, in_keys, out_keys, in_values, out_values, list,
                                       cursors, flip);
  else
    scatter_segment_tiles<Shape>(shared, in_keys, out_keys, in_values, out_values, list, cursors,
                                 flip);
}

// How a sort unit becomes the words its network sorts, and comes back:
//   decoded   integer and float keys without values: each key's refined bits
//             (ordered_bits.cuh: a bijection, at least 32 bits wide), decoded on the way
//             out; equal words are equal keys
//   tagged    every other unit: each key's ordered bits with its position in the unit, the
//             keys (and values) gathered from those positions on the way out (values follow
//             their keys; 16-bit floats' sort bits merge -0.0 with +0.0 and every NaN). Bits
//             of at most 32 bits share one 64-bit word with the position; wider
//             bits too, as their distance from the unit's smallest key, where the unit's keys
//             lie less than 2^(64 - position bits) apart (every unit below the first partition
//             level), else they keep all their bits beside the position (tagged_word).
// Ordered bits, not keys under a comparator: a float compare, or a key's bits recomputed at
// every step, made the network several times slower; a min and a max of integers is what is
// left of a compare-exchange, and a word of 64 bits takes two shuffles where a tagged_word
// takes three.
// Units of 64-bit bits try 32-bit words first (has_prefix_words_v, above bucket_shape).
template <class Key, class Value, int UnitItems>
struct unit_words {
  using bits_type = ordered_bits_t<Key>;
  static constexpr bool decoded = !has_values_v<Value> && has_refined_bits_v<Key>;
  static constexpr bool wide = !decoded && sizeof(bits_type) > 4;
  // sort_units copies the next unit's keys into shared memory while it sorts this one: for
  // 64-bit bits, whose units are short (H200: f64 +1-4 %, u64+u32 +1.5 %, u64 level); not for
  // 32-bit bits, whose 4096-key units would take 16 KB more a block (u32 -9 %, f32 -5 %).
  static constexpr bool prefetched = has_prefix_words_v<Key>;
  static constexpr int position_bits = log2_of(UnitItems);
  using word_t = std::conditional_t<decoded && sizeof(bits_type) <= 4, std::uint32_t,
                                    std::uint64_t>;
};

// Shared memory of a unit's sort: the network's words (for 64-bit bits, also the prefix
// words, each warp's smallest and largest bits, and for wide bits the tagged words).
template <class Key, class Value, int Threads, int UnitItems>
struct unit_storage {
  using kind = unit_words<Key, Value, UnitItems>;
  union {
    word_buffer<typename kind::word_t, UnitItems> words;
    word_buffer<tagged_word, kind::wide ? UnitItems : 1> tagged;
  };
  word_buffer<std::uint32_t, has_prefix_words_v<Key> ? UnitItems : 1> prefix;
  Key staged[kind::prefetched ? UnitItems : 1];  // the next unit's keys (sort_units)
  std::uint64_t warp_min[has_prefix_words_v<Key> ? Threads / 32 : 1];
  std::uint64_t warp_max[has_prefix_words_v<Key> ? Threads / 32 : 1];
};

// The smallest and largest of the block's wide bits (`valid` false: left out); every thread
// must call it, and gets both.
// (Bits: any unsigned type of 64 bits that radix traits name, unsigned long long too.)
template <int Threads, int Items, class Bits, class Storage>
__device__ __forceinline__ void unit_span(const Bits (&bits)[Items], const bool (&valid)[Items],
                                          Storage& shared, std::uint64_t& smallest,
                                          std::uint64_t& largest) {
  smallest = ~std::uint64_t(0);
  largest = 0;
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    if (!valid[i]) continue;
    const std::uint64_t word = bits[i];
    smallest = word < smallest ? word : smallest;
    largest = word > largest ? word : largest;
  }
#pragma unroll
  for (int lanes = 16; lanes > 0; lanes /= 2) {
    const std::uint64_t other_min = shuffle_xor(smallest, lanes);
    const std::uint64_t other_max = shuffle_xor(largest, lanes);
    smallest = other_min < smallest ? other_min : smallest;
    largest = other_max > largest ? other_max : largest;
  }
  const int warp = int(threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0) {
    shared.warp_min[warp] = smallest;
    shared.warp_max[warp] = largest;
  }
  __syncthreads();
#pragma unroll
  for (int w = 0; w < Threads / 32; ++w) {
    smallest = shared.warp_min[w] < smallest ? shared.warp_min[w] : smallest;
    largest = shared.warp_max[w] > largest ? shared.warp_max[w] : largest;
  }
}

// Sorts the words and leaves them in `buffer` in network order, read after a barrier.
template <int Threads, int Items, class Word, class Buffer>
__device__ __forceinline__ void sort_and_stage(Word (&words)[Items], Buffer& buffer) {
  bitonic_sort_words<Threads, Items>(words, buffer);
#pragma unroll
  for (int i = 0; i < Items; ++i) buffer.put(int(threadIdx.x) * Items + i, words[i]);
  __syncthreads();
}

// Position p of the output takes the key (and value) from the position its staged word
// carries. in and out may be the same memory.
template <int Threads, int Items, class Key, class Value, class Buffer, class PositionOf>
__device__ __forceinline__ void gather_unit(const Key* in_keys, Key* out_keys,
                                            const Value* in_values, Value* out_values, int count,
                                            const Buffer& buffer, PositionOf position_of) {
  constexpr bool has_values = has_values_v<Value>;
  Key keys[Items];
  Value values[has_values ? Items : 1];
  for_each_striped<Threads, Items>(count, [&](int j, int position) {
    const unsigned from = position_of(buffer.get(position));
    keys[j] = in_keys[from];
    if constexpr (has_values) values[j] = in_values[from];
  });
  __syncthreads();  // in place: every key and value is read before any is overwritten
  for_each_striped<Threads, Items>(count, [&](int j, int position) {
    out_keys[position] = keys[j];
    if constexpr (has_values) out_values[position] = values[j];
  });
}

// Odd-even transposition rounds (each an odd and an even phase) that sort_as_prefix_words
// spends on keys whose prefix words tie, before it gives the unit back to the full words.
inline constexpr int prefix_tie_rounds = 4;

// Whether the staged prefix words at p - 1 and p (the network's order, in shared memory)
// share their prefix and the keys behind them (full bits, staged by position) are out of
// order. Neighbours whose prefixes differ are in order already.
template <int PositionBits, class Storage>
__device__ __forceinline__ bool prefix_tie_out_of_order(const Storage& shared, int p) {
  constexpr unsigned position_mask = (1u << PositionBits) - 1;
  const std::uint32_t before = shared.prefix.get(p - 1);
  const std::uint32_t word = shared.prefix.get(p);
  if (((before ^ word) >> PositionBits) != 0) return false;
  return shared.words.get(int(before & position_mask)) > shared.words.get(int(word & position_mask));
}

// Sorts a unit of 64-bit bits (the unit's smallest and largest given) as 32-bit words: the
// top 32 - position_bits bits of each key's distance from the smallest, over its position.
// Words that tie order their keys by position, not by bits: such neighbours are compared by
// their full bits (staged in shared memory by position) and put in order by a few rounds of
// swaps. Returns false, having written nothing, where that leaves any out of order (a run of
// many keys behind one prefix): the caller sorts the unit by its full words then.
template <int Threads, int Items, class Key, class Value, class Bits, class Storage>
__device__ __forceinline__ bool sort_as_prefix_words(const Bits (&bits)[Items],
                                                     const bool (&valid)[Items],
                                                     std::uint64_t smallest,
                                                     std::uint64_t largest, const Key* in_keys,
                                                     Key* out_keys, const Value* in_values,
                                                     Value* out_values, int count, Bits flip,
                                                     Storage& shared) {
  using kind = unit_words<Key, Value, Threads * Items>;
  constexpr int position_bits = kind::position_bits;
  constexpr int prefix_bits = 32 - position_bits;
  constexpr unsigned position_mask = (1u << position_bits) - 1;
  if (smallest > largest) return true;  // no keys
  const std::uint64_t span = largest - smallest;
  const int span_bits = span == 0 ? 0 : 64 - __clzll(static_cast<long long>(span));
  const int shift = span_bits > prefix_bits ? span_bits - prefix_bits : 0;
  // Positions past `count` take the largest word; no key ties with it: a full unit has none.
  std::uint32_t words[Items];
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const int position = striped_index<Threads>(i);
    if (valid[i]) shared.words.put(position, bits[i]);
    words[i] = valid[i] ? std::uint32_t((bits[i] - smallest) >> shift) << position_bits |
                              unsigned(position)
                        : ~std::uint32_t(0);
  }
  bitonic_sort_words<Threads, Items>(words, shared.prefix);
#pragma unroll
  for (int i = 0; i < Items; ++i) shared.prefix.put(int(threadIdx.x) * Items + i, words[i]);
  __syncthreads();

  const auto any_out_of_order = [&] {
    bool out_of_order = false;
    for (int p = int(threadIdx.x) + 1; p < count; p += Threads)
      out_of_order |= prefix_tie_out_of_order<position_bits>(shared, p);
    return __syncthreads_or(out_of_order) != 0;
  };
  bool sorted = !any_out_of_order();
  for (int round = 0; !sorted && round < prefix_tie_rounds; ++round) {
#pragma unroll
    for (int phase = 0; phase < 2; ++phase) {
      // Pairs (p - 1, p) with p - 1 of the phase's parity: disjoint, so swaps do not race.
      for (int p = 2 * int(threadIdx.x) + 1 + phase; p < count; p += 2 * Threads) {
        if (prefix_tie_out_of_order<position_bits>(shared, p)) {
          const std::uint32_t before = shared.prefix.get(p - 1);
          shared.prefix.put(p - 1, shared.prefix.get(p));
          shared.prefix.put(p, before);
        }
      }
      __syncthreads();
    }
    sorted = !any_out_of_order();
  }
  if (!sorted) return false;

  const auto position_of = [](std::uint32_t word) { return unsigned(word & position_mask); };
  if constexpr (kind::decoded) {
    // The keys come back from their staged bits: no gather from global memory.
    for_each_striped<Threads, Items>(count, [&](int, int p) {
      out_keys[p] = key_of_refined_bits<Key>(
          Bits(shared.words.get(int(position_of(shared.prefix.get(p))))), flip);
    });
  } else {
    gather_unit<Threads, Items>(in_keys, out_keys, in_values, out_values, count, shared.prefix,
                                position_of);
  }
  return true;
}

// Which words a unit's sort uses: units of 64-bit bits take the prefix words in sort_units
// and, where those leave keys out of order, the full words in sort_units_by_full_words (a
// kernel of its own, so that sort_units' registers are those of the prefix words' network);
// every other unit takes its full words in sort_units.
enum class unit_pass { prefix_words, full_words };

// No next unit to copy in (sort_unit_keys' start_next).
struct no_next_unit {
  __device__ __forceinline__ void operator()() const {}
};

// Sorts one unit, in_keys[0, count) (and its values), by the keys' ordered bits into
// out_keys (and out_values), as unit_words and Pass say. in and out may be the same memory.
// The keys are first read from load_from: in_keys, or their copy in shared memory, each
// thread's striped positions copied by that thread (tile_prefetch); start_next() is called
// once they are read. Returns false, having written nothing, where the prefix words could
// not sort the unit.
template <unit_pass Pass, int Threads, int Items, class Key, class Value, class Storage,
          class StartNext = no_next_unit>
__device__ __forceinline__ bool sort_unit_keys(const Key* in_keys, const Key* load_from,
                                               Key* out_keys, const Value* in_values,
                                               Value* out_values, int count,
                                               ordered_bits_t<Key> flip, Storage& shared,
                                               StartNext&& start_next = {}) {
  using kind = unit_words<Key, Value, Threads * Items>;
  using bits_type = ordered_bits_t<Key>;
  using word_t = typename kind::word_t;
  // Striped, coalesced loads. Which network position a key starts in does not matter.
  // Positions past `count` take the largest bits, and go after every key: their position is
  // larger where it is tagged, and where it is not, a key they tie with is that word.
  bits_type bits[Items];
  bool valid[Items];
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const int position = striped_index<Threads>(i);
    valid[i] = position < count;
    if (!valid[i])
      bits[i] = bits_type(~bits_type(0));
    else if constexpr (kind::decoded)
      bits[i] = refined_bits(load_from[position], flip);
    else
      bits[i] = ordered_bits(load_from[position], flip);
  }
  if constexpr (!std::is_same_v<std::decay_t<StartNext>, no_next_unit>) {
    // Every read of the copied keys done before the next unit's copies may land on them.
    __syncthreads();
    start_next();
  }
  const auto position_in = [](std::uint64_t word) {
    return unsigned(word & ((std::uint64_t(1) << kind::position_bits) - 1));
  };
  std::uint64_t smallest = 0, largest = 0;  // of 64-bit bits
  if constexpr (Pass == unit_pass::prefix_words || kind::wide)
    unit_span<Threads, Items>(bits, valid, shared, smallest, largest);
  if constexpr (Pass == unit_pass::prefix_words) {
    static_assert(has_prefix_words_v<Key>, "prefix words are for 64-bit bits");
    return sort_as_prefix_words<Threads, Items>(bits, valid, smallest, largest, in_keys,
                                                out_keys, in_values, out_values, count, flip,
                                                shared);
  } else if constexpr (kind::decoded) {
    word_t words[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) words[i] = word_t(bits[i]);
    sort_and_stage<Threads, Items>(words, shared.words);
    for_each_striped<Threads, Items>(count, [&](int, int position) {
      out_keys[position] = key_of_refined_bits<Key>(bits_type(shared.words.get(position)), flip);
    });
  } else if constexpr (!kind::wide) {
    std::uint64_t words[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i)
      words[i] = std::uint64_t(bits[i]) << 32 | unsigned(striped_index<Threads>(i));
    sort_and_stage<Threads, Items>(words, shared.words);
    gather_unit<Threads, Items>(in_keys, out_keys, in_values, out_values, count, shared.words,
                                [](std::uint64_t word) { return unsigned(word); });
  } else {  // wide: 64-bit bits, so smallest and largest are known
    if (largest - smallest < (std::uint64_t(1) << (64 - kind::position_bits)) ||
        smallest > largest) {  // (no keys: the loop below leaves every word padding)
      std::uint64_t words[Items];
#pragma unroll
      for (int i = 0; i < Items; ++i)
        words[i] = valid[i] ? (bits[i] - smallest) << kind::position_bits |
                                  unsigned(striped_index<Threads>(i))
                            : ~std::uint64_t(0);
      sort_and_stage<Threads, Items>(words, shared.words);
      gather_unit<Threads, Items>(in_keys, out_keys, in_values, out_values, count,
                                  shared.words, position_in);
    } else {
      tagged_word words[Items];
#pragma unroll
      for (int i = 0; i < Items; ++i)
        words[i] = tagged_word{std::uint64_t(bits[i]), unsigned(striped_index<Threads>(i))};
      sort_and_stage<Threads, Items>(words, shared.tagged);
      gather_unit<Threads, Items>(in_keys, out_keys, in_values, out_values, count,
                                  shared.tagged,
                                  [](const tagged_word& word) { return word.position; });
    }
  }
  return true;
}

// sort_units for one block: each list tile is a unit to sort, or a tile's worth of an
// all-equal unit to copy, from wherever its keys are into the user's buffers.
template <class Shape, class Key, class Value>
struct unit_sorter {
  static constexpr int threads = Shape::sort_threads;
  static constexpr bool has_values = has_values_v<Value>;
  using bits_type = typename Shape::bits_type;
  using storage_t = unit_storage<Key, Value, threads, Shape::unit_items>;

  storage_t& shared;
  Key* keys;
  const Key* alternate_keys;
  Value* values;
  const Value* alternate_values;
  bits_type flip;

  // Only units in the alternate buffer are listed; one tile's worth per list tile.
  __device__ __forceinline__ void copy_all_equal(const sort_unit& unit,
                                                 unsigned long long tile) const {
    const std::size_t begin = unit.begin + std::size_t(tile - unit.first_tile) * Shape::unit_items;
    const std::size_t left = unit.end - begin;
    const int count = int(left < std::size_t(Shape::unit_items) ? left : Shape::unit_items);
    for (int i = int(threadIdx.x); i < count; i += threads) {
      keys[begin + i] = alternate_keys[begin + i];
      if constexpr (has_values) values[begin + i] = alternate_values[begin + i];
    }
  }

  // Sorts a unit of at most unit_items keys into the user's buffer with Pass's words;
  // returns false where the prefix words left it unsorted (and unwritten).
  // With StartNext, its keys are read from their copy in shared.staged (tile_prefetch), and
  // start_next() is called once they are.
  template <unit_pass Pass, class StartNext = no_next_unit>
  __device__ __forceinline__ bool sort(const sort_unit& unit, StartNext&& start_next = {}) const {
    constexpr bool copied = !std::is_same_v<std::decay_t<StartNext>, no_next_unit>;
    const Key* in_keys = in_keys_of(unit);
    const Value* in_values = unit.in_alternate ? alternate_values : values;
    const std::size_t value_offset = has_values ? unit.begin : 0;  // no values: null pointers
    const int count = int(unit.end - unit.begin);
    __syncthreads();  // the previous unit's last reads of shared memory are done
    return sort_unit_keys<Pass, threads, Shape::sort_items>(
        in_keys + unit.begin, copied ? shared.staged : in_keys + unit.begin, keys + unit.begin,
        in_values + value_offset, values + value_offset, count, flip, shared, start_next);
  }

  __device__ __forceinline__ const Key* in_keys_of(const sort_unit& unit) const {
    return unit.in_alternate ? alternate_keys : keys;
  }
};

// The pass sort_units gives a unit: prefix words for 64-bit bits, else the full words.
template <class Key>
inline constexpr unit_pass first_unit_pass =
    has_prefix_words_v<Key> ? unit_pass::prefix_words : unit_pass::full_words;

// Every unit of every level: sorted from wherever its keys are into the user's buffers.
template <class Shape, class Key, class Value>
__global__ void __launch_bounds__(Shape::sort_threads,
                                  min_blocks_per_multiprocessor(
                                      Shape::sort_blocks_per_multiprocessor, Shape::sort_threads))
    sort_units(Key* keys, const Key* alternate_keys, Value* values, const Value* alternate_values,
               work_list<sort_unit> units, work_list<sort_unit> full_word_units,
               typename Shape::bits_type flip) {
  wait_for_previous_kernel();  // launched to overlap the previous kernel's end
  using sorter_t = unit_sorter<Shape, Key, Value>;
  __shared__ typename sorter_t::storage_t shared;
  const sorter_t sorter{shared, keys, alternate_keys, values, alternate_values, flip};
  using kind = unit_words<Key, Value, Shape::unit_items>;
  constexpr unit_pass pass = first_unit_pass<Key>;
  using prefetch_t = tile_prefetch<Shape::sort_threads, Shape::sort_items, Key>;

  const unsigned long long reserved = *units.reservation;
  const std::size_t entries = entries_of(reserved);
  const unsigned long long tiles = tiles_of(reserved);
  const auto unit_of_tile = [&](unsigned long long tile) {
    return units.entries[warp_entry_of_tile(units.entries, entries, tile)];
  };
  // Sorts a unit that is not all equal; one the prefix words leave out of order goes to the
  // full words' list (one tile per entry there).
  const auto sort_or_defer = [&](const sort_unit& unit, auto&&... start_next) {
    if (!sorter.template sort<pass>(unit, start_next...) && threadIdx.x == 0)
      full_word_units.entries[entries_of(reserve(full_word_units, 1, 1))] = unit;
  };
  if constexpr (!kind::prefetched) {
    for (unsigned long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      const sort_unit unit = unit_of_tile(tile);
      if (unit.all_equal)
        sorter.copy_all_equal(unit, tile);
      else
        sort_or_defer(unit);
    }
  } else {
    // Each unit's keys are copied into shared memory while the block sorts the unit before
    // it, so that their loads overlap its network (a block of the kernel has nothing else to
    // hide them behind: 4-5 warps per scheduler). Not all-equal units, which are only copied.
    const auto stage = [&](const sort_unit& unit) {
      if (!unit.all_equal)
        prefetch_t::start(sorter.in_keys_of(unit) + unit.begin, int(unit.end - unit.begin),
                          shared.staged);
    };
    for_each_tile_staged_ahead(tiles, unit_of_tile, stage, [&](unsigned long long tile,
                                                               const sort_unit& unit,
                                                               auto&& start_next) {
      if (unit.all_equal) {
        start_next();  // nothing of this unit is staged
        sorter.copy_all_equal(unit, tile);
      } else {
        prefetch_t::wait();  // this thread's copies: it reads only those (striped positions)
        sort_or_defer(unit, start_next);
      }
    });
  }
}

// The units whose prefix words left keys out of order (sort_units), by their full words.
template <class Shape, class Key, class Value>
__global__ void __launch_bounds__(Shape::sort_threads,
                                  min_blocks_per_multiprocessor(
                                      Shape::sort_blocks_per_multiprocessor, Shape::sort_threads))
    sort_units_by_full_words(Key* keys, const Key* alternate_keys, Value* values,
                             const Value* alternate_values, work_list<sort_unit> units,
                             typename Shape::bits_type flip) {
  wait_for_previous_kernel();  // launched to overlap the previous kernel's end
  using sorter_t = unit_sorter<Shape, Key, Value>;
  __shared__ typename sorter_t::storage_t shared;
  const sorter_t sorter{shared, keys, alternate_keys, values, alternate_values, flip};
  const std::size_t entries = entries_of(*units.reservation);
  for (std::size_t e = blockIdx.x; e < entries; e += gridDim.x)
    sorter.template sort<unit_pass::full_words>(units.entries[e]);
}

}  // namespace gpusort::backends::bucket_bitonic
