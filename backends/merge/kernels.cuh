// Kernels of the comparison sort, in the order they run:
//   sort_tiles   each block sorts one tile: keys sorted in registers, then merged in shared
//                memory (tile_sort.cuh)
//   per pass:
//     find_splits   one thread per merge block finds where the block's output range
//                   starts on the merge path of its pair of runs
//     merge_runs    each block loads its pieces of the two runs, merges them in shared
//                   memory and writes the result out, coalesced.
//   The searches get a launch of their own: fused into merge_runs, every block waited on
//   several dependent global loads before its first useful one.
// Values never enter the merges: keys carry their source position, and each value is
// gathered from there once per kernel.
#pragma once

#include "../common/bitonic_tile.cuh"  // bitonic_bytes_per_item
#include "../common/block_shared.cuh"
#include "../common/dependent_launch.cuh"
#include "../common/launch_bounds.cuh"
#include "../common/tiles.cuh"
#include "../common/striped_tile.cuh"
#include "merge_path.cuh"
#include "thread_merge.cuh"
#include "tile_sort.cuh"

#include <cstddef>
#include <type_traits>

namespace gpusort::backends::merge {

// Items per thread: `wanted`, or where that does not fit, the largest odd count that does
// (odd counts spread a thread's consecutive shared-memory positions over all banks).
__host__ __device__ constexpr int items_that_fit(int wanted, int fitting) {
  return wanted <= fitting ? wanted : fitting % 2 == 1 || fitting == 0 ? fitting : fitting - 1;
}

// The shapes of both kernels for one key type: what Tuning asks for, shrunk to fit
// Tuning::knobs.exchange_bytes of shared memory (per key: the key, its 2-byte position and
// the padding, as a bitonic tile holds them).
template <class Tuning, class Key>
struct merge_shape {
  static constexpr int tile_threads = Tuning::knobs.tile_threads;
  static constexpr int tile_blocks_per_multiprocessor = min_blocks_per_multiprocessor(
      Tuning::knobs.tile_blocks_per_multiprocessor, tile_threads);
  static constexpr int merge_threads = Tuning::knobs.merge_threads;
  static_assert(tile_threads % 32 == 0 && (tile_threads & (tile_threads - 1)) == 0,
                "tile_threads: a power of two, at least one warp");
  static_assert(merge_threads % 32 == 0 && (merge_threads & (merge_threads - 1)) == 0,
                "merge_threads: a power of two, at least one warp");
  static constexpr int fitting_tile_items =
      Tuning::knobs.exchange_bytes / (bitonic_bytes_per_item<Key> * tile_threads);
  static constexpr int fitting_merge_items =
      Tuning::knobs.exchange_bytes / (bitonic_bytes_per_item<Key> * merge_threads);
  static_assert(fitting_tile_items >= 1 && fitting_merge_items >= 1,
                "gpusort::merge: the key type is too large for a tile in shared memory; sort "
                "indices (or a smaller key) with a comparator that looks the keys up");
  // Any counts: tiles and chunks need not be powers of two (merge_block_of cuts each pair).
  static constexpr bool eight_byte_key =
      sizeof(Key) == 8 && Tuning::knobs.items_per_thread_8_byte_keys > 0;
  static constexpr int tile_items_per_thread = items_that_fit(
      eight_byte_key ? Tuning::knobs.items_per_thread_8_byte_keys
                     : Tuning::knobs.tile_items_per_thread,
      fitting_tile_items);
  static constexpr int tile_items = tile_threads * tile_items_per_thread;
  static constexpr int merge_items_per_thread = items_that_fit(
      eight_byte_key ? Tuning::knobs.items_per_thread_8_byte_keys
                     : Tuning::knobs.merge_items_per_thread,
      fitting_merge_items);
  static constexpr int chunk_items = merge_threads * merge_items_per_thread;
  static_assert(tile_items <= 65536 && chunk_items <= 65536,
                "positions are 16-bit in shared memory");
  // find_splits: one search per thread; each launch block also searches the first merge block
  // of the next, so it covers one merge block fewer than it has threads.
  static constexpr int split_search_threads = Tuning::knobs.split_search_threads;
  static_assert(split_search_threads >= 2, "split_search_threads: at least 2");
  static constexpr int split_searches_per_block = split_search_threads - 1;
};

// The shape of a sort that one block does whole: Tuning's one_block knobs as its tile where
// a key fits them, else (no one_block knobs, or keys too wide for that many threads) the
// ordinary tile.
template <class Tuning>
struct one_block_tuning {
  static constexpr auto knobs = [] {
    auto k = Tuning::knobs;
    k.tile_threads = k.one_block_threads;
    k.tile_items_per_thread = k.one_block_items_per_thread;
    k.tile_blocks_per_multiprocessor = 1;
    k.items_per_thread_8_byte_keys = 0;  // one_block_items_per_thread for every key
    return k;
  }();
};

template <class Tuning, class Key>
constexpr bool one_block_fits =
    Tuning::knobs.one_block_threads > 0 && Tuning::knobs.one_block_items_per_thread > 0 &&
    Tuning::knobs.exchange_bytes /
            (bitonic_bytes_per_item<Key> * Tuning::knobs.one_block_threads) >= 1;

template <class Tuning, class Key>
using one_block_shape = std::conditional_t<one_block_fits<Tuning, Key>,
                                           merge_shape<one_block_tuning<Tuning>, Key>,
                                           merge_shape<Tuning, Key>>;

// The tile shape for inputs of at least Tuning's wide_tile_from_tiles wide tiles: Tuning's
// wide_tile knobs as its tile where that holds more of a key than the ordinary tile, else the
// ordinary tile (keys too wide for that many threads). Merge passes keep Tuning's own shape.
template <class Tuning, bool HasValues>
struct wide_tile_tuning {
  static constexpr auto knobs = [] {
    auto k = Tuning::knobs;
    k.tile_threads = k.wide_tile_threads;
    k.tile_blocks_per_multiprocessor = HasValues
                                           ? k.wide_tile_blocks_per_multiprocessor_with_values
                                           : k.wide_tile_blocks_per_multiprocessor;
    k.exchange_bytes = k.wide_tile_exchange_bytes;
    return k;
  }();
};

template <class Tuning>
constexpr bool has_wide_tiles = Tuning::knobs.wide_tile_threads > 0;

template <class Tuning, class Key>
constexpr bool wide_tile_holds_more() {
  if constexpr (!has_wide_tiles<Tuning> ||
                Tuning::knobs.wide_tile_exchange_bytes /
                        (bitonic_bytes_per_item<Key> * Tuning::knobs.wide_tile_threads) < 1)
    return false;
  else
    return merge_shape<wide_tile_tuning<Tuning, false>, Key>::tile_items >
           merge_shape<Tuning, Key>::tile_items;
}

// (HasValues: the tile of a sort with values, which differs only in its register budget.)
template <class Tuning, class Key, bool HasValues = false>
using wide_tile_shape = std::conditional_t<wide_tile_holds_more<Tuning, Key>(),
                                           merge_shape<wide_tile_tuning<Tuning, HasValues>, Key>,
                                           merge_shape<Tuning, Key>>;

// Grid: one block per tile. Reads in_*, writes out_*; they may be the same buffers. The block
// of tile 0 clears find_splits' flag (null when there are no merge passes), saving a launch.
template <class Shape, class Key, class Value, class Compare>
__global__ void __launch_bounds__(Shape::tile_threads, Shape::tile_blocks_per_multiprocessor)
    sort_tiles(const Key* in_keys, Key* out_keys, const Value* in_values, Value* out_values,
               std::size_t n, unsigned* splits_disagreed, Compare comp) {
  constexpr bool has_values = has_values_v<Value>;
  constexpr int items = Shape::tile_items_per_thread;
  using sorter_t = tile_sorter<Shape::tile_threads, items, Key, has_values, Compare>;
  auto& shared = block_shared<typename sorter_t::storage_t>();
  if (splits_disagreed != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *splits_disagreed = 0;

  const tile_bounds tile = tile_of(blockIdx.x, Shape::tile_items, n);
  const std::size_t value_offset = has_values ? tile.begin : 0;  // no values: null pointers
  sorter_t sorter{shared, tile.count, comp};
  Key keys[items];
  int source[items];
  sorter.load(in_keys + tile.begin, keys, source);
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
  if (sorter_t::any_missed(missed))
    sorter.store_unsorted(in_keys + tile.begin, out_keys + tile.begin, in_values + value_offset,
                          out_values + value_offset);
  else
    sorter.store(keys, source, out_keys + tile.begin, in_values + value_offset,
                 out_values + value_offset);
}

// Grid: one thread per merge block, Shape::split_search_threads per launch block, each
// launch block also searching the first merge block of the next (so every thread sees the
// split after its own). splits[block] = how many of the keys before the block's first output
// position, within its pair of runs, come from run a. A plain binary search per thread: the
// upper levels of all searches in a pair share cache lines; a warp-wide 32-way search per
// block was tried and read several times more memory (26 us per pass at 2^26).
// A comparator that is no strict weak ordering can make neighbouring splits disagree; then
// *disagreed is set and merge_runs passes keys through unmerged (a permutation, not sorted).
template <class Shape, class Key, class Compare>
__global__ void __launch_bounds__(Shape::split_search_threads)
    find_splits(const Key* keys, std::size_t n, std::size_t run_width, std::size_t merge_blocks,
                std::size_t* splits, unsigned* disagreed, Compare comp) {
  constexpr int searches_per_block = Shape::split_searches_per_block;
  __shared__ std::size_t found[Shape::split_search_threads];
  wait_for_previous_kernel();
  let_next_kernel_start();
  const int thread = int(threadIdx.x);
  const std::size_t block = std::size_t(blockIdx.x) * searches_per_block + std::size_t(thread);
  const bool searching = block < merge_blocks;
  const merge_block_range range =
      merge_block_of(searching ? block : 0, run_width, Shape::chunk_items, n);
  if (searching) {
    const Key* a = keys + range.begin;
    found[thread] = merge_path_split(a, range.a_count, a + range.a_count, range.b_count,
                                     range.diagonal_begin, comp);
  }
  __syncthreads();
  if (!searching || thread == searches_per_block) return;
  splits[block] = found[thread];
  if (block + 1 < merge_blocks) {
    const merge_block_range next = merge_block_of(block + 1, run_width, Shape::chunk_items, n);
    if (next.begin == range.begin &&
        !splits_agree(range.diagonal_begin, found[thread], next.diagonal_begin, found[thread + 1]))
      *disagreed = 1;
  }
}

template <int Threads, int ChunkItems, class Key, bool HasValues>
struct merge_storage {
  static constexpr int items = ChunkItems / Threads;
  // The block's piece of run a, then its piece of run b (with room for the merge's reads
  // past them); after the merge, reused to stage the output in order (see staged).
  Key keys[merge_slots<items>(ChunkItems)];
  // Where each output key came from, in piece coordinates.
  unsigned short source[HasValues ? staged<items>(ChunkItems) : 1];
  // Each warp's first split, for the check that the threads' merges meet.
  int warp_splits[Threads / 32];
};

// A merge block's pieces of its pair of runs, in input positions: a's [a_begin, a_begin +
// a_length), then b's from b_begin, `count` keys in all, merged into [out_begin, out_begin +
// count). Piece position p is the p-th of those keys, a's first.
struct merge_pieces {
  std::size_t a_begin;
  std::size_t b_begin;
  std::size_t out_begin;
  int count;
  int a_length;

  // to = piece position p of `in` (keys or values), from a's piece or from b's. An
  // assignment: a returned copy of a struct key compiled to a different load sequence.
  template <class T>
  __device__ __forceinline__ void read(T& to, const T* in, int p) const {
    to = p < a_length ? in[a_begin + p] : in[b_begin + (p - a_length)];
  }
};

// The block's piece of each run: from its split to the next block's, or to the end of run a
// when it is the pair's last block. Not for an empty block (diagonal_begin == diagonal_end).
__device__ __forceinline__ merge_pieces find_pieces(const merge_block_range& range,
                                                    const std::size_t* splits,
                                                    const unsigned* disagreed) {
  const std::size_t pair_count = range.a_count + range.b_count;
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
  return {range.begin + a_from, range.begin + range.a_count + b_from,
          range.begin + range.diagonal_begin, count, pass_through ? count : int(a_to - a_from)};
}

// One merge block of merge_runs, step by step: each step ends with the barrier (if any) that
// the next one needs. A FullBlock merges Shape::chunk_items keys, as all but the last of each
// pair of runs do: its bounds checks compile away (CUB's merge executed 23 % fewer
// instructions per pass than ours with them, H100, 2^24 u32).
template <class Shape, class Key, class Value, class Compare, bool FullBlock>
struct merge_block {
  static constexpr int threads = Shape::merge_threads;
  static constexpr int items = Shape::merge_items_per_thread;
  static constexpr bool has_values = has_values_v<Value>;
  using storage_t = merge_storage<threads, Shape::chunk_items, Key, has_values>;

  storage_t& shared;
  const merge_pieces& pieces;
  const Compare& comp;

  // The block's output count: a constant in a full block.
  __device__ __forceinline__ int count() const {
    return FullBlock ? Shape::chunk_items : pieces.count;
  }

  // This thread's first output: `items` consecutive outputs per thread, none past the end.
  __device__ __forceinline__ int first_output() const {
    const int first = int(threadIdx.x) * items;
    return FullBlock || first < count() ? first : count();
  }

  // Both pieces into shared memory, coalesced, a's at [0, a_length) and b's after it: through
  // registers first, so that all of a thread's loads are in flight at once.
  __device__ __forceinline__ void load_pieces(const Key* in_keys, Key (&loaded)[items]) {
    for_each_striped<threads, items, FullBlock>(
        count(), [&](int j, int position) { pieces.read(loaded[j], in_keys, position); });
    store_striped<threads, items, FullBlock>(shared.keys, count(), loaded);
    __syncthreads();
  }

  // Each thread merges its `items` outputs from its own diagonal of the pieces: merged[i] is
  // output first_output() + i, source[i] its piece position. Returns whether the thread's
  // merge misses the next thread's start (see misses_next_thread).
  __device__ __forceinline__ bool merge_in_shared(Key (&merged)[items], int (&source)[items]) {
    const int thread = int(threadIdx.x);
    const int a_length = pieces.a_length;
    const int b_length = count() - a_length;
    const Key* piece_a = shared.keys;
    const Key* piece_b = shared.keys + a_length;
    const int diagonal = first_output();
    const int split = merge_path_split(piece_a, a_length, piece_b, b_length, diagonal, comp);
    if (thread % 32 == 0) shared.warp_splits[thread / 32] = split;
    const int end = merge_from_split(shared.keys, 0, a_length, count(), diagonal, split,
                                     merged, source, comp);
    __syncthreads();  // everyone has read the pieces; the buffer now stages the output
    return misses_next_thread(split, end);
  }

  // Each thread must end where the next one starts, as the blocks must (see find_splits); a
  // comparator that is no strict weak ordering can break that, and the threads would lose and
  // duplicate keys. (The last thread that merges anything takes all that is left after its
  // split, exactly, so it cannot break it.) Reads the warp splits: after merge_in_shared's
  // barrier.
  __device__ __forceinline__ bool misses_next_thread(int split, int end) const {
    const int next_split = next_thread_split<threads>(split, shared.warp_splits, true);
    return first_output() + items < count() && end != next_split;
  }

  // The merged keys (and their sources) into shared memory in output order, for coalesced
  // stores. Returns whether any thread's merge missed the next one's start: then the block
  // stores its pieces unmerged.
  __device__ __forceinline__ bool stage_in_output_order(const Key (&merged)[items],
                                                        const int (&source)[items],
                                                        bool misses_next) {
    const int diagonal = first_output();
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int position = diagonal + i;
      if (FullBlock || position < count()) {
        shared.keys[staged<items>(position)] = merged[i];
        if constexpr (has_values)
          shared.source[staged<items>(position)] = (unsigned short)source[i];
      }
    }
    return __syncthreads_or(misses_next);
  }

  // Striped, coalesced stores of the staged keys.
  __device__ __forceinline__ void store_merged_keys(Key* out_keys) const {
    Key* out = out_keys + pieces.out_begin;
    for_each_striped<threads, items, FullBlock>(count(), [&](int, int position) {
      out[position] = shared.keys[staged<items>(position)];
    });
  }

  // Each value gathered from its key's source in the input, in the striped order of the
  // keys' stores.
  __device__ __forceinline__ void gather_values(const Value* in_values,
                                                Value (&values)[items]) const {
    const Value* a_values = in_values + pieces.a_begin;
    const Value* b_values = in_values + pieces.b_begin;
    const int a_length = pieces.a_length;
    for_each_striped<threads, items, FullBlock>(count(), [&](int j, int position) {
      const int from = shared.source[staged<items>(position)];
      values[j] = from < a_length ? a_values[from] : b_values[from - a_length];
    });
  }

  // Striped, coalesced stores of the gathered values.
  __device__ __forceinline__ void store_values(Value* out_values,
                                               const Value (&values)[items]) const {
    store_striped<threads, items, FullBlock>(out_values + pieces.out_begin, count(), values);
  }

  // Rare: where any thread's merge missed the next one's start, the block writes its pieces
  // as they are (a's, then b's) over what it has just written: still a permutation.
  __device__ __forceinline__ void store_unmerged(const Key* in_keys, Key* out_keys,
                                                 const Value* in_values, Value* out_values) const {
    for (int position = int(threadIdx.x); position < count(); position += threads) {
      pieces.read(out_keys[pieces.out_begin + position], in_keys, position);
      if constexpr (has_values)
        pieces.read(out_values[pieces.out_begin + position], in_values, position);
    }
  }

  // The steps in order. The steps' register arrays are declared here, not in the steps:
  // declared inside, they compiled to other code (the u32 + u32 merge took 88 registers
  // instead of 80).
  __device__ __forceinline__ void run(const Key* in_keys, Key* out_keys, const Value* in_values,
                                      Value* out_values) {
    Key loaded[items];
    load_pieces(in_keys, loaded);
    let_next_kernel_start();
    Key merged[items];
    int source[items];
    const bool misses_next = merge_in_shared(merged, source);
    const bool unmerged = stage_in_output_order(merged, source, misses_next);
    store_merged_keys(out_keys);
    if constexpr (has_values) {
      Value values[items];
      gather_values(in_values, values);
      store_values(out_values, values);
    }
    if (unmerged) store_unmerged(in_keys, out_keys, in_values, out_values);
  }
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
  using storage_t = typename merge_block<Shape, Key, Value, Compare, true>::storage_t;
  __shared__ storage_t shared;

  const merge_block_range range = merge_block_of(blockIdx.x, run_width, Shape::chunk_items, n);
  if (range.diagonal_begin == range.diagonal_end) return;  // the whole block: no barrier yet
  wait_for_previous_kernel();
  const merge_pieces pieces = find_pieces(range, splits, disagreed);
  if (pieces.count == Shape::chunk_items)
    merge_block<Shape, Key, Value, Compare, true>{shared, pieces, comp}.run(
        in_keys, out_keys, in_values, out_values);
  else
    merge_block<Shape, Key, Value, Compare, false>{shared, pieces, comp}.run(
        in_keys, out_keys, in_values, out_values);
}

}  // namespace gpusort::backends::merge
