// Where the first `diagonal` outputs of the stable merge of four sorted runs come from, as
// pure __host__ __device__ functions that the host tests check. The four-way merge is the
// merge of runs 0 and 1 ("low") with the merge of runs 2 and 3 ("high"), ties taking the
// lower run, so its split is a merge path search (merge_path.cuh) between two merged pairs
// that are never built. A key of a pair at an arbitrary index needs a search of its own; a
// search of the whole input for each of them cost about 1800 scattered reads per tile, and
// made the merge six times slower than the pairwise one (bench/results/NOTES.md). So each
// pair's splits at every multiple of the tile are found first (one merge path search each),
// the low/high split is searched over multiples of the tile with those (a few reads a step),
// and only the last tile-wide window needs keys at arbitrary indices, each found between the
// two multiples around it (a search over one tile, whose keys the cache already holds).
#pragma once

#include "../../detail/backends/merge/merge_path.cuh"

#include <cstddef>
#include <type_traits>

namespace gpusort::distributed::detail {

// Sorted runs a and b, and the merge path splits of their stable merge at every multiple of
// `tile`: splits[k] = how many of the first min(k tile, count()) outputs come from a, for k
// from 0 to ceil(count() / tile).
template <class Keys, class Compare>
struct tiled_pair {
  Keys a;
  std::size_t a_count;
  Keys b;
  std::size_t b_count;
  const std::size_t* splits;
  std::size_t tile;
  Compare comp;

  __host__ __device__ std::size_t count() const { return a_count + b_count; }

  // The split of diagonal x (at most count()): it lies between the splits of the multiples of
  // the tile around x, which narrows the search to one tile.
  __host__ __device__ std::size_t split(std::size_t x) const {
    const std::size_t k = x / tile;
    if (x == k * tile) return splits[k];
    auto range = backends::merge::split_range_of(x, a_count, b_count);
    range.lowest = range.lowest > splits[k] ? range.lowest : splits[k];
    range.highest = range.highest < splits[k + 1] ? range.highest : splits[k + 1];
    return backends::merge::merge_path_split_in(a, b, x, range, comp);
  }

  // Output x (below count()), the one after the split of diagonal x: a's key unless b's goes
  // strictly before it.
  __host__ __device__ auto output_after(std::size_t from_a, std::size_t x) const {
    using key = std::remove_cv_t<std::remove_reference_t<decltype(a[x])>>;
    const std::size_t from_b = x - from_a;
    const bool take_a = from_a < a_count && (from_b >= b_count || !comp(b[from_b], a[from_a]));
    return key(take_a ? a[from_a] : b[from_b]);
  }

  __host__ __device__ auto operator[](std::size_t x) const { return output_after(split(x), x); }

  // Output k tile (below count()).
  __host__ __device__ auto at_multiple(std::size_t k) const {
    return output_after(splits[k], k * tile);
  }

  // The last of the first k tile outputs (0 < k tile <= count()): the later of a's and b's
  // last taken keys, b's where they are equal (a's go first on ties).
  __host__ __device__ auto last_before_multiple(std::size_t k) const {
    using key = std::remove_cv_t<std::remove_reference_t<decltype(a[0])>>;
    const std::size_t from_a = splits[k];
    const std::size_t from_b = k * tile - from_a;
    if (from_a == 0) return key(b[from_b - 1]);
    if (from_b == 0) return key(a[from_a - 1]);
    return key(comp(b[from_b - 1], a[from_a - 1]) ? a[from_a - 1] : b[from_b - 1]);
  }
};

// How many of the first `diagonal` outputs come from each run.
template <class Index>
struct four_way_split {
  Index from[4];
};

// The split of the merge of low and high on `diagonal`, a multiple of the tile (both pairs'
// tile) or low.count() + high.count(). The merge path condition: high's output diagonal - 1 -
// m goes strictly before low's output m; false below the split, true from it on.
template <class Keys, class Compare>
__host__ __device__ four_way_split<std::size_t> split_four_runs(
    const tiled_pair<Keys, Compare>& low, const tiled_pair<Keys, Compare>& high,
    std::size_t diagonal) {
  const std::size_t tile = low.tile;
  const Compare& comp = low.comp;
  const auto range = backends::merge::split_range_of(diagonal, low.count(), high.count());
  std::size_t from_low = range.highest;
  if (diagonal < low.count() + high.count()) {
    // Over the multiples of the tile in [lowest, highest): the first where the path has passed.
    const std::size_t first_multiple = (range.lowest + tile - 1) / tile;
    const std::size_t end_multiple = (range.highest + tile - 1) / tile;
    std::size_t lowest = first_multiple, highest = end_multiple;
    while (lowest < highest) {
      const std::size_t middle = lowest + (highest - lowest) / 2;
      if (comp(high.last_before_multiple(diagonal / tile - middle), low.at_multiple(middle)))
        highest = middle;
      else
        lowest = middle + 1;
    }
    // Then inside the tile-wide window below it, key by key.
    backends::merge::split_range<std::size_t> window{
        lowest > first_multiple ? (lowest - 1) * tile + 1 : range.lowest,
        lowest < end_multiple ? lowest * tile : range.highest};
    from_low = backends::merge::merge_path_split_in(low, high, diagonal, window, comp);
  }
  const std::size_t from_high = diagonal - from_low;
  const std::size_t from_0 = low.split(from_low);
  const std::size_t from_2 = high.split(from_high);
  return {{from_0, from_low - from_0, from_2, from_high - from_2}};
}

}  // namespace gpusort::distributed::detail
