// Kernels of the counting sort of narrow keys (keys only: integer, character and bool keys of
// at most 16 bits, whose equal keys are equal bit for bit, and 16-bit floats, whose are but
// for zeros and NaNs: class_patterns). In launch order:
//   count_values  one read of the keys counts each value (its ordered bits: the bin) in a
//                 shared-memory histogram per block, and writes the block's counts out (at
//                 most 256 bins: adds them to the global counts)
//   sum_bins      (more than 256 bins) per group of bins: each bin's count over all blocks,
//                 its offset inside the group (exclusive scan); the last block to finish
//                 scans the groups' totals
//   fill_values   every output position gets the value of the bin that holds it: each thread
//                 writes 16 bytes, so the work is the same whatever the keys (at most 256
//                 bins: each block scans the global counts itself, in shared memory)
// About 2 bytes moved per byte of keys (one read, one write), where an LSD radix sort moves
// each key 3 times per pass.
#pragma once

#include <gpusort/detail/policies/bit_cast.cuh>
#include <gpusort/detail/policies/key_traits.cuh>
#include "../common/ordered_bits.cuh"
#include "../common/tiles.cuh"
#include "counting_layout.cuh"

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpusort::backends::radix {

// Shapes are plain numbers (not the tuning type), so that tunings with the same counting
// knobs (radix_tuning_sm90 and its small tiles) share one compiled kernel per key type.
template <class Key, int CountThreads, int CountVectors, int LanePrivateMaxBins, int GroupBins,
          int FillThreads, int FillVectors>
struct counting_shape {
  using key_type = Key;
  using traits = radix_key_traits<Key>;
  using bits_type = typename traits::bits_type;
  static constexpr int value_bits = traits::bits;  // 1 (bool), 8 or 16
  // 16-bit floats: two classes of keys share a bin each without sharing their bits (zeros,
  // NaNs): count_values notes each class's bit pattern (class_patterns).
  static constexpr bool has_classes = is_half_float_key_v<Key>;
  static constexpr std::size_t bins = std::size_t(1) << value_bits;
  static constexpr int keys_per_vector = counting_vector_bytes / int(sizeof(Key));

  static constexpr int count_threads = CountThreads;
  static constexpr int count_vectors = CountVectors;
  // Narrow histograms (at most LanePrivateMaxBins bins): each warp lane its own copy of 32-bit
  // counters, counter bin x 32 + lane, so that a warp's adds fall on 32 different banks
  // whatever the keys; none returns a value (a fire-and-forget shared reduction), none ever
  // fills up (a block counts fewer than 2^32 keys: the host gives it no more). The block's
  // counts go straight into the global counts, and the fill scans those itself: no sum_bins.
  // Wider ones (u16): one copy of 16-bit counters, two to a word (65536 bins in 128 KB),
  // flushed into the global counts as they fill up (counting_layout.cuh).
  static constexpr bool lane_private = bins <= std::size_t(LanePrivateMaxBins);
  static constexpr int copies = lane_private ? 32 : 1;
  static constexpr int counter_bytes = lane_private ? 4 : 2;
  static constexpr std::size_t histogram_bytes = bins * copies * counter_bytes;
  // A block's count of a bin, written out for sum_bins (16-bit counters): below 2^15 (the
  // rest went to the global count as it filled up).
  using block_count_t = std::uint16_t;
  // The most keys one 16-bit counter gets between two barriers of count_values: one step of
  // the block, and the head and tail keys in the first step.
  static constexpr std::size_t step_increments =
      std::size_t(count_threads) * count_vectors * keys_per_vector + 2 * keys_per_vector;
  static_assert(lane_private || step_increments <= max_step_increments,
                "gpusort: counting sort: too many keys per count step for 16-bit counters; give "
                "count_threads x count_vectors_per_thread fewer keys");
  static_assert(!lane_private || bins <= 256,
                "gpusort: counting sort: lane-private histograms are scanned by one fill block "
                "of at least 256 threads: lane_private_max_bins at most 256");
  static_assert(count_threads % 32 == 0 && count_threads >= 2 * keys_per_vector,
                "gpusort: counting sort: count_threads must be whole warps, at least 32");

  // sum_bins: a block per group of bins (its threads: at least a warp, for bool's 2 bins).
  static constexpr int group_bins = int(bins < std::size_t(GroupBins) ? bins : GroupBins);
  static constexpr int groups = int(bins / std::size_t(group_bins));
  static constexpr int sum_threads = group_bins < 32 ? 32 : group_bins;
  static_assert((GroupBins & (GroupBins - 1)) == 0 && GroupBins <= 1024,
                "gpusort: counting sort: group_bins must be a power of two, at most 1024");
  static_assert(groups <= sum_threads,
                "gpusort: counting sort: the last sum_bins block scans every group's total; "
                "give group_bins at least sqrt(bins)");

  static constexpr int fill_threads = FillThreads;
  static constexpr int fill_vectors = FillVectors;
  static constexpr int fill_tile_vectors = fill_threads * fill_vectors;
  static_assert(fill_threads >= 2 * keys_per_vector && fill_threads % 64 == 0,
                "gpusort: counting sort: fill_threads must be whole pairs of warps");
  static_assert(!lane_private || std::size_t(fill_threads) >= bins,
                "gpusort: counting sort: a fill block scans a lane-private histogram's bins, one "
                "per thread: fill_threads at least lane_private_max_bins");

  __host__ __device__ static constexpr std::size_t bin_group(std::size_t bin) {
    return bin / std::size_t(group_bins);
  }
};

template <class Tuning, class Key>
using counting_shape_t =
    counting_shape<Key, Tuning::knobs.counting.count_threads,
                   Tuning::knobs.counting.count_vectors_per_thread,
                   Tuning::knobs.counting.lane_private_max_bins,
                   Tuning::knobs.counting.group_bins, Tuning::knobs.counting.fill_threads,
                   Tuning::knobs.counting.fill_vectors_per_thread>;

// Keys in a 16-byte vector, taken out and put in by shifts (through a union the vector
// would go through local memory). k is a constant once the callers' loops are unrolled.
template <class Key>
using raw_key_bits_t = std::conditional_t<sizeof(Key) == 1, std::uint8_t, std::uint16_t>;

template <class Key>
__device__ __forceinline__ Key key_in_vector(const uint4& vector, int k) {
  constexpr int per_word = 4 / int(sizeof(Key));
  const unsigned words[4] = {vector.x, vector.y, vector.z, vector.w};
  const unsigned raw = words[k / per_word] >> ((k % per_word) * 8 * int(sizeof(Key)));
  return detail::bit_cast<Key>(raw_key_bits_t<Key>(raw));
}

// sum_bins: each thread loads this many blocks' counts of its bin before it adds any. A
// 16-bit histogram has 132 count blocks from 2^23 keys on the H200; four at a time, sum_bins
// took 21 us under ncu at 2^24 (a round trip per four), and sixteen left the whole sort of
// 2^22-2^24 u16 keys 4-5 % faster (bench/results/NOTES.md).
inline constexpr int sum_rows_in_flight = 16;

// fill_values with a wide histogram: a block whose positions span at most this many bins
// stages their starts in shared memory and writes vector by vector; one that spans more
// writes bin by bin (fill_run).
inline constexpr std::size_t fill_dense_block_bins = 64;

// A vector whose keys are all `key`.
template <class Key>
__device__ __forceinline__ uint4 vector_of_one_key(Key key) {
  constexpr unsigned replicate = sizeof(Key) == 1 ? 0x01010101u : 0x00010001u;
  const unsigned word = unsigned(detail::bit_cast<raw_key_bits_t<Key>>(key)) * replicate;
  return make_uint4(word, word, word, word);
}

// keys[from, to) = key: single keys up to a 16-byte boundary (vectors start `head` keys into
// the range), whole vectors, then single keys.
template <class Key>
__device__ __forceinline__ void fill_run(Key* keys, std::size_t head, std::size_t from,
                                         std::size_t to, Key key) {
  constexpr std::size_t per_vector = counting_vector_bytes / sizeof(Key);
  std::size_t p = from;
  for (; p < to && (p - head) % per_vector != 0; ++p) keys[p] = key;
  const uint4 vector = vector_of_one_key(key);
  for (; p + per_vector <= to; p += per_vector)
    *reinterpret_cast<uint4*>(keys + p) = vector;
  for (; p < to; ++p) keys[p] = key;
}

template <class Key>
struct vector_builder {
  unsigned words[4] = {0, 0, 0, 0};
  __device__ __forceinline__ void put(int k, Key key) {
    constexpr int per_word = 4 / int(sizeof(Key));
    words[k / per_word] |= unsigned(detail::bit_cast<raw_key_bits_t<Key>>(key))
                           << ((k % per_word) * 8 * int(sizeof(Key)));
  }
  __device__ __forceinline__ uint4 vector() const {
    return make_uint4(words[0], words[1], words[2], words[3]);
  }
};

// What count_values saw of 16-bit float keys' two classes (zeros: -0.0 and +0.0; NaNs: any
// payload), in device memory that starts zeroed: per class 0 (no key of it) or its bit
// pattern + 1, and `mixed` set where a class holds two patterns. Then the fill's output is
// not the stable sort's (which keeps those keys in input order): the class keys are kept
// aside before it and written back after it (counting_classes.cuh, gated on `mixed`).
struct class_patterns {
  unsigned seen[2];
  unsigned mixed;
};

// A 16-bit float key's class: 0 for a zero, 1 for a NaN, -1 for every other key.
template <class Key>
__device__ __forceinline__ int class_of_key(Key key) {
  using traits = radix_key_traits<Key>;
  const unsigned magnitude = detail::bit_cast<std::uint16_t>(key) & traits::magnitude_mask;
  if (magnitude == 0) return 0;
  return magnitude > traits::infinity_bits ? 1 : -1;
}

// A thread's view of the classes while it counts: registers, merged at the end of the block.
template <class Key>
struct class_tracker {
  unsigned zeros = 0, nans = 0;
  bool mixed = false;

  __device__ __forceinline__ void note(const Key& key) {
    const int key_class = class_of_key(key);
    if (key_class < 0) return;  // every other key
    const unsigned tag = unsigned(detail::bit_cast<std::uint16_t>(key)) + 1;
    if (key_class == 0) {
      mixed |= zeros != 0 && zeros != tag;
      zeros = tag;
    } else {
      mixed |= nans != 0 && nans != tag;
      nans = tag;
    }
  }
};

// The bins of 16-bit floats' two classes: every zero in one, every NaN in another.
struct class_bins {
  std::uint16_t zero, nan;
};
template <class Key>
__device__ __forceinline__ class_bins class_bins_of(
    typename radix_key_traits<Key>::bits_type flip) {
  using traits = radix_key_traits<Key>;
  return {std::uint16_t(ordered_bits(detail::bit_cast<Key>(std::uint16_t(0)), flip)),
          std::uint16_t(
              ordered_bits(detail::bit_cast<Key>(std::uint16_t(traits::magnitude_mask)), flip))};
}

// Adds a pattern (0: none) to a class's record; returns whether the record held another.
__device__ __forceinline__ bool merge_pattern(unsigned* record, unsigned pattern) {
  if (pattern == 0) return false;
  const unsigned before = atomicCAS(record, 0u, pattern);
  return before != 0 && before != pattern;
}

// One block's histogram of the bins of its slice in dynamic shared memory: 16-bit counters
// packed two to a word, counter bin - first bin of the slice; or (lane-private) 32-bit
// counters, counter bin * 32 + lane.
template <class Shape>
struct slice_histogram {
  unsigned int* words;
  unsigned int slice;
  int slice_shift;  // value_bits - slice bits: bin >> slice_shift is the bin's slice
  unsigned long long* global_counts;  // [bins]: where full counters go

  __device__ __forceinline__ unsigned local_bin(unsigned bin) const {
    return bin & ((1u << slice_shift) - 1u);
  }

  // Adds a run of `length` keys of one bin (if the bin is in this slice).
  __device__ __forceinline__ void add(unsigned bin, unsigned length) const {
    if ((bin >> slice_shift) != slice) return;
    if constexpr (Shape::lane_private) {
      atomicAdd(&words[local_bin(bin) * Shape::copies + threadIdx.x % 32], length);
      return;
    }
    const counter_place place = place_of_counter(local_bin(bin));
    const unsigned before =
        (atomicAdd(&words[place.word], length << place.shift) >> place.shift) & 0xFFFFu;
    if (crosses_flush_threshold(before, length)) {
      atomicAdd(&global_counts[bin], static_cast<unsigned long long>(counter_flush_threshold));
      atomicSub(&words[place.word], counter_flush_threshold << place.shift);
    }
  }

  // Adds one key of `bin` to this lane's copy (lane-private histograms: never full, no slices
  // but one, which the host checks).
  __device__ __forceinline__ void add_one(unsigned bin) const {
    static_assert(Shape::lane_private, "add_one: lane-private histograms only");
    atomicAdd(&words[bin * Shape::copies + threadIdx.x % 32], 1u);
  }

  __device__ __forceinline__ unsigned counter(unsigned index) const {
    if constexpr (Shape::lane_private) return words[index];
    const counter_place place = place_of_counter(index);
    return (words[place.word] >> place.shift) & 0xFFFFu;
  }
};

// Whether the keys of a 16-byte vector are all one value, bit for bit (`first` is its first).
template <class Key>
__device__ __forceinline__ bool vector_holds_only(const uint4& vector, Key first) {
  const uint4 same = vector_of_one_key(first);
  return vector.x == same.x && vector.y == same.y && vector.z == same.z && vector.w == same.w;
}

// Counts the keys of one slice of the bins (blockIdx.y) over a grid-stride share of the
// vectors (blockIdx.x), then adds the block's count of each bin to global_counts[bin]
// (lane-private histograms) or writes it to block_counts[blockIdx.x][bin] (16-bit counters).
// Each step loads the next step's vectors before counting its own; with 16-bit counters it
// ends with a barrier (which bounds the counters: counting_layout.cuh).
// Shared memory: the slice's histogram, (bins >> slice bits) x copies counters.
// (One block per SM in the launch bounds: without it ptxas spilled the u16 kernel at 32
// registers.)
template <class Shape>
__global__ void __launch_bounds__(Shape::count_threads, 1)
    count_values(const typename Shape::key_type* keys, vector_split split,
                 typename Shape::bits_type flip, int slice_bits,
                 unsigned long long* global_counts /* [bins], zeroed */,
                 typename Shape::block_count_t* block_counts /* [blocks per slice][bins] */,
                 class_patterns* classes /* zeroed; 16-bit floats only */) {
  using Key = typename Shape::key_type;
  constexpr int threads = Shape::count_threads;
  constexpr int vectors_per_thread = Shape::count_vectors;
  constexpr int keys_per_vector = Shape::keys_per_vector;
  extern __shared__ __align__(16) unsigned int histogram_words[];
  const slice_histogram<Shape> histogram{histogram_words, blockIdx.y,
                                         Shape::value_bits - slice_bits, global_counts};
  const unsigned slice_bins = unsigned(Shape::bins >> slice_bits);
  const unsigned words = unsigned(slice_bins * Shape::copies * Shape::counter_bytes / 4);
  for (unsigned w = threadIdx.x; w < words; w += threads) histogram_words[w] = 0;
  __shared__ class_patterns block_classes;
  if constexpr (Shape::has_classes)
    if (threadIdx.x == 0) block_classes = class_patterns{{0, 0}, 0};
  __syncthreads();
  class_tracker<Key> tracker;

  const auto bin_of = [flip](const Key& key) { return unsigned(ordered_bits(key, flip)); };
  // The keys before the first and after the last whole vector.
  if (blockIdx.x == 0 && threadIdx.x < split.head + split.tail) {
    const Key key = keys[loose_key_position(split, threadIdx.x, sizeof(Key))];
    histogram.add(bin_of(key), 1);
    if constexpr (Shape::has_classes) tracker.note(key);
  }

  const uint4* vectors = reinterpret_cast<const uint4*>(keys + split.head);
  const std::size_t step_vectors = std::size_t(threads) * vectors_per_thread;
  const std::size_t stride = std::size_t(gridDim.x) * step_vectors;
  const auto load = [&](std::size_t step_begin, uint4 (&into)[vectors_per_thread]) {
#pragma unroll
    for (int j = 0; j < vectors_per_thread; ++j) {
      const std::size_t v = step_begin + std::size_t(j) * threads + threadIdx.x;
      if (v < split.vectors) into[j] = __ldcs(vectors + v);
    }
  };
  uint4 current[vectors_per_thread];
  std::size_t step_begin = std::size_t(blockIdx.x) * step_vectors;
  load(step_begin, current);
  for (; step_begin < split.vectors; step_begin += stride) {
    uint4 next[vectors_per_thread];
    if (step_begin + stride < split.vectors) load(step_begin + stride, next);
    if constexpr (Shape::lane_private) {
      // One add per key, none merged into runs: a lane's counters are its own within the
      // warp, so equal keys cost no more than any others (and the run test costs time).
#pragma unroll
      for (int j = 0; j < vectors_per_thread; ++j) {
        if (step_begin + std::size_t(j) * threads + threadIdx.x >= split.vectors) continue;
#pragma unroll
        for (int k = 0; k < keys_per_vector; ++k)
          histogram.add_one(bin_of(key_in_vector<Key>(current[j], k)));
      }
    } else {
      // One add per key, but one add for a vector of one value: a run of equal keys per
      // thread instead cost a compare and a branch per key, 22 % of the count of uniform
      // keys, and one value everywhere needs the vectors' adds (32 lanes on one word).
#pragma unroll
      for (int j = 0; j < vectors_per_thread; ++j) {
        if (step_begin + std::size_t(j) * threads + threadIdx.x >= split.vectors) continue;
        const Key first = key_in_vector<Key>(current[j], 0);
        if (vector_holds_only(current[j], first)) {
          histogram.add(bin_of(first), keys_per_vector);
          if constexpr (Shape::has_classes) tracker.note(first);
          continue;
        }
#pragma unroll
        for (int k = 0; k < keys_per_vector; ++k) {
          const Key key = key_in_vector<Key>(current[j], k);
          histogram.add(bin_of(key), 1);
          if constexpr (Shape::has_classes) tracker.note(key);
        }
      }
    }
    // 16-bit counters: every one below the threshold again before the next step.
    if constexpr (!Shape::lane_private) __syncthreads();
#pragma unroll
    for (int j = 0; j < vectors_per_thread; ++j) current[j] = next[j];
  }

  // The block's count of each bin. Lane-private copies: a thread sums the 32 counters of one
  // bin, starting at a different one per thread so that the reads spread over the banks, and
  // adds the sum to the global count. (The barrier: a block with no step has only counted
  // head and tail keys.)
  __syncthreads();
  if constexpr (Shape::lane_private) {
    for (unsigned b = threadIdx.x; b < slice_bins; b += threads) {
      unsigned count = 0;
#pragma unroll
      for (int c = 0; c < Shape::copies; ++c)
        count += histogram.counter(b * Shape::copies + (unsigned(c) + b) % Shape::copies);
      if (count != 0)
        atomicAdd(&global_counts[(blockIdx.y << histogram.slice_shift) + b],
                  static_cast<unsigned long long>(count));
    }
  } else {
    typename Shape::block_count_t* row = block_counts + std::size_t(blockIdx.x) * Shape::bins +
                                         std::size_t(blockIdx.y) * slice_bins;
    for (unsigned b = threadIdx.x; b < slice_bins; b += threads)
      row[b] = typename Shape::block_count_t(histogram.counter(b));
  }
  // The classes' patterns: the threads' into the block's, the block's into the global ones.
  if constexpr (Shape::has_classes) {
    bool mixed = tracker.mixed;
    mixed |= merge_pattern(&block_classes.seen[0], tracker.zeros);
    mixed |= merge_pattern(&block_classes.seen[1], tracker.nans);
    if (mixed) block_classes.mixed = 1;
    __syncthreads();
    if (threadIdx.x == 0) {
      bool global_mixed = block_classes.mixed != 0;
      global_mixed |= merge_pattern(&classes->seen[0], block_classes.seen[0]);
      global_mixed |= merge_pattern(&classes->seen[1], block_classes.seen[1]);
      if (global_mixed) atomicOr(&classes->mixed, 1u);
    }
  }
}

// One group of group_bins bins per block: each bin's total (full counters plus every count
// block's rest), its offset inside the group, and the group's total; the last block to finish
// turns the groups' totals into their starts. A bin b then starts at
// group_starts[b / group_bins] + bin_offsets[b].
template <class Shape>
__global__ void __launch_bounds__(Shape::sum_threads)
    sum_bins(const typename Shape::block_count_t* block_counts, std::size_t count_blocks,
             const unsigned long long* global_counts, unsigned long long* bin_offsets,
             unsigned long long* group_starts /* [groups] */,
             unsigned int* groups_done /* zeroed */) {
  using scan_t = cub::BlockScan<unsigned long long, Shape::sum_threads>;
  __shared__ typename scan_t::TempStorage scan_storage;
  const std::size_t bin = std::size_t(blockIdx.x) * Shape::group_bins + threadIdx.x;
  const bool in_group = threadIdx.x < Shape::group_bins;
  unsigned long long total = 0;
  if (in_group) {
    // sum_rows_in_flight blocks' counts loaded at once (16 bits each: a round's sum fits 32).
    total = global_counts[bin];
    for (std::size_t b = 0; b < count_blocks; b += sum_rows_in_flight) {
      unsigned counts[sum_rows_in_flight];
#pragma unroll
      for (int i = 0; i < sum_rows_in_flight; ++i)
        counts[i] = b + i < count_blocks ? block_counts[(b + i) * Shape::bins + bin] : 0u;
      unsigned round = 0;
#pragma unroll
      for (int i = 0; i < sum_rows_in_flight; ++i) round += counts[i];
      total += round;
    }
  }
  unsigned long long offset = 0, group_total = 0;
  scan_t(scan_storage).ExclusiveSum(total, offset, group_total);
  if (in_group) bin_offsets[bin] = offset;

  if constexpr (Shape::groups == 1) {
    if (threadIdx.x == 0) group_starts[0] = 0;
  } else {
    // The last block to finish turns the totals into starts: its ticket says every other
    // block's total is in (each block fences its store before it takes a ticket).
    __shared__ bool last_block;
    if (threadIdx.x == 0) group_starts[blockIdx.x] = group_total;
    __threadfence();
    __syncthreads();  // also: every thread is done with scan_storage
    if (threadIdx.x == 0) last_block = atomicAdd(groups_done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last_block) return;
    __threadfence();
    const unsigned long long group_sum =
        threadIdx.x < Shape::groups ? __ldcg(&group_starts[threadIdx.x]) : 0;
    unsigned long long group_start = 0;
    scan_t(scan_storage).ExclusiveSum(group_sum, group_start);
    if (threadIdx.x < Shape::groups) group_starts[threadIdx.x] = group_start;
  }
}

// The sum of `count` over the warp's lanes, in every lane.
__device__ __forceinline__ int warp_sum(int count) {
#pragma unroll
  for (int lanes = 16; lanes > 0; lanes /= 2) count += __shfl_xor_sync(0xffffffffu, count, lanes);
  return count;
}

// bin_of_position over a wide histogram, by one warp in two steps: the group among the
// groups' starts (in shared memory), then the bin among the group's offsets, each lane
// counting the starts at or below `position` (starts never decrease, so the count less one
// is the last such). Every lane of the warp calls it and gets the bin. One round trip to L2,
// where a binary search over every bin's start took one per step (16, about 8 us a block:
// most of a fill block's time; H200, bench/results/NOTES.md).
template <class Shape>
__device__ __forceinline__ std::size_t bin_of_position_by_warp(
    const unsigned long long* staged_group_starts, const unsigned long long* bin_offsets,
    unsigned long long position) {
  constexpr int group_bins = Shape::group_bins;
  static_assert(group_bins % 32 == 0, "a group's bins are whole rows of a warp");
  const int lane = int(threadIdx.x % 32);
  int groups_at_or_below = 0;
  for (int g = lane; g < Shape::groups; g += 32)
    groups_at_or_below += staged_group_starts[g] <= position ? 1 : 0;
  const int group = warp_sum(groups_at_or_below) - 1;
  const unsigned long long group_start = staged_group_starts[group];
  const std::size_t first_bin = std::size_t(group) * group_bins;
  int bins_at_or_below = 0;
#pragma unroll
  for (int b = lane; b < group_bins; b += 32)
    bins_at_or_below += group_start + __ldg(&bin_offsets[first_bin + b]) <= position ? 1 : 0;
  return first_bin + std::size_t(warp_sum(bins_at_or_below) - 1);
}

// Each block writes fill_tile_vectors whole vectors of the output; block 0 also the head and
// tail keys. A vector's keys take the value of the bin holding each position: a binary search
// over the bins' starts, narrowed to the bins of the block's own positions (found once per
// block: by two warps, bin_of_position_by_warp, for wide histograms), and only where a
// position passes the end of the bin before it. The starts: with lane-private histograms,
// each block's exclusive scan of the bins' totals (bin_totals) in shared memory; else
// group_starts[group] (staged in shared memory) + bin_offsets[bin] from sum_bins.
template <class Shape>
__global__ void __launch_bounds__(Shape::fill_threads)
    fill_values(typename Shape::key_type* keys, std::size_t n, vector_split split,
                typename Shape::bits_type flip, const unsigned long long* bin_totals,
                const unsigned long long* bin_offsets, const unsigned long long* group_starts,
                const class_patterns* classes /* 16-bit floats only */) {
  using Key = typename Shape::key_type;
  using bits_type = typename Shape::bits_type;
  using traits = radix_key_traits<Key>;
  constexpr int threads = Shape::fill_threads;
  constexpr std::size_t last_bin = Shape::bins - 1;
  // 16-bit floats: each class's bit pattern (where a class holds two, restore_class_keys
  // writes its keys over the bin afterwards).
  unsigned zeros = 0, nans = 0;
  if constexpr (Shape::has_classes) {
    zeros = classes->seen[0];
    nans = classes->seen[1];
  }
  __shared__ std::size_t block_bins[2];  // the bins of the block's first and last position
  // Wide histograms: every group's start, and the starts of a dense block's bins and the
  // next one's.
  constexpr std::size_t staged_bins = Shape::lane_private ? 1 : fill_dense_block_bins + 2;
  __shared__ unsigned long long staged_starts[staged_bins];
  __shared__ unsigned long long staged_group_starts[Shape::lane_private ? 1 : Shape::groups];
  __shared__ unsigned long long scanned_starts[Shape::lane_private ? Shape::bins : 1];

  if constexpr (Shape::lane_private) {
    using scan_t = cub::BlockScan<unsigned long long, threads>;
    __shared__ typename scan_t::TempStorage scan_storage;
    const unsigned long long total = threadIdx.x < Shape::bins ? bin_totals[threadIdx.x] : 0;
    unsigned long long bin_start = 0;
    scan_t(scan_storage).ExclusiveSum(total, bin_start);
    if (threadIdx.x < Shape::bins) scanned_starts[threadIdx.x] = bin_start;
    __syncthreads();
  } else {
    for (int g = int(threadIdx.x); g < Shape::groups; g += threads)
      staged_group_starts[g] = __ldg(&group_starts[g]);
    __syncthreads();
  }
  const auto start = [&](std::size_t bin) -> unsigned long long {
    if (bin > last_bin) return n;
    if constexpr (Shape::lane_private) return scanned_starts[bin];
    else return staged_group_starts[Shape::bin_group(bin)] + __ldg(&bin_offsets[bin]);
  };
  // A bin's value; for 16-bit floats' zeros and NaNs, the one bit pattern the input had.
  const auto value_of = [=](std::size_t bin) {
    if constexpr (Shape::has_classes) {
      const class_bins bins = class_bins_of<Key>(flip);
      if (bin == bins.zero && zeros != 0) return detail::bit_cast<Key>(std::uint16_t(zeros - 1));
      if (bin == bins.nan && nans != 0) return detail::bit_cast<Key>(std::uint16_t(nans - 1));
    }
    return traits::decode(bits_type(bits_type(bin) ^ flip));
  };

  const std::size_t first_vector = std::size_t(blockIdx.x) * Shape::fill_tile_vectors;
  const std::size_t end_vector = first_vector + Shape::fill_tile_vectors < split.vectors
                                     ? first_vector + Shape::fill_tile_vectors
                                     : split.vectors;
  if (first_vector < end_vector) {
    // Two searches, in two warps.
    const int warp = int(threadIdx.x / 32);
    if (warp == 0 || warp == threads / 64) {
      const std::size_t position =
          split.head + (warp == 0 ? first_vector : end_vector) * Shape::keys_per_vector -
          (warp == 0 ? 0 : 1);
      std::size_t bin;
      if constexpr (Shape::lane_private)
        bin = bin_of_position(start, 0, last_bin, position);
      else
        bin = bin_of_position_by_warp<Shape>(staged_group_starts, bin_offsets, position);
      if (threadIdx.x % 32 == 0) block_bins[warp == 0 ? 0 : 1] = bin;
    }
    __syncthreads();
    const std::size_t low = block_bins[0], high = block_bins[1];
    uint4* vectors = reinterpret_cast<uint4*>(keys + split.head);
    // Wide histograms whose block spans many bins (each then holds few of its keys, or the
    // bins between are empty): whole bins, so that no position needs a search (searches over
    // many bins in L2, per key where bins are shorter than a vector, made one block of 2^22
    // f16 keys uniform in +-60000 take most of the kernel's 72 us). A warp takes a group of
    // bins at a time, reads their offsets at once (the next bin's offset from the next
    // lane), and passes over groups without keys in the block's positions: 16-bit floats
    // uniform in value leave one block some 40 K nearly empty bins around zero (f16 in
    // +-60000 at 2^24), which its threads, a bin at a time each, took 69 us to walk (H200,
    // bench/results/NOTES.md).
    // (Lane-private histograms, 8-bit and bool keys, read every start from shared memory and
    // are never wide; bool's groups of 2 bins are narrower than a warp's row.)
    const bool wide = !Shape::lane_private && high - low > fill_dense_block_bins;
    if constexpr (!Shape::lane_private) {
      if (wide) {
        const std::size_t block_first = split.head + first_vector * Shape::keys_per_vector;
        const std::size_t block_end = split.head + end_vector * Shape::keys_per_vector;
        constexpr int warps = threads / 32;
        constexpr int rows = Shape::group_bins / 32;
        const int lane = int(threadIdx.x % 32);
        for (std::size_t group = Shape::bin_group(low) + std::size_t(warp);
             group <= Shape::bin_group(high); group += warps) {
          const unsigned long long group_begin = staged_group_starts[group];
          const unsigned long long group_end =
              group + 1 < std::size_t(Shape::groups) ? staged_group_starts[group + 1] : n;
          if (group_begin == group_end || group_begin >= block_end || group_end <= block_first)
            continue;
          const std::size_t first_bin = group * Shape::group_bins;
          unsigned long long offsets[rows];
#pragma unroll
          for (int row = 0; row < rows; ++row)
            offsets[row] = __ldg(&bin_offsets[first_bin + std::size_t(row) * 32 + lane]);
#pragma unroll
          for (int row = 0; row < rows; ++row) {
            // A bin ends where the next starts: the next lane's, or the next row's first.
            const unsigned long long next_lane = __shfl_down_sync(0xffffffffu, offsets[row], 1);
            const unsigned long long next_row =
                __shfl_sync(0xffffffffu, offsets[row + 1 < rows ? row + 1 : row], 0);
            const unsigned long long bin_start = group_begin + offsets[row];
            const unsigned long long bin_end = lane < 31          ? group_begin + next_lane
                                               : row + 1 < rows ? group_begin + next_row
                                                                : group_end;
            if (bin_start < bin_end)
              fill_run(keys, split.head, bin_start > block_first ? bin_start : block_first,
                       bin_end < block_end ? bin_end : block_end,
                       value_of(first_bin + std::size_t(row) * 32 + lane));
          }
        }
      }
    }
    if (!wide) {
      // The others: the starts of the block's bins (mostly two or three) staged in shared
      // memory, so that each vector's search reads no global memory.
      if constexpr (!Shape::lane_private) {
        for (std::size_t i = threadIdx.x; i < high - low + 2; i += threads)
          staged_starts[i] = start(low + i);
        __syncthreads();
      }
      const auto block_start = [&](std::size_t bin) -> unsigned long long {
        if constexpr (Shape::lane_private) return start(bin);
        else return staged_starts[bin - low];
      };
#pragma unroll
      for (int j = 0; j < Shape::fill_vectors; ++j) {
        const std::size_t v = first_vector + std::size_t(j) * threads + threadIdx.x;
        if (v >= end_vector) continue;
        const std::size_t first = split.head + v * Shape::keys_per_vector;
        std::size_t bin = bin_of_position(block_start, low, high, first);
        unsigned long long bin_end = block_start(bin + 1);
        // Mostly the whole vector is one bin's: its keys in one go, not one by one.
        if (first + Shape::keys_per_vector <= bin_end) {
          vectors[v] = vector_of_one_key(value_of(bin));
          continue;
        }
        vector_builder<Key> out;
#pragma unroll
        for (int k = 0; k < Shape::keys_per_vector; ++k) {
          if (first + k >= bin_end) {
            bin = bin_of_position(block_start, bin + 1, high, first + k);
            bin_end = block_start(bin + 1);
          }
          out.put(k, value_of(bin));
        }
        vectors[v] = out.vector();
      }
    }
  }
  if (blockIdx.x == 0 && threadIdx.x < split.head + split.tail) {
    const std::size_t position = loose_key_position(split, threadIdx.x, sizeof(Key));
    keys[position] = value_of(bin_of_position(start, 0, last_bin, position));
  }
}

}  // namespace gpusort::backends::radix
