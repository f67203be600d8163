// Fuzz cases with float keys: every backend instantiated for this key type (the costliest
// key type to compile, alone in its translation unit).
#include "fuzz_cases.cuh"
#include "run_case.cuh"

namespace gpusort::fuzz {

std::string run_case_f32(const fuzz_case& c) { return run_case<float>(c); }

}  // namespace gpusort::fuzz
