// Uniformly random keys, generated on the device from a counter-based hash: the same
// (seed, index) always gives the same key, so every run and every backend sees the same data.
#pragma once

#include "cuda_check.cuh"
#include "struct_key.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpusort_bench {
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
// [-1e6, 1e6), as in docs/anchors.md; never NaN, never -0.0).
__device__ inline std::uint32_t uniform_key(std::uint64_t bits, std::uint32_t*) {
  return static_cast<std::uint32_t>(bits >> 32);
}
__device__ inline std::uint64_t uniform_key(std::uint64_t bits, std::uint64_t*) { return bits; }
__device__ inline float uniform_key(std::uint64_t bits, float*) {
  const float unit = static_cast<float>(bits >> 40) * 0x1p-24f;  // 24 random bits in [0, 1)
  return -1.0e6f + 2.0e6f * unit;
}
__device__ inline double uniform_key(std::uint64_t bits, double*) {
  const double unit = static_cast<double>(bits >> 11) * 0x1p-53;  // 53 random bits in [0, 1)
  return -1.0e6 + 2.0e6 * unit;
}
// major: 4096 distinct values (the top 12 bits), so about n / 4096 keys share each and minor
// (the low 32 bits) decides among them; tag: 32 more bits, payload only.
__device__ inline s16_key uniform_key(std::uint64_t bits, s16_key*) {
  return {bits >> 52, static_cast<std::uint32_t>(bits), static_cast<std::uint32_t>(mix64(bits) >> 32)};
}

template <class Key>
__global__ void fill_uniform_kernel(Key* keys, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    keys[i] = uniform_key(mix64(seed ^ mix64(i)), static_cast<Key*>(nullptr));
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

// keys[i] = a uniformly random key (u32, u64, f32, f64 or s16_key), a pure function of (seed, i).
template <class Key>
void fill_uniform(Key* keys, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  detail::fill_uniform_kernel<<<detail::fill_grid(n), 256, 0, stream>>>(keys, n, seed);
  check_launch("fill_uniform_kernel");
}

// values[i] = i: the payload of a key-value sort ends up as the sorting permutation, so
// comparing payloads across backends also compares their stability.
template <class Value>
void fill_index(Value* values, std::size_t n, cudaStream_t stream) {
  detail::fill_index_kernel<<<detail::fill_grid(n), 256, 0, stream>>>(values, n);
  check_launch("fill_index_kernel");
}

}  // namespace gpusort_bench
