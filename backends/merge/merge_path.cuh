// The index arithmetic of the segmented merge, as pure __host__ __device__ functions so the
// host tests can check it without a GPU:
//   - which pair of sorted runs an output range belongs to, and where the two runs lie;
//   - the merge path split: how many of the first `diagonal` outputs of merge(a, b) come
//     from a (Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path", 2012);
//   - how many merge passes a sort of n keys needs after its tiles are sorted.
#pragma once

#include <cstddef>

namespace gpusort::backends::merge {

// Number of merge passes after the tile sort: each pass halves the number of sorted runs.
__host__ __device__ constexpr int merge_pass_count(std::size_t n, std::size_t tile_items) {
  int passes = 0;
  for (std::size_t runs = (n + tile_items - 1) / tile_items; runs > 1; runs = (runs + 1) / 2)
    ++passes;
  return passes;
}

// A pass merges runs of `run_width` keys pairwise; each pair of runs is cut into chunks of
// `chunk` outputs, one per merge block, so that every block merges at most `chunk` keys
// whatever the data. Block `block` of the pass writes outputs [diagonal_begin, diagonal_end)
// of the merge of run a = [begin, begin + a_count) and run b = [begin + a_count, begin +
// a_count + b_count). The last pair may be short or have no b run; the last chunk of a pair
// may be short.
__host__ __device__ constexpr std::size_t merge_blocks_per_pair(std::size_t run_width,
                                                                int chunk) {
  return (2 * run_width + chunk - 1) / chunk;
}

// The blocks of a pass: every block of each full pair, and of the last pair, which may be
// short, only those with outputs to write. The others would be the grid's last blocks, so
// leaving them out moves no block; launched, they returned at once but still counted in the
// grid that picks the pass's register budget (merge_budgets.cuh): the last two passes of
// 3000001 u32 keys, 1379 blocks with outputs in a grid of 2048, took the budget for over
// 1584 blocks and lost 3-8 % (H200, bench/results/NOTES.md, 2026-12-03).
__host__ __device__ constexpr std::size_t merge_block_count(std::size_t n, std::size_t run_width,
                                                            int chunk) {
  if (n == 0) return 0;
  const std::size_t pair_width = 2 * run_width;
  const std::size_t pairs_before_last = (n - 1) / pair_width;
  const std::size_t last_pair_count = n - pairs_before_last * pair_width;
  return pairs_before_last * merge_blocks_per_pair(run_width, chunk) +
         (last_pair_count + chunk - 1) / chunk;
}

struct merge_block_range {
  std::size_t begin;
  std::size_t a_count;
  std::size_t b_count;
  std::size_t diagonal_begin;
  std::size_t diagonal_end;
};

__host__ __device__ constexpr merge_block_range merge_block_of(std::size_t block,
                                                               std::size_t run_width, int chunk,
                                                               std::size_t n) {
  const std::size_t per_pair = merge_blocks_per_pair(run_width, chunk);
  const std::size_t begin = block / per_pair * (2 * run_width);
  const std::size_t a_end = begin + run_width < n ? begin + run_width : n;
  const std::size_t b_end = a_end + run_width < n ? a_end + run_width : n;
  const std::size_t count = b_end - begin;
  const std::size_t first = block % per_pair * std::size_t(chunk);
  const std::size_t diagonal_begin = first < count ? first : count;
  const std::size_t diagonal_end =
      diagonal_begin + chunk < count ? diagonal_begin + std::size_t(chunk) : count;
  return {begin, a_end - begin, b_end - a_end, diagonal_begin, diagonal_end};
}

// The range of merge path split points on `diagonal`: at least diagonal - b_count keys come
// from a, at most min(diagonal, a_count). Index is std::size_t for global memory, int for a
// block's piece in shared memory (cheaper arithmetic).
template <class Index>
struct split_range {
  Index lowest;
  Index highest;
};

template <class Index>
__host__ __device__ constexpr split_range<Index> split_range_of(Index diagonal, Index a_count,
                                                                Index b_count) {
  return {diagonal > b_count ? Index(diagonal - b_count) : Index(0),
          diagonal < a_count ? diagonal : a_count};
}

// Whether the merge path on `diagonal` has left run a before position `from_a`: true when b's
// key b[diagonal - 1 - from_a] goes strictly before a[from_a]. Ties go to a, which makes the
// merge stable. False for every from_a below the split, true from the split on.
template <class KeysA, class KeysB, class Index, class Compare>
__host__ __device__ bool path_passed(const KeysA& a, const KeysB& b, Index diagonal,
                                     Index from_a, const Compare& comp) {
  return comp(b[diagonal - 1 - from_a], a[from_a]);
}

// The first point of `range` where `passed` holds (range.highest if none below it), for a
// predicate that is false, then true, along the range: a binary search.
template <class Index, class Passed>
__host__ __device__ Index first_passed(split_range<Index> range, const Passed& passed) {
  while (range.lowest < range.highest) {
    const Index middle = range.lowest + (range.highest - range.lowest) / 2;
    if (passed(middle))
      range.highest = middle;
    else
      range.lowest = middle + 1;
  }
  return range.lowest;
}

// The split on `diagonal` (see merge_path_split), known to lie in `range`: a binary search on
// the merge path between range.lowest and range.highest.
template <class KeysA, class KeysB, class Index, class Compare>
__host__ __device__ Index merge_path_split_in(const KeysA& a, const KeysB& b, Index diagonal,
                                              split_range<Index> range, const Compare& comp) {
  return first_passed(range,
                      [&](Index from_a) { return path_passed(a, b, diagonal, from_a, comp); });
}

// How many of the first `diagonal` keys of the stable merge of sorted a and b come from a.
// Binary search on the merge path; a and b are anything indexable (pointers into global or
// shared memory, host arrays in tests).
template <class KeysA, class KeysB, class Index, class Compare>
__host__ __device__ Index merge_path_split(const KeysA& a, Index a_count, const KeysB& b,
                                           Index b_count, Index diagonal, const Compare& comp) {
  return merge_path_split_in(a, b, diagonal, split_range_of(diagonal, a_count, b_count), comp);
}

// Whether two split points of one merge, on diagonals first <= second, can both be right:
// between them the path takes from a at least none and at most all of the outputs. Always
// true for a strict weak ordering; a comparator that is not one can make the binary searches
// disagree, and merging pieces cut by disagreeing splits would lose and duplicate keys.
template <class Index>
__host__ __device__ constexpr bool splits_agree(Index first_diagonal, Index first_split,
                                                Index second_diagonal, Index second_split) {
  return second_split >= first_split &&
         second_split - first_split <= second_diagonal - first_diagonal;
}

}  // namespace gpusort::backends::merge
