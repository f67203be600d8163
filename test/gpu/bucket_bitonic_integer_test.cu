#include "bucket_bitonic_sort_tests.cuh"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gpusort::test {
using IntegerKeys = ::testing::Types<std::uint32_t, std::int32_t, std::uint64_t>;
INSTANTIATE_TYPED_TEST_SUITE_P(Integer, BucketBitonicSort, IntegerKeys);

// A sort unit of 64-bit keys with values sorts each key's distance from the unit's smallest
// key in one word with its position where its keys lie less than 2^53 apart (a unit of 2048
// keys: 11 position bits), and the whole bits beside the position where they lie further.
// One unit (2000 keys) on either side of that bound, both ends present, with duplicates.
class BucketBitonicUnitWords : public GpuTest {};

TEST_F(BucketBitonicUnitWords, SixtyFourBitUnitsOnEitherSideOfTheSpanOfOneWord) {
  const std::uint64_t base = 0x0123456789abcdefull;
  const std::uint64_t limit = std::uint64_t(1) << 53;
  for (std::uint64_t span : {limit - 2, limit - 1, limit, limit + 1}) {
    SCOPED_TRACE("span " + std::to_string(span));
    std::mt19937_64 rng(span);
    std::vector<std::uint64_t> keys(2000);
    for (std::uint64_t& key : keys) key = base + rng() % span;
    keys[17] = base;
    keys[1234] = base + (span - 1);
    keys[1500] = keys[300];  // equal keys keep their values, in some order
    expect_sorts_both_ways(gpusort::bucket_bitonic, keys, calls::sort_and_sort_by_key);
  }
}

// Keys at eight scales, each 2^8 times the one below: a level's lowest bucket holds every
// scale narrower than the bucket, so each of the eight levels that 64-bit keys may need has a
// segment to split, and the levels past the first two (three from 2^23 keys) run in the
// cooperative kernel (deeper_levels.cuh), with values and without, in both orders.
class BucketBitonicDeeperLevels : public GpuTest {};

TEST_F(BucketBitonicDeeperLevels, KeysAtEveryScaleFillEveryLevel) {
  for (std::size_t n : capped({999983, (std::size_t(1) << 23) + 5})) {
    SCOPED_TRACE("n " + std::to_string(n));
    std::mt19937_64 rng(n);
    std::vector<std::uint64_t> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = rng() >> (56 - 8 * (i % 8));
    expect_sorts_both_ways(gpusort::bucket_bitonic, keys, calls::sort_and_sort_by_key);
  }
}

class BucketBitonicSampleWindow : public GpuTest {};

TEST_F(BucketBitonicSampleWindow, KeysTheSampleMissedAreSortedFromTheWindowsEnds) {
  for (std::size_t n : capped({(std::size_t(1) << 22) + 3})) {
    SCOPED_TRACE("n " + std::to_string(n));
    expect_sorts_band_and_keys_the_sample_misses<std::uint32_t>(n, "u32");
    if (HasFailure()) return;
    expect_sorts_band_and_keys_the_sample_misses<std::uint64_t>(n, "u64");
  }
}

}  // namespace gpusort::test
