// The sample sort's split (sample_sort.cuh): each key's bucket among 2^log_buckets by the
// splitter tree (splitter_tree.cuh's search_splitter_tree, stored with staged_tree_levels<Key,
// StagedBytes>() levels at the top), written as one Bucket (u8 or u16) per key, which a radix
// pass then takes as the digit it scatters the keys by. The tree's top is staged in shared
// memory once per block, within StagedBytes (at most 48 KB: no opt-in, every GPU); where the
// tree is deeper, each key's search ends in one row of global memory (L2, then L1). Each
// thread searches ItemsPerThread keys at once, one depth at a time, so that the loads of a
// depth are independent.
#pragma once

#include "splitter_tree.cuh"

#include <cstddef>
#include <cstdint>

namespace gpusort::backends::merge {

inline constexpr int most_staged_tree_bytes = 48 * 1024;

// How many levels of a tree of Key a block stages in StagedBytes of shared memory: the most
// whose 2^levels - 1 splitters fit, at most 16.
template <class Key, int StagedBytes>
constexpr int staged_tree_levels() {
  static_assert(StagedBytes <= most_staged_tree_bytes, "at most 48 KB: every GPU, no opt-in");
  int levels = 0;
  while (levels < 16 && ((2ull << levels) - 1) * sizeof(Key) <= std::size_t(StagedBytes))
    ++levels;
  return levels;
}

// The dynamic shared memory classify_keys takes for a tree of log_buckets levels.
template <class Key, int StagedBytes>
constexpr int staged_tree_bytes(int log_buckets) {
  constexpr int top = staged_tree_levels<Key, StagedBytes>();
  return int(((1u << (log_buckets < top ? log_buckets : top)) - 1) * sizeof(Key));
}

// equal_keys (2^log_buckets flags) and any_equal (null: never): where *any_equal is set, a key
// equal to the splitter before its bucket, where that bucket's flag in equal_keys is set, goes
// to the bucket before instead (sample_sort.cuh's buckets of equal keys).
template <int Threads, int ItemsPerThread, int StagedBytes, class Bucket, class Key, class Less>
__global__ void __launch_bounds__(Threads)
    classify_keys(const Key* keys, std::size_t n,
                  const Key* __restrict__ tree /* [stored_tree_slots(log_buckets, top)] */,
                  int log_buckets, const std::uint8_t* equal_keys, const unsigned* any_equal,
                  Bucket* buckets /* [n] */, Less less) {
  static_assert(sizeof(Bucket) <= 2, "buckets are numbered by a byte or two");
  extern __shared__ __align__(16) unsigned char staged_bytes[];
  Key* const staged = reinterpret_cast<Key*>(staged_bytes);
  constexpr int staged_levels = staged_tree_levels<Key, StagedBytes>();
  const int top_nodes = (1 << (log_buckets < staged_levels ? log_buckets : staged_levels)) - 1;
  for (int i = int(threadIdx.x); i < top_nodes; i += Threads) staged[i] = tree[i];
  const bool check_equal = any_equal != nullptr && *any_equal != 0;
  __syncthreads();
  constexpr std::size_t tile = std::size_t(Threads) * ItemsPerThread;
  for (std::size_t base = std::size_t(blockIdx.x) * tile; base < n;
       base += std::size_t(gridDim.x) * tile) {
    Key key[ItemsPerThread];
#pragma unroll
    for (int j = 0; j < ItemsPerThread; ++j) {
      const std::size_t i = base + std::size_t(j) * Threads + threadIdx.x;
      // Past the end, the tile's first key: a comparator that reads through its keys (indices
      // into an array of the caller's) only ever sees keys of the input.
      key[j] = keys[i < n ? i : base];
    }
    int bucket[ItemsPerThread];
    int before[ItemsPerThread];  // the slot of the greatest splitter not greater than the key
    search_splitter_tree(key, staged, tree, log_buckets, staged_levels, less, bucket, before);
#pragma unroll
    for (int j = 0; j < ItemsPerThread; ++j) {
      // (A bucket past 0 had a splitter before it: before[j] is a slot.)
      if (check_equal && bucket[j] > 0 && equal_keys[bucket[j] - 1] != 0 &&
          !less(tree[before[j]], key[j]))
        --bucket[j];
      const std::size_t i = base + std::size_t(j) * Threads + threadIdx.x;
      if (i < n) buckets[i] = Bucket(bucket[j]);
    }
  }
}

}  // namespace gpusort::backends::merge
