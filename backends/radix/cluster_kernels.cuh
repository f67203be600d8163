// The small-input radix sort: one launch of one thread-block cluster (sm_90) whose blocks
// hold the whole input in their shared memory and run every LSD pass there, exchanging keys
// through distributed shared memory. A cluster of one block is the one-block sort.
//
// Per pass, in each block of the cluster (the same steps as a one-sweep tile, with the
// cluster's blocks in place of the tiles and the look-back replaced by reading the other
// blocks' counts):
//   rank      the block's keys by digit in shared memory (stable), counting each digit
//   stage     the keys in digit order in shared memory
//   (cluster barrier: every block has counted, and has taken its keys out of its buffer)
//   place     each digit's run: the digit's start in the whole input, plus the keys of that
//             digit in lower-ranked blocks
//   scatter   the staged keys to the blocks that own their new positions, consecutive threads
//             to consecutive addresses; the last pass writes to global memory instead
//   (cluster barrier: every block has received its keys for the next pass)
// A cluster of one block skips everything after the rank: each key's rank is its place.
#pragma once

#include <gpusort/detail/policies/key_traits.cuh>
#include "../common/cluster_launch.cuh"
#include "../common/launch_bounds.cuh"
#include "../common/ordered_bits.cuh"
#include "../common/striped_tile.cuh"
#include "../common/tiles.cuh"
#include "digits.cuh"

#include <cooperative_groups.h>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_scan.cuh>
#include <nv/target>

#include <cstdint>
#include <type_traits>

namespace gpusort::backends::radix {

// One shape of the cluster sort: ClusterTiling names threads and items per block; each
// block owns tile_items consecutive keys of the input, the last block fewer.
template <class ClusterTiling, class Key, class Value = no_values>
struct cluster_shape {
  using key_type = Key;
  using traits = radix_key_traits<Key>;
  using bits_type = typename traits::bits_type;
  static constexpr bool has_values = has_values_v<Value>;
  static constexpr int block_threads = ClusterTiling::knobs.block_threads;
  // Each item of a block takes shared memory for the received key and value, the staged key
  // or value, and the staged digit: wide types get fewer items so that a block still fits.
  static constexpr int widest_element =
      int(sizeof(Key) > sizeof(Value) || !has_values ? sizeof(Key) : sizeof(Value));
  static constexpr int item_bytes =
      int(sizeof(Key)) + (has_values ? int(sizeof(Value)) : 0) + widest_element + 1;
  static constexpr int fitting_items =
      ClusterTiling::knobs.shared_bytes / (block_threads * item_bytes);
  static_assert(fitting_items >= 1, "gpusort: key and value too wide for the cluster sort");
  static constexpr int items_per_thread = ClusterTiling::knobs.items_per_thread < fitting_items
                                              ? ClusterTiling::knobs.items_per_thread
                                              : fitting_items;
  static constexpr int tile_items = block_threads * items_per_thread;
  static constexpr int max_blocks = ClusterTiling::knobs.max_cluster_blocks;
  static constexpr int min_blocks_per_multiprocessor = backends::min_blocks_per_multiprocessor(
      ClusterTiling::knobs.min_blocks_per_multiprocessor, block_threads);
  static constexpr int digit_bits = ClusterTiling::knobs.digit_bits;
  static constexpr int digits = 1 << digit_bits;
  static constexpr int passes = pass_count(traits::bits, digit_bits);
  static_assert(digit_bits <= 8, "the staged digits are kept in a byte each");
  static_assert(max_blocks >= 1 && max_blocks <= 16, "a cluster has at most 16 blocks (sm_90)");

  // The most keys one cluster sorts.
  static constexpr int capacity = tile_items * max_blocks;
};

// Shared memory of one cluster block. `keys`/`values` receive the block's share of the
// input for the next pass (written by every block of the cluster); `staging` first holds the
// rank's counters, then the block's keys in digit order, then its values.
template <class Shape, class Value>
struct cluster_storage {
  using key_type = typename Shape::key_type;
  using rank_t = cub::BlockRadixRankMatchEarlyCounts<Shape::block_threads, Shape::digit_bits,
                                                     false, cub::BLOCK_SCAN_WARP_SCANS>;
  using scan_t = cub::BlockScan<int, Shape::block_threads>;
  key_type keys[Shape::tile_items];
  Value values[Shape::has_values ? Shape::tile_items : 1];
  union {
    typename rank_t::TempStorage rank;
    key_type keys[Shape::tile_items];
    Value values[Shape::has_values ? Shape::tile_items : 1];
  } staging;
  std::uint8_t staged_digits[Shape::tile_items];
  typename scan_t::TempStorage scan;
  int digit_counts[Shape::digits];  // this block's keys of each digit (read by the cluster)
  int digit_base[Shape::digits];    // output position of the block's first staged key of a
                                    // digit, minus that key's place in the staging
};

// The rank's early counts go to the block's shared counts, read by the other blocks.
struct keep_block_count {
  int* digit_counts;

  __device__ __forceinline__ void operator()(int digit, int count) const {
    digit_counts[digit] = count;
  }
};

// The cluster's device code exists only where clusters do: sm_90 and newer device passes
// (cooperative_groups declares cluster_group nowhere else), and the host pass.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900

template <class Shape, class Value>
struct cluster_block {
  using key_type = typename Shape::key_type;
  using bits_type = typename Shape::bits_type;
  using storage_t = cluster_storage<Shape, Value>;
  using rank_t = typename storage_t::rank_t;
  static constexpr int threads = Shape::block_threads;
  static constexpr int items = Shape::items_per_thread;
  static constexpr int tile_items = Shape::tile_items;
  static constexpr int digits = Shape::digits;
  static constexpr int bins_per_thread = rank_t::BINS_PER_THREAD;

  storage_t& shared;
  cooperative_groups::cluster_group cluster;
  int block;         // rank in the cluster
  int blocks;
  int n;
  int count;         // keys this block owns
  bits_type flip;
  bool alone;        // a cluster of one block: block barriers and its own buffer suffice

  __device__ __forceinline__ void sync_cluster() const {
    if (alone)
      __syncthreads();
    else
      cluster.sync();
  }

  // `local` (in this block's shared memory) as seen in block `rank` of the cluster.
  template <class T>
  __device__ __forceinline__ T* in_block(T* local, int rank) const {
    return alone ? local : cluster.map_shared_rank(local, rank);
  }

  // The keys and values this block owns, in the rank's order (warp_striped_index), from
  // keys[first, first + count) and values alike: the input, or the block's buffers.
  __device__ __forceinline__ void load_owned(const key_type* keys, const Value* values, int first,
                                             key_type (&tile_keys)[items],
                                             Value (&tile_values)[items]) const {
    for_each_warp_striped<items>(count, [&](int j, int i) {
      tile_keys[j] = keys[first + i];
      if constexpr (Shape::has_values) tile_values[j] = values[first + i];
    });
  }

  // One pass: the keys and values this block owns in, their new owners' buffers (or, in the
  // last pass, global memory) out.
  __device__ __forceinline__ void pass(int pass_index, key_type (&tile_keys)[items],
                                       Value (&tile_values)[items], key_type* keys_out,
                                       Value* values_out) {
    bits_type tile_bits[items];
    int ranks[items];
    int digit_prefix[bins_per_thread];
    rank_digits(pass_index, tile_keys, tile_bits, ranks, digit_prefix);
    if (alone) {
      keep_in_rank_order(ranks, tile_keys, tile_values, keys_out, values_out);
      return;
    }
    __syncthreads();  // the rank is done with its counters: the staging takes the keys
    stage_keys(pass_index, tile_keys, tile_bits, ranks);
    sync_cluster();  // every block's counts are final; every block holds its keys in registers

    const bool single_digit = place_digits(digit_prefix);
    const bool last = keys_out != nullptr;
    // In the last pass the other blocks' counts have been read here; the block may not exit
    // before every block has read its counts (waited for at the end of the kernel).
    if (last && !alone) cluster.barrier_arrive();
    // A pass whose digit is the same for every key would move every key to where it is: each
    // block keeps its keys instead (the last pass still writes them out).
    const bool moves = __syncthreads_or(single_digit) == 0 || last;
    if (!moves) {
      keep_in_place(tile_keys, tile_values);
      return;
    }
    scatter(shared.staging.keys, shared.keys, keys_out);
    if constexpr (Shape::has_values) scatter_values(ranks, tile_values, values_out);
  }

  // Each key's place in the block's keys sorted by digit (ranks), and where this thread's
  // digits start among them; the block's digit counts go to shared memory for the cluster.
  // Keys past the block's count rank last (the largest digit): they never move.
  __device__ __forceinline__ void rank_digits(int pass_index, const key_type (&tile_keys)[items],
                                              bits_type (&tile_bits)[items], int (&ranks)[items],
                                              int (&digit_prefix)[bins_per_thread]) {
#pragma unroll
    for (int j = 0; j < items; ++j)
      tile_bits[j] = warp_striped_index<items>(j) < count ? ordered_bits(tile_keys[j], flip)
                                                          : bits_type(~bits_type(0));
    int counts[bins_per_thread];
    rank_t(shared.staging.rank)
        .RankKeys(tile_bits, ranks, pass_digit<bits_type>{pass_index, Shape::digit_bits},
                  digit_prefix,
                  tile_digit_counts<bins_per_thread, keep_block_count>{
                      digits, tile_items - count, counts, keep_block_count{shared.digit_counts}});
  }

  // The block's keys, and their digits, into the staging in digit order.
  __device__ __forceinline__ void stage_keys(int pass_index, const key_type (&tile_keys)[items],
                                             const bits_type (&tile_bits)[items],
                                             const int (&ranks)[items]) {
    for_each_warp_striped<items>(count, [&](int j, int) {
      shared.staging.keys[ranks[j]] = tile_keys[j];
      shared.staged_digits[ranks[j]] =
          std::uint8_t(digit_of(tile_bits[j], pass_index, Shape::digit_bits));
    });
  }

  // For each of this thread's digits: the cluster's keys of it (totals), and those of
  // lower-ranked blocks (before), from every block's shared counts.
  __device__ __forceinline__ void count_cluster_digits(int (&totals)[bins_per_thread],
                                                       int (&before)[bins_per_thread]) const {
#pragma unroll
    for (int b = 0; b < bins_per_thread; ++b) {
      const int d = int(threadIdx.x) * bins_per_thread + b;
      totals[b] = 0;
      before[b] = 0;
      if (d >= digits) continue;
      // Unrolled over the largest cluster: the remote loads are in flight together.
#pragma unroll
      for (int other = 0; other < Shape::max_blocks; ++other) {
        if (other >= blocks) break;
        const int c = *in_block(&shared.digit_counts[d], other);
        totals[b] += c;
        before[b] += other < block ? c : 0;
      }
    }
  }

  // Each digit's output start (all blocks' smaller digits) plus this block's offset within
  // the digit (lower-ranked blocks' keys of it), less where the digit starts in the staging:
  // digit_base. Returns whether this thread saw a digit that every key has.
  __device__ __forceinline__ bool place_digits(const int (&digit_prefix)[bins_per_thread]) {
    int totals[bins_per_thread];
    int before[bins_per_thread];
    count_cluster_digits(totals, before);
    bool single_digit = false;
#pragma unroll
    for (int b = 0; b < bins_per_thread; ++b) single_digit |= totals[b] == n;
    int starts[bins_per_thread];
    typename storage_t::scan_t(shared.scan).ExclusiveSum(totals, starts);
#pragma unroll
    for (int b = 0; b < bins_per_thread; ++b) {
      const int d = int(threadIdx.x) * bins_per_thread + b;
      if (d < digits) shared.digit_base[d] = starts[b] + before[b] - digit_prefix[b];
    }
    return single_digit;
  }

  // A pass that moves nothing: the block's keys and values back into its own buffers.
  __device__ __forceinline__ void keep_in_place(const key_type (&tile_keys)[items],
                                                const Value (&tile_values)[items]) {
    for_each_warp_striped<items>(count, [&](int j, int i) {
      shared.keys[i] = tile_keys[j];
      if constexpr (Shape::has_values) shared.values[i] = tile_values[j];
    });
  }

  // A block alone holds the whole input: a key's rank is its place in the output, so the
  // keys go straight to their places in the block's buffer (every thread has read its keys
  // out of it: the rank has barriers), and the last pass copies the buffer out coalesced.
  __device__ __forceinline__ void keep_in_rank_order(const int (&ranks)[items],
                                                     const key_type (&tile_keys)[items],
                                                     const Value (&tile_values)[items],
                                                     key_type* keys_out, Value* values_out) {
    for_each_warp_striped<items>(count, [&](int j, int) {
      shared.keys[ranks[j]] = tile_keys[j];
      if constexpr (Shape::has_values) shared.values[ranks[j]] = tile_values[j];
    });
    if (keys_out == nullptr) return;
    __syncthreads();
    for_each_striped<threads, items>(count, [&](int, int i) {
      keys_out[i] = shared.keys[i];
      if constexpr (Shape::has_values) values_out[i] = shared.values[i];
    });
  }

  // The values take the keys' way: into the staging by rank, out by the staged digits.
  __device__ __forceinline__ void scatter_values(const int (&ranks)[items],
                                                 const Value (&tile_values)[items],
                                                 Value* values_out) {
    __syncthreads();  // every thread has read its keys out of the staging
    for_each_warp_striped<items>(
        count, [&](int j, int) { shared.staging.values[ranks[j]] = tile_values[j]; });
    __syncthreads();
    scatter(shared.staging.values, shared.values, values_out);
  }

  // Staged element i goes to output position digit_base[its digit] + i: into `buffer` of the
  // block that owns that position, or to global memory (`global_out`) in the last pass.
  // Consecutive threads write consecutive positions within each digit's run.
  template <class T>
  __device__ __forceinline__ void scatter(const T* staged, T* buffer, T* global_out) {
    for_each_striped<threads, items>(count, [&](int, int i) {
      const int position = shared.digit_base[shared.staged_digits[i]] + i;
      if (global_out != nullptr)
        global_out[position] = staged[i];
      else
        *in_block(buffer + position % tile_items, position / tile_items) = staged[i];
    });
  }
};

// Sorts the n keys (and values) at keys_in by their digits of passes [0, passes) with the
// calling cluster, into keys_out (which may be keys_in: every block has loaded its keys before
// any are written). n at most the cluster's blocks' tiles; blocks past the keys own none.
template <class Shape, class Value>
__device__ __forceinline__ void cluster_sort(const typename Shape::key_type* keys_in,
                                             typename Shape::key_type* keys_out,
                                             const Value* values_in, Value* values_out, int n,
                                             int passes, typename Shape::bits_type flip) {
  using block_t = cluster_block<Shape, Value>;
  using key_type = typename Shape::key_type;
  constexpr int items = Shape::items_per_thread;
  auto& shared = cluster_shared<typename block_t::storage_t>();
  const auto cluster = cooperative_groups::this_cluster();
  const int block = int(cluster.block_rank());
  const int begin = block * Shape::tile_items;
  const int left = n - begin;
  const int blocks = int(cluster.num_blocks());
  const int owned = left < 0 ? 0 : left < Shape::tile_items ? left : Shape::tile_items;
  block_t sorter{shared, cluster, block, blocks, n, owned, flip, blocks == 1};

  key_type tile_keys[items];
  Value tile_values[items];
  sorter.load_owned(keys_in, values_in, begin, tile_keys, tile_values);
  for (int p = 0; p < passes; ++p) {
    const bool last = p == passes - 1;
    if (p > 0) sorter.load_owned(shared.keys, shared.values, 0, tile_keys, tile_values);
    sorter.pass(p, tile_keys, tile_values, last ? keys_out : nullptr,
                last ? values_out : nullptr);
    if (!last) sorter.sync_cluster();  // every block has received its keys for the next pass
  }
  if (!sorter.alone) cluster.barrier_wait();  // no block's counts are still being read
}

#endif  // clusters

// Clusters need sm_90; built for an older GPU the kernel is empty and the host never
// launches it (cluster_sorter::max_blocks is 0 there).
template <class Shape, class Value>
__global__ void __launch_bounds__(Shape::block_threads)
    cluster_sort_kernel(typename Shape::key_type* keys, Value* values, int n,
                        typename Shape::bits_type flip) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  cluster_sort<Shape, Value>(keys, keys, values, values, n, Shape::passes, flip);
#endif
}

}  // namespace gpusort::backends::radix
