// The device-side work lists of the bucket partition. The host launches a fixed sequence of
// kernels (no round trip to learn how the data split); each level's kernels read the
// segments left by the previous level and append what they leave to the next.
#pragma once

#include "buckets.cuh"

#include <cstddef>

namespace gpusort::backends::bucket_bitonic {

// Counters of the first level's segment, one per 128 bytes (a cache line): every tile of the
// input adds to them, and packed together they held its scatter to about half the speed of the
// second level's, whose tiles spread over many segments' counters (H100, 2^24 u32: 225 ->
// 130 us; bench/results/NOTES.md).
inline constexpr int first_level_counter_stride = 16;

// Keys still to be partitioned at one level: more than a sort unit's worth, more than one
// distinct value (or not known yet).
struct segment {
  std::size_t begin;
  std::size_t count;
  unsigned long long first_tile;  // of the level's partition tiles
  unsigned long long min_bits;    // of the keys' ordered bits, filled by segment_min_max
  unsigned long long max_bits;    // (or the first level's window: `clamped` below)
  unsigned long long counters;    // its 2^bucket_bits bucket counters in the level's pool
  int bucket_bits;
  // 0: buckets of equal widths of ordered bits (buckets.cuh). Otherwise buckets of equal
  // widths of value, this many per unit of value (value_buckets.cuh: the first level of
  // float keys, set by choose_first_level_bits).
  double value_scale;
  // Counter b of the segment is counters + b * counter_stride (counter_of). The first level's
  // one segment takes an atomic on its counters from every tile of the input: a cache line
  // each (first_level_counter_stride) keeps them from queueing at one place in L2.
  int counter_stride = 1;
  // The first level may cut a window of the keys' range instead of all of it, where a sample
  // of the keys fills only a sliver of [min, max] (choose_first_level_bits): min_bits and
  // max_bits are then the window's ends, and bucket 0 and the last bucket also hold the keys
  // below and above it (buckets.cuh: clamped_bucket_of).
  bool clamped = false;
};

__host__ __device__ inline std::size_t counter_of(const segment& seg, int bucket) {
  return std::size_t(seg.counters) + std::size_t(bucket) * std::size_t(seg.counter_stride);
}

// All keys of the segment are equal (known once segment_min_max has run): nothing of it is
// counted, planned into buckets or scattered; it becomes a unit as it is.
__host__ __device__ inline bool holds_one_value(const segment& seg) {
  return seg.min_bits == seg.max_bits;
}

// Keys that are done partitioning: one bitonic tile of them (`sorted`), or any number of
// equal keys that only need to reach the user's buffer (`all_equal`, one tile per
// unit_items of them).
struct sort_unit {
  std::size_t begin;
  std::size_t end;
  unsigned long long first_tile;  // of the final pass's tiles
  int in_alternate;               // where the keys are now: 0 the user's buffer, 1 the other
  int all_equal;
};

template <class Entry>
struct work_list {
  Entry* entries;
  unsigned long long* reservation;  // pack_reservation(entries used, tiles used)
  std::size_t capacity;
};

// Bucket counters (then cursors) of a level's segments: each segment reserves 2^bucket_bits.
struct counter_pool {
  unsigned long long* counters;
  unsigned long long* used;
  std::size_t capacity;
};

// What the sort keeps in its temporary allocation: the alternate buffers, two segment lists
// and two counter pools (level L reads list and pool L % 2 and fills the others), and the
// unit lists: every unit, and those that sort_units leaves to sort_units_by_full_words. One
// sort unit needs only the unit lists.
template <class Key, class Value>
struct work_space {
  Key* alternate_keys;
  Value* alternate_values;
  work_list<segment> segment_lists[2];
  work_list<sort_unit> units;
  work_list<sort_unit> full_word_units;
  counter_pool counter_pools[2];
};

// What partition level `level` reads and writes. Level L reads the segments of list L % 2,
// their keys from the user's buffers (L even) or the alternate ones, and leaves the next
// level's segments and keys in the others.
template <class Key, class Value>
struct level_io {
  const Key* from_keys;
  Key* to_keys;
  const Value* from_values;
  Value* to_values;
  work_list<segment> list;
  work_list<segment> next;
  counter_pool pool;
  counter_pool next_pool;
  int in_alternate;  // 1 where the level's keys are in the alternate buffers
};

template <class Key, class Value>
__host__ __device__ inline level_io<Key, Value> level_io_of(const work_space<Key, Value>& work,
                                                            Key* keys, Value* values,
                                                            int level, int levels) {
  const int in_alternate = level % 2;
  level_io<Key, Value> io{in_alternate ? work.alternate_keys : keys,
                          in_alternate ? keys : work.alternate_keys,
                          in_alternate ? work.alternate_values : values,
                          in_alternate ? values : work.alternate_values,
                          work.segment_lists[level % 2],
                          work.segment_lists[(level + 1) % 2],
                          work.counter_pools[level % 2],
                          work.counter_pools[(level + 1) % 2],
                          in_alternate};
  // The last level leaves no segments (buckets.cuh: partition_levels): a list of capacity 0
  // makes a broken promise trap instead of writing past the end.
  if (level + 1 == levels) io.next.capacity = 0;
  return io;
}

// Reserves `entries` entries and `tiles` tiles of a list (one atomic per caller).
// Returns the first of each. Overflowing a list means the capacity bounds in dispatch.cuh
// are wrong: trap, so the sort fails loudly instead of writing past the list.
template <class Entry>
__device__ inline unsigned long long reserve(const work_list<Entry>& list,
                                             unsigned long long entries,
                                             unsigned long long tiles) {
  const unsigned long long before = atomicAdd(list.reservation, pack_reservation(entries, tiles));
  if (entries_of(before) + entries > list.capacity) __trap();
  return before;
}

__device__ inline unsigned long long reserve(const counter_pool& pool, unsigned long long count) {
  const unsigned long long before = atomicAdd(pool.used, count);
  if (before + count > pool.capacity) __trap();
  return before;
}

}  // namespace gpusort::backends::bucket_bitonic
