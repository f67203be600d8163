#include "bucket_bitonic_sort_tests.cuh"

namespace gpusort::test {
using FloatKeys = ::testing::Types<float, double>;
INSTANTIATE_TYPED_TEST_SUITE_P(Float, BucketBitonicSort, FloatKeys);
}  // namespace gpusort::test
