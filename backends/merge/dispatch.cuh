// Host side of the comparison sort: sizes, the one temporary allocation, the tile sort (one
// block for small inputs, wide tiles for large ones) and the merge passes (two launches
// each: split search, merge; each may start while the kernel before it finishes, see
// dependent_launch.cuh), ping-ponging between the user's buffers and the alternate ones so
// that the last pass writes into the user's buffers (no copy back).
#pragma once

#include <gpusort/error.cuh>
#include <gpusort/sort_request.cuh>
#include "../common/kernel_setup.cuh"
#include "cluster_sort.cuh"
#include "kernels.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace gpusort::backends::merge {

// sort_tiles<Shape> on `tiles` blocks, with its tile's shared memory (dynamic where the tile
// is larger than static shared memory holds).
template <class Shape, class Key, class Value, class Compare>
void launch_sort_tiles(std::size_t tiles, cudaStream_t stream, const char* kernel_name,
                       const Key* in_keys, Key* out_keys, const Value* in_values,
                       Value* out_values, std::size_t n, unsigned* splits_disagreed,
                       const Compare& comp) {
  const int shared_bytes =
      allowed_dynamic_shared_bytes<sort_tiles<Shape, Key, Value, Compare>,
                                   tile_storage_t<Shape, Key, Value>>(
          "merge sort: allowing the tile its shared memory");
  sort_tiles<Shape><<<unsigned(tiles), Shape::tile_threads, shared_bytes, stream>>>(
      in_keys, out_keys, in_values, out_values, n, splits_disagreed, comp);
  detail::check_launch(kernel_name);
}

// The sort of more than one block's keys: tiles of TileShape, then merge passes of
// PassShape.
template <class TileShape, class PassShape, class Key, class Value, class Compare, bool Stable>
void sort_in_tiles(const sort_request<Key, Value, Compare, Stable>& request) {
  Key* const keys = request.keys;
  Value* const values = request.values;
  const std::size_t n = request.count;
  const Compare& comp = request.comp;
  const cudaStream_t stream = request.stream;
  constexpr bool has_values = has_values_v<Value>;
  constexpr int tile_items = TileShape::tile_items;
  constexpr int chunk_items = PassShape::chunk_items;

  const int passes = merge_pass_count(n, tile_items);
  // Everything is allocated before the input is touched.
  storage_plan layout;
  const std::size_t alternate_keys_at = layout.reserve<Key>(passes > 0 ? n : 0);
  const std::size_t alternate_values_at = layout.reserve<Value>(passes > 0 && has_values ? n : 0);
  std::size_t most_merge_blocks = 0;
  for (int pass = 0; pass < passes; ++pass) {
    const std::size_t blocks =
        merge_block_count(n, std::size_t(tile_items) << pass, chunk_items);
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
  launch_sort_tiles<TileShape>(tile_count(n, tile_items), stream, "merge sort: sort_tiles", keys,
                               tile_keys, values, tile_values, n, splits_disagreed, comp);

  Key* from_keys = tile_keys;
  Key* to_keys = passes % 2 == 0 ? alternate_keys : keys;
  Value* from_values = tile_values;
  Value* to_values = passes % 2 == 0 ? alternate_values : values;
  for (int pass = 0; pass < passes; ++pass) {
    const std::size_t run_width = std::size_t(tile_items) << pass;
    const std::size_t merge_blocks = merge_block_count(n, run_width, chunk_items);
    if (merge_blocks <= PassShape::lane_search_most_blocks)
      launch_dependent(find_splits_by_lanes<PassShape, Key, Compare>,
                       unsigned(tile_count(merge_blocks * 32, PassShape::split_search_threads)),
                       PassShape::split_search_threads, 0, stream,
                       "merge sort: find_splits_by_lanes", from_keys, n, run_width, merge_blocks,
                       splits, splits_disagreed, comp);
    else
      launch_dependent(find_splits<PassShape, Key, Compare>,
                       unsigned(tile_count(merge_blocks, PassShape::split_searches_per_block)),
                       PassShape::split_search_threads, 0, stream, "merge sort: find_splits",
                       from_keys, n, run_width, merge_blocks, splits, splits_disagreed, comp);
    launch_dependent(merge_runs<PassShape, Key, Value, Compare>, unsigned(merge_blocks),
                     PassShape::merge_threads, 0, stream, "merge sort: merge_runs", from_keys,
                     to_keys, from_values, to_values, n, run_width, splits, splits_disagreed,
                     comp);
    std::swap(from_keys, to_keys);
    std::swap(from_values, to_values);
  }
}

// The whole sort as one tile of Shape, in place, where n fits one: returns whether it did.
template <class Shape, class Key, class Value, class Compare, bool Stable>
bool sort_in_one_block(const sort_request<Key, Value, Compare, Stable>& request,
                       const char* kernel_name) {
  if (request.count > std::size_t(Shape::tile_items)) return false;
  launch_sort_tiles<Shape>(1, request.stream, kernel_name, request.keys, request.keys,
                           request.values, request.values, request.count, nullptr, request.comp);
  return true;
}

// Sorts the request's keys (and values alongside, unless Value is no_values) by its
// comparator, a strict weak ordering. Always stable (tiles and merges both keep equal keys in
// order, at no extra cost). Enqueued on the request's stream, no synchronisation. With a
// comparator that is no strict weak ordering the result is unspecified but a permutation of
// the input (merge_runs passes keys through where the merge path searches disagree).
template <class Tuning, class Key, class Value, class Compare, bool Stable>
void sort(const sort_request<Key, Value, Compare, Stable>& request) {
  const std::size_t n = request.count;
  using shape = merge_shape<Tuning, Key>;
  using one_block = one_block_shape<Tuning, Key>;
  if (n < 2) return;

  // Small enough for one block (of any of the one-block shapes): one launch, in place, no
  // temporary storage.
  if (sort_in_one_block<one_block>(request, "merge sort: sort_tiles (one block)")) return;
  if constexpr (has_large_one_block<Tuning, Key>())
    if (sort_in_one_block<large_one_block_shape<Tuning, Key>>(
            request, "merge sort: sort_tiles (one block, more keys each)"))
      return;
  if constexpr (has_larger_one_block<Tuning, Key>())
    if (sort_in_one_block<larger_one_block_shape<Tuning, Key>>(
            request, "merge sort: sort_tiles (one block, the most keys each)"))
      return;
  if constexpr (!has_values_v<Value> && has_keys_only_one_block<Tuning, Key>())
    if (sort_in_one_block<keys_only_one_block_shape<Tuning, Key>>(
            request, "merge sort: sort_tiles (one block, keys only)"))
      return;
  // A few tiles: one cluster (sm_90), no merge passes.
  if (sort_in_one_cluster<Tuning>(request)) return;
  // Large inputs in wide tiles (one merge pass fewer), smaller ones in more, smaller tiles.
  if (sorts_in_wide_tiles<Tuning, Key>(n))
    return sort_in_tiles<wide_tile_shape<Tuning, Key, has_values_v<Value>>, shape>(request);
  sort_in_tiles<shape, shape>(request);
}

}  // namespace gpusort::backends::merge
