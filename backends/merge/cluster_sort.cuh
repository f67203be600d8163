// The comparison sort of a few tiles' keys: one launch of one thread-block cluster (sm_90),
// where the tile sort and each merge pass were launches of a few blocks, each waiting on
// dependent global loads (bench/results/NOTES.md: most of a mid-size sort's time). Block r of
// the cluster:
//   1. sorts tile r of the input as sort_tiles does (tile_sort.cuh) and keeps it in its
//      shared memory; the cluster's sorted runs are its blocks' buffers, which the other
//      blocks read through distributed shared memory;
//   2. per level, as a merge pass does: finds where its chunk of the merged pair of runs
//      starts and ends on the merge path (lanes of one warp, reading the peers' buffers),
//      copies its pieces of both runs into its own shared memory, merges them there (each
//      thread from its own diagonal, thread_merge.cuh) into its buffer for the next level;
//      (cluster barrier: every block's chunk of the longer runs is in place)
//   3. writes its chunk out, each value gathered from its key's input position.
// Nothing reaches global memory before every block has loaded its keys, and nothing at all
// where any merge missed (a comparator that is no strict weak ordering): the input then stays
// as it was, a permutation.
#pragma once

#include <gpusort/detail/per_device.cuh>
#include <gpusort/no_values.cuh>
#include <gpusort/sort_request.cuh>
#include "../common/cluster_launch.cuh"
#include "../common/striped_tile.cuh"
#include "../common/tiles.cuh"
#include "lane_split_search.cuh"
#include "merge_path.cuh"
#include "shapes.cuh"
#include "thread_merge.cuh"
#include "tile_sort.cuh"

#include <cooperative_groups.h>
#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpusort::backends::merge {

template <class Shape, class Key, bool HasValues>
struct cluster_merge_storage {
  static constexpr int items = Shape::tile_items_per_thread;
  static constexpr int tile_items = Shape::tile_items;
  // The tile sort's storage; then, at each level, the block's pieces of its pair of runs.
  tile_sort_storage<Shape::tile_threads, items, Key, HasValues> pieces;
  // The block's part of the cluster's sorted runs (staged), one buffer per level's parity: a
  // level reads the blocks' one and writes the other, so one cluster barrier per level.
  Key runs[2][staged<items>(tile_items)];
  // Each kept key's input position, and each piece key's.
  int run_sources[HasValues ? 2 : 1][HasValues ? tile_items : 1];
  int piece_sources[HasValues ? tile_items : 1];
  // The block's chunk: how many keys of run a come before its first output and its end.
  int splits[2];
  int missed;
};

// The cluster's device code exists only where clusters do: sm_90 and newer device passes
// (cooperative_groups declares cluster_group nowhere else), and the host pass.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900

// The cluster's positions from `first` on, in buffer `local` of whichever block holds them:
// position p lies in block p / tile_items.
template <int TileItems, int Items, class T, bool Staged>
struct cluster_positions {
  const T* local;
  cooperative_groups::cluster_group cluster;
  int first;

  __device__ __forceinline__ T operator[](int p) const {
    const int position = first + p;
    const int block = position / TileItems;
    const int offset = position - block * TileItems;
    return *cluster.map_shared_rank(local + (Staged ? staged<Items>(offset) : offset),
                                    unsigned(block));
  }
};

template <class Shape, class Key, class Value, class Compare>
struct cluster_merger {
  static constexpr bool has_values = has_values_v<Value>;
  static constexpr int threads = Shape::tile_threads;
  static constexpr int items = Shape::tile_items_per_thread;
  static constexpr int tile_items = Shape::tile_items;
  using storage_t = cluster_merge_storage<Shape, Key, has_values>;
  using sorter_t = tile_sorter<threads, items, Key, has_values, Compare>;
  using keys_at = cluster_positions<tile_items, items, Key, true>;
  using sources_at = cluster_positions<tile_items, items, int, false>;
  // Lanes per split search: a warp each for the chunk's two splits (4 rounds at 8704
  // positions with 16 lanes of one warp, 3 with 32), half a warp each in a one-warp block.
  static constexpr int search_lanes = threads >= 64 ? 32 : 16;

  storage_t& shared;
  cooperative_groups::cluster_group cluster;
  int block;  // rank in the cluster: the block's tile, and its chunk at every level
  int blocks;
  int n;
  const Compare& comp;

  __device__ __forceinline__ int first() const { return block * tile_items; }
  __device__ __forceinline__ int count() const {
    return n - first() < tile_items ? n - first() : tile_items;
  }

  // Step 1: the block's tile, sorted into `sorted` (thread t: positions t * items + i) with
  // each key's tile position. Returns whether a merge missed.
  __device__ __forceinline__ bool sort_tile(const Key* keys, Key (&sorted)[items],
                                            int (&source)[items]) {
    sorter_t sorter{shared.pieces, count(), comp};
    sorter.load(keys + first(), sorted, source);
    sorter.sort_in_thread(sorted, source);
    bool missed = false;
#pragma unroll 1
    for (int level = 0; level < sorter_t::levels; ++level)
      if ((items << level) < count()) missed |= sorter.merge_level(level, sorted, source);
    return missed;
  }

  // The thread's keys (positions diagonal + i), with their input positions, into `buffer`.
  __device__ __forceinline__ void keep(int buffer, int diagonal, const Key (&merged)[items],
                                       const int (&input_position)[items]) {
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (diagonal + i >= count()) break;
      shared.runs[buffer][staged<items>(diagonal + i)] = merged[i];
      if constexpr (has_values) shared.run_sources[buffer][diagonal + i] = input_position[i];
    }
  }

  // Step 2, one level: the pairs of runs of tile_items << level positions in every block's
  // buffer `from`, merged into buffer `to`. Returns whether a merge missed.
  __device__ __forceinline__ bool merge_level(int level, int from, int to) {
    const int width = tile_items << level;
    const int pair_begin = first() / (2 * width) * (2 * width);
    const int a_count = clamp_length(n - pair_begin, width);
    const int b_count = clamp_length(n - pair_begin - width, width);
    const int diagonal = first() - pair_begin;
    const keys_at a{shared.runs[from], cluster, pair_begin};
    const keys_at b{shared.runs[from], cluster, pair_begin + width};
    if (int(threadIdx.x) < 2 * search_lanes) {  // the chunk's first split, then its end
      const int end_half = int(threadIdx.x) / search_lanes;
      const int split = merge_path_split_by_lanes<search_lanes>(
          a, a_count, b, b_count, diagonal + end_half * count(), comp);
      if (int(threadIdx.x) % search_lanes == 0) shared.splits[end_half] = split;
    }
    __syncthreads();
    const int a_from = shared.splits[0];
    const int a_to = shared.splits[1];
    // Splits that disagree cut no pieces (the result is not written, see store).
    const bool agree = splits_agree(diagonal, a_from, diagonal + count(), a_to);
    bool missed = !agree;
    if (agree) missed = merge_pieces(a, b, a_from, a_to - a_from, diagonal - a_from, to);
    cluster.sync();  // every block's chunk is in `to`, and nobody reads `from` any more
    return missed;
  }

  // Whether any block's merge missed, known to every block. Every thread of every block calls
  // it.
  __device__ __forceinline__ bool any_block_missed(bool missed) {
    const bool block_missed = __syncthreads_or(missed);
    if (threadIdx.x == 0) shared.missed = block_missed;
    cluster.sync();
    const bool peer_missed =
        int(threadIdx.x) < blocks &&
        *cluster.map_shared_rank(&shared.missed, unsigned(threadIdx.x)) != 0;
    return __syncthreads_or(peer_missed);
  }

  // Step 3: the chunk in `buffer` out to keys[first(), first() + count()), each value gathered
  // from its key's input position; nothing where `unsorted`.
  __device__ __forceinline__ void store(Key* keys, Value* values, int buffer, bool unsorted) {
    Value gathered[has_values ? items : 1];
    if constexpr (has_values) {
      if (!unsorted)
        for_each_striped<threads, items>(count(), [&](int j, int p) {
          gathered[j] = values[shared.run_sources[buffer][p]];
        });
    }
    // Sorting in place: every value is read before any is overwritten. And no block reads
    // another's shared memory past this point.
    cluster.sync();
    if (unsorted) return;
    for_each_striped<threads, items>(count(), [&](int, int p) {
      keys[first() + p] = shared.runs[buffer][staged<items>(p)];
    });
    if constexpr (has_values) store_striped<threads, items>(values + first(), count(), gathered);
  }

 private:
  __device__ __forceinline__ static int clamp_length(int left, int run) {
    return left < 0 ? 0 : left < run ? left : run;
  }

  // The block's pieces: a's [a_from, a_from + a_length), b's from b_from, count() keys in all,
  // copied into its own shared memory (all of a thread's loads in flight at once), merged
  // there and kept in buffer `to`. Returns whether a thread's merge missed the next one's.
  __device__ __forceinline__ bool merge_pieces(const keys_at& a, const keys_at& b, int a_from,
                                               int a_length, int b_from, int to) {
    const int count = this->count();
    Key loaded[items];
    int loaded_source[items];
    // One remote load per key, from a cluster position chosen without a branch.
    const keys_at runs{a.local, cluster, 0};
    for_each_striped<threads, items>(count, [&](int j, int p) {
      const int position =
          p < a_length ? a.first + a_from + p : b.first + b_from + (p - a_length);
      loaded[j] = runs[position];
      if constexpr (has_values)
        loaded_source[j] = sources_at{shared.run_sources[to ^ 1], cluster, 0}[position];
    });
    for_each_striped<threads, items>(count, [&](int j, int p) {
      shared.pieces.keys[staged<items>(p)] = loaded[j];
      if constexpr (has_values) shared.piece_sources[p] = loaded_source[j];
    });
    __syncthreads();

    const int thread = int(threadIdx.x);
    const int first_output = thread * items < count ? thread * items : count;
    const staged_run<items, Key> piece_a{shared.pieces.keys, 0};
    const staged_run<items, Key> piece_b{shared.pieces.keys, a_length};
    const int split =
        merge_path_split(piece_a, a_length, piece_b, count - a_length, first_output, comp);
    if (thread % 32 == 0) shared.pieces.warp_splits[thread / 32] = split;
    Key merged[items];
    int source[items];
    const int end = merge_from_split<items, sorter_t::loads_under_predicate>(
        piece_a, 0, a_length, count, first_output, split, merged, source, comp);
    __syncthreads();  // the warp splits are visible
    const int next_split = next_thread_split<threads>(split, shared.pieces.warp_splits, true);
    const bool missed = first_output + items < count && end != next_split;
    if constexpr (has_values) {
#pragma unroll
      for (int i = 0; i < items; ++i)
        if (first_output + i < count) source[i] = shared.piece_sources[source[i]];
    }
    keep(to, first_output, merged, source);
    return missed;
  }
};

#endif  // clusters

// Sorts keys[0, n) (and values alike) in place with one cluster of ceil(n / tile_items)
// blocks, at least 2. Built for a GPU without clusters the kernel is empty and the host never
// launches it (cluster_merge_sorter::max_blocks is 0 there).
template <class Shape, class Key, class Value, class Compare>
__global__ void __launch_bounds__(Shape::tile_threads)
    sort_in_cluster(Key* keys, Value* values, int n, Compare comp) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  using merger_t = cluster_merger<Shape, Key, Value, Compare>;
  constexpr int items = Shape::tile_items_per_thread;
  auto& shared = cluster_shared<typename merger_t::storage_t>();
  const auto cluster = cooperative_groups::this_cluster();
  merger_t merger{shared, cluster, int(cluster.block_rank()), int(cluster.num_blocks()), n,
                  comp};
  Key sorted[items];
  int source[items];
  bool missed = merger.sort_tile(keys, sorted, source);
#pragma unroll
  for (int i = 0; i < items; ++i) source[i] += merger.first();
  merger.keep(0, int(threadIdx.x) * items, sorted, source);
  cluster.sync();  // every tile is in place, and every block has loaded its keys
  int buffer = 0;
#pragma unroll 1
  for (int level = 0; (1 << level) < merger.blocks; ++level, buffer ^= 1)
    missed |= merger.merge_level(level, buffer, buffer ^ 1);
  merger.store(keys, values, buffer, merger.any_block_missed(missed));
#endif
}

// The host side: whether a request's keys fit one cluster on the current device, and the
// launch.
template <class Tuning, class Key, class Value, class Compare>
struct cluster_merge_sorter {
  using shape = merge_shape<Tuning, Key>;
  using storage_t = cluster_merge_storage<shape, Key, has_values_v<Value>>;
  static_assert(sizeof(storage_t) <= cluster_shared_limit,
                "gpusort::merge: a cluster block of this key type needs more shared memory "
                "than a block has; set cluster_most_blocks to 0 in the tuning");
  static constexpr auto kernel = sort_in_cluster<shape, Key, Value, Compare>;

  // The most blocks one cluster can have on the current device, at most the tuning's: 0
  // before sm_90. Asked once per device (launch_clusters grants the launched kernel its
  // shared memory).
  static int max_blocks() {
    static detail::per_device<int> known;
    return known.get(detail::current_device(), [](int device) {
      return ask_max_cluster_blocks(device, kernel, shape::tile_threads, sizeof(storage_t),
                                    Tuning::knobs.cluster_most_blocks);
    });
  }
};

// Sorts the request in one cluster launch where its keys fill 2 to Tuning's
// cluster_most_blocks tiles and one cluster of that many blocks runs on the current device;
// false, and nothing done, where not.
template <class Tuning, class Key, class Value, class Compare, bool Stable>
bool sort_in_one_cluster(const sort_request<Key, Value, Compare, Stable>& request) {
  constexpr int most_blocks = Tuning::knobs.cluster_most_blocks;
  if constexpr (most_blocks < 2) {
    return false;
  } else {
    using sorter = cluster_merge_sorter<Tuning, Key, Value, Compare>;
    const std::size_t blocks = tile_count(request.count, sorter::shape::tile_items);
    if (blocks < 2 || blocks > std::size_t(most_blocks) ||
        blocks > std::size_t(sorter::max_blocks()))
      return false;
    launch_clusters(sorter::kernel, 1, unsigned(blocks), sorter::shape::tile_threads,
                    sizeof(typename sorter::storage_t), request.stream,
                    /*overlap_previous=*/false, "merge sort: sort_in_cluster", request.keys,
                    request.values, int(request.count), request.comp);
    return true;
  }
}

}  // namespace gpusort::backends::merge
