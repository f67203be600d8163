#include "radix_sort_tests.cuh"

namespace gpusort::test {
using FloatKeys = ::testing::Types<float, double>;
INSTANTIATE_TYPED_TEST_SUITE_P(Float, RadixSort, FloatKeys);
}  // namespace gpusort::test
