// Kernels of the comparison sort, in the order they run:
//   sort_tiles   each block sorts one tile: keys sorted in registers, then merged in shared
//                memory (tile_sort.cuh); sort_tile_coded, which it calls, also serves
//                sorts that hold a tile's keys encoded (tile_key_codecs.cuh)
//   per pass:
//     find_splits   a group of lanes per merge block finds where the block's output range
//                   starts on the merge path of its pair of runs; in large passes first
//                   among samples of the runs that the kernel before wrote
//                   (split_samples.cuh), by lanes or, in the largest, by one thread
//     merge_runs    each block loads its pieces of the two runs, merges them in shared
//                   memory and writes the result out, coalesced (merge_block.cuh), and the
//                   samples the next pass's find_splits reads.
//   or, for passes of fewer merge blocks still, one launch per pass:
//     search_and_merge_runs   each block searches its own splits by lanes, then merges.
// Their shapes, from the tuning's knobs: shapes.cuh. The two merge kernels are compiled for
// each of the shape's register budgets (Budget), one chosen per pass: merge_budgets.cuh.
//   Large passes' searches get a launch of their own: fused into the merge, every block
//   waited on its chain of dependent global loads before its first useful one, where a
//   launch of searches alone has them all in flight at once.
// Values never enter the merges: keys carry their source position, and each value is
// gathered from there once per kernel.
#pragma once

#include "../common/block_shared.cuh"
#include "../common/dependent_launch.cuh"
#include "../common/tiles.cuh"
#include "merge_block.cuh"
#include "lane_split_search.cuh"
#include "merge_path.cuh"
#include "shapes.cuh"
#include "split_samples.cuh"
#include "strict_orders.cuh"
#include "tile_key_codecs.cuh"
#include "tile_sort.cuh"

#include <cstddef>
#include <type_traits>

namespace gpusort::backends::merge {

// The shared memory of sort_tiles<Shape>: the tile's keys, and their positions where values
// follow them (the launch sizes it: static or dynamic, see block_shared.cuh).
template <class Shape, class Key, class Value>
using tile_storage_t = tile_sort_storage<Shape::tile_threads, Shape::tile_items_per_thread, Key,
                                         has_values_v<Value>>;

// One tile's sort by the whole block, its keys held as `codec` says (tile_key_codecs.cuh):
// the keys (and values) at `tile` of in_* into the same positions of out_*, which may be the
// same buffers, and the sorted keys' samples for the first merge pass (unless Samples is
// no_split_samples). Every thread of the block calls it. Returns false, with nothing
// written, where the codec refuses the tile: the same answer in every thread.
template <class Shape, class Key, class Value, class Codec, class Samples = no_split_samples>
__device__ __forceinline__ bool sort_tile_coded(tile_storage_t<Shape, Key, Value>& key_shared,
                                                const tile_bounds& tile, const Key* in_keys,
                                                Key* out_keys, const Value* in_values,
                                                Value* out_values, const Codec& codec,
                                                const Samples& samples = {}) {
  using sorted_t = typename Codec::sorted_type;
  using storage_t = tile_storage_t<Shape, sorted_t, Value>;
  static_assert(sizeof(sorted_t) == sizeof(Key) && sizeof(storage_t) == sizeof(key_shared) &&
                    alignof(storage_t) == alignof(tile_storage_t<Shape, Key, Value>),
                "the codec's keys take the keys' memory");
  constexpr bool has_values = has_values_v<Value>;
  constexpr int items = Shape::tile_items_per_thread;
  const auto& order = codec.order();
  using sorter_t = tile_sorter<Shape::tile_threads, items, sorted_t, has_values,
                               std::decay_t<decltype(order)>>;
  const std::size_t value_offset = has_values ? tile.begin : 0;  // no values: null pointers
  const sorted_t* in = reinterpret_cast<const sorted_t*>(in_keys) + tile.begin;
  sorted_t* out = reinterpret_cast<sorted_t*>(out_keys) + tile.begin;
  sorter_t sorter{reinterpret_cast<storage_t&>(key_shared), tile.count, order};
  sorted_t keys[items];
  int source[items];
  sorter.load(in, keys, source);
  if constexpr (Codec::may_refuse) {
    bool refused = false;
#pragma unroll
    for (int i = 0; i < items; ++i)
      refused |= sorter.first_position() + i < tile.count && codec.refuses(keys[i]);
    if (__syncthreads_or(refused)) return false;
  }
#pragma unroll
  for (int i = 0; i < items; ++i) keys[i] = codec.encode(keys[i]);
  let_next_kernel_start();
  sorter.sort_in_thread(keys, source);
  bool missed = false;
#pragma unroll 1
  for (int level = 0; level < sorter_t::levels; ++level) {
    // Runs that already hold the whole tile (a short last tile, or a small sort) need no
    // more levels. The same for every thread of the block.
    if ((items << level) < tile.count) missed |= sorter.merge_level(level, keys, source);
  }
  // The input tile is untouched until here, even when sorting in place.
  if (sorter_t::any_missed(missed)) {
    sorter.store_unsorted(in, out, in_values + value_offset, out_values + value_offset);
    if constexpr (records_samples_v<Samples>)
      samples.template record<Shape::tile_threads, Shape::tile_items>(
          tile.begin, tile.count, [&](int p) { return in_keys[tile.begin + p]; });
  } else {
#pragma unroll
    for (int i = 0; i < items; ++i) keys[i] = codec.decode(keys[i]);
    sorter.store_keys(keys, source, out);
    if constexpr (records_samples_v<Samples>) {
      static_assert(std::is_same_v<sorted_t, Key>, "samples are of keys as they are");
      samples.template record<Shape::tile_threads, Shape::tile_items>(
          tile.begin, tile.count, [&](int p) { return sorter.stored_key(p); });
    }
    if constexpr (has_values)
      sorter.store_values(in_values + value_offset, out_values + value_offset);
  }
  return true;
}

// sort_tile_coded with the keys as they are, by `comp`.
template <class Shape, class Key, class Value, class Compare, class Samples = no_split_samples>
__device__ __forceinline__ void sort_tile(tile_storage_t<Shape, Key, Value>& shared,
                                          const tile_bounds& tile, const Key* in_keys,
                                          Key* out_keys, const Value* in_values,
                                          Value* out_values, const Compare& comp,
                                          const Samples& samples = {}) {
  sort_tile_coded<Shape>(shared, tile, in_keys, out_keys, in_values, out_values,
                         keys_as_they_are<Key, Compare>{comp}, samples);
}

// What the merge passes tell each other, in temporary memory.
struct merge_pass_flags {
  // Set by find_splits where a pass's splits disagree; from then on merge_runs copies its
  // ranges through unmerged.
  unsigned splits_disagreed;
  // Where a pass of search_and_merge_runs found its splits disagreeing (after its blocks
  // merged by them), the pass after it, whose input that leaves garbled: it then writes
  // nothing, and its output, the garbled pass's input, stays as it was (0: none).
  unsigned skip_pass;
};

// Grid: one block per tile. Reads in_*, writes out_*; they may be the same buffers. The block
// of tile 0 clears the merge passes' flags (null when there are no merge passes), saving a
// launch. It writes the samples that the first pass's find_splits reads, unless Samples is
// no_split_samples.
template <class Shape, class Samples, class Key, class Value, class Compare>
__global__ void __launch_bounds__(Shape::tile_threads, Shape::tile_blocks_per_multiprocessor)
    sort_tiles(const Key* in_keys, Key* out_keys, const Value* in_values, Value* out_values,
               std::size_t n, merge_pass_flags* flags, Samples samples, Compare comp) {
  auto& shared = block_shared<tile_storage_t<Shape, Key, Value>>();
  if (flags != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *flags = merge_pass_flags{};
  sort_tile<Shape>(shared, tile_of(blockIdx.x, Shape::tile_items, n), in_keys, out_keys,
                   in_values, out_values, comp, samples);
}

// Grid: one search per merge block by a group of Lanes threads (one: a thread),
// Shape::split_searches_per_block<Lanes> per launch block of Shape::split_search_threads, each
// launch block also searching the first merge block of the next (so every search sees the
// split after its own). splits[block] = how many of the keys before the block's first output
// position, within its pair of runs, come from run a.
// Passes of few merge blocks search the keys by lanes (rounds of loads in flight together
// instead of one load per halving: what such a pass waits on). Large passes halve first among
// the samples that the kernel before wrote (split_samples.cuh; a compact array that the
// searches of a pass share in cache), then among the keys of one group: by lanes where the
// pass has too few searches to keep the SMs busy one thread each, else by one thread (lanes
// over the keys themselves lost 2-5 % of the whole sort from 2^25 u32 keys, and over the
// samples up to 3 % from ~20 thousand merge blocks; H200, bench/results/NOTES.md).
// A comparator that is no strict weak ordering can make neighbouring splits disagree; then
// *disagreed is set and merge_runs passes keys through unmerged (a permutation, not sorted).
template <class Shape, int Lanes, class Samples, class Key, class Compare>
__global__ void __launch_bounds__(Shape::split_search_threads)
    find_splits(const Key* keys, std::size_t n, std::size_t run_width, std::size_t merge_blocks,
                Samples samples, std::size_t* splits, unsigned* disagreed, Compare comp) {
  constexpr bool from_samples = records_samples_v<Samples>;
  static_assert(from_samples || Lanes > 1, "the keys are searched by lanes");
  constexpr int searches_per_block = Shape::template split_searches_per_block<Lanes>;
  __shared__ std::size_t found[searches_per_block + 1];
  wait_for_previous_kernel();
  let_next_kernel_start();
  const int group = int(threadIdx.x) / Lanes;
  const std::size_t block = std::size_t(blockIdx.x) * searches_per_block + std::size_t(group);
  // Every lane of a warp takes part in its groups' rounds, so a group past the last merge
  // block searches one that exists.
  const bool searching = block < merge_blocks;
  const merge_block_range range =
      merge_block_of(searching ? block : merge_blocks - 1, run_width, Shape::chunk_items, n);
  const std::size_t split = [&] {
    if constexpr (from_samples && Lanes > 1) {
      return samples.template split_by_lanes<Lanes>(keys, range.begin, range.a_count,
                                                    range.b_count, range.diagonal_begin, comp);
    } else if constexpr (from_samples) {
      return samples.split(keys, range.begin, range.a_count, range.b_count,
                           range.diagonal_begin, comp);
    } else {
      const Key* a = keys + range.begin;
      return merge_path_split_by_lanes<Lanes>(a, range.a_count, a + range.a_count,
                                              range.b_count, range.diagonal_begin, comp);
    }
  }();
  if (threadIdx.x % Lanes == 0) found[group] = split;
  __syncthreads();
  if (threadIdx.x % Lanes != 0 || !searching || group == searches_per_block) return;
  splits[block] = split;
  if (block + 1 < merge_blocks) {
    const merge_block_range next = merge_block_of(block + 1, run_width, Shape::chunk_items, n);
    if (next.begin == range.begin &&
        !splits_agree(range.diagonal_begin, split, next.diagonal_begin, found[group + 1]))
      *disagreed = 1;
  }
}

// Whether merge pass `pass` writes nothing: the pass before it garbled its output (see
// merge_pass_flags::skip_pass).
__device__ __forceinline__ bool skips(int pass, const merge_pass_flags* flags) {
  return pass > 0 && flags->skip_pass == unsigned(pass);
}

// One merge pass, `pass` of the sort: runs of `run_width` sorted keys are merged pairwise.
// Grid: one block per merge_block_of range; `splits` and flags->splits_disagreed from
// find_splits. Reads in_*, writes out_* (distinct buffers), and the output's samples for the
// next pass's find_splits (unless Samples is no_split_samples). Where splits disagree (a
// comparator that is no strict weak ordering), the block copies its range through unmerged:
// the output stays a permutation of the input.
template <class Shape, int Budget, class Samples, class Key, class Value, class Compare>
__global__ void __launch_bounds__(Shape::merge_threads,
                                  Shape::template merge_budget<Budget>::blocks_per_multiprocessor)
    merge_runs(const Key* in_keys, Key* out_keys, const Value* in_values, Value* out_values,
               std::size_t n, std::size_t run_width, int pass, const std::size_t* splits,
               const merge_pass_flags* flags, Samples next_samples, Compare comp) {
  using storage_t = typename merge_block<Shape, Key, Value, Compare, true>::storage_t;
  __shared__ storage_t shared;

  const merge_block_range range = merge_block_of(blockIdx.x, run_width, Shape::chunk_items, n);
  wait_for_previous_kernel();
  if (skips(pass, flags)) return;
  const merge_pieces pieces = find_pieces(range, blockIdx.x, splits, &flags->splits_disagreed);
  if (pieces.count == Shape::chunk_items)
    merge_block<Shape, Key, Value, Compare, true>{shared, pieces, comp}.run(
        in_keys, out_keys, in_values, out_values, next_samples);
  else
    merge_block<Shape, Key, Value, Compare, false>{shared, pieces, comp}.run(
        in_keys, out_keys, in_values, out_values, next_samples);
}

// A merge pass of few merge blocks in one launch: each block first finds its own split and
// end split (the two halves of its first warp, searching as find_splits' groups of lanes do: a
// neighbour that searches the same diagonal finds the same split), then merges as merge_runs
// does. One kernel boundary and the splits' round trip through memory fewer per pass (H200,
// 2^20 keys: f64 -17 %, u32 -22 %; past about 2048 merge blocks a pass the searches, no
// longer all in flight at once, lost; bench/results/NOTES.md, 2026-11-30). Grid: one block
// per merge block. Reads in_*, writes out_* (distinct buffers).
// A comparator that is no strict weak ordering can make a block's two splits disagree, which
// no block can see for the others before it writes. That block copies its range through and
// names the next pass in flags->skip_pass: the next pass then leaves its output, this
// pass's input, as it is, so that the sort's output stays a permutation of its input. So a
// sort's last pass takes this kernel only where its comparator cannot disagree
// (strict_orders.cuh: splits_always_agree); else its splits are all checked before any block
// merges (find_splits).
template <class Shape, int Budget, class Key, class Value, class Compare>
__global__ void __launch_bounds__(Shape::merge_threads,
                                  Shape::template merge_budget<Budget>::blocks_per_multiprocessor)
    search_and_merge_runs(const Key* in_keys, Key* out_keys, const Value* in_values,
                          Value* out_values, std::size_t n, std::size_t run_width, int pass,
                          merge_pass_flags* flags, Compare comp) {
  using storage_t = typename merge_block<Shape, Key, Value, Compare, true>::storage_t;
  __shared__ storage_t shared;
  __shared__ std::size_t found[2];  // the block's split, its end split
  const merge_block_range range = merge_block_of(blockIdx.x, run_width, Shape::chunk_items, n);
  wait_for_previous_kernel();
  if (skips(pass, flags)) return;
  if (threadIdx.x < 32) {
    constexpr int lanes = Shape::key_search_lanes;
    static_assert(2 * lanes <= 32, "both searches in the first warp");
    const bool end = threadIdx.x >= lanes;
    const Key* a = in_keys + range.begin;
    const std::size_t split = merge_path_split_by_lanes<lanes>(
        a, range.a_count, a + range.a_count, range.b_count,
        end ? range.diagonal_end : range.diagonal_begin, comp);
    if (threadIdx.x % lanes == 0) found[end ? 1 : 0] = split;
  }
  __syncthreads();
  const int count = int(range.diagonal_end - range.diagonal_begin);
  const bool disagreed = !splits_agree(std::size_t(0), found[0], std::size_t(count), found[1]);
  if (disagreed && threadIdx.x == 0) flags->skip_pass = unsigned(pass + 1);
  const merge_pieces pieces = pieces_between(range, found[0], found[1], disagreed);
  if (pieces.count == Shape::chunk_items)
    merge_block<Shape, Key, Value, Compare, true>{shared, pieces, comp}.run(
        in_keys, out_keys, in_values, out_values);
  else
    merge_block<Shape, Key, Value, Compare, false>{shared, pieces, comp}.run(
        in_keys, out_keys, in_values, out_values);
}

}  // namespace gpusort::backends::merge
