// The counting sort of 16-bit keys (65536 bins); radix_counting_tests.cuh.
#include "radix_counting_tests.cuh"

#include <cstdint>

namespace gpusort::test {
using SixteenBitKeys = ::testing::Types<std::uint16_t, std::int16_t, char16_t>;
INSTANTIATE_TYPED_TEST_SUITE_P(SixteenBit, CountingSort, SixteenBitKeys);
}  // namespace gpusort::test
