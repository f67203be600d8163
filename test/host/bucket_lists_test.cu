// The bucket_bitonic work lists are sized on the host before anything runs (dispatch.cuh:
// capacities_for); overflowing one traps on the device. This replays plan_buckets' rules on the
// host, level by level, over bucket counts chosen to fill the lists (many buckets just too big
// to be small, small buckets fenced off by big ones, single keys spread over many windows) and
// checks every list stays within its capacity.
#include <gpusort/detail/backends/bucket_bitonic/dispatch.cuh>
#include <gpusort/detail/policies/tuning/sm90.cuh>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace bb = gpusort::backends::bucket_bitonic;

namespace {

// The shape of 4-byte keys with the default tuning.
using four_byte_keys = bb::bucket_shape<gpusort::bucket_bitonic_tuning_sm90, std::uint32_t>;
constexpr std::size_t small_limit = four_byte_keys::small_bucket_limit;
constexpr std::size_t window = four_byte_keys::unit_window;
constexpr std::size_t target_keys = four_byte_keys::target_bucket_keys;
constexpr int first_bucket_bits = four_byte_keys::max_bucket_bits;
constexpr int deeper_bucket_bits = four_byte_keys::min_deeper_bucket_bits;

enum class filling { random, just_too_big, fenced_singles, spread_singles };

// `count` keys spread over `buckets` buckets the way `how` says.
std::vector<std::size_t> bucket_counts(std::size_t count, int buckets, filling how,
                                       std::mt19937_64& rng) {
  std::vector<std::size_t> counts(std::size_t(buckets), 0);
  std::size_t left = count;
  switch (how) {
    case filling::random:
      for (std::size_t k = 0; k < count; ++k) ++counts[rng() % counts.size()];
      return counts;
    case filling::just_too_big:  // as many segments for the next level as possible
      for (auto& c : counts) {
        const std::size_t take = left < small_limit + 1 ? left : small_limit + 1;
        c = take;
        left -= take;
      }
      break;
    case filling::fenced_singles:  // one key, then a big bucket: every single opens a unit
      for (std::size_t b = 0; b < counts.size() && left > 0; ++b) {
        const std::size_t take =
            b % 2 == 0 ? 1 : (left < small_limit + 1 ? left : small_limit + 1);
        counts[b] = take;
        left -= take;
      }
      break;
    case filling::spread_singles:  // single keys, the rest in the last bucket
      for (std::size_t b = 0; b + 1 < counts.size() && left > 0; ++b) {
        counts[b] = 1;
        --left;
      }
      break;
  }
  counts.back() += left;
  return counts;
}

struct list_use {
  std::size_t most_segments = 0;  // in one level
  std::size_t units = 0;          // all levels
  std::size_t most_counters = 0;  // in one level
};

// Replays plan_buckets for n keys. A segment's buckets all hold more than one value until the
// last level, where every oversized bucket is one value (partition_levels).
list_use replay(std::size_t n, int first_bits, int levels, std::mt19937_64& rng) {
  struct seg {
    std::size_t count;
    int bits;
  };
  list_use use;
  std::vector<seg> level{{n, first_bits}};
  use.most_counters = std::size_t(1) << first_bits;
  for (int l = 0; l < levels && !level.empty(); ++l) {
    const bool last = l + 1 == levels;
    std::vector<seg> next;
    std::size_t counters = 0;
    for (const seg& s : level) {
      const auto how = filling(rng() % 4);
      const std::vector<std::size_t> counts = bucket_counts(s.count, 1 << s.bits, how, rng);
      std::size_t start = 0;
      unsigned long long previous = 0;
      for (std::size_t c : counts) {
        if (c != 0) {
          const bool small = bb::is_small_bucket(c, small_limit);
          if (small && bb::opens_unit(previous, start, window)) ++use.units;
          if (!small && last) ++use.units;  // one value: an all-equal unit
          if (!small && !last) {
            const int bits = bb::deeper_level_bucket_bits(c, target_keys, deeper_bucket_bits,
                                                          first_bucket_bits);
            next.push_back({c, bits});
            counters += std::size_t(1) << bits;
          }
          previous = bb::bucket_marker(start, small);
        }
        start += c;
      }
    }
    use.most_segments = next.size() > use.most_segments ? next.size() : use.most_segments;
    use.most_counters = counters > use.most_counters ? counters : use.most_counters;
    level = std::move(next);
  }
  return use;
}

}  // namespace

TEST(BucketLists, ReplayedPartitionsStayWithinTheCapacities) {
  std::mt19937_64 rng(2026);
  for (std::size_t n : {std::size_t(5000), std::size_t(100003), std::size_t(1) << 20,
                        (std::size_t(3) << 20) + 7}) {
    const int first_bits = bb::first_level_bucket_bits(n, target_keys, first_bucket_bits);
    const int levels = bb::partition_levels(32, first_bits, deeper_bucket_bits);
    const bb::list_capacities capacity = bb::capacities_for<four_byte_keys>(n, first_bits, levels);
    for (int trial = 0; trial < 20; ++trial) {
      const list_use use = replay(n, first_bits, levels, rng);
      ASSERT_LE(use.most_segments, capacity.segments) << "n = " << n;
      ASSERT_LE(use.units, capacity.units) << "n = " << n;
      ASSERT_LE(use.most_counters, capacity.counters) << "n = " << n;
    }
  }
}

// As plan_sort sizes them for integer keys that it samples: levels for a first level that may
// narrow nothing (a window's end buckets), counters for 2^max_bucket_bits there, and the
// device free to take any first-level count from the even split up (choose_first_level_bits).
TEST(BucketLists, EveryFirstLevelTheSampleMayChooseStaysWithinTheCapacities) {
  std::mt19937_64 rng(2027);
  for (std::size_t n : {(std::size_t(3) << 19) + 1, (std::size_t(3) << 20) + 7,
                        (std::size_t(1) << 22) + 3}) {
    const int fewest = bb::balanced_first_level_bits(n, target_keys, first_bucket_bits);
    const bb::sort_plan plan = bb::plan_sort<four_byte_keys>(n);
    const int levels = plan.levels;
    const bb::list_capacities capacity = plan.capacity;
    ASSERT_TRUE(plan.samples_first_level) << "n = " << n;
    ASSERT_EQ(levels, bb::partition_levels(32, 0, deeper_bucket_bits)) << "n = " << n;
    ASSERT_LT(fewest, first_bucket_bits) << "n = " << n << " needs one level only";
    for (int first_bits = fewest; first_bits <= first_bucket_bits; ++first_bits)
      for (int trial = 0; trial < 4; ++trial) {
        const list_use use = replay(n, first_bits, levels, rng);
        ASSERT_LE(use.most_segments, capacity.segments) << "n = " << n << " bits " << first_bits;
        ASSERT_LE(use.units, capacity.units) << "n = " << n << " bits " << first_bits;
        ASSERT_LE(use.most_counters, capacity.counters) << "n = " << n << " bits " << first_bits;
      }
  }
}

// The sample runs only where it can add bits or cut a window: integer keys past the
// heavy-bucket limit (at or below it, even all keys in one bucket fit, and the first level
// keeps its count). Integers are sampled where the first level can take more bits than the
// even split, and from many keys on also where it cannot (for a window alone); floats
// past twice that limit, to choose between buckets of bits and of value (value_buckets.cuh);
// between the limit and twice it, floats take the most bits without a sample. A sampled sort
// plans one more level, since its first level may narrow nothing (buckets of value, or a
// window's end buckets: buckets.cuh, cuts_sample_window).
TEST(BucketLists, TheFirstLevelIsSampledOnlyWhereItCanTakeMoreBitsBucketsOfValueOrAWindow) {
  using eight_byte_keys =
      bb::bucket_shape<gpusort::bucket_bitonic_tuning_sm90, std::uint64_t>;
  using float_keys = bb::bucket_shape<gpusort::bucket_bitonic_tuning_sm90, float>;
  const auto sampled = [](auto plan) { return plan.samples_first_level; };
  // The heavy-bucket limits of the default tuning: 2^19 keys of 4 bytes, 2^18 of 8.
  const std::size_t heavy = bb::heavy_bucket_limit(target_keys, first_bucket_bits);
  const std::size_t heavy8 = bb::heavy_bucket_limit(eight_byte_keys::target_bucket_keys,
                                                    eight_byte_keys::max_bucket_bits);
  ASSERT_EQ(heavy, std::size_t(1) << 19);
  ASSERT_EQ(heavy8, std::size_t(1) << 18);
  EXPECT_FALSE(sampled(bb::plan_sort<four_byte_keys>(std::size_t(1) << 16)));
  EXPECT_FALSE(sampled(bb::plan_sort<four_byte_keys>(heavy)));
  EXPECT_FALSE(sampled(bb::plan_sort<four_byte_keys>(heavy + 1)));  // one level takes it
  EXPECT_TRUE(sampled(bb::plan_sort<four_byte_keys>(heavy / 2 * 3)));
  EXPECT_TRUE(sampled(bb::plan_sort<four_byte_keys>(std::size_t(1) << 28)));
  EXPECT_FALSE(sampled(bb::plan_sort<eight_byte_keys>(heavy8)));
  EXPECT_TRUE(sampled(bb::plan_sort<eight_byte_keys>(heavy8 * 4)));
  // From the tuning's window_sample_min_keys (2^26) on, also where the even split already
  // takes every first-level bit, for a window alone (8-byte keys at 2^28, 4-byte at 2^29).
  for (const auto& plan : {bb::plan_sort<eight_byte_keys>(std::size_t(1) << 28),
                           bb::plan_sort<four_byte_keys>(std::size_t(1) << 29)}) {
    EXPECT_EQ(plan.first_bits, first_bucket_bits);
    EXPECT_TRUE(sampled(plan));
  }
  EXPECT_EQ(bb::plan_sort<eight_byte_keys>(std::size_t(1) << 28).levels,
            bb::partition_levels(64, 0, deeper_bucket_bits));
  // 2^24 keys of 8 bytes need 17 bits of buckets: two levels, 9 bits and 8.
  EXPECT_EQ(bb::plan_sort<eight_byte_keys>(std::size_t(1) << 24).first_bits, 9);
  // Where the sample may choose a window of the range (buckets.cuh: cuts_sample_window), whose
  // end buckets may narrow nothing, the plan counts levels as if the first narrowed nothing.
  EXPECT_EQ(bb::plan_sort<four_byte_keys>(std::size_t(1) << 24).levels,
            bb::partition_levels(32, 0, deeper_bucket_bits));
  EXPECT_EQ(bb::plan_sort<eight_byte_keys>(std::size_t(1) << 24).levels,
            bb::partition_levels(64, 0, deeper_bucket_bits));
  EXPECT_EQ(bb::plan_sort<four_byte_keys>(heavy + 1).levels,
            bb::partition_levels(32, first_bucket_bits, deeper_bucket_bits));
  // Float keys keep larger units (sm90.cuh): their limit is 2^20.
  const std::size_t heavy_float = bb::heavy_bucket_limit(float_keys::target_bucket_keys,
                                                         float_keys::max_bucket_bits);
  ASSERT_EQ(heavy_float, std::size_t(1) << 20);
  const int one_level_of_most_bits =
      bb::partition_levels(32, first_bucket_bits, deeper_bucket_bits);
  EXPECT_FALSE(sampled(bb::plan_sort<float_keys>(std::size_t(1) << 16)));
  EXPECT_FALSE(sampled(bb::plan_sort<float_keys>(heavy_float)));
  EXPECT_EQ(bb::plan_sort<float_keys>(heavy_float).first_bits, 11);
  EXPECT_EQ(bb::plan_sort<float_keys>(heavy_float).levels, one_level_of_most_bits);
  EXPECT_FALSE(sampled(bb::plan_sort<float_keys>(heavy_float + 1)));
  EXPECT_FALSE(sampled(bb::plan_sort<float_keys>(2 * heavy_float)));
  EXPECT_EQ(bb::plan_sort<float_keys>(2 * heavy_float).first_bits, 11);
  EXPECT_EQ(bb::plan_sort<float_keys>(2 * heavy_float).levels, one_level_of_most_bits);
  EXPECT_TRUE(sampled(bb::plan_sort<float_keys>(2 * heavy_float + 1)));
  EXPECT_TRUE(sampled(bb::plan_sort<float_keys>(std::size_t(1) << 24)));
  EXPECT_EQ(bb::plan_sort<float_keys>(std::size_t(1) << 24).first_bits,
            bb::balanced_first_level_bits(std::size_t(1) << 24, float_keys::target_bucket_keys,
                                          first_bucket_bits));
  EXPECT_EQ(bb::plan_sort<float_keys>(std::size_t(1) << 24).levels,
            bb::partition_levels(32, 0, deeper_bucket_bits));
  // Both kinds of first level may narrow nothing (value buckets, a window's end buckets).
  EXPECT_EQ(bb::plan_sort<float_keys>(std::size_t(1) << 24).levels,
            bb::plan_sort<four_byte_keys>(std::size_t(1) << 24).levels);
}

// The fillings do reach the lists' worst cases, so the test above can fail: a third of the
// segment capacity is used by buckets that are just too big to be small.
TEST(BucketLists, JustTooBigBucketsFillASizeableShareOfTheSegmentList) {
  std::mt19937_64 rng(1);
  const std::size_t n = std::size_t(1) << 20;
  const int first_bits = bb::first_level_bucket_bits(n, target_keys, first_bucket_bits);
  const std::vector<std::size_t> counts =
      bucket_counts(n, 1 << first_bits, filling::just_too_big, rng);
  std::size_t segments = 0;
  for (std::size_t c : counts) segments += bb::is_small_bucket(c, small_limit) ? 0 : 1;
  const bb::list_capacities capacity = bb::capacities_for<four_byte_keys>(
      n, first_bits, bb::partition_levels(32, first_bits, deeper_bucket_bits));
  EXPECT_GE(segments * 3, capacity.segments);
  EXPECT_LE(segments, capacity.segments);
}

// Every level reads the keys and the list the level before wrote (the user's buffers at
// level 0), the last level may append no segment (its next list has no room, so a broken
// bound traps), and the levels that the cooperative kernel runs start where those launched
// one by one end: the same level_io_of on both sides (deeper_levels.cuh).
TEST(BucketLists, EachLevelReadsWhatTheLevelBeforeWrote) {
  std::uint32_t keys[1], alternate_keys[1];
  std::uint32_t values[1], alternate_values[1];
  bb::segment segments[2];
  unsigned long long reservations[4];
  unsigned long long counters[2];
  const bb::work_space<std::uint32_t, std::uint32_t> work{
      alternate_keys, alternate_values,
      {{&segments[0], &reservations[0], 5}, {&segments[1], &reservations[1], 5}},
      {nullptr, nullptr, 0},
      {nullptr, nullptr, 0},
      {{&counters[0], &reservations[2], 7}, {&counters[1], &reservations[3], 7}}};
  const int levels = 8;
  for (int level = 0; level < levels; ++level) {
    SCOPED_TRACE("level " + std::to_string(level));
    const auto io = bb::level_io_of(work, keys, values, level, levels);
    const auto next = bb::level_io_of(work, keys, values, level + 1, levels);
    EXPECT_EQ(io.from_keys, level % 2 == 0 ? keys : alternate_keys);
    EXPECT_EQ(io.from_values, level % 2 == 0 ? values : alternate_values);
    EXPECT_EQ(io.in_alternate, level % 2);
    EXPECT_EQ(next.from_keys, io.to_keys);
    EXPECT_EQ(next.from_values, io.to_values);
    EXPECT_EQ(next.list.entries, io.next.entries);
    EXPECT_EQ(next.list.reservation, io.next.reservation);
    EXPECT_EQ(next.pool.counters, io.next_pool.counters);
    EXPECT_NE(io.list.entries, io.next.entries);
    EXPECT_EQ(io.next.capacity, level + 1 == levels ? 0u : 5u);
  }
  for (std::size_t n : {std::size_t(1) << 20, (std::size_t(1) << 23) - 1})
    EXPECT_EQ(bb::levels_launched_apart(n), 2) << n;
  for (std::size_t n : {std::size_t(1) << 23, std::size_t(1) << 30})
    EXPECT_EQ(bb::levels_launched_apart(n), 3) << n;
}
