// The benchmark harness checks CUDA calls with gpusort's own helper: failures throw
// gpusort::error (a std::runtime_error) naming what was being done and what CUDA said. The
// benchmark bodies turn it into state.SkipWithError; the demo prints it and exits non-zero.
#pragma once

#include <gpusort/error.cuh>

namespace gpusort_bench {

using gpusort::detail::check_cuda;
using gpusort::detail::check_launch;

}  // namespace gpusort_bench
