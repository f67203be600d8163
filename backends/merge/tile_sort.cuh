// The comparison sort's first step: a block sorts one tile of Threads x Items keys, stably,
// in two stages that keep the work per key small:
//   1. each thread sorts its Items consecutive keys in registers by odd-even transposition
//      (stable, and any count: an odd one spreads the threads' shared-memory accesses over
//      all banks);
//   2. log2(Threads) levels of merges in shared memory, each merging pairs of sorted runs into
//      runs twice as long; every thread merges Items outputs of its pair from its own diagonal
//      (thread_merge.cuh).
// About Items / 2 + log2(Threads) comparisons per key, where a block-wide bitonic network
// made log2(tile)(log2(tile) + 1) / 4.
// Values never enter shared memory during the sort: each key carries its tile position, and
// each value is gathered from there once, at the end.
// With a comparator that is no strict weak ordering the threads' merges of one pair can miss
// each other, and the tile would lose and duplicate keys; a block where any merge missed
// writes its tile unsorted instead (checked once, at the end), so the output stays a
// permutation of the input.
#pragma once

#include "../common/bitonic_tile.cuh"  // padded
#include "../common/striped_tile.cuh"
#include "thread_merge.cuh"

#include <gpusort/no_values.cuh>

namespace gpusort::backends::merge {

// Shared memory of a tile, with room for each key's tile position (16-bit) when TrackSource.
template <int Threads, int Items, class Key, bool TrackSource>
struct tile_sort_storage {
  // With room past the tile: a thread whose outputs run past the end of a short pair reads
  // beyond it.
  static constexpr int size = merge_slots<Items>(Threads * Items);
  Key keys[size];
  unsigned short source[TrackSource ? size : 1];
  // Each warp's first split, for the check that the merges of a pair meet across warps.
  int warp_splits[Threads / 32];
};

// Sorts one tile of `count` keys (at most Threads x Items); every thread of the block calls
// each step in order: load, sort_in_thread, merge_level for level 0, 1, ..., then store_keys and
// store_values, or store_unsorted where any_missed says a merge missed.
// Thread t holds tile positions t * Items + i in keys[i], and in source[i] where that key
// came from (with TrackSource).
template <int Threads, int Items, class Key, bool TrackSource, class Compare>
struct tile_sorter {
  static_assert((Threads & (Threads - 1)) == 0 && Threads % 32 == 0,
                "a power-of-two count of warps");
  static_assert(Threads * Items <= 65536, "tile positions are 16-bit in shared memory");
  static constexpr int levels = log2_of(Threads);
  using storage_t = tile_sort_storage<Threads, Items, Key, TrackSource>;
  // How the merges load each run's next key (merge_from_split): under predicates for keys of
  // up to 4 bytes, where that measured faster.
  static constexpr bool loads_under_predicate = sizeof(Key) <= 4;

  storage_t& shared;
  const int count;
  const Compare& comp;

  __device__ __forceinline__ int first_position() const { return int(threadIdx.x) * Items; }

  // Striped, coalesced loads through shared memory into each thread's consecutive positions.
  // Positions past `count` get a copy of the tile's first key (no comparison takes them: the
  // odd-even sort checks for them and the merges stop at `count`).
  __device__ __forceinline__ void load(const Key* in, Key (&keys)[Items],
                                       int (&source)[Items]) {
    Key loaded[Items];
    load_striped<Threads, Items>(in, count, loaded);
    for_each_striped<Threads, Items>(
        count, [&](int j, int p) { shared.keys[staged<Items>(p)] = loaded[j]; });
    Key padding;
    if (count < Threads * Items) padding = in[0];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int p = first_position() + i;
      keys[i] = p < count ? shared.keys[staged<Items>(p)] : padding;
      source[i] = p;
    }
  }

  // Odd-even transposition: Items rounds of compare-exchanges of neighbours, alternately
  // (0,1), (2,3), ... and (1,2), (3,4), ...; a swap only where the later key goes strictly
  // first keeps equal keys in order. Padding positions take no part: only the one thread
  // that holds both real keys and padding checks for them.
  __device__ __forceinline__ void sort_in_thread(Key (&keys)[Items], int (&source)[Items]) const {
    const int valid = count - first_position();
    if (valid >= Items)
      odd_even_sort<false>(keys, source, valid);
    else
      odd_even_sort<true>(keys, source, valid);
  }

  // Merges the pairs of sorted runs of Items << level positions into runs twice as long.
  // Returns whether this thread's merge missed the next thread's start (see any_missed).
  __device__ __forceinline__ bool merge_level(int level, Key (&keys)[Items],
                                              int (&source)[Items]) {
    const int thread = int(threadIdx.x);
    const int first = first_position();
    stage(keys, source);
    __syncthreads();

    const int run = Items << level;
    const int pair_begin = (thread >> (level + 1)) * (2 * run);
    const int a_length = clamp_length(count - pair_begin, run);
    const int b_length = clamp_length(count - pair_begin - run, run);
    const int pair_count = a_length + b_length;
    const int diagonal = first - pair_begin;
    const bool merging = diagonal < pair_count;
    // A pair of runs spans 2^(level + 1) threads: from level 5 on, several warps.
    const bool across_warps = (2 << level) > 32;
    const staged_run<Items, Key> a{shared.keys, pair_begin};
    const staged_run<Items, Key> b{shared.keys, pair_begin + run};
    int split = 0;
    int end = 0;
    if (merging) {
      split = merge_path_split(a, a_length, b, b_length, diagonal, comp);
      if (across_warps && thread % 32 == 0) shared.warp_splits[thread / 32] = split;
      // b's keys follow a's in the tile when b has any.
      const staged_run<Items, Key> tile{shared.keys, 0};
      end = merge_from_split<Items, loads_under_predicate>(
          tile, pair_begin, pair_begin + a_length, pair_begin + pair_count, diagonal, split,
          keys, source, comp);
      if constexpr (TrackSource) {
#pragma unroll
        for (int i = 0; i < Items; ++i)
          if (diagonal + i < pair_count)
            source[i] = shared.source[staged<Items>(pair_begin + source[i])];
      }
    }
    __syncthreads();  // every merge has read the runs (and the warp splits are visible)

    // Each thread's merge must end where the next one's starts (the pair's last thread takes
    // exactly what is left, so it cannot miss).
    const int next_split = next_thread_split<Threads>(split, shared.warp_splits, across_warps);
    return merging && diagonal + Items < pair_count && end != next_split;
  }

  // Whether any thread's merge at any level missed (`missed`: this thread's merge_level
  // results, or-ed): then the block's tile is garbled, and store_unsorted must write it.
  __device__ __forceinline__ static bool any_missed(bool missed) {
    return __syncthreads_or(missed);
  }

  // The sorted keys out, striped and coalesced through shared memory (in and out may be the
  // same memory); then store_values, if there are values.
  __device__ __forceinline__ void store_keys(Key (&keys)[Items], int (&source)[Items],
                                             Key* out_keys) {
    stage(keys, source);
    __syncthreads();
    for_each_striped<Threads, Items>(count, [&](int, int p) { out_keys[p] = stored_key(p); });
  }

  // Output position p's key, after store_keys.
  __device__ __forceinline__ Key stored_key(int p) const { return shared.keys[staged<Items>(p)]; }

  // Each value gathered from its key's input position, after store_keys.
  template <class Value>
  __device__ __forceinline__ void store_values(const Value* in_values, Value* out_values) {
    static_assert(TrackSource, "values follow their keys' input positions");
    Value values[Items];
    for_each_striped<Threads, Items>(count, [&](int j, int p) {
      values[j] = in_values[shared.source[staged<Items>(p)]];
    });
    __syncthreads();  // sorting in place: every value is read before any is overwritten
    store_striped<Threads, Items>(out_values, count, values);
  }

  // Rare: the tile as it came in (in and out may be the same memory).
  template <class Value>
  __device__ __forceinline__ void store_unsorted(const Key* in_keys, Key* out_keys,
                                                 const Value* in_values,
                                                 Value* out_values) const {
    for_each_striped<Threads, Items>(count, [&](int, int p) {
      out_keys[p] = in_keys[p];
      if constexpr (has_values_v<Value>) out_values[p] = in_values[p];
    });
  }

 private:
  __device__ __forceinline__ static int clamp_length(int left, int run) {
    return left < 0 ? 0 : left < run ? left : run;
  }

  template <bool HasPadding>
  __device__ __forceinline__ void odd_even_sort(Key (&keys)[Items], int (&source)[Items],
                                                int valid) const {
#pragma unroll
    for (int round = 0; round < Items; ++round) {
#pragma unroll
      for (int i = round % 2; i + 1 < Items; i += 2) {
        const Key low = keys[i];
        const Key high = keys[i + 1];
        const bool swap = (!HasPadding || i + 1 < valid) && comp(high, low);
        keys[i] = swap ? high : low;
        keys[i + 1] = swap ? low : high;
        if constexpr (TrackSource) {
          const int low_source = source[i];
          source[i] = swap ? source[i + 1] : low_source;
          source[i + 1] = swap ? low_source : source[i + 1];
        }
      }
    }
  }

  // This thread's positions into shared memory, padding included (no reader takes it).
  __device__ __forceinline__ void stage(const Key (&keys)[Items], const int (&source)[Items]) {
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int p = first_position() + i;
      shared.keys[staged<Items>(p)] = keys[i];
      if constexpr (TrackSource) shared.source[staged<Items>(p)] = (unsigned short)source[i];
    }
  }
};

}  // namespace gpusort::backends::merge
