// Fuzz cases with double keys: every backend instantiated for this key type.
#include "fuzz_cases.cuh"
#include "run_case.cuh"

namespace gpusort::fuzz {

std::string run_case_f64(const fuzz_case& c) { return run_case<double>(c); }

}  // namespace gpusort::fuzz
