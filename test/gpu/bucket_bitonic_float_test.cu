#include "bucket_bitonic_sort_tests.cuh"

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace gpusort::test {
using FloatKeys = ::testing::Types<float, double>;
INSTANTIATE_TYPED_TEST_SUITE_P(Float, BucketBitonicSort, FloatKeys);

// Past the heavy-bucket limit (2^20 keys of 4 bytes, 2^19 of 8) the first level of float keys
// cuts equal widths of value where a sample finds them lighter than equal widths of bits, and
// only where the range's width and scale are finite (value_buckets.cuh). Inputs on either side
// of that, each sorted both ways, keys alone and with values.
template <class Key>
class BucketBitonicFirstLevelOfValue : public GpuTest {};
TYPED_TEST_SUITE(BucketBitonicFirstLevelOfValue, FloatKeys);

TYPED_TEST(BucketBitonicFirstLevelOfValue, RangesOnEitherSideOfWhatValueBucketsTake) {
  using Key = TypeParam;
  using limits = std::numeric_limits<Key>;
  using random_t = std::mt19937_64;
  const std::size_t n = (std::size_t(1) << 21) + 5;
  if (capped({n}).empty()) GTEST_SKIP() << "past GPUSORT_TEST_MAX_N";
  const auto uniform_in = [](double low, double high) {
    return [=](random_t& rng) {
      return Key(std::uniform_real_distribution<double>(low, high)(rng));
    };
  };
  const Key big = limits::max() / Key(2);
  struct input {
    const char* name;
    std::function<Key(random_t&)> key;
    Key extra;  // one more key, at position 1000 (and +0.0 at 2000)
  };
  const input inputs[] = {
      {"uniform in +-1e6 (buckets of value)", uniform_in(-1e6, 1e6), Key(-0.0)},
      {"uniform in [0, 1), and -0.0", uniform_in(0, 1), Key(-0.0)},
      {"uniform in +-max/2 (the range's width overflows)", uniform_in(-double(big), double(big)),
       big},
      {"uniform in +-1e6 and one +inf", uniform_in(-1e6, 1e6), limits::infinity()},
      {"uniform in +-1e6 and one NaN", uniform_in(-1e6, 1e6), limits::quiet_NaN()},
      {"denormals only (the scale overflows)",
       [](random_t& rng) { return Key(limits::denorm_min() * Key(rng() % 5000)); },
       limits::denorm_min()},
      {"64 neighbours of 1.0",
       [](random_t& rng) { return Key(1) + Key(rng() % 64) * limits::epsilon(); }, Key(1)},
      {"spread over [1e-30, 1e30] (buckets of bits)",
       [](random_t& rng) {
         return Key(std::pow(10.0, std::uniform_real_distribution<double>(-30, 30)(rng)));
       },
       Key(1e30)},
  };
  for (const input& in : inputs) {
    SCOPED_TRACE(in.name);
    random_t rng(n);
    std::vector<Key> keys(n);
    for (Key& key : keys) key = in.key(rng);
    keys[1000] = in.extra;
    keys[2000] = Key(0.0);
    expect_sorts_both_ways(gpusort::bucket_bitonic, keys, calls::sort_and_sort_by_key);
    if (::testing::Test::HasFailure()) return;
  }
}

// A band and far keys where the sample does not look (band_and_keys_the_sample_misses).
class BucketBitonicFloatSampleWindow : public GpuTest {};

TEST_F(BucketBitonicFloatSampleWindow, KeysTheSampleMissedAreSortedFromTheWindowsEnds) {
  for (std::size_t n : capped({(std::size_t(1) << 22) + 3})) {
    SCOPED_TRACE("n " + std::to_string(n));
    expect_sorts_band_and_keys_the_sample_misses<float>(n, "f32");
    if (HasFailure()) return;
    expect_sorts_band_and_keys_the_sample_misses<double>(n, "f64");
  }
}

}  // namespace gpusort::test
