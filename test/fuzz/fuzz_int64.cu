// Fuzz cases with 8-byte integer keys (std::uint64_t, std::int64_t): every backend
// instantiated for these key types (see fuzz_narrow.cu for why a few per translation unit).
#include "fuzz_cases.cuh"
#include "run_case.cuh"

#include <cstdint>

namespace gpusort::fuzz {

std::string run_case_u64(const fuzz_case& c) { return run_case<std::uint64_t>(c); }
std::string run_case_i64(const fuzz_case& c) { return run_case<std::int64_t>(c); }

}  // namespace gpusort::fuzz
