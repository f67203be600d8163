// Keys of one and two bytes: one or two partition levels bring every bucket down to a single
// value, so large inputs are mostly oversized all-equal buckets.
#include "bucket_bitonic_sort_tests.cuh"

#include <cuda_fp16.h>

#include <cstdint>

namespace gpusort::test {
using NarrowKeys = ::testing::Types<std::uint8_t, std::int16_t, __half>;
INSTANTIATE_TYPED_TEST_SUITE_P(Narrow, BucketBitonicSort, NarrowKeys);
}  // namespace gpusort::test
