// The fuzzer's entry points, compiled once into the gpusort_fuzz_cases library and linked
// by both gpusort_fuzz and the gtest fuzz_test: one function per key type (defined in
// fuzz_narrow.cu, fuzz_int32.cu, fuzz_int64.cu, fuzz_f32.cu, fuzz_f64.cu), and a dispatcher
// by the case's key type (fuzz_dispatch.cu).
#pragma once

#include "fuzz_case.cuh"

#include <string>

namespace gpusort::fuzz {

std::string run_case_u8(const fuzz_case& c);
std::string run_case_i16(const fuzz_case& c);
std::string run_case_u32(const fuzz_case& c);
std::string run_case_i32(const fuzz_case& c);
std::string run_case_u64(const fuzz_case& c);
std::string run_case_i64(const fuzz_case& c);
std::string run_case_f32(const fuzz_case& c);
std::string run_case_f64(const fuzz_case& c);
std::string run_case_f16(const fuzz_case& c);

// Runs the case on the current GPU: "" when it passed, else what failed.
std::string run_fuzz_case(const fuzz_case& c);

}  // namespace gpusort::fuzz
