// Sort units of 64-bit keys are sorted as 32-bit words first (kernels.cuh:
// sort_as_prefix_words): each key's distance from the unit's smallest, cut to its top
// 32 - position_bits bits, over its position in the unit. An input of at most one sort unit
// (default tuning: 1024 integer keys of 8 bytes, 2048 doubles) is one unit, so these inputs
// choose what its words look like:
// - pairs of keys that share a word's prefix, with the smallest key 0 and the largest past
//   2^63 (the prefix is then the key's top 22 bits): about half of the pairs come out of the
//   network in the wrong order, and the rounds of swaps put them right;
// - a cluster of keys behind one far key: all of the cluster shares one prefix, far more keys
//   than the rounds can order, so the unit is sorted again by its full words;
// - a few values repeated many times: ties whose keys are equal, which stay as they are.
// Both orders, keys and pairs, against std::stable_sort; then inputs of many units.
#include "bucket_bitonic_sort_tests.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace gpusort::test {
// (The shared header's typed suite is instantiated by the integer and float tests.)
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BucketBitonicSort);

namespace {

constexpr std::size_t one_unit_of_u64 = 1000;  // at most 1024
constexpr std::size_t one_unit_of_f64 = 2000;  // at most 2048

// 0, a key past 2^63, and pairs of keys with equal top 22 bits and random lower bits.
std::vector<std::uint64_t> pairs_behind_one_prefix(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> keys;
  keys.push_back(0);
  keys.push_back(~std::uint64_t(0) - rng() % 1000);
  while (keys.size() < n) {
    const std::uint64_t prefix = rng() >> 42;  // 22 bits
    for (int twin = 0; twin < 2 && keys.size() < n; ++twin)
      keys.push_back(prefix << 42 | rng() >> 22);  // lower 42 bits
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

// Keys within 2^30 of each other, and one far above them.
std::vector<std::uint64_t> cluster_behind_a_far_key(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> keys(n);
  for (std::uint64_t& key : keys) key = (std::uint64_t(1) << 40) + (rng() >> 34);
  keys[rng() % n] = (std::uint64_t(1) << 63) + rng() % 1000;
  return keys;
}

// Eight random values, each many times.
std::vector<std::uint64_t> few_values_many_times(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uint64_t values[8];
  for (std::uint64_t& value : values) value = rng();
  std::vector<std::uint64_t> keys(n);
  for (std::uint64_t& key : keys) key = values[rng() % 8];
  return keys;
}

// Doubles near 1 (a few ulps of 2^-40 apart), and one at 1e300.
std::vector<double> doubles_behind_a_far_one(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> keys(n);
  for (double& key : keys) key = 1.0 + double(rng() % (1u << 20)) * 0x1p-40;
  keys[rng() % n] = 1e300;
  return keys;
}

class BucketBitonicPrefixWords : public GpuTest {};

TEST_F(BucketBitonicPrefixWords, TiesOfThePrefixAreSortedByTheirFullKeys) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    expect_sorts_both_ways(gpusort::bucket_bitonic,
                           pairs_behind_one_prefix(one_unit_of_u64, seed),
                           calls::sort_and_sort_by_key);
  }
}

TEST_F(BucketBitonicPrefixWords, AUnitWithMoreTiesThanTheSwapsOrderTakesItsFullWords) {
  expect_sorts_both_ways(gpusort::bucket_bitonic, cluster_behind_a_far_key(one_unit_of_u64, 5),
                         calls::sort_and_sort_by_key);
  expect_sorts_both_ways(gpusort::bucket_bitonic, doubles_behind_a_far_one(one_unit_of_f64, 6),
                         calls::sort);
}

TEST_F(BucketBitonicPrefixWords, EqualKeysBehindOnePrefixStayAsTheyAre) {
  expect_sorts_both_ways(gpusort::bucket_bitonic, few_values_many_times(one_unit_of_u64, 7),
                         calls::sort_and_sort_by_key);
}

// Many units, each of the kinds above somewhere among them.
TEST_F(BucketBitonicPrefixWords, InputsOfManyUnits) {
  for (std::size_t n : capped({100003, 1000003})) {
    SCOPED_TRACE(n);
    expect_sorts_both_ways(gpusort::bucket_bitonic, pairs_behind_one_prefix(n, n),
                           calls::sort_and_sort_by_key);
    expect_sorts_both_ways(gpusort::bucket_bitonic, cluster_behind_a_far_key(n, n + 1),
                           calls::sort);
    expect_sorts_both_ways(gpusort::bucket_bitonic, doubles_behind_a_far_one(n, n + 2),
                           calls::sort);
  }
}

}  // namespace
}  // namespace gpusort::test
