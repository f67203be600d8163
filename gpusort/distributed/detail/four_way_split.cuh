// Where the first `diagonal` outputs of the stable merge of four sorted runs come from, as
// pure __host__ __device__ functions that the host tests check. The four-way merge is the
// merge of runs 0 and 1 ("low") with the merge of runs 2 and 3 ("high"), ties taking the
// lower run, so the search is a merge path search (merge_path.cuh) between two merged pairs
// that are never built: each key of a pair is found by a merge path search of its own.
#pragma once

#include "../../detail/backends/merge/merge_path.cuh"

#include <type_traits>

namespace gpusort::distributed::detail {

// The stable merge of sorted a and b, indexable without being built: key x is the next
// output after the merge path split of diagonal x (about 2 log2(a_count + b_count) reads).
template <class Keys, class Index, class Compare>
struct merged_pair {
  Keys a;
  Index a_count;
  Keys b;
  Index b_count;
  Compare comp;

  __host__ __device__ auto operator[](Index x) const {
    using key = std::remove_cv_t<std::remove_reference_t<decltype(a[x])>>;
    const Index from_a = backends::merge::merge_path_split(a, a_count, b, b_count, x, comp);
    const Index from_b = x - from_a;
    const bool take_a = from_a < a_count && (from_b >= b_count || !comp(b[from_b], a[from_a]));
    return key(take_a ? a[from_a] : b[from_b]);
  }
};

// How many of the first `diagonal` outputs come from each run.
template <class Index>
struct four_way_split {
  Index from[4];
};

template <class Keys, class Index, class Compare>
__host__ __device__ four_way_split<Index> split_four_runs(const Keys (&runs)[4],
                                                          const Index (&counts)[4],
                                                          Index diagonal, const Compare& comp) {
  using backends::merge::merge_path_split;
  const merged_pair<Keys, Index, Compare> low{runs[0], counts[0], runs[1], counts[1], comp};
  const merged_pair<Keys, Index, Compare> high{runs[2], counts[2], runs[3], counts[3], comp};
  const Index from_low =
      merge_path_split(low, Index(counts[0] + counts[1]), high, Index(counts[2] + counts[3]),
                       diagonal, comp);
  const Index from_high = diagonal - from_low;
  const Index from_0 = merge_path_split(runs[0], counts[0], runs[1], counts[1], from_low, comp);
  const Index from_2 = merge_path_split(runs[2], counts[2], runs[3], counts[3], from_high, comp);
  return {{from_0, Index(from_low - from_0), from_2, Index(from_high - from_2)}};
}

}  // namespace gpusort::distributed::detail
