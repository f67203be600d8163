// The second translation unit of translation_units_test: its own copies of the sorts' kernels,
// sorting in ascending order.
#include "translation_unit_sorts.cuh"

namespace gpusort::test {

std::string run_in_other_unit(unit_sort which) { return run_in_this_unit<false>(which); }

}  // namespace gpusort::test
