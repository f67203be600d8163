// Kernels of the Satish-Harris-Garland LSD radix sort, in the order they run:
//   count_all_digits  one read of the keys counts the digits of every pass
//   plan_passes       marks passes whose digit is the same for every key (skipped)
//   per pass:
//     tile_histogram  (upsweep) each tile's digit counts into a digit-major table
//     <device scan>   exclusive scan of the table: where each (digit, tile) run starts
//     scatter         (downsweep) local sort of the tile by digit in shared memory, then
//                     each digit's run written to consecutive addresses (coalesced)
//   copy_back         if an odd number of passes ran, the result is in the alternate buffer
#pragma once

#include "../../policies/key_traits.cuh"
#include "digits.cuh"

#include <cub/block/block_radix_rank.cuh>

#include <cstddef>
#include <type_traits>

namespace gpusort::backends::radix {

// The tile shape for one (key, value) pair of types: every kernel of a sort uses the same.
template <class Tuning, class Key, class Value = no_values_tag>
struct radix_shape {
  using traits = radix_key_traits<Key>;
  using bits_type = typename traits::bits_type;
  static constexpr int block_threads = Tuning::block_threads;
  static constexpr int widest_element =
      int(sizeof(Key) > sizeof(Value) ? sizeof(Key) : sizeof(Value));
  static constexpr int fitting_items = Tuning::exchange_bytes / (widest_element * block_threads);
  static_assert(fitting_items >= 1,
                "gpusort::radix: the key or value type is too large for a tile in shared memory; "
                "sort an index payload and gather the values afterwards");
  static constexpr int items_per_thread =
      Tuning::items_per_thread < fitting_items ? Tuning::items_per_thread : fitting_items;
  static constexpr int tile_items = block_threads * items_per_thread;
  static constexpr int digit_bits = Tuning::digit_bits;
  static constexpr int digits = 1 << digit_bits;
  static constexpr int passes = pass_count(traits::bits, digit_bits);
  static_assert(passes <= max_passes, "key too wide for the pass plan");
};

template <class Bits>
struct pass_digit {
  int pass;
  int digit_bits;
  __device__ __forceinline__ std::uint32_t Digit(Bits bits) const {
    return digit_of(bits, pass, digit_bits);
  }
};

template <class Shape, class Key>
__device__ __forceinline__ typename Shape::bits_type ordered_bits(const Key& key,
                                                                  typename Shape::bits_type flip) {
  return typename Shape::bits_type(Shape::traits::sort_bits(key) ^ flip);
}

// Grid-stride; shared counters per block, one global atomic per (pass, digit) per block.
template <class Tuning, class Key>
__global__ void __launch_bounds__(Tuning::block_threads)
    count_all_digits(const Key* keys, std::size_t n, typename radix_shape<Tuning, Key>::bits_type flip,
                     unsigned long long* histograms /* [passes][digits] */) {
  using shape = radix_shape<Tuning, Key>;
  __shared__ unsigned int counts[shape::passes][shape::digits];
  for (int i = threadIdx.x; i < shape::passes * shape::digits; i += blockDim.x)
    (&counts[0][0])[i] = 0;
  __syncthreads();
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    auto bits = ordered_bits<shape>(keys[i], flip);
#pragma unroll
    for (int p = 0; p < shape::passes; ++p)
      atomicAdd(&counts[p][digit_of(bits, p, shape::digit_bits)], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < shape::passes * shape::digits; i += blockDim.x) {
    unsigned int c = (&counts[0][0])[i];
    if (c != 0) atomicAdd(&histograms[i], static_cast<unsigned long long>(c));
  }
}

// One block of `digits` threads.
template <class Tuning, class Key>
__global__ void plan_passes_kernel(const unsigned long long* histograms, std::size_t n,
                                   pass_plan* plan) {
  using shape = radix_shape<Tuning, Key>;
  __shared__ bool single_digit[shape::passes];
  for (int p = 0; p < shape::passes; ++p) {
    bool holds_all = false;
    for (int d = threadIdx.x; d < shape::digits; d += blockDim.x)
      holds_all |= histograms[p * shape::digits + d] == n;
    holds_all = __syncthreads_or(holds_all);
    if (threadIdx.x == 0) single_digit[p] = holds_all;
  }
  __syncthreads();
  if (threadIdx.x == 0) *plan = plan_passes(single_digit, shape::passes);
}

// Upsweep: tile t's count of digit d goes to digit_table[d * tiles + t], so that one
// exclusive scan of the table gives every (digit, tile) run its global start.
template <class Tuning, class Key, class Value>
__global__ void __launch_bounds__(Tuning::block_threads)
    tile_histogram(const Key* keys, const Key* alternate_keys, std::size_t n,
                   typename radix_shape<Tuning, Key>::bits_type flip, int pass,
                   const pass_plan* plan, std::size_t* digit_table) {
  using shape = radix_shape<Tuning, Key, Value>;
  if (plan->skip[pass]) return;
  const Key* source = plan->source[pass] ? alternate_keys : keys;
  __shared__ unsigned int counts[shape::digits];
  for (int d = threadIdx.x; d < shape::digits; d += blockDim.x) counts[d] = 0;
  __syncthreads();
  const tile_bounds tile = tile_of(blockIdx.x, shape::tile_items, n);
  for (int i = threadIdx.x; i < tile.count; i += blockDim.x)
    atomicAdd(&counts[digit_of(ordered_bits<shape>(source[tile.begin + i], flip), pass,
                               shape::digit_bits)],
              1u);
  __syncthreads();
  for (int d = threadIdx.x; d < shape::digits; d += blockDim.x)
    digit_table[std::size_t(d) * gridDim.x + blockIdx.x] = counts[d];
}

// Downsweep. Shared memory: the match-rank's per-warp digit counters, then the tile's keys
// (and later its values) in digit order, overlaid in one union; plus each digit's global
// base for this tile.
template <class Tuning, class Key, class Value>
__global__ void __launch_bounds__(Tuning::block_threads)
    scatter(Key* keys, Key* alternate_keys, Value* values, Value* alternate_values,
            std::size_t n, typename radix_shape<Tuning, Key>::bits_type flip, int pass,
            const pass_plan* plan, const std::size_t* digit_starts) {
  using shape = radix_shape<Tuning, Key, Value>;
  using bits_type = typename shape::bits_type;
  constexpr int threads = shape::block_threads;
  constexpr int items = shape::items_per_thread;
  constexpr bool has_values = !std::is_same_v<Value, no_values_tag>;
  using rank_t = cub::BlockRadixRankMatch<threads, shape::digit_bits, false>;
  constexpr int bins_per_thread = rank_t::BINS_TRACKED_PER_THREAD;
  constexpr int warp_threads = 32;

  __shared__ union {
    typename rank_t::TempStorage rank;
    Key keys[shape::tile_items];
    Value values[shape::tile_items];
  } exchange;
  __shared__ std::size_t digit_base[shape::digits];

  if (plan->skip[pass]) return;
  const bool from_alternate = plan->source[pass];
  const Key* key_source = from_alternate ? alternate_keys : keys;
  Key* key_destination = from_alternate ? keys : alternate_keys;
  const tile_bounds tile = tile_of(blockIdx.x, shape::tile_items, n);

  // Warp-striped arrangement: item j of lane l in warp w is tile element
  // w*32*items + j*32 + l. The match-based rank orders a warp's keys item-major, lane-minor,
  // and the warps in order: exactly the input order, so equal digits stay stable.
  const int lane = int(threadIdx.x) % warp_threads;
  const int warp_first = int(threadIdx.x) / warp_threads * warp_threads * items;
  Key tile_keys[items];
  bits_type tile_bits[items];
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const int i = warp_first + j * warp_threads + lane;
    if (i < tile.count) {
      tile_keys[j] = key_source[tile.begin + i];
      tile_bits[j] = ordered_bits<shape>(tile_keys[j], flip);
    } else {
      // Padding ranks after every real key (largest digit, last in order): it never moves.
      tile_bits[j] = bits_type(~bits_type(0));
    }
  }

  int ranks[items];
  int digit_prefix[bins_per_thread];
  rank_t(exchange.rank).RankKeys(tile_bits, ranks, pass_digit<bits_type>{pass, shape::digit_bits},
                                 digit_prefix);
#pragma unroll
  for (int b = 0; b < bins_per_thread; ++b) {
    const int digit = int(threadIdx.x) * bins_per_thread + b;
    if (digit < shape::digits)
      digit_base[digit] = digit_starts[std::size_t(digit) * gridDim.x + blockIdx.x] - digit_prefix[b];
  }
  __syncthreads();

#pragma unroll
  for (int j = 0; j < items; ++j)
    if (warp_first + j * warp_threads + lane < tile.count) exchange.keys[ranks[j]] = tile_keys[j];
  __syncthreads();

  // Striped reads of the locally sorted tile: consecutive threads write consecutive
  // addresses within each digit's run.
  std::size_t destination[items];
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const int i = j * threads + int(threadIdx.x);
    if (i < tile.count) {
      const Key key = exchange.keys[i];
      destination[j] = digit_base[digit_of(ordered_bits<shape>(key, flip), pass, shape::digit_bits)] + i;
      key_destination[destination[j]] = key;
    }
  }

  if constexpr (has_values) {
    const Value* value_source = from_alternate ? alternate_values : values;
    Value* value_destination = from_alternate ? values : alternate_values;
    Value tile_values[items];
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int i = warp_first + j * warp_threads + lane;
      if (i < tile.count) tile_values[j] = value_source[tile.begin + i];
    }
    __syncthreads();  // every thread has read its keys out of the exchange
#pragma unroll
    for (int j = 0; j < items; ++j)
      if (warp_first + j * warp_threads + lane < tile.count) exchange.values[ranks[j]] = tile_values[j];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int i = j * threads + int(threadIdx.x);
      if (i < tile.count) value_destination[destination[j]] = exchange.values[i];
    }
  }
}

// After an odd number of executed passes the sorted data sits in the alternate buffers.
template <class Key, class Value>
__global__ void copy_back(Key* keys, const Key* alternate_keys, Value* values,
                          const Value* alternate_values, std::size_t n, const pass_plan* plan) {
  if (!plan->result_in_alternate) return;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = alternate_keys[i];
    if constexpr (!std::is_same_v<Value, no_values_tag>) values[i] = alternate_values[i];
  }
}

}  // namespace gpusort::backends::radix
