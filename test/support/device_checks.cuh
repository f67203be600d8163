// Checking sorts of inputs too big to copy to the host and sort there (beyond 2^31 keys):
// inputs generated on the device from their positions, and checks that run on the device.
//   - a multiset fingerprint (a 256-bin histogram of each key's top byte plus two independent
//     64-bit sums of hashed key/value pairs): equal before and after means the output is a
//     permutation of the input, up to a hash collision;
//   - the first position out of order, or whose value does not name its own key (values are
//     input positions, keys a function of the position), or, for stable sorts, where equal
//     keys' positions do not ascend.
#pragma once

#include "device_vector.cuh"
#include "splitmix.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gpusort::test {

// The key at input position i: a hash of i, reduced to `distinct` values (0: the type's whole
// range) so that equal keys are common enough to make stability visible.
template <class Key>
__host__ __device__ Key key_at_position(std::uint64_t i, std::uint64_t seed, std::uint64_t distinct) {
  const std::uint64_t h = splitmix64_mix(i + seed * splitmix64_gamma);
  return Key(distinct == 0 ? h : h % distinct);
}

namespace device_check_kernels {

constexpr int threads = 256;
constexpr unsigned grid = 8192;  // grid-stride loops: any n

template <class Key>
__global__ void fill_keys(Key* keys, std::size_t n, std::uint64_t seed, std::uint64_t distinct) {
  for (std::size_t i = blockIdx.x * std::size_t(threads) + threadIdx.x; i < n; i += std::size_t(grid) * threads)
    keys[i] = key_at_position<Key>(i, seed, distinct);
}

template <class Value>
__global__ void fill_positions(Value* values, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(threads) + threadIdx.x; i < n; i += std::size_t(grid) * threads)
    values[i] = Value(i);
}

struct fingerprint_sums {
  unsigned long long histogram[256];
  unsigned long long sum;
  unsigned long long hashed_sum;
};

template <class Key>
__device__ std::uint64_t bits_of_key(Key key) {
  static_assert(sizeof(Key) <= 8 && std::is_integral_v<Key>, "integer keys of up to 8 bytes");
  return std::uint64_t(std::make_unsigned_t<Key>(key));
}

// Values null: keys only.
template <class Key, class Value>
__global__ void fingerprint(const Key* keys, const Value* values, std::size_t n, fingerprint_sums* out) {
  __shared__ unsigned long long histogram[256];
  for (int b = threadIdx.x; b < 256; b += threads) histogram[b] = 0;
  __syncthreads();
  unsigned long long sum = 0, hashed_sum = 0;
  for (std::size_t i = blockIdx.x * std::size_t(threads) + threadIdx.x; i < n; i += std::size_t(grid) * threads) {
    const std::uint64_t key = bits_of_key(keys[i]);
    const std::uint64_t value = values == nullptr ? 0 : std::uint64_t(values[i]);
    const std::uint64_t item = splitmix64_mix(key * 0x100000001b3ull ^ splitmix64_mix(value + 1));
    sum += item;
    hashed_sum += splitmix64_mix(item ^ 0x5851f42d4c957f2dull);
    atomicAdd(&histogram[key >> (8 * sizeof(Key) - 8)], 1ull);
  }
  atomicAdd(&out->sum, sum);
  atomicAdd(&out->hashed_sum, hashed_sum);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += threads)
    if (histogram[b] != 0) atomicAdd(&out->histogram[b], histogram[b]);
}

// *first_bad = the smallest i where keys[i], keys[i + 1] are out of order, or (values
// non-null) where values[i] does not name keys[i], or (stable) where equal keys' values do
// not ascend.
template <class Key, class Value>
__global__ void find_first_bad(const Key* keys, const Value* values, std::size_t n, bool descending,
                               bool stable, std::uint64_t seed, std::uint64_t distinct,
                               unsigned long long* first_bad) {
  for (std::size_t i = blockIdx.x * std::size_t(threads) + threadIdx.x; i < n; i += std::size_t(grid) * threads) {
    bool bad = false;
    if (values != nullptr) bad = keys[i] != key_at_position<Key>(std::uint64_t(values[i]), seed, distinct);
    if (i + 1 < n) {
      const Key a = keys[i], b = keys[i + 1];
      bad = bad || (descending ? a < b : b < a);
      if (stable && values != nullptr && a == b) bad = bad || !(values[i] < values[i + 1]);
    }
    if (bad) atomicMin(first_bad, (unsigned long long)i);
  }
}

}  // namespace device_check_kernels

struct multiset_fingerprint {
  device_check_kernels::fingerprint_sums sums{};
  bool operator==(const multiset_fingerprint& other) const {
    return std::memcmp(&sums, &other.sums, sizeof(sums)) == 0;
  }
};

// A small device allocation for one result, freed on scope exit.
template <class T>
class device_scalar {
 public:
  device_scalar() {
    EXPECT_EQ(cudaMalloc(&data_, sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemset(data_, 0, sizeof(T)), cudaSuccess);
  }
  ~device_scalar() { cudaFree(data_); }
  device_scalar(const device_scalar&) = delete;
  device_scalar& operator=(const device_scalar&) = delete;
  T* get() const { return data_; }
  T read() const {
    T host{};
    // cudaMemcpy waits for the legacy stream only, not for kernels on non-blocking streams.
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(&host, data_, sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }

 private:
  T* data_ = nullptr;
};

// Whether the current device has `bytes` free: the huge tests skip (and say so) where not.
inline bool device_has_free(std::size_t bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  return free_bytes > bytes;
}

template <class Key>
void fill_keys_on_device(Key* keys, std::size_t n, std::uint64_t seed, std::uint64_t distinct) {
  device_check_kernels::fill_keys<<<device_check_kernels::grid, device_check_kernels::threads>>>(
      keys, n, seed, distinct);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

template <class Value>
void fill_positions_on_device(Value* values, std::size_t n) {
  device_check_kernels::fill_positions<<<device_check_kernels::grid, device_check_kernels::threads>>>(
      values, n);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

template <class Key, class Value = std::uint32_t>
multiset_fingerprint fingerprint_of(const Key* keys, std::size_t n, const Value* values = nullptr) {
  device_scalar<device_check_kernels::fingerprint_sums> sums;
  device_check_kernels::fingerprint<<<device_check_kernels::grid, device_check_kernels::threads>>>(
      keys, values, n, sums.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  multiset_fingerprint result;
  result.sums = sums.read();
  return result;
}

// n when every check passes, else the first position that fails one (see find_first_bad).
template <class Key, class Value = std::uint32_t>
std::size_t first_bad_position(const Key* keys, std::size_t n, bool descending,
                               const Value* values = nullptr, bool stable = false,
                               std::uint64_t seed = 0, std::uint64_t distinct = 0) {
  device_scalar<unsigned long long> first_bad;
  EXPECT_EQ(cudaMemset(first_bad.get(), 0xFF, sizeof(unsigned long long)), cudaSuccess);
  device_check_kernels::find_first_bad<<<device_check_kernels::grid, device_check_kernels::threads>>>(
      keys, values, n, descending, stable, seed, distinct, first_bad.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const unsigned long long found = first_bad.read();
  return found == ~0ull ? n : std::size_t(found);
}

// Sorts keys[0, n) on the device through `policy` (by gpusort::greater<> where descending) and
// checks the result there: in order, and with the input's multiset fingerprint.
template <class Key, class Policy>
void expect_sorts_on_device(const Policy& policy, Key* keys, std::size_t n, bool descending) {
  const multiset_fingerprint before = fingerprint_of(keys, n);
  if (descending)
    gpusort::sort(policy, keys, keys + n, gpusort::greater<>{});
  else
    gpusort::sort(policy, keys, keys + n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(first_bad_position(keys, n, descending), n) << "out of order there";
  EXPECT_TRUE(fingerprint_of(keys, n) == before) << "not a permutation of the input";
}

}  // namespace gpusort::test
