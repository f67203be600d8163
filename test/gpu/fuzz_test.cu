// Randomized differential testing (test/fuzz) in the test suite: the quick profile's cases,
// sorted on the GPU through the public API and compared with std::stable_sort. One test per
// policy, so that ctest runs them in parallel; each takes the first cases of the suite's
// case stream that drew its policy, so `gpusort_fuzz --profile quick` runs the same cases
// among others, and every failure prints the command that replays it alone.
//
// GPUSORT_FUZZ_CASES sets the number of cases of all four tests together (default 400);
// GPUSORT_TEST_MAX_N caps the sizes, as for every GPU test (compute-sanitizer runs).
#include "../fuzz/device_buffer.cuh"
#include "../fuzz/fuzz_cases.cuh"
#include "../support/splitmix.cuh"
#include "../support/gpu.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace gpusort::fuzz {
namespace {

// gpusort_fuzz's default seed: the suite's cases are the quick profile's run of it.
constexpr std::uint64_t suite_seed = 20261123;
constexpr std::size_t default_case_count = 400;
constexpr int failures_shown = 10;

std::size_t environment_size(const char* name, std::size_t fallback) {
  const char* text = std::getenv(name);
  return text ? std::size_t(std::strtoull(text, nullptr, 10)) : fallback;
}

class Fuzz : public test::GpuTest {};

void run_cases_of(policy_kind policy) {
  const std::size_t count =
      (environment_size("GPUSORT_FUZZ_CASES", default_case_count) + std::size(all_policies) - 1) /
      std::size(all_policies);
  const std::size_t max_n = std::max<std::size_t>(
      1, std::min(settings_of(profile::quick).max_n,
                  environment_size("GPUSORT_TEST_MAX_N", settings_of(profile::quick).max_n)));
  int failures = 0;
  std::size_t run = 0;
  for (std::uint64_t index = 0; run < count; ++index) {
    const fuzz_case c = draw_case(case_seed(suite_seed, index), profile::quick, max_n);
    if (c.policy != policy) continue;
    ++run;
    const std::string failure = run_fuzz_case(c);
    EXPECT_TRUE(failure.empty()) << describe(c) << "\n  failure: " << failure
                                 << "\n  reproduce: " << reproduce_command(c);
    if (failure.empty()) continue;
    // A fault inside a kernel is sticky: no later case could run.
    ASSERT_TRUE(device_still_usable()) << "the CUDA context is unusable; stopping";
    if (++failures == failures_shown) {
      ADD_FAILURE() << "stopping after " << failures_shown << " failing cases";
      return;
    }
  }
}

TEST_F(Fuzz, ParSortsLikeStdStableSortBitForBit) { run_cases_of(policy_kind::par); }

TEST_F(Fuzz, RadixSortsLikeStdStableSortBitForBit) { run_cases_of(policy_kind::radix); }

TEST_F(Fuzz, BucketBitonicGivesSortedPermutations) {
  run_cases_of(policy_kind::bucket_bitonic);
}

TEST_F(Fuzz, MergeIsStableWhenAskedAndASortedPermutationOtherwise) {
  run_cases_of(policy_kind::merge);
}

}  // namespace
}  // namespace gpusort::fuzz
