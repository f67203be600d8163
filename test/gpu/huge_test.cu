// Keys beyond 2^31 elements, through every backend: 64-bit offsets everywhere. Inputs are
// made and checked on the device (test/support/device_checks.cuh): the output is in order
// and has the input's multiset fingerprint, so it is a sorted permutation of the input.
#include "../support/device_checks.cuh"
#include "../support/gpu.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpusort::test {
namespace {

constexpr std::size_t beyond_two_to_the_31 = (std::size_t(1) << 31) + (std::size_t(1) << 20);

template <class Key, class Policy>
void expect_sorts_huge_keys(const Policy& policy, bool descending) {
  const std::size_t n = beyond_two_to_the_31;
  // The input, the backends' alternate buffer, and room for their bookkeeping.
  if (!device_has_free(2 * n * sizeof(Key) + (std::size_t(1) << 30)))
    GTEST_SKIP() << "device memory too small for " << n << " keys";
  device_array<Key> keys(n);
  ASSERT_NE(keys.begin(), nullptr);
  fill_keys_on_device(keys.begin(), n, 2026, 0);
  expect_sorts_on_device(policy, keys.begin(), n, descending);
}

class Huge : public GpuTest {};

TEST_F(Huge, U32KeysThroughPar) { expect_sorts_huge_keys<std::uint32_t>(gpusort::par, false); }
TEST_F(Huge, U32KeysThroughRadix) { expect_sorts_huge_keys<std::uint32_t>(gpusort::radix, true); }
TEST_F(Huge, U32KeysThroughMerge) { expect_sorts_huge_keys<std::uint32_t>(gpusort::merge, false); }
TEST_F(Huge, U32KeysThroughBucketBitonic) {
  expect_sorts_huge_keys<std::uint32_t>(gpusort::bucket_bitonic, true);
}

TEST_F(Huge, ByteKeysThroughPar) { expect_sorts_huge_keys<std::uint8_t>(gpusort::par, true); }
TEST_F(Huge, ByteKeysThroughRadix) { expect_sorts_huge_keys<std::uint8_t>(gpusort::radix, false); }
TEST_F(Huge, ByteKeysThroughMerge) { expect_sorts_huge_keys<std::uint8_t>(gpusort::merge, true); }
TEST_F(Huge, ByteKeysThroughBucketBitonic) {
  expect_sorts_huge_keys<std::uint8_t>(gpusort::bucket_bitonic, false);
}

}  // namespace
}  // namespace gpusort::test
