// Kernels of the comparison sort, in the order they run:
//   sort_tiles   each block sorts one tile with a bitonic network (bitonic_tile.cuh)
//   per pass:
//     find_splits   one thread per merge block finds where the block's output range
//                   starts on the merge path of its pair of runs
//     merge_runs    each block loads its pieces of the two runs, merges them in shared
//                   memory and writes the result out, coalesced.
//   The searches get a launch of their own: fused into merge_runs, every block waited on
//   several dependent global loads before its first useful one.
// Values never enter the networks: keys carry their source position, and each value is
// gathered from there once per kernel.
#pragma once

#include "../common/tiles.cuh"
#include "../common/bitonic_tile.cuh"
#include "merge_path.cuh"

#include <cstddef>
#include <type_traits>

namespace gpusort::backends::merge {

// The shapes of both kernels for one key type: what Tuning asks for, shrunk to fit
// Tuning::exchange_bytes of shared memory (and, for the bitonic tile, to a power of two).
template <class Tuning, class Key>
struct merge_shape {
  static constexpr int tile_threads = Tuning::tile_threads;
  static constexpr int merge_threads = Tuning::merge_threads;
  static_assert(tile_threads % 32 == 0 && (tile_threads & (tile_threads - 1)) == 0,
                "tile_threads: a power of two, at least one warp");
  static_assert(merge_threads % 32 == 0 && (merge_threads & (merge_threads - 1)) == 0,
                "merge_threads: a power of two, at least one warp");
  static constexpr int tile_items_per_thread = bitonic_items_per_thread<Key>(
      tile_threads, Tuning::tile_items_per_thread, Tuning::exchange_bytes);
  static constexpr int fitting_merge_items =
      Tuning::exchange_bytes / (bitonic_bytes_per_item<Key> * merge_threads);
  static_assert(tile_items_per_thread >= 1 && fitting_merge_items >= 1,
                "gpusort::merge: the key type is too large for a tile in shared memory; sort "
                "indices (or a smaller key) with a comparator that looks the keys up");
  static constexpr int tile_items = tile_threads * tile_items_per_thread;
  // Any count: chunks need not divide the runs (merge_block_of cuts each pair).
  static constexpr int merge_items_per_thread =
      Tuning::merge_items_per_thread < fitting_merge_items ? Tuning::merge_items_per_thread
                                                           : fitting_merge_items;
  static constexpr int chunk_items = merge_threads * merge_items_per_thread;
  static_assert(tile_items <= 65536 && chunk_items <= 65536, "positions are 16-bit in shared memory");
};

// Grid: one block per tile, starting at tile `first_tile`. Without TrackIndex every tile
// must be full. Reads in_*, writes out_*; they may be the same buffers. The block of tile 0
// clears find_splits' flag (null when there are no merge passes), saving a launch.
template <class Shape, bool TrackIndex, bool Stable, class Key, class Value, class Compare>
__global__ void __launch_bounds__(Shape::tile_threads)
    sort_tiles(const Key* in_keys, Key* out_keys, const Value* in_values, Value* out_values,
               std::size_t n, std::size_t first_tile, unsigned* splits_disagreed, Compare comp) {
  constexpr bool has_values = has_values_v<Value>;
  __shared__ bitonic_tile_storage<Shape::tile_items, Key, TrackIndex> shared;
  if (splits_disagreed != nullptr && first_tile + blockIdx.x == 0 && threadIdx.x == 0)
    *splits_disagreed = 0;

  const tile_bounds tile = tile_of(first_tile + blockIdx.x, Shape::tile_items, n);
  const std::size_t value_offset = has_values ? tile.begin : 0;  // no values: null pointers
  sort_tile<Shape::tile_threads, Shape::tile_items_per_thread, TrackIndex, Stable>(
      in_keys + tile.begin, out_keys + tile.begin, in_values + value_offset,
      out_values + value_offset, tile.count, comp, shared);
}

// find_splits' block size. Its blocks overlap by one merge block (see there).
constexpr int split_search_threads = 128;
constexpr int split_search_blocks_per_launch_block = split_search_threads - 1;

// Grid: one thread per merge block, split_search_threads per launch block, each launch block
// also searching the first merge block of the next (so every thread sees the split after its
// own). splits[block] = how many of the keys before the block's first output position, within
// its pair of runs, come from run a. A plain binary search per thread: the upper levels of all
// searches in a pair share cache lines; a warp-wide 32-way search per block was tried and read
// several times more memory (26 us per pass at 2^26).
// A comparator that is no strict weak ordering can make neighbouring splits disagree; then
// *disagreed is set and merge_runs passes keys through unmerged (a permutation, not sorted).
template <class Shape, class Key, class Compare>
__global__ void __launch_bounds__(split_search_threads)
    find_splits(const Key* keys, std::size_t n, std::size_t run_width, std::size_t merge_blocks,
                std::size_t* splits, unsigned* disagreed, Compare comp) {
  __shared__ std::size_t found[split_search_threads];
  const int thread = int(threadIdx.x);
  const std::size_t block =
      std::size_t(blockIdx.x) * split_search_blocks_per_launch_block + std::size_t(thread);
  const bool searching = block < merge_blocks;
  const merge_block_range range =
      merge_block_of(searching ? block : 0, run_width, Shape::chunk_items, n);
  if (searching) {
    const Key* a = keys + range.begin;
    found[thread] = merge_path_split(a, range.a_count, a + range.a_count, range.b_count,
                                     range.diagonal_begin, comp);
  }
  __syncthreads();
  if (!searching || thread == split_search_blocks_per_launch_block) return;
  splits[block] = found[thread];
  if (block + 1 < merge_blocks) {
    const merge_block_range next = merge_block_of(block + 1, run_width, Shape::chunk_items, n);
    if (next.begin == range.begin &&
        !splits_agree(range.diagonal_begin, found[thread], next.diagonal_begin, found[thread + 1]))
      *disagreed = 1;
  }
}

// Where output position p of a block is staged in shared memory: each thread writes its
// `Items` consecutive outputs, a stride that an odd Items spreads over all banks by itself
// and an even one needs the padding for.
template <int Items>
__host__ __device__ constexpr int staged(int position) {
  return Items % 2 == 1 ? position : padded(position);
}

template <int Threads, int ChunkItems, class Key, bool HasValues>
struct merge_storage {
  // The block's piece of run a, then its piece of run b; after the merge, reused to stage
  // the output in order (see staged).
  Key keys[padded(ChunkItems)];
  // Where each output key came from, in piece coordinates.
  unsigned short source[HasValues ? padded(ChunkItems) : 1];
  // Each warp's first split, for the check that the threads' merges meet.
  int warp_splits[Threads / 32];
};

// One merge pass: runs of `run_width` sorted keys are merged pairwise. Grid: one block per
// merge_block_of range; `splits` and `disagreed` from find_splits. Reads in_*, writes out_*
// (distinct buffers). Where splits disagree (a comparator that is no strict weak ordering),
// the block copies its range through unmerged: the output stays a permutation of the input.
template <class Shape, class Key, class Value, class Compare>
__global__ void __launch_bounds__(Shape::merge_threads)
    merge_runs(const Key* in_keys, Key* out_keys, const Value* in_values, Value* out_values,
               std::size_t n, std::size_t run_width, const std::size_t* splits,
               const unsigned* disagreed, Compare comp) {
  constexpr int threads = Shape::merge_threads;
  constexpr int items = Shape::merge_items_per_thread;
  constexpr int chunk = Shape::chunk_items;
  constexpr bool has_values = has_values_v<Value>;
  __shared__ merge_storage<threads, chunk, Key, has_values> shared;
  const int thread = int(threadIdx.x);

  // 1. The block's pair of runs, and its piece of each: from its split to the next block's,
  //    or to the end of run a when it is the pair's last block.
  const merge_block_range range = merge_block_of(blockIdx.x, run_width, chunk, n);
  const std::size_t pair_count = range.a_count + range.b_count;
  if (range.diagonal_begin == range.diagonal_end) return;  // the whole block: no barrier yet
  const Key* a = in_keys + range.begin;
  const Key* b = a + range.a_count;
  const std::size_t out_begin = range.begin + range.diagonal_begin;
  const int count = int(range.diagonal_end - range.diagonal_begin);
  std::size_t a_from = splits[blockIdx.x];
  const std::size_t a_to =
      range.diagonal_end == pair_count ? range.a_count : splits[blockIdx.x + 1];
  // Splits that disagree (see find_splits) cut no pieces: the block's whole range of the
  // input, a run a that reaches into b, is its "piece of a", and the merge copies it in order.
  const bool pass_through = *disagreed != 0 || !splits_agree(std::size_t(0), a_from,
                                                             std::size_t(count), a_to);
  if (pass_through) a_from = range.diagonal_begin;
  const std::size_t b_from = range.diagonal_begin - a_from;
  const int a_length = pass_through ? count : int(a_to - a_from);
  const int b_length = count - a_length;

  // 2. Load both pieces, coalesced: a's at [0, a_length), b's after it. Unrolled into
  //    registers first, so that all of a thread's loads are in flight at once.
  Key loaded[items];
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int position = i * threads + thread;
    if (position < count)
      loaded[i] = position < a_length ? a[a_from + position] : b[b_from + (position - a_length)];
  }
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int position = i * threads + thread;
    if (position < count) shared.keys[position] = loaded[i];
  }
  __syncthreads();

  // 3. Each thread merges `items` outputs from its own diagonal of the piece.
  const Key* piece_a = shared.keys;
  const Key* piece_b = shared.keys + a_length;
  const int diagonal = thread * items < count ? thread * items : count;
  const int split = merge_path_split(piece_a, a_length, piece_b, b_length, diagonal, comp);
  if (thread % 32 == 0) shared.warp_splits[thread / 32] = split;
  int from_a = split;
  int from_b = diagonal - from_a;
  Key a_key, b_key;
  if (from_a < a_length) a_key = piece_a[from_a];
  if (from_b < b_length) b_key = piece_b[from_b];
  Key merged[items];
  int source[items];
#pragma unroll
  for (int i = 0; i < items; ++i) {
    // Ties take a's key: the merge is stable.
    const bool take_a = from_b >= b_length || (from_a < a_length && !comp(b_key, a_key));
    merged[i] = take_a ? a_key : b_key;
    source[i] = take_a ? from_a : a_length + from_b;
    if (take_a) {
      if (++from_a < a_length) a_key = piece_a[from_a];
    } else {
      if (++from_b < b_length) b_key = piece_b[from_b];
    }
  }
  __syncthreads();  // everyone has read the pieces; the buffer now stages the output

  //    Each thread must end where the next one starts, as the blocks must (see find_splits);
  //    a comparator that is no strict weak ordering can break that, and the threads would
  //    lose and duplicate keys. (The last thread that merges anything takes all that is left
  //    after its split, exactly, so it cannot break it.)
  int next_split = __shfl_down_sync(0xffffffffu, split, 1);
  if (thread % 32 == 31 && thread + 1 < threads) next_split = shared.warp_splits[thread / 32 + 1];
  const bool disagrees = diagonal + items < count && from_a != next_split;

  // 4. Stage in output order, then striped, coalesced stores; values gathered from their
  //    keys' sources. Where any threads disagreed, the block then writes its pieces over that
  //    as they are (a's, then b's): still a permutation.
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int position = diagonal + i;
    if (position < count) {
      shared.keys[staged<items>(position)] = merged[i];
      if constexpr (has_values) shared.source[staged<items>(position)] = (unsigned short)source[i];
    }
  }
  const bool unmerged = __syncthreads_or(disagrees);
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int position = i * threads + thread;
    if (position < count) out_keys[out_begin + position] = shared.keys[staged<items>(position)];
  }
  const std::size_t a_values_at = range.begin + a_from;
  const std::size_t b_values_at = range.begin + range.a_count + b_from;
  if constexpr (has_values) {
    const Value* a_values = in_values + a_values_at;
    const Value* b_values = in_values + b_values_at;
    Value values[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int position = i * threads + thread;
      if (position < count) {
        const int from = shared.source[staged<items>(position)];
        values[i] = from < a_length ? a_values[from] : b_values[from - a_length];
      }
    }
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int position = i * threads + thread;
      if (position < count) out_values[out_begin + position] = values[i];
    }
  }
  if (unmerged) {  // rare: each thread overwrites the positions it has just written
    for (int position = thread; position < count; position += threads) {
      const bool in_a = position < a_length;
      out_keys[out_begin + position] = in_a ? a[a_from + position] : b[b_from + (position - a_length)];
      if constexpr (has_values)
        out_values[out_begin + position] = in_a ? in_values[a_values_at + position]
                                                : in_values[b_values_at + (position - a_length)];
    }
  }
}

}  // namespace gpusort::backends::merge
