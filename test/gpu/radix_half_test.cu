#include "radix_sort_tests.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gpusort::test {
using HalfKeys = ::testing::Types<__half, __nv_bfloat16>;
INSTANTIATE_TYPED_TEST_SUITE_P(Half, RadixSort, HalfKeys);
}  // namespace gpusort::test
