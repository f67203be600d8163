// The merge backend on integer keys, ascending and descending: the radix backend's orders,
// reached by a comparison sort.
#include "merge_sort_tests.cuh"

#include <cstdint>

namespace gpusort::test {

using IntegerCases =
    ::testing::Types<arithmetic_case<std::uint32_t, gpusort::less<>, /*Huge=*/true>,
                     arithmetic_case<std::uint32_t, gpusort::greater<>>,
                     arithmetic_case<std::int64_t, gpusort::less<>>,
                     arithmetic_case<std::int64_t, gpusort::greater<>>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Integer, MergeSort, IntegerCases, merge_case_name);

}  // namespace gpusort::test
