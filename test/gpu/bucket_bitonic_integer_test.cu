#include "bucket_bitonic_sort_tests.cuh"

#include <cstdint>

namespace gpusort::test {
using IntegerKeys = ::testing::Types<std::uint32_t, std::int32_t, std::uint64_t>;
INSTANTIATE_TYPED_TEST_SUITE_P(Integer, BucketBitonicSort, IntegerKeys);
}  // namespace gpusort::test
