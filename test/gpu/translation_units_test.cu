// A program of two .cu files that both call gpusort: each has its own copy of every kernel,
// and a setting a kernel needs (more than 48 KB of shared memory, clusters) must be made on
// the copy each file launches, not once per process. Each sort runs in the other unit, then
// in this one, then in the other again, and must equal the host's (the other unit sorts in
// ascending order, this one in descending order).
#include "../support/gpu.cuh"
#include "translation_unit_sorts.cuh"

#include <gtest/gtest.h>

namespace gpusort::test {

class TranslationUnits : public GpuTest {};

TEST_F(TranslationUnits, EverySortRunsFromBothUnitsInEitherOrder) {
  for (int i = 0; i < int(unit_sort::count); ++i) {
    const auto which = unit_sort(i);
    SCOPED_TRACE("sort " + std::to_string(i) + " of translation_unit_sorts.cuh's list");
    EXPECT_EQ(run_in_other_unit(which), "") << "first, in the other unit";
    EXPECT_EQ(run_in_this_unit</*Descending=*/true>(which), "") << "then in this one";
    EXPECT_EQ(run_in_other_unit(which), "") << "then in the other again";
  }
}

}  // namespace gpusort::test
