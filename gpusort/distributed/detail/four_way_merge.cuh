// Three or four received runs merged in one pass, where the pairwise merge takes two passes
// and a copy back (an even number of passes ends in the receive buffer): on 4 GPUs that was
// 7.1 ms of a 38.5 ms sort of u32 keys, 17.8 of 69.2 for pairs
// (bench/results/2026-11-26-h200x4-peer-copy-rounds.md); two runs (the other pair empty)
// take it in place of CUB's merge where four_way_merge_fewest_runs() is 2. By default
// (merge_received.cuh) pairs take it from 3 runs (14.7 ms against the pairwise 17.8 on 4
// H200s) and keys alone never (12.3 against 7.05;
// bench/results/2026-11-26-h200x4-four-way-merge-rebuilt.md). Its first split search
// measured 42 ms in all (NOTES.md); the search in four_way_split.cuh replaced it.
//
// Each block writes one tile of the output. First each pair of runs is split at the
// multiples of the tile, and one thread per tile finds where the tile begins in each run
// (four_way_split.cuh); then the block loads its four pieces into shared memory, merges
// pieces 0 and 1 and pieces 2 and 3 (level 1), merges the two results (level 2), and writes
// the tile out coalesced, each value gathered from its key's source. Ties take the lower run
// at every step, so the merge is stable in rank order without tags.
#pragma once

#include "../../detail/backends/common/striped_tile.cuh"
#include "../../detail/backends/common/tiles.cuh"
#include "../../detail/backends/merge/merge_path.cuh"
#include "../../detail/backends/merge/thread_merge.cuh"
#include "../../error.cuh"
#include "../../no_values.cuh"
#include "four_way_split.cuh"
#include "run.cuh"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gpusort::distributed::detail {

// A tile of 2048 keys up to 8 bytes, fewer for wider keys, so that the two key buffers stay
// near 34 KB of shared memory; keys wider than 64 bytes take the pairwise merge.
inline constexpr int four_way_threads = 256;

template <class Key>
inline constexpr int four_way_items =
    sizeof(Key) <= 8 ? 8 : sizeof(Key) <= 16 ? 4 : sizeof(Key) <= 32 ? 2 : 1;

template <class Key>
inline constexpr int four_way_tile = four_way_threads * four_way_items<Key>;

template <class Key>
inline constexpr bool merges_four_ways = sizeof(Key) <= 64;

// Where the four runs lie in the input (an absent run has count 0).
struct four_runs {
  std::size_t begin[4];
  std::size_t count[4];
};

// The splits' storage: four per tile and four for the end, then the pairs' splits at the
// multiples of the tile (at most tiles + 3 of them).
template <class Key>
std::size_t four_way_temp_bytes(std::size_t count) {
  const std::size_t tiles = backends::tile_count(count, four_way_tile<Key>);
  return ((tiles + 1) * 4 + tiles + 3) * sizeof(std::size_t);
}

inline constexpr int four_way_split_threads = 128;

// Where the splits live in the temporary storage, and the two pairs they describe.
template <class Key, class Compare>
struct four_way_plan {
  four_runs runs;
  std::size_t count, tiles;
  std::size_t* tile_splits;  // (tiles + 1) * 4
  std::size_t* low_splits;   // pair_multiples(0)
  std::size_t* high_splits;  // pair_multiples(1)
  Compare comp;

  __host__ __device__ std::size_t pair_count(int pair) const {
    return runs.count[2 * pair] + runs.count[2 * pair + 1];
  }
  __host__ __device__ std::size_t pair_multiples(int pair) const {
    return backends::tile_count(pair_count(pair), four_way_tile<Key>) + 1;
  }
  __host__ __device__ tiled_pair<const Key*, Compare> pair(const Key* keys, int pair) const {
    const int a = 2 * pair;
    return {keys + runs.begin[a], runs.count[a], keys + runs.begin[a + 1], runs.count[a + 1],
            pair == 0 ? low_splits : high_splits, std::size_t(four_way_tile<Key>), comp};
  }
};

// Each pair's merge path splits at every multiple of the tile: one thread each.
template <class Key, class Compare>
__global__ void __launch_bounds__(four_way_split_threads)
    split_pairs_at_multiples(const Key* keys, four_way_plan<Key, Compare> plan) {
  std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t low_multiples = plan.pair_multiples(0);
  const bool low = k < low_multiples;
  if (!low) k -= low_multiples;
  if (k >= (low ? low_multiples : plan.pair_multiples(1))) return;
  // Both pairs built with constant indices: a run-time index would put the runs in local
  // memory.
  const auto p = low ? plan.pair(keys, 0) : plan.pair(keys, 1);
  const std::size_t diagonal = std::min(k * p.tile, p.count());
  (low ? plan.low_splits : plan.high_splits)[k] =
      backends::merge::merge_path_split(p.a, p.a_count, p.b, p.b_count, diagonal, p.comp);
}

// tile_splits[4 t + j]: how many of the outputs before tile t come from run j (t = tiles:
// all of them).
template <class Key, class Compare>
__global__ void __launch_bounds__(four_way_split_threads)
    find_four_way_splits(const Key* keys, four_way_plan<Key, Compare> plan) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t > plan.tiles) return;
  const std::size_t diagonal = std::min(t * four_way_tile<Key>, plan.count);
  const four_way_split<std::size_t> split =
      split_four_runs(plan.pair(keys, 0), plan.pair(keys, 1), diagonal);
  for (int j = 0; j < 4; ++j) plan.tile_splits[4 * t + j] = split.from[j];
}

// Shared memory of a merge block. Positions are tile positions: `pieces` holds piece 0, then
// 1, 2 and 3 (with room for level 1's reads past them), and afterwards stages the output;
// `pairs` holds level 1's two merges. Level 1's writes and level 2's are thread-consecutive,
// so those buffers are indexed through `staged` (padding against bank conflicts).
template <class Key, bool HasValues>
struct four_way_storage {
  static constexpr int items = four_way_items<Key>;
  static constexpr int slots = backends::merge::merge_slots<items>(four_way_tile<Key>);
  Key pieces[slots];
  Key pairs[slots];
  unsigned short pair_source[HasValues ? slots : 1];  // pieces position of each pairs key
  unsigned short source[HasValues ? slots : 1];       // pieces position of each output key
};

// The block's piece of each run j: [offset[j], offset[j + 1]) of the tile, read from input
// position shift[j] + p for tile position p. Lengths are clamped to the tile, so that splits
// which disagree (a comparator that is no strict weak ordering: an unspecified result) never
// reach outside the block's storage. Indexed by constants only (unrolled loops and selects):
// an index known only at run time would put the arrays in local memory.
struct four_pieces {
  std::size_t shift[4];
  int offset[5];

  __device__ four_pieces(const four_runs& runs, const std::size_t* splits,
                         std::size_t tile_index, int outputs) {
    offset[0] = 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const std::size_t from = splits[4 * tile_index + j];
      const std::size_t to = splits[4 * (tile_index + 1) + j];
      const std::size_t length = to > from ? to - from : 0;
      offset[j + 1] = offset[j] + int(std::min<std::size_t>(length, outputs - offset[j]));
      shift[j] = runs.begin[j] + from - offset[j];
    }
  }

  __device__ int count() const { return offset[4]; }

  // The input position of tile position p (below count()).
  __device__ std::size_t input_position(int p) const {
    const std::size_t s = p < offset[1]   ? shift[0]
                          : p < offset[2] ? shift[1]
                          : p < offset[3] ? shift[2]
                                          : shift[3];
    return s + std::size_t(p);
  }
};

template <class Key, class Value, class Compare>
__global__ void __launch_bounds__(four_way_threads)
    merge_four_runs(const Key* in_keys, const Value* in_values, Key* out_keys,
                    Value* out_values, four_runs runs, std::size_t count,
                    const std::size_t* splits, Compare comp) {
  using backends::for_each_striped;
  using backends::merge::merge_from_split;
  using backends::merge::merge_path_split;
  using backends::merge::staged;
  using backends::merge::staged_run;
  constexpr int threads = four_way_threads;
  constexpr int items = four_way_items<Key>;
  constexpr int tile = four_way_tile<Key>;
  constexpr bool has_values = has_values_v<Value>;
  __shared__ four_way_storage<Key, has_values> shared;

  const backends::tile_bounds bounds = backends::tile_of(blockIdx.x, tile, count);
  const std::size_t tile_begin = bounds.begin;
  const int outputs = bounds.count;
  const four_pieces pieces(runs, splits, blockIdx.x, outputs);
  const int* offset = pieces.offset;

  // The pieces into shared memory, through registers so that all loads are in flight at once.
  Key loaded[items];
  for_each_striped<threads, items>(pieces.count(), [&](int j, int p) {
    loaded[j] = in_keys[pieces.input_position(p)];
  });
  for_each_striped<threads, items>(pieces.count(),
                                   [&](int j, int p) { shared.pieces[p] = loaded[j]; });
  __syncthreads();

  // Level 1: chunks of `items` outputs of the low pair's merge, then of the high pair's (one
  // more chunk than threads at most: a short chunk at the end of each pair).
  const Key* piece_keys = shared.pieces;
  const int low_chunks = (offset[2] + items - 1) / items;
  const int chunks = low_chunks + (offset[4] - offset[2] + items - 1) / items;
  for (int chunk = int(threadIdx.x); chunk < chunks; chunk += threads) {
    const bool low = chunk < low_chunks;
    const int a_begin = low ? 0 : offset[2];
    const int a_end = low ? offset[1] : offset[3];
    const int b_end = low ? offset[2] : offset[4];
    const int diagonal = (low ? chunk : chunk - low_chunks) * items;
    const int split = merge_path_split(piece_keys + a_begin, a_end - a_begin, piece_keys + a_end,
                                       b_end - a_end, diagonal, comp);
    Key merged[items];
    int source[items];
    merge_from_split<items>(piece_keys, a_begin, a_end, b_end, diagonal, split, merged, source,
                            comp);
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int p = a_begin + diagonal + i;
      if (p < b_end) {
        shared.pairs[staged<items>(p)] = merged[i];
        if constexpr (has_values) shared.pair_source[staged<items>(p)] = a_begin + source[i];
      }
    }
  }
  __syncthreads();

  // Level 2: each thread's `items` outputs of the merge of the two pairs, staged in output
  // order in `pieces` (no longer read).
  const int diagonal = int(threadIdx.x) * items;
  if (diagonal < outputs) {
    const staged_run<items, Key> pairs{shared.pairs, 0};
    const staged_run<items, Key> high{shared.pairs, offset[2]};
    const int split = merge_path_split(pairs, offset[2], high, offset[4] - offset[2], diagonal,
                                       comp);
    Key merged[items];
    int source[items];
    merge_from_split<items>(pairs, 0, offset[2], offset[4], diagonal, split, merged, source,
                            comp);
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int p = diagonal + i;
      if (p < outputs) {
        shared.pieces[staged<items>(p)] = merged[i];
        if constexpr (has_values)
          shared.source[staged<items>(p)] =
              source[i] < offset[4] ? shared.pair_source[staged<items>(source[i])] : 0;
      }
    }
  }
  __syncthreads();

  for_each_striped<threads, items>(outputs, [&](int, int p) {
    out_keys[tile_begin + p] = shared.pieces[staged<items>(p)];
  });
  if constexpr (has_values) {
    Value values[items];
    for_each_striped<threads, items>(outputs, [&](int j, int p) {
      const int from = shared.source[staged<items>(p)];
      if (from < pieces.count()) values[j] = in_values[pieces.input_position(from)];
    });
    for_each_striped<threads, items>(outputs, [&](int j, int p) {
      out_values[tile_begin + p] = values[j];
    });
  }
}

// Merges the sorted `runs` (2 to 4 of them, in rank order, none empty) of in_keys/values into
// out_keys/values [0, count). `temp` holds four_way_temp_bytes<Key>(count) bytes.
template <class Key, class Value, class Compare>
void merge_runs_four_ways(const Key* in_keys, const Value* in_values, Key* out_keys,
                          Value* out_values, std::size_t count, const std::vector<run>& runs,
                          void* temp, const Compare& comp, cudaStream_t stream) {
  four_runs where{};
  for (std::size_t j = 0; j < runs.size() && j < 4; ++j) {
    where.begin[j] = runs[j].begin;
    where.count[j] = runs[j].count;
  }
  const std::size_t tiles = backends::tile_count(count, four_way_tile<Key>);
  auto* splits = static_cast<std::size_t*>(temp);
  four_way_plan<Key, Compare> plan{where, count, tiles, splits, splits + (tiles + 1) * 4,
                                   nullptr, comp};
  plan.high_splits = plan.low_splits + plan.pair_multiples(0);
  const auto blocks = [](std::size_t threads) {
    return unsigned((threads + four_way_split_threads - 1) / four_way_split_threads);
  };
  split_pairs_at_multiples<Key><<<blocks(plan.pair_multiples(0) + plan.pair_multiples(1)),
                                  four_way_split_threads, 0, stream>>>(in_keys, plan);
  gpusort::detail::check_launch("splitting the four-way merge's pairs");
  find_four_way_splits<Key><<<blocks(tiles + 1), four_way_split_threads, 0, stream>>>(in_keys,
                                                                                      plan);
  gpusort::detail::check_launch("finding the four-way merge's splits");
  merge_four_runs<Key, Value><<<unsigned(tiles), four_way_threads, 0, stream>>>(
      in_keys, in_values, out_keys, out_values, where, count, splits, comp);
  gpusort::detail::check_launch("merging the received runs four ways");
}

}  // namespace gpusort::distributed::detail
