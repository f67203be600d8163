// Host side of the comparison sort: sizes, the one temporary allocation, the tile sort (one
// block for small inputs, wide tiles for large ones) and the merge passes (two launches
// each, split search and merge, or for passes of few merge blocks one launch that does
// both; each may start while the kernel before it finishes, see
// dependent_launch.cuh), ping-ponging between the user's buffers and the alternate ones so
// that the last pass writes into the user's buffers (no copy back).
#pragma once

#include <gpusort/error.cuh>
#include <gpusort/sort_request.cuh>
#include "../common/kernel_setup.cuh"
#include "cluster_sort.cuh"
#include "kernels.cuh"
#include "merge_budgets.cuh"
#include "sample_sort.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace gpusort::backends::merge {

// sort_tiles<Shape> on `tiles` blocks, with its tile's shared memory (dynamic where the tile
// is larger than static shared memory holds), writing `samples` (split_samples.cuh) unless
// they are no_split_samples.
template <class Shape, class Key, class Value, class Compare, class Samples = no_split_samples>
void launch_sort_tiles(std::size_t tiles, cudaStream_t stream, const char* kernel_name,
                       const Key* in_keys, Key* out_keys, const Value* in_values,
                       Value* out_values, std::size_t n, merge_pass_flags* flags,
                       const Compare& comp, const Samples& samples = {}) {
  const int shared_bytes =
      allowed_dynamic_shared_bytes<sort_tiles<Shape, Samples, Key, Value, Compare>,
                                   tile_storage_t<Shape, Key, Value>>(
          "merge sort: allowing the tile its shared memory");
  sort_tiles<Shape, Samples><<<unsigned(tiles), Shape::tile_threads, shared_bytes, stream>>>(
      in_keys, out_keys, in_values, out_values, n, flags, samples, comp);
  detail::check_launch(kernel_name);
}

// The sort of more than one block's keys: tiles of TileShape, then merge passes of
// PassShape. Passes of few merge blocks search their splits by lanes, the others from
// samples of their input (split_samples.cuh). MaySample: whether n may be large enough for
// the latter (false leaves their kernels out of the build).
template <class TileShape, class PassShape, bool MaySample, class Key, class Value,
          class Compare, bool Stable>
void sort_in_tiles(const sort_request<Key, Value, Compare, Stable>& request) {
  Key* const keys = request.keys;
  Value* const values = request.values;
  const std::size_t n = request.count;
  const Compare& comp = request.comp;
  const cudaStream_t stream = request.stream;
  constexpr bool has_values = has_values_v<Value>;
  constexpr int tile_items = TileShape::tile_items;
  constexpr int chunk_items = PassShape::chunk_items;

  using samples_t = split_samples<Key, split_sample_step(tile_items, chunk_items)>;
  static_assert(tile_items % samples_t::step == 0 && chunk_items % samples_t::step == 0,
                "runs and merge blocks start at multiples of the split samples' step");

  const int passes = merge_pass_count(n, tile_items);
  const auto merge_blocks_of = [&](int pass) {
    return merge_block_count(n, std::size_t(tile_items) << pass, chunk_items);
  };
  const auto searches_by_samples = [&](int pass) {
    return MaySample && pass < passes &&
           merge_blocks_of(pass) > PassShape::lane_search_most_blocks;
  };
  // One launch for the pass (search_and_merge_runs): few merge blocks, searched by lanes, no
  // samples to write for the next pass, and not the last pass unless its splits cannot
  // disagree (no pass after it could leave its input in place).
  const auto searches_in_merge = [&](int pass) {
    return (pass + 1 < passes || splits_always_agree<Key, Compare>) &&
           merge_blocks_of(pass) <= PassShape::fused_search_most_blocks &&
           !searches_by_samples(pass) && !searches_by_samples(pass + 1);
  };
  bool any_by_samples = false;
  std::size_t most_merge_blocks = 0;
  for (int pass = 0; pass < passes; ++pass) {
    const std::size_t blocks = merge_blocks_of(pass);
    most_merge_blocks = blocks > most_merge_blocks ? blocks : most_merge_blocks;
    any_by_samples |= searches_by_samples(pass);
  }
  // Everything is allocated before the input is touched.
  storage_plan layout;
  const std::size_t alternate_keys_at = layout.reserve<Key>(passes > 0 ? n : 0);
  const std::size_t alternate_values_at = layout.reserve<Value>(passes > 0 && has_values ? n : 0);
  const std::size_t splits_at = layout.reserve<std::size_t>(most_merge_blocks);
  const std::size_t flags_at = layout.reserve<merge_pass_flags>(passes > 0 ? 1 : 0);
  const std::size_t sample_groups = any_by_samples ? samples_t::groups(n) : 0;
  const std::size_t first_samples_at = layout.reserve<Key>(sample_groups);
  const std::size_t last_samples_at = layout.reserve<Key>(sample_groups);
  temporary_storage storage(request.allocator, layout.total_bytes(), stream);
  Key* alternate_keys = storage.at<Key>(alternate_keys_at);
  Value* alternate_values = has_values ? storage.at<Value>(alternate_values_at) : nullptr;
  auto* splits = storage.at<std::size_t>(splits_at);
  merge_pass_flags* flags = passes > 0 ? storage.at<merge_pass_flags>(flags_at) : nullptr;
  unsigned* splits_disagreed = passes > 0 ? &flags->splits_disagreed : nullptr;
  const samples_t samples = any_by_samples ? samples_t{storage.at<Key>(first_samples_at),
                                                       storage.at<Key>(last_samples_at)}
                                           : samples_t{};
  // launch(samples) where `wanted`, else launch(no_split_samples{}): the kernels that record
  // samples are compiled only where MaySample. One set of samples serves every pass: a
  // pass's searches have read them before its merge (a dependent launch after them) writes
  // the next pass's.
  const auto with_samples_if = [&](bool wanted, const auto& launch) {
    if constexpr (MaySample) {
      if (wanted) return launch(samples);
    }
    launch(no_split_samples{});
  };

  // An even number of passes ends where the tiles were written: so write them in place then.
  Key* tile_keys = passes % 2 == 0 ? keys : alternate_keys;
  Value* tile_values = passes % 2 == 0 ? values : alternate_values;
  with_samples_if(searches_by_samples(0), [&](const auto& tile_samples) {
    launch_sort_tiles<TileShape>(tile_count(n, tile_items), stream, "merge sort: sort_tiles",
                                 keys, tile_keys, values, tile_values, n, flags, comp,
                                 tile_samples);
  });

  const merge_residency<PassShape, Key, Value, Compare> residency;
  Key* from_keys = tile_keys;
  Key* to_keys = passes % 2 == 0 ? alternate_keys : keys;
  Value* from_values = tile_values;
  Value* to_values = passes % 2 == 0 ? alternate_values : values;
  for (int pass = 0; pass < passes; ++pass) {
    const std::size_t run_width = std::size_t(tile_items) << pass;
    const std::size_t merge_blocks = merge_blocks_of(pass);
    const auto next_pass = [&] {
      std::swap(from_keys, to_keys);
      std::swap(from_values, to_values);
    };
    const int budget = residency.budget_for(merge_blocks);
    if (searches_in_merge(pass)) {
      with_merge_budget<PassShape>(budget, [&](auto b) {
        launch_dependent(search_and_merge_runs<PassShape, b.value, Key, Value, Compare>,
                         unsigned(merge_blocks), PassShape::merge_threads, 0, stream,
                         "merge sort: search_and_merge_runs", from_keys, to_keys,
                         from_values, to_values, n, run_width, pass, flags, comp);
      });
      next_pass();
      continue;
    }
    with_samples_if(searches_by_samples(pass), [&](const auto& pass_samples) {
      using pass_samples_t = std::decay_t<decltype(pass_samples)>;
      const auto find_splits_by = [&](auto lanes) {
        constexpr int searches_per_block =
            PassShape::template split_searches_per_block<lanes.value>;
        launch_dependent(find_splits<PassShape, lanes.value, pass_samples_t, Key, Compare>,
                         unsigned(tile_count(merge_blocks, searches_per_block)),
                         PassShape::split_search_threads, 0, stream, "merge sort: find_splits",
                         from_keys, n, run_width, merge_blocks, pass_samples, splits,
                         splits_disagreed, comp);
      };
      using by_one_thread = std::integral_constant<int, 1>;
      using by_sample_lanes = std::integral_constant<int, PassShape::sample_search_lanes>;
      if constexpr (!records_samples_v<pass_samples_t>)
        find_splits_by(std::integral_constant<int, PassShape::key_search_lanes>{});
      else if (merge_blocks <= PassShape::sample_lane_search_most_blocks)
        find_splits_by(by_sample_lanes{});
      else
        find_splits_by(by_one_thread{});
    });
    with_samples_if(searches_by_samples(pass + 1), [&](const auto& next_samples) {
      using next_samples_t = std::decay_t<decltype(next_samples)>;
      with_merge_budget<PassShape>(budget, [&](auto b) {
        launch_dependent(merge_runs<PassShape, b.value, next_samples_t, Key, Value, Compare>,
                         unsigned(merge_blocks), PassShape::merge_threads, 0, stream,
                         "merge sort: merge_runs", from_keys, to_keys, from_values, to_values,
                         n, run_width, pass, splits, flags, next_samples, comp);
      });
    });
    next_pass();
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

// The sort by merges alone: one block, one cluster, or tiles and merge passes.
template <class Tuning, class Key, class Value, class Compare, bool Stable>
void sort_by_merging(const sort_request<Key, Value, Compare, Stable>& request) {
  const std::size_t n = request.count;
  using one_block = one_block_shape<Tuning, Key>;
  if (n < 2) return;

  // Small enough for one block (of any of the one-block shapes): one launch, in place, no
  // temporary storage. Between them and the ordinary tiles' cluster, where the tuning says
  // so, one cluster of one-block tiles: for pairs ahead of the larger one-block shape, for
  // keys alone after it (clusters_of_one_block_tiles in policies/tuning/sm90.cuh).
  constexpr bool one_block_clusters =
      one_block_fits<Tuning, Key> &&
      (sizeof(Key) == 8 ? Tuning::knobs.clusters_of_one_block_tiles_8_byte_keys
                        : Tuning::knobs.clusters_of_one_block_tiles);
  if (sort_in_one_block<one_block>(request, "merge sort: sort_tiles (one block)")) return;
  if constexpr (has_large_one_block<Tuning, Key>())
    if (sort_in_one_block<large_one_block_shape<Tuning, Key>>(
            request, "merge sort: sort_tiles (one block, more keys each)"))
      return;
  if constexpr (one_block_clusters && has_values_v<Value>)
    if (sort_in_one_cluster<one_block_tuning<Tuning>>(request)) return;
  if constexpr (has_larger_one_block<Tuning, Key>())
    if (sort_in_one_block<larger_one_block_shape<Tuning, Key>>(
            request, "merge sort: sort_tiles (one block, the most keys each)"))
      return;
  if constexpr (one_block_clusters && !has_values_v<Value>)
    if (sort_in_one_cluster<one_block_tuning<Tuning>>(request)) return;
  if constexpr (!has_values_v<Value> && has_keys_only_one_block<Tuning, Key>())
    if (sort_in_one_block<keys_only_one_block_shape<Tuning, Key>>(
            request, "merge sort: sort_tiles (one block, keys only)"))
      return;
  // A few tiles: one cluster (sm_90), no merge passes.
  if (sort_in_one_cluster<Tuning>(request)) return;
  // Large inputs in wide tiles (one merge pass fewer), smaller ones in more, smaller tiles;
  // with values, as the _with_values knobs say.
  using tiles_tuning = tuning_for_values<Tuning, Key, has_values_v<Value>>;
  using shape = merge_shape<tiles_tuning, Key>;
  if (sorts_in_wide_tiles<tiles_tuning, Key>(n))
    return sort_in_tiles<wide_tile_shape<tiles_tuning, Key, has_values_v<Value>>, shape, true>(
        request);
  // Ordinary tiles: below the wide tiles' threshold, passes of too few merge blocks to search
  // by samples, unless the key has no wide tile.
  sort_in_tiles<shape, shape, !wide_tile_holds_more<tiles_tuning, Key>()>(request);
}

// Sorts the request's keys (and values alongside, unless Value is no_values) by its
// comparator, a strict weak ordering. Always stable (tiles and merges both keep equal keys in
// order, at no extra cost; so does the sample sort). Enqueued on the request's stream, no
// synchronisation. With a comparator that is no strict weak ordering the result is
// unspecified but a permutation of the input (merge_runs passes keys through where the merge
// path searches disagree). MaySampleSort: whether the sample sort is compiled in (where the
// Tuning takes it for Key), for callers that never reach its sizes.
template <class Tuning, bool MaySampleSort = true, class Key, class Value, class Compare,
          bool Stable>
void sort(const sort_request<Key, Value, Compare, Stable>& request) {
  if constexpr (MaySampleSort && !has_values_v<Value> && sample_sort_compiled<Tuning, Key>()) {
    const auto sort_samples = [&](Key* samples, std::size_t count, allocator_ref allocator) {
      sort_by_merging<Tuning>(sort_request<Key, Value, Compare, Stable>{
          samples, nullptr, count, request.comp, request.stream, allocator});
    };
    if (sort_by_sampling<Tuning>(request, sort_samples)) return;
  }
  sort_by_merging<Tuning>(request);
}

}  // namespace gpusort::backends::merge
