// Inputs beyond 2^31 elements: 64-bit offsets everywhere. Verified without a host sort:
// the output is non-decreasing and a permutation of the input (histogram / index check).
#include "../support/gpu.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <random>
#include <vector>

namespace gpusort::test {
namespace {

class Huge : public GpuTest {
 protected:
  // Skips (says so) where the device cannot hold the input and the sort's scratch.
  bool device_holds(std::size_t bytes) {
    std::size_t free_bytes = 0, total_bytes = 0;
    EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
    return free_bytes > bytes;
  }
};

template <class T>
T* device_copy(const std::vector<T>& host) {
  T* device = nullptr;
  EXPECT_EQ(cudaMalloc(&device, host.size() * sizeof(T)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return device;
}

template <class T>
void copy_back(std::vector<T>& host, const T* device) {
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
}

TEST_F(Huge, ByteKeysBeyondTwoToThe31) {
  const std::size_t n = (std::size_t(1) << 31) + (std::size_t(1) << 20);
  if (!device_holds(3 * n + (n / 4096 + 1) * 256 * 8)) GTEST_SKIP() << "device memory too small";
  std::vector<std::uint8_t> keys(n);
  std::mt19937_64 rng(31);
  for (std::size_t i = 0; i < n; i += 8) {
    const std::uint64_t r = rng();
    for (std::size_t b = 0; b < 8 && i + b < n; ++b) keys[i + b] = std::uint8_t(r >> (8 * b));
  }
  std::vector<std::size_t> histogram(256, 0);
  for (std::uint8_t k : keys) ++histogram[k];

  std::uint8_t* device = device_copy(keys);
  gpusort::sort(gpusort::radix, device, device + n, gpusort::greater<>{});
  copy_back(keys, device);
  cudaFree(device);

  // Descending and the same multiset: each key value's run has the input's count.
  std::size_t position = 0;
  for (int value = 255; value >= 0; --value) {
    for (std::size_t c = 0; c < histogram[value]; ++c, ++position)
      ASSERT_EQ(keys[position], value) << "at " << position;
  }
  EXPECT_EQ(position, n);
}

TEST_F(Huge, StablePairsBeyondTwoToThe31) {
  const std::size_t n = (std::size_t(1) << 31) + 3;
  if (!device_holds(4 * 4 * n + (n / 4096 + 1) * 256 * 8)) GTEST_SKIP() << "device memory too small";
  std::vector<std::uint32_t> keys(n), values(n);
  std::mt19937_64 rng(33);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = std::uint32_t(rng() % 100000);  // many equal keys: stability is visible
    values[i] = std::uint32_t(i);
  }
  std::uint32_t* device_keys = device_copy(keys);
  std::uint32_t* device_values = device_copy(values);
  gpusort::stable_sort_by_key(gpusort::radix, device_keys, device_keys + n, device_values);
  std::vector<std::uint32_t> sorted_keys(n), sorted_values(n);
  copy_back(sorted_keys, device_keys);
  copy_back(sorted_values, device_values);
  cudaFree(device_keys);
  cudaFree(device_values);

  // Values are original indices: each names its key, ascending within equal keys, and
  // each index appears once.
  std::vector<bool> seen(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t index = sorted_values[i];
    ASSERT_LT(index, n);
    ASSERT_FALSE(seen[index]) << "index " << index << " appears twice";
    seen[index] = true;
    ASSERT_EQ(sorted_keys[i], keys[index]) << "at " << i;
    if (i > 0) {
      ASSERT_LE(sorted_keys[i - 1], sorted_keys[i]) << "at " << i;
      if (sorted_keys[i - 1] == sorted_keys[i]) ASSERT_LT(sorted_values[i - 1], index) << "at " << i;
    }
  }
}

}  // namespace
}  // namespace gpusort::test
