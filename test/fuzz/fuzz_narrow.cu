// Fuzz cases with 1- and 2-byte keys (std::uint8_t, std::int16_t, __half): every backend
// instantiated for these key types. A few key types per translation unit: each TU pays
// about 5 s of header parsing before its kernels, and the groups still compile in parallel.
#include "fuzz_cases.cuh"
#include "run_case.cuh"

#include <cuda_fp16.h>

#include <cstdint>

namespace gpusort::fuzz {

std::string run_case_u8(const fuzz_case& c) { return run_case<std::uint8_t>(c); }
std::string run_case_i16(const fuzz_case& c) { return run_case<std::int16_t>(c); }
std::string run_case_f16(const fuzz_case& c) { return run_case<__half>(c); }

}  // namespace gpusort::fuzz
