// The bucket_bitonic backend's partition arithmetic, checked on the host: bucket shifts and
// indices, the number of partition levels, the packing of small buckets into sort units, and
// the work lists' packed counters and tile lookup.
#include <gpusort/detail/backends/bucket_bitonic/buckets.cuh>
#include <gpusort/detail/policies/tuning/sm90.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace bb = gpusort::backends::bucket_bitonic;

namespace {

// The tuning whose bucket sizes (fractions of a sort unit) the tests take.
using tuning = gpusort::bucket_bitonic_tuning_sm90;

// A small bucket's limit and a unit's window, in keys, for units of unit_items keys.
struct unit_packing {
  std::size_t small_limit;
  std::size_t window;
};
unit_packing packing_for(int unit_items) {
  return {bb::small_bucket_limit<tuning>(unit_items), bb::unit_window<tuning>(unit_items)};
}

// The bucket bit counts the tuning uses, and a few around them.
constexpr int bucket_bit_counts[] = {1, 2, 5, 8, 11, 16};
// The bits of the default tuning's deeper and first levels.
constexpr int level_bucket_bits[] = {8, 11};

// A random range [min, max] of `width`-bit keys whose span has anywhere from 0 to `width`
// significant bits (uniform draws of min and max would nearly always span the whole type).
std::pair<std::uint64_t, std::uint64_t> random_range(std::mt19937_64& rng, int width) {
  const std::uint64_t type_max = width == 64 ? ~0ull : (1ull << width) - 1;
  const int span_bits = int(rng() % (width + 1));
  const std::uint64_t span_mask = span_bits == 64 ? ~0ull : (1ull << span_bits) - 1;
  const std::uint64_t span = rng() & span_mask;
  const std::uint64_t room = type_max - span;  // min can be anything in [0, room]
  const std::uint64_t min = room == ~0ull ? rng() : rng() % (room + 1);
  return {min, min + span};
}

// A key of [min, max]: often the ends and their neighbours, where off-by-ones live.
std::uint64_t random_key_in(std::mt19937_64& rng, std::uint64_t min, std::uint64_t max) {
  const std::uint64_t span = max - min;
  switch (rng() % 6) {
    case 0: return min;
    case 1: return max;
    case 2: return span == 0 ? min : min + 1;
    case 3: return span == 0 ? max : max - 1;
    default: return span == ~0ull ? rng() : min + rng() % (span + 1);
  }
}

// Runs check(width, bucket_bits, min, max, shift) on 2000 random ranges (random_range) of
// each key width and bucket bit count, with shift = bucket_shift(min, max, bucket_bits);
// stops at the first fatal failure, as the loop written out would.
template <class BitCounts, class Check>
void for_random_ranges(std::mt19937_64& rng, std::initializer_list<int> widths,
                       const BitCounts& bit_counts, Check&& check) {
  for (int width : widths)
    for (int bucket_bits : bit_counts)
      for (int trial = 0; trial < 2000; ++trial) {
        const auto [min, max] = random_range(rng, width);
        check(width, bucket_bits, min, max, bb::bucket_shift(min, max, bucket_bits));
        if (::testing::Test::HasFatalFailure()) return;
      }
}

}  // namespace

TEST(Buckets, BitLengthCountsSignificantBits) {
  EXPECT_EQ(bb::bit_length(0), 0);
  EXPECT_EQ(bb::bit_length(1), 1);
  EXPECT_EQ(bb::bit_length(2), 2);
  EXPECT_EQ(bb::bit_length(3), 2);
  EXPECT_EQ(bb::bit_length(255), 8);
  EXPECT_EQ(bb::bit_length(256), 9);
  EXPECT_EQ(bb::bit_length(0xFFFFFFFFull), 32);
  EXPECT_EQ(bb::bit_length(1ull << 63), 64);
  EXPECT_EQ(bb::bit_length(~0ull), 64);
  for (int b = 0; b < 64; ++b) {
    EXPECT_EQ(bb::bit_length(1ull << b), b + 1);
    EXPECT_EQ(bb::bit_length((1ull << b) - 1), b);
  }
}

TEST(Buckets, EqualKeysGoToBucketZero) {
  for (int bucket_bits : bucket_bit_counts) {
    EXPECT_EQ(bb::bucket_shift(42, 42, bucket_bits), 0);
    EXPECT_EQ(bb::bucket_of(42, 42, 0), 0u);
  }
}

// Narrow ranges get one bucket per value: bucket = key - min.
TEST(Buckets, ARangeNarrowerThanTheBucketCountIsCutIntoSingleValues) {
  EXPECT_EQ(bb::bucket_shift(1000, 1000 + 255, 8), 0);
  EXPECT_EQ(bb::bucket_shift(1000, 1000 + 256, 8), 1);
  for (std::uint64_t k = 1000; k <= 1255; ++k) EXPECT_EQ(bb::bucket_of(k, 1000, 0), k - 1000);
}

TEST(Buckets, TheWholeTypeIsCutIntoExactlyTwoToTheBucketBits) {
  for (int bucket_bits : bucket_bit_counts) {
    const int shift32 = bb::bucket_shift(0, 0xFFFFFFFFull, bucket_bits);
    EXPECT_EQ(shift32, 32 - bucket_bits);
    EXPECT_EQ(bb::bucket_of(0xFFFFFFFFull, 0, shift32), (1u << bucket_bits) - 1);
    const int shift64 = bb::bucket_shift(0, ~0ull, bucket_bits);
    EXPECT_EQ(shift64, 64 - bucket_bits);
    EXPECT_EQ(bb::bucket_of(~0ull, 0, shift64), (1u << bucket_bits) - 1);
    EXPECT_EQ(bb::bucket_of(1ull << 63, 0, shift64), 1u << (bucket_bits - 1));
  }
}

// Every key of [min, max] lands in a bucket below 2^bucket_bits; the range's maximum lands
// in the upper half of them when the range is wider than the bucket count (so no level
// wastes half its buckets); min is in bucket 0; and the map is monotone, so buckets are
// ordered like their keys.
TEST(Buckets, EveryKeyOfTheRangeFallsInABucketAndTheMapIsMonotone) {
  std::mt19937_64 rng(1);
  for_random_ranges(
      rng, {8, 16, 32, 64}, bucket_bit_counts,
      [&](int width, int bucket_bits, std::uint64_t min, std::uint64_t max, int shift) {
        SCOPED_TRACE(::testing::Message()
                     << "width=" << width << " bucket_bits=" << bucket_bits << " min=" << min
                     << " max=" << max << " shift=" << shift);
        ASSERT_GE(shift, 0);
        ASSERT_LT(shift, width);
        const unsigned top = bb::bucket_of(max, min, shift);
        ASSERT_EQ(bb::bucket_of(min, min, shift), 0u);
        ASSERT_LT(top, 1ull << bucket_bits);
        if (bb::bit_length(max - min) > bucket_bits) {
          ASSERT_GE(top, 1u << (bucket_bits - 1));
        } else {
          ASSERT_EQ(shift, 0);  // fits: one bucket per value
          ASSERT_EQ(top, max - min);
        }
        std::vector<std::uint64_t> keys(16);
        for (auto& k : keys) k = random_key_in(rng, min, max);
        std::sort(keys.begin(), keys.end());
        unsigned previous = 0;
        for (std::uint64_t k : keys) {
          const unsigned bucket = bb::bucket_of(k, min, shift);
          ASSERT_LE(bucket, top) << "key " << k;
          ASSERT_GE(bucket, previous) << "key " << k << " goes below a smaller key's bucket";
          previous = bucket;
        }
      });
}

// A window [low, high] inside a wider range, cut as [min, max] is: the keys inside it take
// the same buckets as bucket_of gives, every key of the type takes one of 2^bucket_bits
// buckets, keys below the window bucket 0 and keys above it the last, and the map is still
// monotone over the whole type.
TEST(Buckets, AWindowKeepsItsBucketsAndSendsTheKeysOutsideItToTheEnds) {
  std::mt19937_64 rng(11);
  for_random_ranges(
      rng, {32, 64}, level_bucket_bits,
      [&](int width, int bucket_bits, std::uint64_t low, std::uint64_t high, int shift) {
        const unsigned last = (1u << bucket_bits) - 1;
        const std::uint64_t type_max = width == 64 ? ~0ull : (1ull << width) - 1;
        SCOPED_TRACE(::testing::Message() << "width=" << width << " bucket_bits=" << bucket_bits
                                          << " low=" << low << " high=" << high);
        std::vector<std::uint64_t> keys(24);
        for (auto& k : keys) {
          switch (rng() % 3) {
            case 0: k = random_key_in(rng, 0, low); break;         // at or below the window
            case 1: k = random_key_in(rng, high, type_max); break;  // at or above it
            default: k = random_key_in(rng, low, high);
          }
        }
        std::sort(keys.begin(), keys.end());
        unsigned previous = 0;
        for (std::uint64_t k : keys) {
          const unsigned bucket = bb::clamped_bucket_of(k, low, shift, last);
          ASSERT_LE(bucket, last) << "key " << k;
          ASSERT_GE(bucket, previous) << "key " << k << " goes below a smaller key's bucket";
          if (k < low) ASSERT_EQ(bucket, 0u) << "key " << k;
          if (k >= low && k <= high) ASSERT_EQ(bucket, bb::bucket_of(k, low, shift)) << "key " << k;
          if (k > high && bb::bit_length(high - low) > bucket_bits)
            ASSERT_GE(bucket, bb::bucket_of(high, low, shift)) << "key " << k;
          previous = bucket;
        }
        ASSERT_EQ(bb::clamped_bucket_of(type_max, low, shift, last),
                  std::min<std::uint64_t>(last, (type_max - low) >> shift));
      });
}

// A bucket's last bits: the next bucket's first less one, or the range's max for the last.
TEST(Buckets, ABucketEndsWhereTheNextBeginsOrAtTheRangesMax) {
  std::mt19937_64 rng(12);
  for_random_ranges(rng, {32, 64}, level_bucket_bits,
                    [&](int, int, std::uint64_t min, std::uint64_t max, int shift) {
                      const unsigned top = bb::bucket_of(max, min, shift);
                      const unsigned bucket = unsigned(rng() % (top + 1));
                      const std::uint64_t end = bb::bucket_end_bits(min, max, bucket, shift);
                      SCOPED_TRACE(::testing::Message()
                                   << "min=" << min << " max=" << max << " shift=" << shift
                                   << " bucket=" << bucket);
                      ASSERT_LE(end, max);
                      ASSERT_EQ(bb::bucket_of(end, min, shift), bucket);
                      if (bucket == top)
                        ASSERT_EQ(end, max);
                      else
                        ASSERT_EQ(bb::bucket_of(end + 1, min, shift), bucket + 1);
                    });
}

// The first level cuts the sample's window (its range, rounded out to the whole range's
// buckets) only where it is at most an eighth of the whole (window_gain_bits), and never a
// window of one value.
TEST(Buckets, TheSampleWindowIsTakenOnlyWhereItIsASliverOfTheRange) {
  ASSERT_EQ(bb::window_gain_bits, 3);
  const std::uint64_t top32 = 0xFFFFFFFFull;
  // One key at 0, the others in the top 2^24 values (one 256th of the range).
  EXPECT_TRUE(bb::cuts_sample_window(0, top32, top32 - (1ull << 24) + 1, top32));
  // A sample over half or a quarter of the range: no.
  EXPECT_FALSE(bb::cuts_sample_window(0, top32, 1ull << 31, top32));
  EXPECT_FALSE(bb::cuts_sample_window(0, top32, 0, top32 >> 2));
  // An eighth, and just more than an eighth, of a range of 2^32 values.
  EXPECT_TRUE(bb::cuts_sample_window(0, top32, 5, 5 + (1ull << 29) - 1));
  EXPECT_FALSE(bb::cuts_sample_window(0, top32, 5, 5 + (1ull << 29)));
  // A sample that saw one value: its window would be one bucket.
  EXPECT_FALSE(bb::cuts_sample_window(0, top32, 77, 77));
  // The whole 64-bit range, a window of 2^40 values in it.
  EXPECT_TRUE(bb::cuts_sample_window(0, ~0ull, 1ull << 50, (1ull << 50) + (1ull << 40)));
}

// A bucket's keys differ by less than 2^shift: each level takes bucket_bits bits off the
// range, which is what partition_levels counts on.
TEST(Buckets, ABucketsRangeHasAtMostShiftSignificantBits) {
  std::mt19937_64 rng(2);
  for_random_ranges(
      rng, {32, 64}, level_bucket_bits,
      [&](int, int bucket_bits, std::uint64_t min, std::uint64_t max, int shift) {
        const unsigned bucket = bb::bucket_of(random_key_in(rng, min, max), min, shift);
        // The bucket's first and last possible keys, clipped to [min, max].
        const std::uint64_t first = min + (std::uint64_t(bucket) << shift);
        const std::uint64_t last_offset = (std::uint64_t(bucket) << shift) + ((1ull << shift) - 1);
        const std::uint64_t last = min + std::min<std::uint64_t>(last_offset, max - min);
        ASSERT_EQ(bb::bucket_of(first, min, shift), bucket);
        ASSERT_EQ(bb::bucket_of(last, min, shift), bucket);
        ASSERT_LE(bb::bit_length(last - first), shift);
        ASSERT_LE(bb::bit_length(last - first),
                  std::max(0, bb::bit_length(max - min) - bucket_bits));
      });
}

// One chain of the recursion: at each level, a child bucket's keys (some sub-range of the
// bucket, as its own min/max scan would find it) are split again. After partition_levels
// levels every bucket holds a single value, for any choice of children.
TEST(Buckets, AfterPartitionLevelsEveryBucketHoldsOneValue) {
  std::mt19937_64 rng(3);
  for (int width : {8, 16, 32, 64})
    for (int first_bits = 1; first_bits <= 11; ++first_bits)
      for (int deeper_bits : {1, 3, 8}) {
        const int levels = bb::partition_levels(width, first_bits, deeper_bits);
        for (int trial = 0; trial < 300; ++trial) {
          auto [min, max] =
              trial == 0
                  ? std::pair<std::uint64_t, std::uint64_t>{0, width == 64 ? ~0ull
                                                                           : (1ull << width) - 1}
                  : random_range(rng, width);
          SCOPED_TRACE(::testing::Message() << "width=" << width << " first_bits=" << first_bits
                                            << " deeper_bits=" << deeper_bits << " min=" << min
                                            << " max=" << max << " levels=" << levels);
          for (int level = 0; level < levels; ++level) {
            const int bucket_bits = level == 0 ? first_bits : deeper_bits;
            const int shift = bb::bucket_shift(min, max, bucket_bits);
            const unsigned bucket = bb::bucket_of(random_key_in(rng, min, max), min, shift);
            // The child's widest possible key range; then a random sub-range holding its
            // actual keys (trial 0 keeps the widest, the worst case).
            const std::uint64_t child_min = min + (std::uint64_t(bucket) << shift);
            const std::uint64_t child_span =
                std::min<std::uint64_t>((1ull << shift) - 1, max - child_min);
            std::uint64_t a = child_min, b = child_min + child_span;
            if (trial != 0) {
              a = random_key_in(rng, child_min, child_min + child_span);
              b = random_key_in(rng, child_min, child_min + child_span);
              if (a > b) std::swap(a, b);
            }
            min = a;
            max = b;
          }
          ASSERT_EQ(min, max) << "a bucket still holds several values";
        }
      }
}

// partition_levels is tight: one level fewer leaves the whole-type range with several values.
TEST(Buckets, PartitionLevelsIsNoMoreThanTheWholeRangeNeeds) {
  for (int width : {8, 16, 32, 64})
    for (int first_bits : {1, 8, 11})
      for (int deeper_bits : {1, 3, 8}) {
        const int levels = bb::partition_levels(width, first_bits, deeper_bits);
        EXPECT_GE(levels, 1);
        std::uint64_t min = 0, max = width == 64 ? ~0ull : (1ull << width) - 1;
        for (int level = 0; level + 1 < levels; ++level) {
          const int shift = bb::bucket_shift(min, max, level == 0 ? first_bits : deeper_bits);
          max = (1ull << shift) - 1;  // bucket 0, all of it
        }
        EXPECT_NE(min, max) << "width=" << width << " first_bits=" << first_bits
                            << " deeper_bits=" << deeper_bits << ": " << levels
                            << " levels, but one fewer already ends the recursion";
      }
  EXPECT_EQ(bb::partition_levels(32, 11, 8), 4);  // 11 + 8 + 8 + 5 bits
  EXPECT_EQ(bb::partition_levels(64, 11, 8), 8);  // 11 + 6 x 8 + 5
  EXPECT_EQ(bb::partition_levels(8, 11, 8), 1);
  EXPECT_EQ(bb::partition_levels(16, 11, 8), 2);
}

// The first level's bucket count grows with n until a bucket averages at most the target,
// between 2 and 2^max_bits buckets, and is the smallest such count.
TEST(Buckets, FirstLevelUsesTheFewestBucketsThatMeetTheTarget) {
  for (int unit_items : {512, 2048, 4096})
    for (int max_bits : {1, 8, 11}) {
      const std::size_t target = bb::target_bucket_keys<tuning>(unit_items);
      int previous = 1;
      for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(4096),
                            std::size_t(4097), std::size_t(65521), std::size_t(1) << 20,
                            (std::size_t(1) << 22) + 3, std::size_t(1) << 25,
                            std::size_t(1) << 33, ~std::size_t(0)}) {
        const int bits = bb::first_level_bucket_bits(n, target, max_bits);
        SCOPED_TRACE(::testing::Message() << "n=" << n << " unit_items=" << unit_items
                                          << " max_bits=" << max_bits << " bits=" << bits);
        EXPECT_GE(bits, 1);
        EXPECT_LE(bits, max_bits);
        EXPECT_GE(bits, previous);  // monotone in n
        previous = bits;
        if (bits < max_bits) EXPECT_LE(n >> bits, target);
        if (bits > 1) EXPECT_GT(n >> (bits - 1), target);
      }
    }
  // The tuning aims at half a small bucket: 512 keys of a 4096-key unit.
  const std::size_t target = bb::target_bucket_keys<tuning>(4096);
  EXPECT_EQ(target, 512u);
  EXPECT_EQ(target, bb::small_bucket_limit<tuning>(4096) / 2);
  EXPECT_EQ(bb::first_level_bucket_bits(std::size_t(1) << 25, target, 11), 11);
  EXPECT_EQ(bb::first_level_bucket_bits(4096, target, 11), 3);  // 512 keys per bucket
}

// Past one level, the bits n keys need are shared evenly among the fewest levels of at most
// max_bits: no level takes more than max_bits, the levels together take all that is needed,
// and one bit fewer per level would not.
TEST(Buckets, BalancedFirstLevelSharesTheNeededBitsEvenly) {
  for (std::size_t target : {std::size_t(256), std::size_t(512)})
    for (int max_bits : {8, 11})
      for (int log2 = 0; log2 <= 40; ++log2)
        for (std::size_t n : {std::size_t(1) << log2, (std::size_t(1) << log2) * 3 / 2 + 1}) {
          const int needed = bb::first_level_bucket_bits(n, target, 64);
          const int levels = (needed + max_bits - 1) / max_bits;
          const int bits = bb::balanced_first_level_bits(n, target, max_bits);
          SCOPED_TRACE(::testing::Message() << "n=" << n << " target=" << target
                                            << " max_bits=" << max_bits << " bits=" << bits);
          EXPECT_GE(bits, 1);
          EXPECT_LE(bits, max_bits);
          EXPECT_GE(bits * levels, needed);
          EXPECT_LT((bits - 1) * levels, needed);
          if (needed <= max_bits) EXPECT_EQ(bits, bb::first_level_bucket_bits(n, target, max_bits));
        }
  // 8-byte keys of a 2048-key unit aim at 256 keys per bucket: 2^24 of them need 16 bits,
  // 2^26 need 18, 2^28 need 20, shared by two levels; 2^19 need 11, one level.
  EXPECT_EQ(bb::balanced_first_level_bits(std::size_t(1) << 24, 256, 11), 8);
  EXPECT_EQ(bb::balanced_first_level_bits(std::size_t(1) << 26, 256, 11), 9);
  EXPECT_EQ(bb::balanced_first_level_bits(std::size_t(1) << 28, 256, 11), 10);
  EXPECT_EQ(bb::balanced_first_level_bits(std::size_t(1) << 19, 256, 11), 11);
  EXPECT_EQ(bb::balanced_first_level_bits(std::size_t(1) << 34, 256, 11), 9);  // 3 levels
}

// A deeper level takes the bits a segment needs where one level can, at least min_bits; a
// segment that needs more keeps max_bits while its buckets stay under 7/8 of a small bucket
// on average, and takes half of what it needs (at least min_bits) beyond, so that neither
// this level nor the next leaves buckets about the small-bucket limit.
TEST(Buckets, DeeperLevelsTakeWhatTheyNeedOrHalfOfIt) {
  for (std::size_t target : {std::size_t(256), std::size_t(512)})
    for (int min_bits : {1, 8})
      for (int log2 = 0; log2 <= 40; ++log2)
        for (std::size_t count : {std::size_t(1) << log2, (std::size_t(1) << log2) * 3 / 2 + 1,
                                  (std::size_t(1) << log2) * 7 / 4}) {
          const int needed = bb::first_level_bucket_bits(count, target, 64);
          const int bits = bb::deeper_level_bucket_bits(count, target, min_bits, 11);
          SCOPED_TRACE(::testing::Message() << "count=" << count << " target=" << target
                                            << " min_bits=" << min_bits << " bits=" << bits);
          EXPECT_GE(bits, min_bits);
          EXPECT_LE(bits, 11);
          if (needed <= 11) {
            EXPECT_EQ(bits, needed > min_bits ? needed : min_bits);
          } else if ((count >> 11) <= target * 7 / 4) {
            EXPECT_EQ(bits, 11);
          } else {
            const int half = (needed + 1) / 2;
            EXPECT_GE(bits, half < 11 ? half : 11);
            EXPECT_LT(bits, needed);  // the next level is left something to cut
          }
        }
  // 4-byte keys aim at 512 keys per bucket: 2^20 keys need 11 bits, one level; 2^21 need 12,
  // and take 8 (six, raised to the minimum); 1.75 * 2^20 take 11 (buckets of 896 keys of a
  // small bucket's 1024); 2^29 need 20 and take 10.
  EXPECT_EQ(bb::deeper_level_bucket_bits(std::size_t(1) << 20, 512, 8, 11), 11);
  EXPECT_EQ(bb::deeper_level_bucket_bits(std::size_t(7) << 18, 512, 8, 11), 11);
  EXPECT_EQ(bb::deeper_level_bucket_bits((std::size_t(7) << 18) + 2048, 512, 8, 11), 8);
  EXPECT_EQ(bb::deeper_level_bucket_bits(std::size_t(1) << 21, 512, 8, 11), 8);
  EXPECT_EQ(bb::deeper_level_bucket_bits(std::size_t(1) << 29, 512, 8, 11), 10);
  EXPECT_EQ(bb::deeper_level_bucket_bits(4096, 512, 8, 11), 8);
}

// The heaviest sampled bucket, scaled to n, against the limit: equal fits, one more does not.
TEST(Buckets, HeaviestBucketFitsAtMostItsLimit) {
  const std::size_t limit = bb::heavy_bucket_limit(256, 11);
  EXPECT_EQ(limit, std::size_t(1) << 19);
  const std::size_t samples = 16384;
  const std::size_t n = std::size_t(1) << 24;  // a sampled key stands for 1024 keys
  EXPECT_TRUE(bb::heaviest_bucket_fits(512, samples, n, limit));
  EXPECT_FALSE(bb::heaviest_bucket_fits(513, samples, n, limit));
  EXPECT_TRUE(bb::heaviest_bucket_fits(samples, samples, limit, limit));  // all in one bucket
  EXPECT_FALSE(bb::heaviest_bucket_fits(samples, samples, limit + 1, limit));
  // No overflow at the largest sizes the work lists allow.
  EXPECT_FALSE(bb::heaviest_bucket_fits(samples, samples, std::size_t(1) << 42, limit));
  EXPECT_TRUE(bb::heaviest_bucket_fits(1, samples, std::size_t(1) << 33, limit));
}

// A small bucket and a window fill a unit together: limit + window <= unit_items.
TEST(Buckets, SmallBucketsAndWindowsFitAUnitTogether) {
  const unit_packing u32 = packing_for(4096);
  EXPECT_EQ(u32.small_limit, 1024u);
  EXPECT_EQ(u32.window, 3072u);
  EXPECT_TRUE(bb::is_small_bucket(0, u32.small_limit));
  EXPECT_TRUE(bb::is_small_bucket(1024, u32.small_limit));
  EXPECT_FALSE(bb::is_small_bucket(1025, u32.small_limit));
  EXPECT_EQ(bb::window_of(3071, u32.window), 0u);
  EXPECT_EQ(bb::window_of(3072, u32.window), 1u);
  for (int unit_items = 4; unit_items <= 65536; unit_items += unit_items / 4 + 1) {
    const unit_packing packing = packing_for(unit_items);
    EXPECT_GE(packing.small_limit, 1u) << unit_items;
    EXPECT_GE(packing.window, 1u) << unit_items;
    EXPECT_LE(packing.window - 1 + packing.small_limit, std::size_t(unit_items)) << unit_items;
  }
}

// Markers grow with the start (so a max-scan over buckets finds the previous non-empty
// one), are never 0 ("no bucket"), and say whether the bucket was small.
TEST(Buckets, BucketMarkersOrderByStartAndCarrySmallness) {
  EXPECT_NE(bb::bucket_marker(0, true), 0u);
  EXPECT_NE(bb::bucket_marker(0, false), 0u);
  for (std::size_t start : {std::size_t(0), std::size_t(1), std::size_t(4095),
                            std::size_t(1) << 33}) {
    EXPECT_LT(bb::bucket_marker(start, true), bb::bucket_marker(start + 1, true));
    EXPECT_LT(bb::bucket_marker(start, false), bb::bucket_marker(start + 1, true));
    EXPECT_LT(bb::bucket_marker(start, true), bb::bucket_marker(start + 1, false));
  }
  const std::size_t window = packing_for(4096).window;
  EXPECT_TRUE(bb::opens_unit(0, 5, window));  // the segment's first bucket
  EXPECT_FALSE(bb::opens_unit(bb::bucket_marker(0, true), 3071, window));  // same window
  EXPECT_TRUE(bb::opens_unit(bb::bucket_marker(0, true), 3072, window));   // next window
  EXPECT_TRUE(bb::opens_unit(bb::bucket_marker(0, false), 10, window));  // after a large one
  const std::size_t far = (std::size_t(1) << 33) + 7;
  EXPECT_FALSE(bb::opens_unit(bb::bucket_marker(far, true), far + 1, window));
}

namespace {

struct sort_unit {
  std::size_t begin;
  std::size_t end;
};

// The packing rule as plan_buckets applies it: markers of the non-empty buckets (0 for empty
// ones), max-scanned in bucket order; a small bucket opens a unit or joins the unit of the
// bucket before it; a large one goes to the next level. Returns the units, and for each
// bucket the unit it joined (-1: large or empty). Fails the test if the scan finds anything
// but the previous non-empty bucket's marker, or a small bucket would join a unit across a
// large bucket.
std::vector<sort_unit> pack_small_buckets(const std::vector<std::size_t>& counts, int unit_items,
                                          std::vector<long>& unit_of_bucket) {
  const unit_packing packing = packing_for(unit_items);
  std::vector<sort_unit> units;
  unit_of_bucket.assign(counts.size(), -1);
  std::size_t start = 0;
  unsigned long long scanned_marker = 0;  // exclusive max-scan
  unsigned long long previous_marker = 0;  // of the previous non-empty bucket
  bool previous_was_small = false;
  for (std::size_t b = 0; b < counts.size(); ++b) {
    const std::size_t count = counts[b];
    const bool small = bb::is_small_bucket(count, packing.small_limit);
    const unsigned long long marker = count != 0 ? bb::bucket_marker(start, small) : 0;
    if (count != 0) {
      EXPECT_EQ(scanned_marker, previous_marker) << "bucket " << b;
      if (small) {
        if (bb::opens_unit(scanned_marker, start, packing.window)) {
          units.push_back({start, start + count});
        } else {
          EXPECT_TRUE(previous_was_small)
              << "bucket " << b << " would join a unit across the large bucket before it";
          EXPECT_EQ(units.back().end, start) << "bucket " << b << " is not next to its unit";
          units.back().end = start + count;
        }
        unit_of_bucket[b] = long(units.size()) - 1;
      }
      previous_was_small = small;
      previous_marker = marker;
    }
    scanned_marker = std::max(scanned_marker, marker);
    start += count;
  }
  return units;
}

// Bucket counts as a partition level sees them: runs of empty buckets, tiny buckets, ones
// right at the small/large boundary, and large ones.
std::vector<std::size_t> random_bucket_counts(std::mt19937_64& rng, std::size_t buckets,
                                              int unit_items) {
  const std::size_t limit = packing_for(unit_items).small_limit;
  std::vector<std::size_t> counts(buckets);
  const int style = int(rng() % 4);  // mostly tiny, mostly mid-sized, mixed, boundary-heavy
  for (auto& c : counts) {
    switch (style == 2 ? rng() % 4 : style == 3 ? 2 + rng() % 2 : style) {
      case 0: c = rng() % 4 == 0 ? 0 : rng() % 8; break;
      case 1: c = rng() % (limit + 1); break;
      case 2: c = limit - 1 + rng() % 3; break;  // limit-1, limit, limit+1
      default: c = rng() % 3 == 0 ? limit + 1 + rng() % (4 * unit_items) : rng() % 16; break;
    }
  }
  return counts;
}

}  // namespace

// Units never exceed unit_items keys, cover each non-empty small bucket exactly once (a
// bucket is never split), never take in a large bucket, and tile the small buckets'
// stretches without gaps.
TEST(Buckets, PackedUnitsFitASortUnitAndCoverEverySmallBucketOnce) {
  std::mt19937_64 rng(4);
  for (int unit_items : {8, 9, 512, 4096})
    for (int trial = 0; trial < 3000; ++trial) {
      const std::size_t buckets = 1 + rng() % (trial % 10 == 0 ? 2048 : 64);
      const std::vector<std::size_t> counts = random_bucket_counts(rng, buckets, unit_items);
      SCOPED_TRACE(::testing::Message() << "unit_items=" << unit_items << " trial=" << trial
                                        << " buckets=" << buckets);
      std::vector<long> unit_of_bucket;
      const std::vector<sort_unit> units = pack_small_buckets(counts, unit_items, unit_of_bucket);
      ASSERT_FALSE(::testing::Test::HasFailure());
      const std::size_t small_limit = packing_for(unit_items).small_limit;

      std::vector<std::size_t> keys_in_unit(units.size(), 0);
      std::size_t start = 0;
      for (std::size_t b = 0; b < counts.size(); ++b) {
        const bool small = counts[b] != 0 && bb::is_small_bucket(counts[b], small_limit);
        if (small) {
          ASSERT_GE(unit_of_bucket[b], 0) << "small bucket " << b << " is in no unit";
          const sort_unit& unit = units[std::size_t(unit_of_bucket[b])];
          ASSERT_LE(unit.begin, start);
          ASSERT_GE(unit.end, start + counts[b]);
          keys_in_unit[std::size_t(unit_of_bucket[b])] += counts[b];
        } else {
          ASSERT_EQ(unit_of_bucket[b], -1) << "bucket " << b << " of " << counts[b] << " keys";
          for (const sort_unit& unit : units)  // a large bucket lies outside every unit
            ASSERT_TRUE(start + counts[b] <= unit.begin || unit.end <= start || counts[b] == 0)
                << "large bucket " << b << " inside unit [" << unit.begin << ", " << unit.end
                << ")";
        }
        start += counts[b];
      }
      for (std::size_t u = 0; u < units.size(); ++u) {
        ASSERT_GT(units[u].end, units[u].begin);
        ASSERT_LE(units[u].end - units[u].begin, std::size_t(unit_items)) << "unit " << u;
        ASSERT_EQ(keys_in_unit[u], units[u].end - units[u].begin)
            << "unit " << u << " holds keys of no small bucket";
        if (u > 0) ASSERT_LE(units[u - 1].end, units[u].begin);
      }
    }
}

// A unit closes only where the next bucket starts in a new window (or is large), so a
// stretch of small buckets needs one unit per window it touches, each about a window full.
TEST(Buckets, SmallBucketsNeedOneUnitPerWindow) {
  const int unit_items = 4096;
  const std::vector<std::size_t> tiny(10000, 3);  // 30000 keys, starting in 10 windows
  std::vector<long> unit_of_bucket;
  const auto units = pack_small_buckets(tiny, unit_items, unit_of_bucket);
  EXPECT_EQ(units.size(), (30000 + 3071) / 3072);
  for (std::size_t u = 0; u + 1 < units.size(); ++u) {
    EXPECT_GE(units[u].end - units[u].begin, 3072u - 3);
    EXPECT_LE(units[u].end - units[u].begin, 3072u + 2);
  }
}

TEST(Buckets, ReservationsAddLikeTheirEntryAndTileCounts) {
  EXPECT_EQ(bb::entries_of(bb::pack_reservation(0, 0)), 0u);
  EXPECT_EQ(bb::tiles_of(bb::pack_reservation(0, 0)), 0u);
  const unsigned long long max_tiles = (1ull << bb::list_tile_bits) - 1;
  const unsigned long long max_entries = (1ull << (64 - bb::list_tile_bits)) - 1;
  EXPECT_EQ(bb::entries_of(bb::pack_reservation(max_entries, max_tiles)), max_entries);
  EXPECT_EQ(bb::tiles_of(bb::pack_reservation(max_entries, max_tiles)), max_tiles);

  // What one 64-bit atomicAdd per append relies on: the running sum of packed reservations
  // unpacks to the running sums of entries and of tiles, and each append's old value gives
  // its own first entry and first tile.
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 100; ++trial) {
    unsigned long long counter = 0, entries = 0, tiles = 0;
    for (int append = 0; append < 1000; ++append) {
      const unsigned long long e = rng() % 3 == 0 ? 0 : 1 + rng() % 64;
      // 1000 appends of at most 2^(list_tile_bits - 10) tiles: the sum fits the field.
      const unsigned long long t =
          rng() % 5 == 0 ? rng() % (1ull << (bb::list_tile_bits - 10)) : rng() % 100;
      const unsigned long long old = counter;
      counter += bb::pack_reservation(e, t);
      ASSERT_EQ(bb::entries_of(old), entries);
      ASSERT_EQ(bb::tiles_of(old), tiles);
      entries += e;
      tiles += t;
    }
    ASSERT_EQ(bb::entries_of(counter), entries);
    ASSERT_EQ(bb::tiles_of(counter), tiles);
  }
}

namespace {
struct work_entry {
  unsigned long long first_tile;
  unsigned long long tiles;
};
}  // namespace

// Random work lists (entries of 0 to many tiles, appended in tile order): every tile maps
// to the entry that owns it.
TEST(Buckets, EntryOfTileFindsTheEntryThatOwnsTheTile) {
  std::mt19937_64 rng(6);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t count = 1 + rng() % (trial % 50 == 0 ? 5000 : 40);
    std::vector<work_entry> entries(count);
    unsigned long long next_tile = 0;
    for (auto& e : entries) {
      // A zero-tile entry shares its first tile with the entry after it, which owns it.
      e = {next_tile, rng() % 6 == 0 ? 0 : 1 + rng() % (rng() % 4 == 0 ? 100 : 3)};
      next_tile += e.tiles;
    }
    std::vector<std::size_t> owner(next_tile);
    for (std::size_t i = 0; i < count; ++i)
      for (unsigned long long t = 0; t < entries[i].tiles; ++t)
        owner[entries[i].first_tile + t] = i;
    for (unsigned long long tile = 0; tile < next_tile; ++tile)
      ASSERT_EQ(bb::entry_of_tile(entries.data(), count, tile), owner[tile])
          << "trial " << trial << ", " << count << " entries, tile " << tile;
  }
  const work_entry single[] = {{0, 7}};
  EXPECT_EQ(bb::entry_of_tile(single, 1, 0), 0u);
  EXPECT_EQ(bb::entry_of_tile(single, 1, 6), 0u);
  // Tile numbers past 2^32 (the counter keeps list_tile_bits bits of them).
  const work_entry far[] = {{0, 1ull << 33}, {1ull << 33, 5}, {(1ull << 33) + 5, 1}};
  EXPECT_EQ(bb::entry_of_tile(far, 3, (1ull << 33) - 1), 0u);
  EXPECT_EQ(bb::entry_of_tile(far, 3, 1ull << 33), 1u);
  EXPECT_EQ(bb::entry_of_tile(far, 3, (1ull << 33) + 5), 2u);
}
