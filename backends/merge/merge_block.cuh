// One block of a merge pass (merge_runs in kernels.cuh): its pieces of a pair of sorted runs,
// loaded into shared memory, merged there by every thread from its own merge-path diagonal,
// and written out coalesced, with each value gathered from its key's source.
#pragma once

#include "../common/dependent_launch.cuh"
#include "../common/striped_tile.cuh"
#include "merge_path.cuh"
#include "split_samples.cuh"
#include "thread_merge.cuh"

#include <gpusort/no_values.cuh>

#include <cstddef>

namespace gpusort::backends::merge {

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

// A merge block's piece of each run, from its split to its end split (`end_split`: the next
// block's split, or the end of run a where the block is its pair's last one). Splits that
// disagree (`disagreed`, or the two here) cut no pieces: the block's whole range of the
// input, a run a that reaches into b, is its "piece of a", and the merge copies it in order.
__device__ __forceinline__ merge_pieces pieces_between(const merge_block_range& range,
                                                       std::size_t split, std::size_t end_split,
                                                       bool disagreed) {
  const int count = int(range.diagonal_end - range.diagonal_begin);
  const bool pass_through =
      disagreed || !splits_agree(std::size_t(0), split, std::size_t(count), end_split);
  const std::size_t a_from = pass_through ? range.diagonal_begin : split;
  const std::size_t b_from = range.diagonal_begin - a_from;
  return {range.begin + a_from, range.begin + range.a_count + b_from,
          range.begin + range.diagonal_begin, count,
          pass_through ? count : int(end_split - split)};
}

// Whether the block ends its pair's merge: its end split is then the end of run a.
__device__ __forceinline__ bool ends_pair(const merge_block_range& range) {
  return range.diagonal_end == range.a_count + range.b_count;
}

// Merge block `block`'s pieces, from the splits that find_splits wrote and its flag.
__device__ __forceinline__ merge_pieces find_pieces(const merge_block_range& range,
                                                    std::size_t block, const std::size_t* splits,
                                                    const unsigned* disagreed) {
  return pieces_between(range, splits[block], ends_pair(range) ? range.a_count : splits[block + 1],
                        *disagreed != 0);
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
  // And the output's samples for the next pass, unless Samples is no_split_samples
  // (split_samples.cuh).
  template <class Samples = no_split_samples>
  __device__ __forceinline__ void run(const Key* in_keys, Key* out_keys, const Value* in_values,
                                      Value* out_values, const Samples& next_samples = {}) {
    Key loaded[items];
    load_pieces(in_keys, loaded);
    let_next_kernel_start();
    Key merged[items];
    int source[items];
    const bool misses_next = merge_in_shared(merged, source);
    const bool unmerged = stage_in_output_order(merged, source, misses_next);
    store_merged_keys(out_keys);
    if constexpr (records_samples_v<Samples>)
      if (!unmerged)  // (else the pieces' own keys are recorded below)
        next_samples.template record<threads, Shape::chunk_items>(
            pieces.out_begin, count(),
            [&](int position) { return shared.keys[staged<items>(position)]; });
    if constexpr (has_values) {
      Value values[items];
      gather_values(in_values, values);
      store_values(out_values, values);
    }
    if (unmerged) {
      store_unmerged(in_keys, out_keys, in_values, out_values);
      if constexpr (records_samples_v<Samples>)
        next_samples.template record<threads, Shape::chunk_items>(
            pieces.out_begin, count(), [&](int position) {
              Key key;
              pieces.read(key, in_keys, position);
              return key;
            });
    }
  }
};

}  // namespace gpusort::backends::merge
