// The value type of a keys-only sort, shared by the CUB references and sort_case.
#pragma once

namespace gpusort_bench {

struct keys_only {};

}  // namespace gpusort_bench
