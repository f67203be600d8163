// Kernels of the bucket + bitonic sort, in the order they run:
//   start_lists          level 0 holds one segment, the whole input (or, for an input that
//                        fits one sort unit, the unit list holds it directly)
//   per partition level:
//     segment_min_max    min and max ordered bits of every segment of the level
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
#pragma once

#include <gpusort/detail/policies/key_traits.cuh>
#include "../common/launch_bounds.cuh"
#include "../common/tiles.cuh"
#include "../common/ordered_bits.cuh"
#include "../common/bitonic_tile.cuh"
#include "buckets.cuh"
#include "work_lists.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <type_traits>

namespace gpusort::backends::bucket_bitonic {

// The shapes of the kernels for one (key, value) pair: what Tuning asks for, shrunk to fit
// its shared-memory budgets.
template <class Tuning, class Key, class Value = no_values>
struct bucket_shape {
  using traits = radix_key_traits<Key>;
  using bits_type = typename traits::bits_type;

  static constexpr int partition_threads = Tuning::partition_threads;
  static constexpr int widest_element =
      int(sizeof(Key) > sizeof(Value) ? sizeof(Key) : sizeof(Value));
  static constexpr int fitting_partition_items =
      Tuning::partition_exchange_bytes / (widest_element * partition_threads);
  static_assert(fitting_partition_items >= 1,
                "gpusort::bucket_bitonic: the key or value type is too large for a tile in "
                "shared memory; sort an index payload and gather the values afterwards");
  static constexpr int partition_items = Tuning::partition_items_per_thread < fitting_partition_items
                                             ? Tuning::partition_items_per_thread
                                             : fitting_partition_items;
  static constexpr int partition_tile = partition_threads * partition_items;
  static_assert(partition_tile <= 65536, "ranks within a tile are 16-bit");

  static constexpr int max_bucket_bits = Tuning::first_bucket_bits;
  static constexpr int min_deeper_bucket_bits = Tuning::deeper_bucket_bits;
  static constexpr int max_buckets = 1 << max_bucket_bits;
  static_assert(Tuning::deeper_bucket_bits <= Tuning::first_bucket_bits &&
                    max_buckets % partition_threads == 0,
                "bucket counts: powers of two, a multiple of partition_threads");
  static constexpr int buckets_per_thread = max_buckets / partition_threads;
  static constexpr int scatter_blocks_per_multiprocessor = Tuning::scatter_blocks_per_multiprocessor;

  static constexpr int sort_threads = Tuning::sort_threads;
  static constexpr int sort_items = bitonic_items_per_thread<bits_type>(
      sort_threads, Tuning::sort_items_per_thread, Tuning::exchange_bytes);
  static_assert(sort_items >= 1,
                "gpusort::bucket_bitonic: the key type is too large for a sort unit in shared "
                "memory");
  static constexpr int unit_items = sort_threads * sort_items;
  static_assert(unit_items <= 65536, "positions are 16-bit in shared memory");
  static constexpr int sort_blocks_per_multiprocessor = Tuning::sort_blocks_per_multiprocessor;
};

template <class Key>
__device__ __forceinline__ unsigned long long ordered_bits(const Key& key,
                                                           typename radix_key_traits<Key>::bits_type flip) {
  return static_cast<unsigned long long>(
      typename radix_key_traits<Key>::bits_type(radix_key_traits<Key>::sort_bits(key) ^ flip));
}

// The order of the sort units: the keys' ordered bits, as in the partition.
template <class Key>
struct ordered_less {
  typename radix_key_traits<Key>::bits_type flip;
  __device__ __forceinline__ bool operator()(const Key& a, const Key& b) const {
    using bits_type = typename radix_key_traits<Key>::bits_type;
    return bits_type(radix_key_traits<Key>::sort_bits(a) ^ flip) <
           bits_type(radix_key_traits<Key>::sort_bits(b) ^ flip);
  }
};

struct bits_less {
  template <class Bits>
  __device__ __forceinline__ bool operator()(Bits a, Bits b) const {
    return a < b;
  }
};

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
                         const bool at_or_before = probe < high && entries[probe].first_tile <= tile;
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
  return {s, seg.begin + within, int(left < std::size_t(tile_items) ? left : std::size_t(tile_items)),
          within == 0};
}

template <class Shape>
__global__ void start_lists(work_list<segment> first_level, work_list<sort_unit> units,
                            std::size_t n, int first_bucket_bits, bool one_unit) {
  if (one_unit) {
    units.entries[0] = {0, n, 0, 0, 0};
    *units.reservation = pack_reservation(1, 1);
  } else {
    first_level.entries[0] = {0, n, 0, ~0ull, 0, 0, first_bucket_bits};
    *first_level.reservation = pack_reservation(1, tile_count(n, Shape::partition_tile));
    *units.reservation = 0;
  }
}

// Also clears the bucket counters of each segment (the pools are reused every other level),
// before bucket_histogram fills them.
template <class Shape, class Key>
__global__ void __launch_bounds__(Shape::partition_threads)
    segment_min_max(const Key* keys, work_list<segment> list, counter_pool counters,
                    typename Shape::bits_type flip) {
  constexpr int threads = Shape::partition_threads;
  using reduce_t = cub::BlockReduce<unsigned long long, threads>;
  __shared__ typename reduce_t::TempStorage reduce_storage[2];

  const unsigned long long reserved = *list.reservation;
  const std::size_t segments = entries_of(reserved);
  const unsigned long long tiles = tiles_of(reserved);
  unsigned long long low = ~0ull;
  unsigned long long high = 0;
  std::size_t current = ~std::size_t(0);
  // Tiles of one segment accumulate; one pair of atomics per segment a block visited.
  const auto flush = [&] {
    const unsigned long long block_low = reduce_t(reduce_storage[0]).Reduce(low, minimum{});
    const unsigned long long block_high = reduce_t(reduce_storage[1]).Reduce(high, maximum{});
    if (threadIdx.x == 0) {
      atomicMin(&list.entries[current].min_bits, block_low);
      atomicMax(&list.entries[current].max_bits, block_high);
    }
    __syncthreads();  // the storage is reused by the next flush
    low = ~0ull;
    high = 0;
  };
  for (unsigned long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const segment_tile place = locate_tile(list, segments, tile, Shape::partition_tile);
    if (place.segment != current) {
      if (current != ~std::size_t(0)) flush();
      current = place.segment;
    }
    if (place.first_of_segment) {
      const segment& seg = list.entries[place.segment];
      for (int b = int(threadIdx.x); b < (1 << seg.bucket_bits); b += threads)
        counters.counters[seg.counters + std::size_t(b)] = 0;
    }
#pragma unroll
    for (int j = 0; j < Shape::partition_items; ++j) {
      const int i = j * threads + int(threadIdx.x);
      if (i < place.count) {
        const unsigned long long bits = ordered_bits(keys[place.begin + i], flip);
        low = bits < low ? bits : low;
        high = bits > high ? bits : high;
      }
    }
  }
  if (current != ~std::size_t(0)) flush();
}

template <class Shape, class Key>
__global__ void __launch_bounds__(Shape::partition_threads)
    bucket_histogram(const Key* keys, work_list<segment> list, counter_pool counters,
                     typename Shape::bits_type flip) {
  constexpr int threads = Shape::partition_threads;
  __shared__ unsigned counts[Shape::max_buckets];
  for (int b = int(threadIdx.x); b < Shape::max_buckets; b += threads) counts[b] = 0;
  __syncthreads();

  const unsigned long long reserved = *list.reservation;
  const std::size_t segments = entries_of(reserved);
  const unsigned long long tiles = tiles_of(reserved);
  std::size_t current = ~std::size_t(0);
  // Tiles of one segment accumulate in shared memory; one global atomic per bucket per
  // segment a block visited.
  const auto flush = [&] {
    __syncthreads();
    const segment& seg = list.entries[current];
    for (int b = int(threadIdx.x); b < (1 << seg.bucket_bits); b += threads) {
      if (counts[b] != 0) atomicAdd(&counters.counters[seg.counters + std::size_t(b)],
                                    static_cast<unsigned long long>(counts[b]));
      counts[b] = 0;
    }
    __syncthreads();
  };
  for (unsigned long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const segment_tile place = locate_tile(list, segments, tile, Shape::partition_tile);
    if (place.segment != current) {
      if (current != ~std::size_t(0)) flush();
      current = place.segment;
    }
    const segment& seg = list.entries[place.segment];
    const unsigned long long min_bits = seg.min_bits;
    const unsigned long long max_bits = seg.max_bits;
    if (min_bits == max_bits) continue;  // all equal: plan_buckets needs no counts
    const int shift = bucket_shift(min_bits, max_bits, seg.bucket_bits);
#pragma unroll
    for (int j = 0; j < Shape::partition_items; ++j) {
      const int i = j * threads + int(threadIdx.x);
      const bool valid = i < place.count;
      const unsigned bucket =
          valid ? bucket_of(ordered_bits(keys[place.begin + i], flip), min_bits, shift) : 0u;
      count_in_bucket(counts, bucket, valid);
    }
  }
  if (current != ~std::size_t(0)) flush();
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

// One block per segment (persistent). The segment's data is in the alternate buffer when
// `level_in_alternate`; its buckets go to the other buffer. Turns the bucket counts into the
// buckets' first positions (bucket_scatter's cursors). Two instantiations share a level:
// BucketsPerThread 1 plans the segments of at most `threads` buckets (light in registers,
// many blocks), a larger one the wider segments.
template <class Shape, int BucketsPerThread>
__global__ void __launch_bounds__(Shape::partition_threads)
    plan_buckets(work_list<segment> list, work_list<segment> next_level, counter_pool counters,
                 counter_pool next_counters, work_list<sort_unit> units, int level_in_alternate) {
  constexpr int threads = Shape::partition_threads;
  constexpr int per_thread = BucketsPerThread;
  static_assert(per_thread == 1 || threads * per_thread >= Shape::max_buckets,
                "the wide plan covers the widest segments");
  constexpr int unit_items = Shape::unit_items;
  using start_scan_t = cub::BlockScan<unsigned long long, threads>;
  using plan_scan_t = cub::BlockScan<list_additions, threads>;
  __shared__ union {
    typename start_scan_t::TempStorage starts;
    typename plan_scan_t::TempStorage plan;
  } scan_storage;
  __shared__ unsigned long long unit_base, unit_tile_base, segment_base, segment_tile_base,
      counter_base;

  const std::size_t segments = entries_of(*list.reservation);
  for (std::size_t s = blockIdx.x; s < segments; s += gridDim.x) {
    const segment seg = list.entries[s];
    const int buckets = 1 << seg.bucket_bits;
    const bool mine = per_thread == 1 ? buckets <= threads : buckets > threads;
    if (!mine) continue;
    if (seg.min_bits == seg.max_bits) {
      // All equal: sorted already; it only has to reach the user's buffer.
      if (threadIdx.x == 0 && level_in_alternate) {
        const unsigned long long at = reserve(units, 1, tile_count(seg.count, unit_items));
        units.entries[entries_of(at)] = {seg.begin, seg.begin + seg.count, tiles_of(at), 1, 1};
      }
      continue;
    }
    const int shift = bucket_shift(seg.min_bits, seg.max_bits, seg.bucket_bits);
    unsigned long long* segment_buckets = counters.counters + seg.counters;

    // Blocked: thread t owns buckets t * per_thread + i, so scans run in bucket order.
    unsigned long long count[per_thread];
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int b = int(threadIdx.x) * per_thread + i;
      count[i] = b < buckets ? segment_buckets[b] : 0;
    }
    unsigned long long start[per_thread];
    start_scan_t(scan_storage.starts).ExclusiveSum(count, start);
    __syncthreads();
    // The previous non-empty bucket decides whether a small bucket opens a unit
    // (buckets.cuh: opens_unit).
    unsigned long long marker[per_thread];
    unsigned long long previous[per_thread];
#pragma unroll
    for (int i = 0; i < per_thread; ++i)
      marker[i] = count[i] != 0 ? bucket_marker(start[i], is_small_bucket(count[i], unit_items)) : 0;
    start_scan_t(scan_storage.starts).ExclusiveScan(marker, previous, 0ull, maximum{});
    __syncthreads();

    bool opens[per_thread];
    bool member[per_thread];
    list_additions adds[per_thread];
    int child_bits[per_thread];
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const bool small = is_small_bucket(count[i], unit_items);
      opens[i] = count[i] != 0 && small && opens_unit(previous[i], start[i], unit_items);
      member[i] = count[i] != 0 && small && !opens[i];
      // An oversized bucket one value wide (shift 0) is all equal: a unit, not a segment,
      // and only if the scatter puts it in the alternate buffer (else it is done).
      const bool equal_unit = count[i] != 0 && !small && shift == 0 && !level_in_alternate;
      const bool child = count[i] != 0 && !small && shift != 0;
      child_bits[i] = deeper_level_bucket_bits(count[i], unit_items, Shape::min_deeper_bucket_bits,
                                               Shape::max_bucket_bits);
      adds[i] = {opens[i] || equal_unit ? 1ull : 0ull,
                 opens[i] ? 1ull : equal_unit ? tile_count(count[i], unit_items) : 0ull,
                 child ? 1ull : 0ull,
                 child ? tile_count(count[i], Shape::partition_tile) : 0ull,
                 child ? 1ull << child_bits[i] : 0ull};
    }
    list_additions before[per_thread];
    list_additions total;
    plan_scan_t(scan_storage.plan)
        .ExclusiveScan(adds, before, list_additions{0, 0, 0, 0, 0}, add_list_additions{}, total);
    if (threadIdx.x == 0) {
      if (total.units != 0) {
        const unsigned long long at = reserve(units, total.units, total.unit_tiles);
        unit_base = entries_of(at);
        unit_tile_base = tiles_of(at);
      }
      if (total.segments != 0) {
        const unsigned long long at = reserve(next_level, total.segments, total.segment_tiles);
        segment_base = entries_of(at);
        segment_tile_base = tiles_of(at);
        counter_base = reserve(next_counters, total.counters);
      }
    }
    __syncthreads();

#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int b = int(threadIdx.x) * per_thread + i;
      if (b >= buckets) continue;
      const std::size_t position = seg.begin + start[i];
      if (adds[i].units != 0)
        units.entries[unit_base + before[i].units] = {
            position, position + count[i], unit_tile_base + before[i].unit_tiles,
            level_in_alternate ? 0 : 1, opens[i] ? 0 : 1};
      if (adds[i].segments != 0)
        next_level.entries[segment_base + before[i].segments] = {
            position, count[i], segment_tile_base + before[i].segment_tiles, ~0ull, 0,
            counter_base + before[i].counters, child_bits[i]};
      segment_buckets[b] = position;
    }
    __syncthreads();  // the opening bucket wrote its unit before members extend it
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      // The last unit opened before a member bucket is its own (a bucket that is not small
      // between them would have made it open one).
      if (member[i])
        atomicMax(reinterpret_cast<unsigned long long*>(&units.entries[unit_base + before[i].units - 1].end),
                  static_cast<unsigned long long>(seg.begin + start[i] + count[i]));
    }
    __syncthreads();  // shared bases are reused by the next segment
  }
}

template <class Shape, class Key, class Value>
__global__ void __launch_bounds__(Shape::partition_threads,
                                  min_blocks_per_multiprocessor(
                                      Shape::scatter_blocks_per_multiprocessor,
                                      Shape::partition_threads))
    bucket_scatter(const Key* in_keys, Key* out_keys, const Value* in_values, Value* out_values,
                   work_list<segment> list, counter_pool cursors, typename Shape::bits_type flip) {
  constexpr int threads = Shape::partition_threads;
  constexpr int items = Shape::partition_items;
  constexpr int per_thread = Shape::buckets_per_thread;
  constexpr bool has_values = has_values_v<Value>;
  using scan_t = cub::BlockScan<unsigned, threads>;
  __shared__ unsigned tile_start[Shape::max_buckets];  // counts, then exclusive starts
  // Global position of each bucket's first key in this tile, minus its start in the tile.
  __shared__ unsigned long long tile_base[Shape::max_buckets];
  __shared__ union {
    typename scan_t::TempStorage scan;
    Key keys[Shape::partition_tile];
    Value values[has_values ? Shape::partition_tile : 1];
  } exchange;

  const unsigned long long reserved = *list.reservation;
  const std::size_t segments = entries_of(reserved);
  const unsigned long long tiles = tiles_of(reserved);
  for (unsigned long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const segment_tile place = locate_tile(list, segments, tile, Shape::partition_tile);
    const segment& seg = list.entries[place.segment];
    const unsigned long long min_bits = seg.min_bits;
    const unsigned long long max_bits = seg.max_bits;
    if (min_bits == max_bits) continue;
    const int buckets = 1 << seg.bucket_bits;
    const int shift = bucket_shift(min_bits, max_bits, seg.bucket_bits);

    for (int b = int(threadIdx.x); b < buckets; b += threads) tile_start[b] = 0;
    __syncthreads();
    Key keys[items];
    unsigned bucket_and_rank[items];  // bucket << 16 | rank among the tile's keys of the bucket
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int i = j * threads + int(threadIdx.x);
      const bool valid = i < place.count;
      if (valid) keys[j] = in_keys[place.begin + i];
      const unsigned bucket = valid ? bucket_of(ordered_bits(keys[j], flip), min_bits, shift) : 0u;
      bucket_and_rank[j] = bucket << 16 | count_in_bucket(tile_start, bucket, valid);
    }
    __syncthreads();

    unsigned count[per_thread];
    unsigned start[per_thread];
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int b = int(threadIdx.x) * per_thread + i;
      count[i] = b < buckets ? tile_start[b] : 0u;
    }
    scan_t(exchange.scan).ExclusiveSum(count, start);
    unsigned long long* segment_cursors = cursors.counters + seg.counters;
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int b = int(threadIdx.x) * per_thread + i;
      if (b < buckets) tile_start[b] = start[i];
      if (count[i] != 0) tile_base[b] = atomicAdd(&segment_cursors[b], count[i]) - start[i];
    }
    __syncthreads();

    // Ordered by bucket in shared memory, then striped: consecutive threads write consecutive
    // positions of each bucket's run.
#pragma unroll
    for (int j = 0; j < items; ++j)
      if (j * threads + int(threadIdx.x) < place.count)
        exchange.keys[tile_start[bucket_and_rank[j] >> 16] + (bucket_and_rank[j] & 0xffffu)] = keys[j];
    __syncthreads();
    unsigned striped_bucket[has_values ? items : 1];
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int i = j * threads + int(threadIdx.x);
      if (i < place.count) {
        const Key key = exchange.keys[i];
        const unsigned bucket = bucket_of(ordered_bits(key, flip), min_bits, shift);
        if constexpr (has_values) striped_bucket[j] = bucket;
        out_keys[tile_base[bucket] + i] = key;
      }
    }
    if constexpr (has_values) {
      Value values[items];
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const int i = j * threads + int(threadIdx.x);
        if (i < place.count) values[j] = in_values[place.begin + i];
      }
      __syncthreads();  // every key is read out of the exchange
#pragma unroll
      for (int j = 0; j < items; ++j)
        if (j * threads + int(threadIdx.x) < place.count)
          exchange.values[tile_start[bucket_and_rank[j] >> 16] + (bucket_and_rank[j] & 0xffffu)] = values[j];
      __syncthreads();
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const int i = j * threads + int(threadIdx.x);
        if (i < place.count) out_values[tile_base[striped_bucket[j]] + i] = exchange.values[i];
      }
    }
    __syncthreads();  // shared memory is reused by the next tile
  }
}

// Sorts one unit, in_keys[0, count), by the keys' ordered bits: the network carries the bits
// and each key's position in the unit, then keys (and values) are gathered from there. A
// comparator on the keys themselves would recompute their bits at every step (for floats,
// the NaN and -0.0 canonicalisation: 4x slower). in and out may be the same memory.
template <int Threads, int Items, class Key, class Value, class Storage>
__device__ __forceinline__ void sort_unit_by_bits(const Key* in_keys, Key* out_keys,
                                                  const Value* in_values, Value* out_values,
                                                  int count,
                                                  typename radix_key_traits<Key>::bits_type flip,
                                                  Storage& shared) {
  using bits_type = typename radix_key_traits<Key>::bits_type;
  constexpr bool has_values = has_values_v<Value>;
  const int thread = int(threadIdx.x);
  bits_type bits[Items];
  unsigned index[Items];
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    index[i] = unsigned(i * Threads + thread);
    // Past `count`, the position alone puts a slot last (tile_order); its bits are unused.
    bits[i] = int(index[i]) < count
                  ? bits_type(radix_key_traits<Key>::sort_bits(in_keys[index[i]]) ^ flip)
                  : bits_type(0);
  }
  const tile_order<bits_less, true, false> order{bits_less{}, unsigned(count)};
  bitonic_sort_tile<Threads, Items>(bits, index, shared, order);
#pragma unroll
  for (int i = 0; i < Items; ++i) shared.index[padded(thread * Items + i)] = index[i];
  __syncthreads();
  Key keys[Items];
  Value values[has_values ? Items : 1];
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const int position = i * Threads + thread;
    if (position < count) {
      const unsigned from = shared.index[padded(position)];
      keys[i] = in_keys[from];
      if constexpr (has_values) values[i] = in_values[from];
    }
  }
  __syncthreads();  // in place: every key and value is read before any is overwritten
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const int position = i * Threads + thread;
    if (position < count) {
      out_keys[position] = keys[i];
      if constexpr (has_values) out_values[position] = values[i];
    }
  }
}

// Every unit of every level: sorted from wherever its keys are into the user's buffers.
template <class Shape, class Key, class Value>
__global__ void __launch_bounds__(Shape::sort_threads,
                                  min_blocks_per_multiprocessor(
                                      Shape::sort_blocks_per_multiprocessor, Shape::sort_threads))
    sort_units(Key* keys, const Key* alternate_keys, Value* values, const Value* alternate_values,
               work_list<sort_unit> units, typename Shape::bits_type flip) {
  constexpr int threads = Shape::sort_threads;
  constexpr bool has_values = has_values_v<Value>;
  using bits_type = typename Shape::bits_type;
  // Integer keys are their own sort bits, so a short unit can be padded with the last key
  // of the order: keys only, the network then carries no input positions.
  constexpr bool pad_with_last_key = !has_values && std::is_integral_v<Key>;
  using network_key = std::conditional_t<pad_with_last_key, Key, bits_type>;
  __shared__ bitonic_tile_storage<Shape::unit_items, network_key, !pad_with_last_key> shared;

  const unsigned long long reserved = *units.reservation;
  const std::size_t entries = entries_of(reserved);
  const unsigned long long tiles = tiles_of(reserved);
  for (unsigned long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const sort_unit unit = units.entries[warp_entry_of_tile(units.entries, entries, tile)];
    if (unit.all_equal) {
      // Only units in the alternate buffer are listed; one tile's worth per list tile.
      const std::size_t begin = unit.begin + std::size_t(tile - unit.first_tile) * Shape::unit_items;
      const std::size_t left = unit.end - begin;
      const int count = int(left < std::size_t(Shape::unit_items) ? left : Shape::unit_items);
      for (int i = int(threadIdx.x); i < count; i += threads) {
        keys[begin + i] = alternate_keys[begin + i];
        if constexpr (has_values) values[begin + i] = alternate_values[begin + i];
      }
      continue;
    }
    const Key* in_keys = unit.in_alternate ? alternate_keys : keys;
    const Value* in_values = unit.in_alternate ? alternate_values : values;
    const std::size_t value_offset = has_values ? unit.begin : 0;  // no values: null pointers
    const int count = int(unit.end - unit.begin);
    __syncthreads();  // the previous unit's last reads of shared memory are done
    if constexpr (pad_with_last_key) {
      const Key last = radix_key_traits<Key>::decode(
          bits_type(descending_mask<bits_type>(Shape::traits::bits) ^ flip));
      sort_tile<threads, Shape::sort_items, false, false>(in_keys + unit.begin, keys + unit.begin,
                                                          in_values, values, count,
                                                          ordered_less<Key>{flip}, shared, &last);
    } else {
      sort_unit_by_bits<threads, Shape::sort_items>(in_keys + unit.begin, keys + unit.begin,
                                                    in_values + value_offset,
                                                    values + value_offset, count, flip, shared);
    }
  }
}

}  // namespace gpusort::backends::bucket_bitonic
