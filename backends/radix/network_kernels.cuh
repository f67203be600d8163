// The smallest inputs: one bitonic sorting network (K. E. Batcher, "Sorting networks and their
// applications", 1968) over each key's ordered word, run by one block or by one thread-block
// cluster of a few blocks (sm_90). Block b of the cluster holds network positions
// [b * block_keys, (b + 1) * block_keys), thread t of it positions t * items + i (i < items)
// in registers. Level k = 2, 4, ... sorts every run of k positions, ascending where
// position & k is clear and descending where set; its steps pair position p with p ^ j for
// j = k/2, ..., 1. The pair of a step is
//   j < items          in one thread's registers
//   j < 32 * items     in two lanes of one warp: shuffles
//   j < block_keys     in two warps of one block: shared memory, two buffers taken in turn
//                      (one barrier per step)
//   otherwise          in two blocks of the cluster: distributed shared memory
//
// A sorting network is not stable, yet the output is the stable radix sort's, bit for bit.
// Keys only: the word is the key's 32-bit ordered bits, and an integer key's bits are the key
// itself, so equal words are equal keys. Floats' sort bits give every zero one word and every
// NaN one word (key_traits.cuh); those two classes are written afterwards, in their input
// order, at the start of their word's run.
// Keys with values: the word is 64 bits, the key's ordered bits over its input position, so
// that no two words are equal and equal keys keep their input order; each output position
// then gathers its key and value from the input position its word names.
#pragma once

#include <gpusort/detail/policies/bit_cast.cuh>
#include <gpusort/detail/policies/key_traits.cuh>
#include "../common/bitonic_tile.cuh"
#include "../common/ordered_bits.cuh"

#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <type_traits>

namespace gpusort::backends::radix {

// Keys the network sorts: 32-bit keys with a radix encoding; without values, among keys whose
// sort bits canonicalise only floats (the two classes above are IEEE-754's). With values any
// such key: the output's keys are gathered, not decoded. Narrower keys would fit, but where
// par sorts them (in one pass, or counted) it was not measured against.
template <class Key, class Value>
inline constexpr bool network_sorts_v =
    has_radix_encoding_v<Key> && radix_key_traits<Key>::bits == 32 &&
    (has_values_v<Value> || !radix_key_canonicalises_v<Key> || std::is_floating_point_v<Key>);

template <int Threads, int Items, int ClusterBlocks>
struct network_shape {
  static constexpr int block_threads = Threads;
  static constexpr int items = Items;
  static constexpr int cluster_blocks = ClusterBlocks;
  static constexpr int block_keys = Threads * Items;
  static constexpr int network_keys = block_keys * ClusterBlocks;
  static_assert((Items & (Items - 1)) == 0 && (Threads & (Threads - 1)) == 0 && Threads >= 32,
                "gpusort: a network's block is a power of two of warps and of items");
  static_assert((ClusterBlocks & (ClusterBlocks - 1)) == 0 && ClusterBlocks <= 8,
                "gpusort: a network's cluster is 1, 2, 4 or 8 blocks");
};

template <class Shape, class Key>
struct network_storage {
  static constexpr bool has_classes = radix_key_canonicalises_v<Key>;
  using scan_t = cub::BlockScan<unsigned long long, Shape::block_threads>;
  std::uint32_t words[2][padded(Shape::block_keys)];
  // Floats: the block's keys as loaded, for the zeros and NaNs in their input order.
  Key keys[has_classes ? Shape::block_keys : 1];
  typename scan_t::TempStorage scan;
  unsigned long long class_counts;  // the block's zeros, NaNs, keys below each (packed)
  int has_class_keys;               // the block loaded a key of either class
};

// Four counts of at most 2^16 - 1 packed in one 64-bit integer, so that one block scan sums
// all four: the zeros, the NaNs, the keys below the zeros' word and those below the NaNs'.
struct class_counts {
  static constexpr int zeros = 0, nans = 16, below_zeros = 32, below_nans = 48;
  __device__ static unsigned field(unsigned long long packed, int shift) {
    return unsigned(packed >> shift) & 0xffffu;
  }
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define GPUSORT_NETWORK_HAS_CLUSTERS 1
#else
#define GPUSORT_NETWORK_HAS_CLUSTERS 0
#endif

template <class Shape, class Word>
struct network_block {
  static constexpr int threads = Shape::block_threads;
  static constexpr int items = Shape::items;
  static constexpr int block_keys = Shape::block_keys;
  static constexpr int cluster_blocks = Shape::cluster_blocks;
  using word_t = Word;

  word_t (&buffers)[2][padded(Shape::block_keys)];
  int block;  // the block's rank in the cluster
  int buffer = 1;
  bool exchanged_across_blocks = false;

  __device__ int position(int i) const { return block * block_keys + int(threadIdx.x) * items + i; }

  // The smaller word where this position keeps the smaller of its pair, else the larger.
  __device__ static word_t keep(word_t mine, word_t other, bool keeps_smaller) {
    return keeps_smaller ? min(mine, other) : max(mine, other);
  }

  __device__ void cluster_barrier() const {
#if GPUSORT_NETWORK_HAS_CLUSTERS
    if constexpr (cluster_blocks > 1) cooperative_groups::this_cluster().sync();
#endif
  }

  // Every thread of the cluster (of the block, where it is one) has got here.
  __device__ void barrier() const {
    if constexpr (cluster_blocks > 1)
      cluster_barrier();
    else
      __syncthreads();
  }

  // `across_blocks` runs once, between the barriers of the first exchange across blocks:
  // there every block has stored what it loaded and none has left, so it may read the other
  // blocks' shared memory without barriers of its own.
  template <class AcrossBlocks>
  __device__ void step(word_t (&w)[items], int k, int j, AcrossBlocks& across_blocks) {
    const int thread = int(threadIdx.x);
    if (j < items) {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        if ((i & j) != 0) continue;
        const bool ascending = (position(i) & k) == 0;
        const word_t low = min(w[i], w[i | j]), high = max(w[i], w[i | j]);
        w[i] = ascending ? low : high;
        w[i | j] = ascending ? high : low;
      }
      return;
    }
    word_t other[items];
    if (j < 32 * items) {
#pragma unroll
      for (int i = 0; i < items; ++i) other[i] = __shfl_xor_sync(0xffffffffu, w[i], j / items);
    } else {
      word_t* mine = buffers[buffer];
      buffer ^= 1;
#pragma unroll
      for (int i = 0; i < items; ++i) mine[padded(thread * items + i)] = w[i];
      if (j < block_keys) {
        __syncthreads();
#pragma unroll
        for (int i = 0; i < items; ++i) other[i] = mine[padded((thread * items + i) ^ j)];
      } else {
#if GPUSORT_NETWORK_HAS_CLUSTERS
        // The pair is the same place in another block. Both barriers are the cluster's: the
        // partner has written before this block reads, and has read before either block
        // writes this buffer again.
        cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
        cluster.sync();
        const word_t* theirs = cluster.map_shared_rank(mine, unsigned(block ^ (j / block_keys)));
#pragma unroll
        for (int i = 0; i < items; ++i) other[i] = theirs[padded(thread * items + i)];
        if (!exchanged_across_blocks) across_blocks();
        exchanged_across_blocks = true;
        cluster.sync();
#endif
      }
    }
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const bool lower = (position(i) & j) == 0;
      const bool ascending = (position(i) & k) == 0;
      w[i] = keep(w[i], other[i], lower == ascending);
    }
  }

  // The sorted words into the buffer the last exchange did not read, for striped reads by
  // every thread of the block.
  __device__ const word_t* stage_sorted(const word_t (&w)[items]) {
    word_t* staged = buffers[buffer];
#pragma unroll
    for (int i = 0; i < items; ++i) staged[padded(int(threadIdx.x) * items + i)] = w[i];
    __syncthreads();
    return staged;
  }

  template <class AcrossBlocks>
  __device__ void sort(word_t (&w)[items], AcrossBlocks&& across_blocks) {
    constexpr int network_keys = Shape::network_keys;
#pragma unroll
    for (int k = 2; k <= network_keys; k *= 2) {
#pragma unroll
      for (int j = k / 2; j > 0; j /= 2) step(w, k, j, across_blocks);
    }
  }
};

// Sorts keys[0, count), count <= Shape::network_keys, in place: one cluster of
// Shape::cluster_blocks blocks (a plain block where that is 1).
template <class Shape, class Key>
__global__ void __launch_bounds__(Shape::block_threads)
    network_sort_kernel(Key* keys, int count, ordered_bits_t<Key> flip) {
  using traits = radix_key_traits<Key>;
  using bits_t = ordered_bits_t<Key>;
  using word_t = std::uint32_t;
  using storage_t = network_storage<Shape, Key>;
  constexpr int threads = Shape::block_threads;
  constexpr int items = Shape::items;
  constexpr bool has_classes = storage_t::has_classes;
  __shared__ storage_t shared;
#if !GPUSORT_NETWORK_HAS_CLUSTERS
  if constexpr (Shape::cluster_blocks > 1) return;  // never launched before sm_90
#endif
  const int thread = int(threadIdx.x);
  network_block<Shape, word_t> network{shared.words, int(blockIdx.x)};
  const int base = network.block * Shape::block_keys;

  // Striped, coalesced loads into the first buffer; positions past count take the largest
  // word (which of the copies of a tied word land past count does not matter).
  bool has_class_key = false;
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int local = i * threads + thread;
    word_t word = ~word_t(0);
    if (base + local < count) {
      const Key key = keys[base + local];
      word = word_t(ordered_bits(key, flip));
      if constexpr (has_classes) {
        shared.keys[local] = key;
        has_class_key |= traits::canonicalised(key);
      }
    }
    shared.words[0][padded(local)] = word;
  }
  // Whether any block of the cluster loaded a zero or a NaN: each block's own answer, then
  // the others' during the network's first exchange across blocks.
  bool classes_to_place = false;
  if constexpr (has_classes) {
    classes_to_place = __syncthreads_or(has_class_key);
    if (thread == 0) shared.has_class_keys = classes_to_place;
  } else {
    __syncthreads();
  }
  word_t w[items];
#pragma unroll
  for (int i = 0; i < items; ++i) w[i] = shared.words[0][padded(thread * items + i)];

  network.sort(w, [&] {
#if GPUSORT_NETWORK_HAS_CLUSTERS
    if constexpr (has_classes) {
      cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
      for (int b = 0; b < Shape::cluster_blocks; ++b)
        classes_to_place |= *cluster.map_shared_rank(&shared.has_class_keys, unsigned(b)) != 0;
    }
#endif
  });

  // The classes' words: every zero's and every NaN's (+0.0 and a NaN are all-zero and
  // all-one bit patterns).
  word_t zero_word = 0, nan_word = 0;
  if constexpr (has_classes) {
    zero_word = word_t(ordered_bits(gpusort::detail::bit_cast<Key>(bits_t(0)), flip));
    nan_word = word_t(ordered_bits(gpusort::detail::bit_cast<Key>(bits_t(~bits_t(0))), flip));
  }

  // Striped, coalesced stores of the staged words; words of a class are left to its keys,
  // placed below.
  const word_t* staged = network.stage_sorted(w);
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int local = i * threads + thread;
    if (base + local >= count) continue;
    const word_t word = staged[padded(local)];
    if (has_classes && classes_to_place && (word == zero_word || word == nan_word)) continue;
    keys[base + local] = traits::decode(bits_t(bits_t(word) ^ flip));
  }
  if constexpr (has_classes) {
    if (!classes_to_place) return;  // the same in every block of the cluster
    // Each class's keys, in input order, from the start of its word's run: that start is the
    // number of keys whose words are below the class's.
    unsigned long long counts = 0;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int local = thread * items + i;
      if (base + local >= count) continue;
      const word_t word = word_t(ordered_bits(shared.keys[local], flip));
      counts += (unsigned long long)(word == zero_word) << class_counts::zeros;
      counts += (unsigned long long)(word == nan_word) << class_counts::nans;
      counts += (unsigned long long)(word < zero_word) << class_counts::below_zeros;
      counts += (unsigned long long)(word < nan_word) << class_counts::below_nans;
    }
    unsigned long long before = 0, block_total = 0;
    typename storage_t::scan_t(shared.scan).ExclusiveSum(counts, before, block_total);
    if (thread == 0) shared.class_counts = block_total;
    network.cluster_barrier();
    unsigned long long total = block_total;
#if GPUSORT_NETWORK_HAS_CLUSTERS
    if constexpr (Shape::cluster_blocks > 1) {
      cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
      total = 0;
      for (int b = 0; b < Shape::cluster_blocks; ++b) {
        const unsigned long long theirs = *cluster.map_shared_rank(&shared.class_counts, unsigned(b));
        if (b < network.block) before += theirs;
        total += theirs;
      }
    }
#endif
    int zeros = int(class_counts::field(total, class_counts::below_zeros) +
                    class_counts::field(before, class_counts::zeros));
    int nans = int(class_counts::field(total, class_counts::below_nans) +
                   class_counts::field(before, class_counts::nans));
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int local = thread * items + i;
      if (base + local >= count) continue;
      const Key key = shared.keys[local];
      const word_t word = word_t(ordered_bits(key, flip));
      if (word == zero_word) keys[zeros++] = key;
      if (word == nan_word) keys[nans++] = key;
    }
    network.cluster_barrier();  // no block leaves while another reads its counts
  }
}

template <class Shape>
struct network_pairs_storage {
  std::uint64_t words[2][padded(Shape::block_keys)];
};

// Sorts keys[0, count) and values with them, count <= Shape::network_keys, in place: one
// cluster of Shape::cluster_blocks blocks (a plain block where that is 1). Stable.
template <class Shape, class Key, class Value>
__global__ void __launch_bounds__(Shape::block_threads)
    network_sort_pairs_kernel(Key* keys, Value* values, int count, ordered_bits_t<Key> flip) {
  using traits = radix_key_traits<Key>;
  using bits_t = ordered_bits_t<Key>;
  using word_t = std::uint64_t;
  constexpr int threads = Shape::block_threads;
  constexpr int items = Shape::items;
  __shared__ network_pairs_storage<Shape> shared;
#if !GPUSORT_NETWORK_HAS_CLUSTERS
  if constexpr (Shape::cluster_blocks > 1) return;  // never launched before sm_90
#endif
  const int thread = int(threadIdx.x);
  network_block<Shape, word_t> network{shared.words, int(blockIdx.x)};
  const int base = network.block * Shape::block_keys;

  // Striped, coalesced loads; positions past count take the largest word, above every key's.
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int local = i * threads + thread;
    word_t word = ~word_t(0);
    if (base + local < count)
      word = word_t(std::uint32_t(ordered_bits(keys[base + local], flip))) << 32 |
             std::uint32_t(base + local);
    shared.words[0][padded(local)] = word;
  }
  __syncthreads();
  word_t w[items];
#pragma unroll
  for (int i = 0; i < items; ++i) w[i] = shared.words[0][padded(thread * items + i)];
  network.sort(w, [] {});

  // Each striped output position gathers its pair from the input position its staged word
  // names, and writes it only after every block of the cluster has read what it needs.
  const word_t* staged = network.stage_sorted(w);
  Key out_keys[items];
  Value out_values[items];
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int local = i * threads + thread;
    if (base + local >= count) continue;
    const word_t word = staged[padded(local)];
    const std::uint32_t from = std::uint32_t(word);
    out_values[i] = values[from];
    if constexpr (radix_key_canonicalises_v<Key>)
      out_keys[i] = keys[from];
    else
      out_keys[i] = traits::decode(bits_t(bits_t(word >> 32) ^ flip));
  }
  network.barrier();
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int local = i * threads + thread;
    if (base + local >= count) continue;
    keys[base + local] = out_keys[i];
    values[base + local] = out_values[i];
  }
}

}  // namespace gpusort::backends::radix
