// The counting sort of 8-bit keys (and bool: one bit, two bins); radix_counting_tests.cuh.
#include "radix_counting_tests.cuh"

#include <cstdint>

namespace gpusort::test {
using EightBitKeys = ::testing::Types<std::uint8_t, std::int8_t, char, bool>;
INSTANTIATE_TYPED_TEST_SUITE_P(EightBit, CountingSort, EightBitKeys);
}  // namespace gpusort::test
