// Fuzz cases with 4-byte integer keys (std::uint32_t, std::int32_t): every backend
// instantiated for these key types (see fuzz_narrow.cu for why a few per translation unit).
#include "fuzz_cases.cuh"
#include "run_case.cuh"

#include <cstdint>

namespace gpusort::fuzz {

std::string run_case_u32(const fuzz_case& c) { return run_case<std::uint32_t>(c); }
std::string run_case_i32(const fuzz_case& c) { return run_case<std::int32_t>(c); }

}  // namespace gpusort::fuzz
