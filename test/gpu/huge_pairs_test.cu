// Key-value pairs beyond 2^31 elements, through every backend. Values are input positions and
// keys a hash of them (few distinct, so stability shows), made and checked on the device
// (test/support/device_checks.cuh): keys in order, each value naming its own key, equal keys'
// positions ascending where the call is stable, and the multiset fingerprint of the pairs
// unchanged.
#include "../support/device_checks.cuh"
#include "../support/gpu.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpusort::test {
namespace {

constexpr std::size_t beyond_two_to_the_31 = (std::size_t(1) << 31) + 3;
constexpr std::uint64_t seed = 33, distinct_keys = 100000;

template <bool Stable, class Policy>
void expect_sorts_huge_pairs(const Policy& policy) {
  using key_t = std::uint32_t;
  using value_t = std::uint32_t;
  const std::size_t n = beyond_two_to_the_31;
  if (!device_has_free(2 * n * (sizeof(key_t) + sizeof(value_t)) + (std::size_t(1) << 30)))
    GTEST_SKIP() << "device memory too small for " << n << " pairs";
  key_t* keys = nullptr;
  value_t* values = nullptr;
  ASSERT_EQ(cudaMalloc(&keys, n * sizeof(key_t)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&values, n * sizeof(value_t)), cudaSuccess);
  fill_keys_on_device(keys, n, seed, distinct_keys);
  fill_positions_on_device(values, n);
  const multiset_fingerprint before = fingerprint_of(keys, n, values);

  if constexpr (Stable)
    gpusort::stable_sort_by_key(policy, keys, keys + n, values);
  else
    gpusort::sort_by_key(policy, keys, keys + n, values);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  EXPECT_EQ(first_bad_position(keys, n, false, values, Stable, seed, distinct_keys), n)
      << "out of order, a value away from its key, or (stable) equal keys reordered there";
  EXPECT_TRUE(fingerprint_of(keys, n, values) == before) << "not a permutation of the input";
  cudaFree(keys);
  cudaFree(values);
}

class HugePairs : public GpuTest {};

TEST_F(HugePairs, StableThroughPar) { expect_sorts_huge_pairs<true>(gpusort::par); }
TEST_F(HugePairs, StableThroughRadix) { expect_sorts_huge_pairs<true>(gpusort::radix); }
TEST_F(HugePairs, StableThroughMerge) { expect_sorts_huge_pairs<true>(gpusort::merge); }
TEST_F(HugePairs, UnstableThroughMerge) { expect_sorts_huge_pairs<false>(gpusort::merge); }
TEST_F(HugePairs, UnstableThroughBucketBitonic) {
  expect_sorts_huge_pairs<false>(gpusort::bucket_bitonic);
}

}  // namespace
}  // namespace gpusort::test
