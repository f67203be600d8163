// Benchmark keys, generated on the device from a counter-based hash: the same (seed, index)
// (and, for the distributions defined by position, n) always gives the same key, so every run
// and every backend sees the same data. Uniformly random keys for every type; for u32 and f32
// also the skewed distributions of key_distribution below.
#pragma once

#include "cuda_check.cuh"
#include "struct_key.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace gpusort_bench {

// The distributions of the bench's keys; each one's name is the <distribution> field of
// benchmark names. Except for uniform (defined by type in detail::uniform_key), each is a
// distribution over the "uniform range" of the type, u32 [0, 2^32), u64 [0, 2^64), f32 and
// f64 [-1e6, 1e6) (detail::key_at maps a position in [0, 1) onto it), so every type gets the
// same shapes (u64 and f64: the outlier's window is the top 2^56 values and [1, 2)):
//   uniform      uniform over the whole range
//   normal       mean at the middle of the range, standard deviation 1/16 of it
//                (u32: 2^31 ± 2^28, f32: 0 ± 1.25e5); Box-Muller, never clipped in practice
//   exponential  heavy skew: from the bottom of the range, mean 1/32 of it (u32: 2^27,
//                f32: -1e6 + 62500); the largest of n keys lies about ln(n)/32 up the range
//                (43% at 2^20, 60% at 2^28), so min/max spans a mostly empty tail
//   zipf         ranks 1..2^20 drawn with frequency ~ 1/rank (Zipf, s = 1): rank 1 is ~5% of
//                the keys, the top 1000 ranks ~50%; each rank is a fixed uniformly random key,
//                so the heavy values lie scattered over the range
//   all_equal    every key the same (the key 1/3 of the way up the range)
//   two_values   the keys 1/4 and 3/4 of the way up the range, each with probability 1/2
//   outlier      one key at the bottom of the range (u32 0, f32 -1e6) at a pseudo-random
//                index; all others uniform in a narrow window far above it (u32 the top 2^24
//                values: 1/256 of [min, max]; f32 [1, 2): a millionth of [min, max] in value,
//                about 1/270 in the radix bit space, where floats are ordered as unsigned
//                patterns and no window holding many distinct floats can be narrower)
//   sorted       exactly non-decreasing, no noise: the key i / n of the way up the range;
//                u32 keys are distinct (n = 2^k), f32 keys repeat where the float spacing
//                exceeds 2e6 / n (near ±1e6 it is 0.0625: from n = 2^25 on)
//   reversed     sorted, backwards: (n - 1 - i) / n of the way up
//   clustered    uniform in 1% of the range, from 60% of the way up (u32 from 0.6 * 2^32,
//                f32 [2e5, 2.2e5))
// No distribution produces NaN or -0.0 (float keys are made +0.0 where they would be -0.0),
// so a sorted sequence of keys is unique bit for bit and any sort's output can be compared
// byte for byte with CUB's.
enum class key_distribution {
  uniform, normal, exponential, zipf, all_equal, two_values, outlier, sorted, reversed, clustered
};

inline constexpr key_distribution all_key_distributions[] = {
    key_distribution::uniform,   key_distribution::normal,     key_distribution::exponential,
    key_distribution::zipf,      key_distribution::all_equal,  key_distribution::two_values,
    key_distribution::outlier,   key_distribution::sorted,     key_distribution::reversed,
    key_distribution::clustered};

inline const char* distribution_name(key_distribution distribution) {
  switch (distribution) {
    case key_distribution::uniform: return "uniform";
    case key_distribution::normal: return "normal";
    case key_distribution::exponential: return "exponential";
    case key_distribution::zipf: return "zipf";
    case key_distribution::all_equal: return "all_equal";
    case key_distribution::two_values: return "two_values";
    case key_distribution::outlier: return "outlier";
    case key_distribution::sorted: return "sorted";
    case key_distribution::reversed: return "reversed";
    case key_distribution::clustered: return "clustered";
  }
  return "unknown";
}

namespace detail {

// SplitMix64's finaliser: a bijection on 64 bits whose outputs pass the usual statistical
// tests for consecutive inputs. Plenty for benchmark data; not for anything else.
__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// 64 random bits -> a key uniform over the type's range (floating point: uniform in
// [-1e6, 1e6), as the issues' baselines were measured; never NaN, never -0.0).
__device__ inline std::uint32_t uniform_key(std::uint64_t bits, std::uint32_t*) {
  return static_cast<std::uint32_t>(bits >> 32);
}
__device__ inline std::uint64_t uniform_key(std::uint64_t bits, std::uint64_t*) { return bits; }
__device__ inline std::uint8_t uniform_key(std::uint64_t bits, std::uint8_t*) {
  return static_cast<std::uint8_t>(bits >> 56);
}
__device__ inline std::uint16_t uniform_key(std::uint64_t bits, std::uint16_t*) {
  return static_cast<std::uint16_t>(bits >> 48);
}
__device__ inline std::int8_t uniform_key(std::uint64_t bits, std::int8_t*) {
  return static_cast<std::int8_t>(bits >> 56);
}
__device__ inline std::int16_t uniform_key(std::uint64_t bits, std::int16_t*) {
  return static_cast<std::int16_t>(bits >> 48);
}
// Half precision: uniform in [-60000, 60000) (f16's finite range reaches 65504), rounded to
// the nearest; never NaN, never -0.0 (24 random bits: the one zero is +0.0).
__device__ inline float uniform_half_range(std::uint64_t bits) {
  const float unit = static_cast<float>(bits >> 40) * 0x1p-24f;
  return -6.0e4f + 1.2e5f * unit;
}
__device__ inline __half uniform_key(std::uint64_t bits, __half*) {
  return __float2half_rn(uniform_half_range(bits));
}
__device__ inline __nv_bfloat16 uniform_key(std::uint64_t bits, __nv_bfloat16*) {
  return __float2bfloat16_rn(uniform_half_range(bits));
}
__device__ inline float uniform_key(std::uint64_t bits, float*) {
  const float unit = static_cast<float>(bits >> 40) * 0x1p-24f;  // 24 random bits in [0, 1)
  return -1.0e6f + 2.0e6f * unit;
}
__device__ inline double uniform_key(std::uint64_t bits, double*) {
  const double unit = static_cast<double>(bits >> 11) * 0x1p-53;  // 53 random bits in [0, 1)
  return -1.0e6 + 2.0e6 * unit;
}
// major: 4096 distinct values (the top 12 bits), so about n / 4096 keys share each and minor
// (24 more random bits, in [0, 1)) decides among them; id: 64 more bits, payload only.
__device__ inline s16_key uniform_key(std::uint64_t bits, s16_key*) {
  const float minor = static_cast<float>((bits >> 16) & 0xffffff) * 0x1p-24f;
  return {static_cast<std::uint32_t>(bits >> 52), minor, mix64(bits)};
}

template <class Key>
__global__ void fill_uniform_kernel(Key* keys, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    keys[i] = uniform_key(mix64(seed ^ mix64(i)), static_cast<Key*>(nullptr));
}

// 53 random bits -> [0, 1), and -> (0, 1] where a logarithm follows.
__device__ inline double unit_closed_open(std::uint64_t bits) { return double(bits >> 11) * 0x1p-53; }
__device__ inline double unit_open_closed(std::uint64_t bits) { return double((bits >> 11) + 1) * 0x1p-53; }

// A position in [0, 1) (clamped into it) -> the key that far up the type's uniform range.
// In double, so that u32 keys keep all 32 bits; monotone in `position`, as sorted needs.
__device__ inline double clamp_position(double position) {
  return fmin(fmax(position, 0.0), 0x1.fffffffffffffp-1);  // the largest double below 1
}
__device__ inline std::uint32_t key_at(double position, std::uint32_t*) {
  return static_cast<std::uint32_t>(clamp_position(position) * 0x1p32);
}
__device__ inline float key_at(double position, float*) {
  return static_cast<float>(-1.0e6 + 2.0e6 * clamp_position(position));
}
// u64: the position's 53 bits at the top of the key (its low 11 bits are 0), so that sorted
// stays exactly non-decreasing.
__device__ inline std::uint64_t key_at(double position, std::uint64_t*) {
  return static_cast<std::uint64_t>(clamp_position(position) * 0x1p64);
}
__device__ inline double key_at(double position, double*) {
  return -1.0e6 + 2.0e6 * clamp_position(position);
}

// outlier's narrow window: the top 2^24 u32 values; for f32 one binade, [1, 2) (2^23
// patterns), because a window in value space narrower than a binade holds few distinct floats.
__device__ inline std::uint32_t outlier_window_key(std::uint64_t bits, std::uint32_t*) {
  return 0xFF000000u | static_cast<std::uint32_t>(bits >> 40);
}
__device__ inline float outlier_window_key(std::uint64_t bits, float*) {
  return 1.0f + static_cast<float>(bits >> 41) * 0x1p-23f;
}
__device__ inline std::uint64_t outlier_window_key(std::uint64_t bits, std::uint64_t*) {
  return 0xFF00000000000000ull | (bits >> 8);
}
__device__ inline double outlier_window_key(std::uint64_t bits, double*) {
  return 1.0 + static_cast<double>(bits >> 12) * 0x1p-52;
}

// -0.0 -> +0.0: with both zeros present, equal keys could differ in bits between two correct
// unstable sorts. Compared as bits, so no compiler setting can fold it away.
__device__ inline std::uint32_t without_negative_zero(std::uint32_t key) { return key; }
__device__ inline float without_negative_zero(float key) {
  return __float_as_uint(key) == 0x80000000u ? 0.0f : key;
}
__device__ inline std::uint64_t without_negative_zero(std::uint64_t key) { return key; }
__device__ inline double without_negative_zero(double key) {
  return __double_as_longlong(key) == static_cast<long long>(0x8000000000000000ull) ? 0.0 : key;
}

// Keep the zipf keys and the outlier's index independent of the per-index hashes.
constexpr std::uint64_t zipf_rank_salt = 0xA5A5A5A500000000ull;
constexpr std::uint64_t outlier_index_salt = 0x5A5A5A5A5A5A5A5Aull;

template <class Key>
__device__ Key skewed_key(key_distribution distribution, std::size_t i, std::size_t n,
                          std::uint64_t seed) {
  Key* const type = nullptr;
  const std::uint64_t bits = mix64(seed ^ mix64(i));
  switch (distribution) {
    case key_distribution::normal: {
      const double radius = sqrt(-2.0 * log(unit_open_closed(bits)));
      return key_at(0.5 + radius * cospi(2.0 * unit_closed_open(mix64(bits))) / 16.0, type);
    }
    case key_distribution::exponential:
      return key_at(-log(unit_open_closed(bits)) / 32.0, type);
    case key_distribution::zipf: {
      // Inverse CDF of the continuous 1/x law on [1, 2^20): rank k with probability
      // log2((k + 1) / k) / 20, about 1 / (k ln 2^20).
      const auto rank = static_cast<std::uint64_t>(exp2(20.0 * unit_closed_open(bits)));
      return uniform_key(mix64(seed ^ mix64(rank ^ zipf_rank_salt)), type);
    }
    case key_distribution::all_equal:
      return key_at(1.0 / 3.0, type);
    case key_distribution::two_values:
      return key_at((bits >> 63) != 0 ? 0.75 : 0.25, type);
    case key_distribution::outlier:
      return i == mix64(seed ^ outlier_index_salt) % n ? key_at(0.0, type)
                                                       : outlier_window_key(bits, type);
    case key_distribution::sorted:
      return key_at(double(i) / double(n), type);
    case key_distribution::reversed:
      return key_at(double(n - 1 - i) / double(n), type);
    case key_distribution::clustered:
      return key_at(0.6 + 0.01 * unit_closed_open(bits), type);
    case key_distribution::uniform:
      break;
  }
  return uniform_key(bits, type);
}

template <class Key>
__global__ void fill_skewed_kernel(Key* keys, std::size_t n, key_distribution distribution,
                                   std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    keys[i] = without_negative_zero(skewed_key<Key>(distribution, i, n, seed));
}

template <class Value>
__global__ void fill_index_kernel(Value* values, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    values[i] = static_cast<Value>(i);
}

inline unsigned int fill_grid(std::size_t n) {
  constexpr std::size_t threads = 256, max_blocks = 4096;  // grid-stride beyond that
  const std::size_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned int>(blocks < max_blocks ? (blocks == 0 ? 1 : blocks) : max_blocks);
}

}  // namespace detail

// keys[i] = a uniformly random key (u8, u16, i8, i16, f16, bf16, u32, u64, f32, f64 or
// s16_key), a pure function of (seed, i).
template <class Key>
void fill_uniform(Key* keys, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  detail::fill_uniform_kernel<<<detail::fill_grid(n), 256, 0, stream>>>(keys, n, seed);
  check_launch("fill_uniform_kernel");
}

// keys[i] from `distribution` (see key_distribution), a pure function of (seed, i, n).
// uniform is fill_uniform's data for every key type; the others are defined for u32, f32,
// u64 and f64.
template <class Key>
void fill_keys(Key* keys, std::size_t n, key_distribution distribution, std::uint64_t seed,
               cudaStream_t stream) {
  if (distribution == key_distribution::uniform) {
    fill_uniform(keys, n, seed, stream);
  } else if constexpr (std::is_same_v<Key, std::uint32_t> || std::is_same_v<Key, float> ||
                       std::is_same_v<Key, std::uint64_t> || std::is_same_v<Key, double>) {
    detail::fill_skewed_kernel<<<detail::fill_grid(n), 256, 0, stream>>>(keys, n, distribution, seed);
    check_launch("fill_skewed_kernel");
  } else {
    throw std::invalid_argument(std::string("bench keys: the '") +
                                distribution_name(distribution) +
                                "' distribution is defined for u32, f32, u64 and f64 keys only");
  }
}

// values[i] = i: the payload of a key-value sort ends up as the sorting permutation, so
// comparing payloads across backends also compares their stability.
template <class Value>
void fill_index(Value* values, std::size_t n, cudaStream_t stream) {
  detail::fill_index_kernel<<<detail::fill_grid(n), 256, 0, stream>>>(values, n);
  check_launch("fill_index_kernel");
}

}  // namespace gpusort_bench
