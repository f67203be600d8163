// Samples of a merge pass's output that the next pass's split searches start from.
//
// A split search on a pair of runs of W keys takes log2(W) dependent loads, one per halving
// of the merge path, and from 2^23 keys those loads were much of a pass: with every search
// free (wrong splits, a probe) the sort of 2^24 u32 keys took 728 us instead of 856, of 2^26
// 3088 instead of 3467 (H100, bench/results/NOTES.md). So whoever writes a pass's input (the
// tile sort, or the pass before) also writes two keys of every group of `step` consecutive
// positions into small arrays: the group's first key and its last. A search then halves the
// path among the samples, a compact array that the searches of a pass share in cache, down
// to a window of `step` positions, and only the last log2(step) halvings read the keys.
//
// Why the first and the last key: merge path position i compares b[diagonal - 1 - i] with
// a[i]. Runs start at multiples of `step` (tiles and merge chunks are multiples of it) and
// so do the searched diagonals (multiples of the chunk), so where i is a multiple of `step`,
// a[i] is the first key of its group and b[diagonal - 1 - i] the last key of its group.
#pragma once

#include "lane_split_search.cuh"
#include "merge_path.cuh"

#include <cstddef>
#include <type_traits>

namespace gpusort::backends::merge {

// The step for tiles of tile_items and merge blocks of chunk_items: 64, or 32 where they are
// not multiples of 64 (a tuning's small shapes; every block is whole warps, so 32 divides).
constexpr int split_sample_step(int tile_items, int chunk_items) {
  return tile_items % 64 == 0 && chunk_items % 64 == 0 ? 64 : 32;
}

template <class Key, int Step>
struct split_samples {
  static_assert(Step > 0 && (Step & (Step - 1)) == 0, "a power of two");
  static constexpr int step = Step;

  Key* first = nullptr;  // first[g] = keys[g * step]
  Key* last = nullptr;   // last[g] = keys[g * step + step - 1]

  // How many groups n keys make (the last one may be short: its last key is never read).
  __host__ __device__ static constexpr std::size_t groups(std::size_t n) {
    return (n + step - 1) / step;
  }

  // A block of Threads that wrote keys [out_begin, out_begin + count), count <= MostCount and
  // out_begin a multiple of step, records their samples. key_at(p) is the key written at
  // out_begin + p, readable by every thread of the block. Kernels that record none take
  // no_split_samples instead, which leaves the code out (u32 at 2^20, where no pass searches
  // by samples, lost 5-9 % to its registers alone).
  template <int Threads, int MostCount, class KeyAt>
  __device__ __forceinline__ void record(std::size_t out_begin, int count, KeyAt key_at) const {
    constexpr int most_groups = (MostCount + step - 1) / step;
    const std::size_t group_base = out_begin / step;
#pragma unroll
    for (int round = 0; round < (most_groups + Threads - 1) / Threads; ++round) {
      const int g = round * Threads + int(threadIdx.x);
      if (g * step < count) first[group_base + g] = key_at(g * step);
      if (g * step + step - 1 < count) last[group_base + g] = key_at(g * step + step - 1);
    }
  }

  // merge_path_split for runs a = keys[a_begin, a_begin + a_count) and b right after it, on
  // a diagonal that, as a_begin and (where b is not empty) a_count, is a multiple of step.
  // Its result lies in the same range whatever the comparator (a window of that range).
  template <class Compare>
  __host__ __device__ std::size_t split(const Key* keys, std::size_t a_begin,
                                        std::size_t a_count, std::size_t b_count,
                                        std::size_t diagonal, const Compare& comp) const {
    return split_with(
        [](split_range<std::size_t> range, const auto& passed) {
          return first_passed(range, passed);
        },
        keys, a_begin, a_count, b_count, diagonal, comp);
  }

  // The same by the lanes of a group (first_passed_by_lanes): every lane of the warp calls
  // it, each group's lanes with the same arguments. Rounds of loads in flight together
  // instead of one after another; their probes of the samples, a compact array that all of
  // a pass's searches read, stay in cache (over the keys themselves, lanes lost from 2^23
  // keys: bench/results/NOTES.md).
  template <int Lanes, class Compare>
  __device__ std::size_t split_by_lanes(const Key* keys, std::size_t a_begin,
                                        std::size_t a_count, std::size_t b_count,
                                        std::size_t diagonal, const Compare& comp) const {
    return split_with(
        [](split_range<std::size_t> range, const auto& passed) {
          return first_passed_by_lanes<Lanes>(range, passed);
        },
        keys, a_begin, a_count, b_count, diagonal, comp);
  }

 private:
  // The split by `search` (first_passed or a version of it): among the samples, then among
  // the keys of one window of step positions.
  template <class Search, class Compare>
  __host__ __device__ std::size_t split_with(const Search& search, const Key* keys,
                                             std::size_t a_begin, std::size_t a_count,
                                             std::size_t b_count, std::size_t diagonal,
                                             const Compare& comp) const {
    const split_range<std::size_t> range = split_range_of(diagonal, a_count, b_count);
    // Candidates i = k * step below range.highest, from the first at or above range.lowest.
    const split_range<std::size_t> candidates{(range.lowest + step - 1) / step,
                                              (range.highest + step - 1) / step};
    const Key* a_first = first + a_begin / step;
    // The group holding b[diagonal - 1 - k * step] is this one less k.
    const Key* b_last = last + (a_begin + a_count + diagonal) / step - 1;
    const std::size_t k = search(candidates, [&](std::size_t k) {
      return comp(b_last[-std::ptrdiff_t(k)], a_first[k]);
    });
    // The path passed at k * step (if a candidate) and had not at (k - 1) * step.
    const split_range<std::size_t> window{
        k > candidates.lowest ? (k - 1) * step + 1 : range.lowest,
        k < candidates.highest ? k * step : range.highest};
    const Key* a = keys + a_begin;
    const Key* b = a + a_count;
    return search(window,
                  [&](std::size_t from_a) { return path_passed(a, b, diagonal, from_a, comp); });
  }
};

// What a kernel that records no samples takes in their place.
struct no_split_samples {};

template <class Samples>
inline constexpr bool records_samples_v = !std::is_same_v<Samples, no_split_samples>;

}  // namespace gpusort::backends::merge
