#include "radix_sort_tests.cuh"

#include <cstdint>

namespace gpusort::test {
using SignedKeys = ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t>;
INSTANTIATE_TYPED_TEST_SUITE_P(Signed, RadixSort, SignedKeys);
}  // namespace gpusort::test
