// The merge path split (merge_path.cuh) found by a group of lanes of one warp together: each
// round every lane tests one point of the range that is left, and the group keeps the part
// between the last point the path has not passed and the first one it has, Lanes + 1 times
// narrower. A few rounds of loads in flight together instead of one load after another per
// halving: what a mid-size merge pass waits on (bench/results/NOTES.md).
#pragma once

#include "merge_path.cuh"

#include <cstddef>
#include <cstdint>

namespace gpusort::backends::merge {

// The first point of `range` where `passed` holds (range.highest if none), for a predicate
// that is false, then true, along the range: first_passed (merge_path.cuh) by the lanes of a
// group. Every lane of the warp calls it; the lanes of each aligned group of Lanes search
// one range (they pass the same arguments) and each returns its group's answer.
// Deterministic: groups that search the same range with the same predicate find the same
// point, even where the predicate is not monotone (a comparator that is no strict weak
// ordering), as the binary search is.
template <int Lanes, class Index, class Passed>
__device__ __forceinline__ Index first_passed_by_lanes(split_range<Index> range,
                                                       const Passed& passed) {
  static_assert(Lanes >= 2 && 32 % Lanes == 0, "groups of lanes that tile a warp");
  const int lane = int(threadIdx.x % 32);
  const int in_group = lane % Lanes;
  const int group_first_lane = lane - in_group;
  const unsigned group_lanes = unsigned((std::uint64_t(1) << Lanes) - 1) << group_first_lane;
  // The point lane i of the group tests: all below range.highest, ascending in i.
  const auto point = [](const split_range<Index>& range, int i) {
    return Index(range.lowest + (range.highest - range.lowest) * Index(i + 1) / Index(Lanes + 1));
  };
  while (__any_sync(0xffffffffu, range.lowest < range.highest)) {
    const bool searching = range.lowest < range.highest;
    const bool passed_here = searching && passed(point(range, in_group));
    const unsigned passed_lanes =
        (__ballot_sync(0xffffffffu, passed_here) & group_lanes) >> group_first_lane;
    if (!searching) continue;
    if (passed_lanes == 0) {
      range.lowest = point(range, Lanes - 1) + 1;
    } else {
      const int first = __ffs(int(passed_lanes)) - 1;
      range = {first == 0 ? range.lowest : point(range, first - 1) + 1, point(range, first)};
    }
  }
  return range.lowest;
}

// The merge path split on `diagonal` (merge_path_split) by the lanes of a group, as above.
// a and b: anything indexable (pointers into global memory, runs spread over a cluster's
// blocks); Index: std::size_t, or int where the runs are short (cheaper arithmetic).
template <int Lanes, class KeysA, class KeysB, class Index, class Compare>
__device__ __forceinline__ Index merge_path_split_by_lanes(const KeysA& a, Index a_count,
                                                          const KeysB& b, Index b_count,
                                                          Index diagonal, const Compare& comp) {
  return first_passed_by_lanes<Lanes>(
      split_range_of(diagonal, a_count, b_count),
      [&](Index from_a) { return path_passed(a, b, diagonal, from_a, comp); });
}

}  // namespace gpusort::backends::merge
