// 16-bit floats whose zeros (-0.0, +0.0) or NaNs (any payload) come in two bit patterns: the
// counting sort's fill writes one pattern per class, where a stable sort keeps each class's
// keys in input order. So, before the fill, the class keys are copied aside in input order
// (count_class_keys, then save_class_keys), and after it they are copied back over their
// class's bin (restore_class_keys). Each kernel returns at once where no class is mixed, the
// usual case: three launches that cost about a microsecond each.
#pragma once

#include <gpusort/detail/policies/bit_cast.cuh>
#include <gpusort/detail/policies/key_traits.cuh>
#include "counting_kernels.cuh"

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>

namespace gpusort::backends::radix {

inline constexpr int class_threads = 256;
inline constexpr int class_keys_per_thread = 8;
inline constexpr std::size_t class_tile_keys = std::size_t(class_threads) * class_keys_per_thread;

// Each class's keys in one chunk of the input (count_class_keys), and over all chunks.
struct class_key_counts {
  unsigned long long zeros;
  unsigned long long nans;
};

// The input cut into gridDim.x chunks of `chunk` keys, block b the b-th.
struct class_chunk {
  std::size_t begin, end;
};
__device__ __forceinline__ class_chunk chunk_of_block(std::size_t n, std::size_t chunk) {
  const std::size_t begin = std::size_t(blockIdx.x) * chunk;
  return {begin < n ? begin : n, begin + chunk < n ? begin + chunk : n};
}

// counts[block] = the class keys in the block's chunk.
template <class Key>
__global__ void __launch_bounds__(class_threads)
    count_class_keys(const Key* keys, std::size_t n, std::size_t chunk,
                     const class_patterns* classes, class_key_counts* counts /* [gridDim.x] */) {
  if (classes->mixed == 0) return;
  const class_chunk mine = chunk_of_block(n, chunk);
  unsigned long long zeros = 0, nans = 0;
  for (std::size_t i = mine.begin + threadIdx.x; i < mine.end; i += class_threads) {
    const int c = class_of_key(keys[i]);
    zeros += c == 0;
    nans += c == 1;
  }
  __shared__ class_key_counts block_counts;
  if (threadIdx.x == 0) block_counts = class_key_counts{0, 0};
  __syncthreads();
  if (zeros != 0) atomicAdd(&block_counts.zeros, zeros);
  if (nans != 0) atomicAdd(&block_counts.nans, nans);
  __syncthreads();
  if (threadIdx.x == 0) counts[blockIdx.x] = block_counts;
}

// Copies the class keys of the block's chunk, in input order, to saved: zeros at their rank
// among all zeros, NaNs after every zero at theirs. Block 0 also writes the totals.
template <class Key>
__global__ void __launch_bounds__(class_threads)
    save_class_keys(const Key* keys, std::size_t n, std::size_t chunk,
                    const class_patterns* classes, const class_key_counts* counts /* [gridDim.x] */,
                    Key* saved /* [zeros + NaNs] */, class_key_counts* totals) {
  if (classes->mixed == 0) return;
  // The class keys before this chunk, and in all chunks.
  __shared__ class_key_counts before, all;
  if (threadIdx.x == 0) before = all = class_key_counts{0, 0};
  __syncthreads();
  class_key_counts mine_before{0, 0}, mine_all{0, 0};
  for (unsigned b = threadIdx.x; b < gridDim.x; b += class_threads) {
    const class_key_counts c = counts[b];
    mine_all.zeros += c.zeros;
    mine_all.nans += c.nans;
    if (b < blockIdx.x) {
      mine_before.zeros += c.zeros;
      mine_before.nans += c.nans;
    }
  }
  atomicAdd(&before.zeros, mine_before.zeros);
  atomicAdd(&before.nans, mine_before.nans);
  atomicAdd(&all.zeros, mine_all.zeros);
  atomicAdd(&all.nans, mine_all.nans);
  __syncthreads();
  if (blockIdx.x == 0 && threadIdx.x == 0) *totals = all;
  Key* const zeros_out = saved + before.zeros;
  Key* const nans_out = saved + all.zeros + before.nans;

  // Tile by tile: each thread's consecutive keys, their ranks by a block scan of the counts
  // (zeros in the low half of a word, NaNs in the high: a tile has at most 2048 of each).
  using scan_t = cub::BlockScan<unsigned, class_threads>;
  __shared__ typename scan_t::TempStorage scan_storage;
  const class_chunk mine = chunk_of_block(n, chunk);
  std::size_t zeros_done = 0, nans_done = 0;
  for (std::size_t tile = mine.begin; tile < mine.end; tile += class_tile_keys) {
    const std::size_t first = tile + std::size_t(threadIdx.x) * class_keys_per_thread;
    Key own[class_keys_per_thread];
    int own_class[class_keys_per_thread];
    unsigned packed = 0;
#pragma unroll
    for (int k = 0; k < class_keys_per_thread; ++k) {
      own_class[k] = -1;
      if (first + k < mine.end) {
        own[k] = keys[first + k];
        own_class[k] = class_of_key(own[k]);
        packed += own_class[k] == 0 ? 1u : own_class[k] == 1 ? 1u << 16 : 0u;
      }
    }
    unsigned rank = 0, tile_total = 0;
    scan_t(scan_storage).ExclusiveSum(packed, rank, tile_total);
    __syncthreads();  // scan_storage is used again by the next tile
    std::size_t zero_rank = zeros_done + (rank & 0xFFFFu);
    std::size_t nan_rank = nans_done + (rank >> 16);
#pragma unroll
    for (int k = 0; k < class_keys_per_thread; ++k) {
      if (own_class[k] == 0) zeros_out[zero_rank++] = own[k];
      if (own_class[k] == 1) nans_out[nan_rank++] = own[k];
    }
    zeros_done += tile_total & 0xFFFFu;
    nans_done += tile_total >> 16;
  }
}

// Copies the saved class keys over their bins, which the fill wrote with one pattern each.
// A bin b starts at group_starts[b / group_bins] + bin_offsets[b] (sum_bins).
template <class Shape>
__global__ void __launch_bounds__(class_threads)
    restore_class_keys(typename Shape::key_type* keys, typename Shape::bits_type flip,
                       const class_patterns* classes, const typename Shape::key_type* saved,
                       const class_key_counts* totals, const unsigned long long* bin_offsets,
                       const unsigned long long* group_starts) {
  if (classes->mixed == 0) return;
  const class_bins bins = class_bins_of<typename Shape::key_type>(flip);
  const auto start = [&](std::size_t bin) {
    return group_starts[Shape::bin_group(bin)] + bin_offsets[bin];
  };
  const std::size_t zeros = totals->zeros, all = zeros + totals->nans;
  const std::size_t zero_start = start(bins.zero), nan_start = start(bins.nan);
  const std::size_t stride = std::size_t(gridDim.x) * class_threads;
  for (std::size_t i = std::size_t(blockIdx.x) * class_threads + threadIdx.x; i < all; i += stride)
    keys[i < zeros ? zero_start + i : nan_start + (i - zeros)] = saved[i];
}

}  // namespace gpusort::backends::radix
