// Device side of the partition-first sort (partition_first_sort.cuh): a sample of the
// unsorted keys, and a stable partition of the keys into key ranges ("classes") bounded by
// brackets chosen from that sample.
//
// With p ranks there are p - 1 cuts; cut r has a bracket [lo_r, hi_r] of two sample keys
// that holds the cut with near certainty. The classes, in key order, are
//   definite 0 | zone 1 | definite 1 | zone 2 | ... | definite p-1      (2p - 1 classes)
// where "definite r" holds the keys strictly between brackets r and r + 1 (all of them go
// to rank r) and "zone r" the keys inside bracket r (the only ones whose rank the exact cut
// search must settle).
#pragma once

#include "../../detail/backends/common/pick_samples.cuh"
#include "../../no_values.cuh"

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_rank.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpusort::distributed::detail {

// The partition-first sort serves up to 16 ranks: 31 classes, one 5-bit digit.
inline constexpr int partition_class_bits = 5;
inline constexpr int most_partition_classes = (1 << partition_class_bits) - 1;
inline constexpr int most_partition_ranks = (most_partition_classes + 1) / 2;

// A tile of the partition kernels: 256 threads, each with up to 64 bytes of keys and at
// most 16 of them (16 u32, 8 u64), so that the staging tile, the class of each of its
// slots and the ranking's counters fit static shared memory for keys up to 64 bytes.
inline constexpr int partition_threads = 256;
template <class Key, class Value>
inline constexpr int partition_items = [] {
  constexpr int widest = int(sizeof(Key) > sizeof(Value) ? sizeof(Key) : sizeof(Value));
  return 64 / widest < 1 ? 1 : 64 / widest > 16 ? 16 : 64 / widest;
}();
template <class Key, class Value>
inline constexpr std::size_t partition_tile = std::size_t(partition_threads) *
                                              partition_items<Key, Value>;

// The class of `key` among brackets lo_1, hi_1, lo_2, hi_2, ... (2 * cuts keys, in order).
template <class Key, class Compare>
__device__ __forceinline__ unsigned class_of(const Key& key, const Key* brackets, int cuts,
                                             const Compare& comp) {
  for (int r = 0; r < cuts; ++r) {
    if (comp(key, brackets[2 * r])) return unsigned(2 * r);             // below lo: definite
    if (!comp(brackets[2 * r + 1], key)) return unsigned(2 * r + 1);    // up to hi: the zone
  }
  return unsigned(2 * cuts);
}

// flag = 1 where the brackets are strictly apart (hi_r < lo_{r+1}), so that the classes are
// disjoint key ranges; 0 where many equal keys made two brackets touch.
template <class Key, class Compare>
__global__ void check_brackets(const Key* brackets, int cuts, Compare comp, std::uint64_t* flag) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  std::uint64_t apart = 1;
  for (int r = 0; r + 1 < cuts; ++r)
    if (!comp(brackets[2 * r + 1], brackets[2 * r + 2])) apart = 0;
  *flag = apart;
}

// The brackets in shared memory, where every class_of reads them (raw bytes: a key type
// with a constructor cannot be a __shared__ variable).
template <class Key>
struct shared_brackets {
  alignas(Key) unsigned char bytes[2 * (most_partition_ranks - 1) * sizeof(Key)];

  __device__ __forceinline__ const Key* load(const Key* brackets, int cuts) {
    Key* keys = reinterpret_cast<Key*>(bytes);
    for (int i = threadIdx.x; i < 2 * cuts; i += blockDim.x) keys[i] = brackets[i];
    __syncthreads();
    return keys;
  }
};

// Counts per class of one tile per block: tile_counts[c * tiles + tile]. Class-major, so
// that one exclusive scan over the array gives every (class, tile)'s place in the output.
template <int Items, class Key, class Compare>
__global__ void __launch_bounds__(partition_threads)
    count_classes(const Key* keys, std::size_t count, const Key* brackets, int cuts,
                  Compare comp, std::size_t tiles, std::uint64_t* tile_counts) {
  __shared__ shared_brackets<Key> shared;
  __shared__ unsigned class_counts[most_partition_classes];
  if (threadIdx.x < most_partition_classes) class_counts[threadIdx.x] = 0;
  const Key* bounds = shared.load(brackets, cuts);
  const std::size_t tile_begin = std::size_t(blockIdx.x) * partition_threads * Items;
  const unsigned lane = threadIdx.x % 32;
  for (int item = 0; item < Items; ++item) {
    const std::size_t i = tile_begin + std::size_t(item) * partition_threads + threadIdx.x;
    const bool valid = i < count;
    const unsigned c = valid ? class_of(keys[i], bounds, cuts, comp) : ~0u;
    // One shared atomic per class present in the warp.
    const unsigned same = __match_any_sync(0xFFFFFFFFu, c);
    if (valid && lane == unsigned(__ffs(same) - 1)) atomicAdd(&class_counts[c], __popc(same));
  }
  __syncthreads();
  if (int(threadIdx.x) < 2 * cuts + 1)
    tile_counts[std::size_t(threadIdx.x) * tiles + blockIdx.x] = class_counts[threadIdx.x];
}

// The class is the digit BlockRadixRank ranks by.
struct class_digit {
  __device__ __forceinline__ std::uint32_t Digit(std::uint32_t c) const { return c; }
};

// Moves one tile per block to its classes' places: out[tile_offsets[c * tiles + tile] + k]
// for the k-th key of class c in the tile, so that every class keeps the keys' order
// (stable). Keys are ranked within the tile by class (BlockRadixRank over a blocked
// arrangement ranks equal classes in input order), staged in shared memory in class order,
// and written from there, so that a warp writes consecutive addresses of one class.
// Shared memory: the staging tile (keys, then values) overlaps the loads' transpose space;
// the class of each staged slot; each class's output base; the ranking's counters.
template <int Items, class Key, class Value, class Compare>
__global__ void __launch_bounds__(partition_threads)
    scatter_classes(const Key* keys, const Value* values, std::size_t count,
                    const Key* brackets, int cuts, Compare comp, std::size_t tiles,
                    const std::uint64_t* tile_offsets, Key* out_keys, Value* out_values) {
  constexpr int tile = partition_threads * Items;
  constexpr bool has_values = has_values_v<Value>;
  using key_load = cub::BlockLoad<Key, partition_threads, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using value_load = cub::BlockLoad<std::conditional_t<has_values, Value, int>, partition_threads,
                                    Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using class_rank = cub::BlockRadixRank<partition_threads, partition_class_bits, false>;
  constexpr std::size_t staged_bytes =
      tile * (sizeof(Key) > sizeof(Value) ? sizeof(Key) : sizeof(Value));
  __shared__ union {
    typename key_load::TempStorage key_load;
    typename value_load::TempStorage value_load;
    alignas(16) unsigned char staged[staged_bytes];
  } exchange;
  __shared__ typename class_rank::TempStorage rank_storage;
  __shared__ unsigned char staged_class[tile];
  __shared__ std::uint64_t class_base[1 << partition_class_bits];
  __shared__ shared_brackets<Key> shared;

  const Key* bounds = shared.load(brackets, cuts);
  const std::size_t tile_begin = std::size_t(blockIdx.x) * tile;
  const int valid = count - tile_begin < std::size_t(tile) ? int(count - tile_begin) : tile;
  Key key[Items];
  key_load(exchange.key_load).Load(keys + tile_begin, key, valid);
  std::uint32_t cls[Items];
  for (int item = 0; item < Items; ++item) {
    // Past the end: the top class, which no key has, so the real ones rank first.
    const bool real = int(threadIdx.x) * Items + item < valid;
    cls[item] = real ? class_of(key[item], bounds, cuts, comp) : (1u << partition_class_bits) - 1;
  }
  int rank[Items];
  int class_start[class_rank::BINS_TRACKED_PER_THREAD];
  class_rank(rank_storage).RankKeys(cls, rank, class_digit{}, class_start);
  const int classes = 2 * cuts + 1;
  if (int(threadIdx.x) < classes)
    class_base[threadIdx.x] =
        tile_offsets[std::size_t(threadIdx.x) * tiles + blockIdx.x] - class_start[0];
  __syncthreads();  // the loads' space becomes the staging tile

  Key* staged_keys = reinterpret_cast<Key*>(exchange.staged);
  for (int item = 0; item < Items; ++item)
    if (rank[item] < valid) {
      staged_keys[rank[item]] = key[item];
      staged_class[rank[item]] = static_cast<unsigned char>(cls[item]);
    }
  __syncthreads();
  for (int i = threadIdx.x; i < valid; i += partition_threads)
    out_keys[class_base[staged_class[i]] + i] = staged_keys[i];
  if constexpr (has_values) {
    __syncthreads();
    Value value[Items];
    value_load(exchange.value_load).Load(values + tile_begin, value, valid);
    __syncthreads();
    Value* staged_values = reinterpret_cast<Value*>(exchange.staged);
    for (int item = 0; item < Items; ++item)
      if (rank[item] < valid) staged_values[rank[item]] = value[item];
    __syncthreads();
    for (int i = threadIdx.x; i < valid; i += partition_threads)
      out_values[class_base[staged_class[i]] + i] = staged_values[i];
  }
}

}  // namespace gpusort::distributed::detail
