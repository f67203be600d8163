// The merge backend on double keys, ascending and descending, in gpusort's documented order
// (NaNs of either sign after +inf ascending, -0.0 == +0.0): the float_specials distribution
// checks that a comparison sort keeps it, and stable calls keep equal keys' bits in input
// order.
#include "merge_sort_tests.cuh"

namespace gpusort::test {

using FloatCases = ::testing::Types<arithmetic_case<double, gpusort::less<>>,
                                    arithmetic_case<double, gpusort::greater<>>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Float, MergeSort, FloatCases, merge_case_name);

}  // namespace gpusort::test
