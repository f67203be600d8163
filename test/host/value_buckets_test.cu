// The bucket_bitonic backend's buckets of value (the first level of float keys), checked on the
// host: which ranges they take, that the bucket never decreases along the sort's order, that
// the ends land in the first and the last bucket, and that a coarser bucket is a run of finer
// ones (what the sample that chooses them relies on).
#include <gpusort/detail/backends/bucket_bitonic/value_buckets.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace bb = gpusort::backends::bucket_bitonic;

namespace {

template <class Float>
class ValueBuckets : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ValueBuckets, FloatTypes);

constexpr int bucket_bit_counts[] = {1, 5, 8, 11};

// Keys of [a, b] (a < b), sorted: the ends, their neighbours, signed zeros where the range
// holds zero, and uniform draws.
template <class Float>
std::vector<Float> sorted_keys_between(std::mt19937_64& rng, Float a, Float b) {
  std::vector<Float> keys{a, b, std::nextafter(a, b), std::nextafter(b, a)};
  if (a <= Float(0) && Float(0) <= b) {
    keys.push_back(Float(-0.0));
    keys.push_back(Float(0.0));
  }
  std::uniform_real_distribution<double> draw{double(a), double(b)};
  for (int i = 0; i < 2000; ++i) keys.push_back(std::clamp(Float(draw(rng)), a, b));
  std::sort(keys.begin(), keys.end());
  return keys;
}

// A range [a, b] spanning anything from a few ulps to many orders of magnitude.
template <class Float>
void random_range(std::mt19937_64& rng, Float& a, Float& b) {
  const double scale = std::pow(10.0, double(int(rng() % 60)) - 30.0);
  std::uniform_real_distribution<double> draw(-scale, scale);
  a = Float(draw(rng));
  b = rng() % 4 == 0 ? std::nextafter(std::nextafter(a, Float(1e30)), Float(1e30))
                     : Float(draw(rng));
  if (b < a) std::swap(a, b);
}

}  // namespace

TYPED_TEST(ValueBuckets, RefuseRangesWithoutFiniteWidths) {
  using Float = TypeParam;
  using limits = std::numeric_limits<Float>;
  bb::value_buckets<Float> buckets{};
  EXPECT_FALSE(bb::make_value_buckets(Float(1), limits::infinity(), 11, buckets));
  EXPECT_FALSE(bb::make_value_buckets(-limits::infinity(), Float(1), 11, buckets));
  EXPECT_FALSE(bb::make_value_buckets(Float(1), limits::quiet_NaN(), 11, buckets));
  EXPECT_FALSE(bb::make_value_buckets(Float(3), Float(3), 11, buckets));  // no width
  EXPECT_FALSE(bb::make_value_buckets(Float(-0.0), Float(0.0), 11, buckets));
  // The distance overflows:
  EXPECT_FALSE(bb::make_value_buckets(-limits::max(), limits::max(), 11, buckets));
  // The scale overflows (a range of a few denormals):
  EXPECT_FALSE(bb::make_value_buckets(limits::denorm_min(), 8 * limits::denorm_min(), 11,
                                      buckets));
  // Both ends finite and far apart, but not too far:
  EXPECT_TRUE(bb::make_value_buckets(-limits::max() / 4, limits::max() / 4, 11, buckets));
  EXPECT_TRUE(bb::make_value_buckets(Float(1e6), Float(-1e6), 11, buckets));
}

// Ascending, the keys from the smallest up; descending, from the largest down (low is then
// the largest key): either way the bucket never decreases and spans 0 to the last.
TYPED_TEST(ValueBuckets, TheBucketNeverDecreasesAlongTheSortsOrder) {
  using Float = TypeParam;
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 300; ++trial) {
    Float a, b;
    random_range(rng, a, b);
    std::vector<Float> keys = sorted_keys_between(rng, a, b);
    for (bool descending : {false, true}) {
      if (descending) std::reverse(keys.begin(), keys.end());
      for (int bits : bucket_bit_counts) {
        bb::value_buckets<Float> buckets{};
        const Float low = descending ? b : a, high = descending ? a : b;
        if (!bb::make_value_buckets(low, high, bits, buckets)) continue;
        SCOPED_TRACE(::testing::Message() << "trial " << trial << ", [" << a << ", " << b
                                          << "], " << bits << " bits"
                                          << (descending ? ", descending" : ""));
        EXPECT_EQ(buckets(low), 0u);
        EXPECT_EQ(buckets(high), (1u << bits) - 1);
        unsigned previous = 0;
        for (Float key : keys) {
          const unsigned bucket = buckets(key);
          ASSERT_LE(previous, bucket) << "key " << key;
          ASSERT_LE(bucket, (1u << bits) - 1) << "key " << key;
          previous = bucket;
        }
      }
    }
  }
}

TYPED_TEST(ValueBuckets, SignedZerosShareABucket) {
  using Float = TypeParam;
  bb::value_buckets<Float> buckets{};
  ASSERT_TRUE(bb::make_value_buckets(Float(-3), Float(5), 11, buckets));
  EXPECT_EQ(buckets(Float(-0.0)), buckets(Float(0.0)));
  ASSERT_TRUE(bb::make_value_buckets(Float(0.0), Float(5), 11, buckets));
  EXPECT_EQ(buckets(Float(-0.0)), 0u);
}

// The sample counts 2^11 buckets and merges them: a bucket of `bits` must be the run of
// 2^(11 - bits) finer ones that its keys fall in.
TYPED_TEST(ValueBuckets, ACoarserBucketIsARunOfFinerOnes) {
  using Float = TypeParam;
  std::mt19937_64 rng(7);
  constexpr int finest = 11;
  for (int trial = 0; trial < 300; ++trial) {
    Float a, b;
    random_range(rng, a, b);
    const std::vector<Float> keys = sorted_keys_between(rng, a, b);
    bb::value_buckets<Float> fine{};
    if (!bb::make_value_buckets(a, b, finest, fine)) continue;
    for (int bits = 1; bits < finest; ++bits) {
      bb::value_buckets<Float> coarse{};
      ASSERT_TRUE(bb::make_value_buckets(a, b, bits, coarse));
      for (Float key : keys)
        ASSERT_EQ(coarse(key), fine(key) >> (finest - bits))
            << "trial " << trial << ", key " << key << ", " << bits << " bits";
    }
  }
}

// What they are for: keys spread evenly over [-1e6, 1e6) fill buckets of value evenly.
TYPED_TEST(ValueBuckets, EvenlySpreadKeysFillTheBucketsEvenly) {
  using Float = TypeParam;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> draw(-1e6, 1e6);
  constexpr int bits = 8;
  bb::value_buckets<Float> buckets{};
  ASSERT_TRUE(bb::make_value_buckets(Float(-1e6), Float(1e6), bits, buckets));
  std::vector<int> counts(1u << bits);
  constexpr int keys = 1 << 20;
  for (int i = 0; i < keys; ++i) ++counts[buckets(Float(draw(rng)))];
  const int average = keys >> bits;
  EXPECT_LT(*std::max_element(counts.begin(), counts.end()), average * 11 / 10);
  EXPECT_GT(*std::min_element(counts.begin(), counts.end()), average * 9 / 10);
}
