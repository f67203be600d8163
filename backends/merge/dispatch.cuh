// Host side of the comparison sort: sizes, the one temporary allocation, the tile sort and
// the merge passes (two launches each: split search, merge), ping-ponging between the user's
// buffers and the alternate ones so that the last pass writes into the user's buffers (no
// copy back).
#pragma once

#include <gpusort/error.cuh>
#include <gpusort/sort_request.cuh>
#include "kernels.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace gpusort::backends::merge {

// Sorts the request's keys (and values alongside, unless Value is no_values) by its
// comparator, a strict weak ordering. Stable when the request is. Enqueued on the request's
// stream, no synchronisation. With a comparator that is no strict weak ordering the result
// is unspecified but a permutation of the input (merge_runs passes keys through where the
// merge path searches disagree).
template <class Tuning, class Key, class Value, class Compare, bool Stable>
void sort(const sort_request<Key, Value, Compare, Stable>& request) {
  Key* const keys = request.keys;
  Value* const values = request.values;
  const std::size_t n = request.count;
  const Compare& comp = request.comp;
  const cudaStream_t stream = request.stream;
  using shape = merge_shape<Tuning, Key>;
  constexpr bool has_values = has_values_v<Value>;
  // Input positions are needed to break ties (stable) and to move values.
  constexpr bool track_index = Stable || has_values;
  if (n < 2) return;

  const int passes = merge_pass_count(n, shape::tile_items);
  // Everything is allocated before the input is touched.
  storage_plan layout;
  const std::size_t alternate_keys_at = layout.reserve<Key>(passes > 0 ? n : 0);
  const std::size_t alternate_values_at = layout.reserve<Value>(passes > 0 && has_values ? n : 0);
  std::size_t most_merge_blocks = 0;
  for (int pass = 0; pass < passes; ++pass) {
    const std::size_t blocks =
        merge_block_count(n, std::size_t(shape::tile_items) << pass, shape::chunk_items);
    most_merge_blocks = blocks > most_merge_blocks ? blocks : most_merge_blocks;
  }
  const std::size_t splits_at = layout.reserve<std::size_t>(most_merge_blocks);
  const std::size_t disagreed_at = layout.reserve<unsigned>(passes > 0 ? 1 : 0);
  temporary_storage storage(request.allocator, layout.total_bytes(), stream);
  Key* alternate_keys = storage.at<Key>(alternate_keys_at);
  Value* alternate_values = has_values ? storage.at<Value>(alternate_values_at) : nullptr;
  auto* splits = storage.at<std::size_t>(splits_at);
  unsigned* splits_disagreed = passes > 0 ? storage.at<unsigned>(disagreed_at) : nullptr;

  // An even number of passes ends where the tiles were written: so write them in place then.
  Key* tile_keys = passes % 2 == 0 ? keys : alternate_keys;
  Value* tile_values = passes % 2 == 0 ? values : alternate_values;
  const std::size_t tiles = tile_count(n, shape::tile_items);
  if constexpr (track_index) {
    sort_tiles<shape, true, Stable><<<unsigned(tiles), shape::tile_threads, 0, stream>>>(
        keys, tile_keys, values, tile_values, n, 0, splits_disagreed, comp);
    detail::check_launch("merge sort: sort_tiles");
  } else {
    // Full tiles need no positions; only a short last tile pads, and tracks them.
    const std::size_t full_tiles = n / shape::tile_items;
    if (full_tiles > 0) {
      sort_tiles<shape, false, false><<<unsigned(full_tiles), shape::tile_threads, 0, stream>>>(
          keys, tile_keys, values, tile_values, n, 0, splits_disagreed, comp);
      detail::check_launch("merge sort: sort_tiles");
    }
    if (full_tiles < tiles) {
      sort_tiles<shape, true, false><<<1, shape::tile_threads, 0, stream>>>(
          keys, tile_keys, values, tile_values, n, full_tiles, splits_disagreed, comp);
      detail::check_launch("merge sort: sort_tiles (last tile)");
    }
  }

  Key* from_keys = tile_keys;
  Key* to_keys = passes % 2 == 0 ? alternate_keys : keys;
  Value* from_values = tile_values;
  Value* to_values = passes % 2 == 0 ? alternate_values : values;
  for (int pass = 0; pass < passes; ++pass) {
    const std::size_t run_width = std::size_t(shape::tile_items) << pass;
    const std::size_t merge_blocks = merge_block_count(n, run_width, shape::chunk_items);
    const auto search_grid = unsigned(tile_count(merge_blocks, shape::split_searches_per_block));
    find_splits<shape><<<search_grid, shape::split_search_threads, 0, stream>>>(
        from_keys, n, run_width, merge_blocks, splits, splits_disagreed, comp);
    detail::check_launch("merge sort: find_splits");
    merge_runs<shape><<<unsigned(merge_blocks), shape::merge_threads, 0, stream>>>(
        from_keys, to_keys, from_values, to_values, n, run_width, splits, splits_disagreed, comp);
    detail::check_launch("merge sort: merge_runs");
    std::swap(from_keys, to_keys);
    std::swap(from_values, to_values);
  }
}

}  // namespace gpusort::backends::merge
