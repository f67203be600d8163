// The first level sampled for a window alone: where the even split already takes the most
// first-level bits (with the default tuning 64-bit integer keys at 2^28-2^29, 32-bit ones at
// 2^29-2^30), the sample adds no bits but may still cut the window that the keys fill, from
// the tuning's window_sample_min_keys on (dispatch.cuh: plan_sort). A tuning that lowers that
// bound to one key takes the same path just past the heavy-bucket limit, where one level of
// 2^11 buckets is the even split (bucket_lists_test checks those plans on the host).
// Keys only, both orders: the kernels are those of every sampled first level, whose pairs the
// integer test sorts; what is new is the plan. Its own translation unit: another tuning
// instantiates every kernel again.
#include "bucket_bitonic_sort_tests.cuh"

#include <cstddef>
#include <cstdint>

namespace gpusort::test {
// (The shared header's typed suite is instantiated by the integer and float tests.)
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BucketBitonicSort);

namespace {

struct window_sample_from_one_key {
  static constexpr bucket_bitonic_knobs knobs = [] {
    bucket_bitonic_knobs k = bucket_bitonic_tuning_sm90::knobs;
    k.window_sample_min_keys = 1;
    return k;
  }();
};

class BucketBitonicWindowSampleAlone : public GpuTest {};

// The plan this test is about: sampled, though the even split takes the most bits.
template <class Key>
void expect_window_sample_alone(std::size_t n) {
  using shape = backends::bucket_bitonic::bucket_shape<window_sample_from_one_key, Key>;
  const auto plan = backends::bucket_bitonic::plan_sort<shape>(n);
  ASSERT_EQ(plan.first_bits, shape::max_bucket_bits) << "n = " << n;
  ASSERT_TRUE(plan.samples_first_level) << "n = " << n;
}

TEST_F(BucketBitonicWindowSampleAlone, KeysTheSampleMissedAreSortedWhereTheSplitTakesEveryBit) {
  const bucket_bitonic_policy<window_sample_from_one_key> policy;
  // Past the heavy-bucket limits (2^19 keys of 4 bytes, 2^18 of 8), within one level.
  for (std::size_t n : capped({(std::size_t(1) << 19) + 1000})) {
    expect_window_sample_alone<std::uint32_t>(n);
    expect_sorts_band_and_keys_the_sample_misses<std::uint32_t>(n, "u32", policy, calls::sort);
  }
  for (std::size_t n : capped({(std::size_t(1) << 18) + 500})) {
    expect_window_sample_alone<std::uint64_t>(n);
    expect_sorts_band_and_keys_the_sample_misses<std::uint64_t>(n, "u64", policy, calls::sort);
  }
}

}  // namespace
}  // namespace gpusort::test
