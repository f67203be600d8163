#include "radix_sort_tests.cuh"

#include <cstdint>

namespace gpusort::test {
using UnsignedKeys = ::testing::Types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>;
INSTANTIATE_TYPED_TEST_SUITE_P(Unsigned, RadixSort, UnsignedKeys);
}  // namespace gpusort::test
