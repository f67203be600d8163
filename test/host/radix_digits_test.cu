// The radix backend's index arithmetic, checked on the host.
#include <gpusort/detail/backends/common/ordered_bits.cuh>
#include <gpusort/detail/backends/radix/digits.cuh>
#include <gpusort/detail/backends/radix/lookback.cuh>

#include <gtest/gtest.h>

#include <cstdint>

namespace radix = gpusort::backends::radix;
namespace backends = gpusort::backends;

TEST(RadixDigits, PassCountCoversEveryBit) {
  EXPECT_EQ(radix::pass_count(32, 8), 4);
  EXPECT_EQ(radix::pass_count(64, 8), 8);
  EXPECT_EQ(radix::pass_count(1, 8), 1);
  EXPECT_EQ(radix::pass_count(48, 8), 6);
  EXPECT_EQ(radix::pass_count(33, 8), 5);
  EXPECT_EQ(radix::pass_count(16, 5), 4);
}

TEST(RadixDigits, DigitsAreTakenLeastSignificantFirst) {
  const std::uint32_t bits = 0xA1B2C3D4u;
  EXPECT_EQ(radix::digit_of(bits, 0, 8), 0xD4u);
  EXPECT_EQ(radix::digit_of(bits, 1, 8), 0xC3u);
  EXPECT_EQ(radix::digit_of(bits, 3, 8), 0xA1u);
  EXPECT_EQ(radix::digit_of(std::uint64_t(0xF0) << 56, 7, 8), 0xF0u);
  EXPECT_EQ(radix::digit_of(std::uint16_t(0xBEEF), 1, 4), 0xEu);
}

TEST(RadixDigits, DescendingMaskFlipsOnlySignificantBits) {
  EXPECT_EQ(gpusort::backends::descending_mask<std::uint8_t>(1), 0x01u);
  EXPECT_EQ(gpusort::backends::descending_mask<std::uint32_t>(32), 0xFFFFFFFFu);
  EXPECT_EQ(gpusort::backends::descending_mask<std::uint64_t>(48), 0xFFFFFFFFFFFFull);
  EXPECT_EQ(gpusort::backends::descending_mask<std::uint64_t>(64), ~0ull);
}

TEST(RadixDigits, TilesCoverTheInputExactlyOnceBeyondTwoToThe32) {
  const std::size_t n = (std::size_t(1) << 32) + 4097;
  const int tile_items = 4096;
  const std::size_t tiles = backends::tile_count(n, tile_items);
  EXPECT_EQ(tiles, (std::size_t(1) << 20) + 2);
  const backends::tile_bounds last = backends::tile_of(tiles - 1, tile_items, n);
  EXPECT_EQ(last.begin, (std::size_t(1) << 32) + 4096);
  EXPECT_EQ(last.count, 1);
  const backends::tile_bounds before = backends::tile_of(tiles - 2, tile_items, n);
  EXPECT_EQ(before.begin + before.count, last.begin);
  EXPECT_EQ(backends::tile_count(0, tile_items), 0u);
  EXPECT_EQ(backends::tile_count(4096, tile_items), 1u);
}

TEST(RadixDigits, PlanSkipsSingleDigitPassesAndTracksTheBuffer) {
  const bool single_digit[4] = {false, true, false, true};
  const radix::pass_plan plan = radix::plan_passes(single_digit, 4);
  EXPECT_FALSE(plan.skip[0]);
  EXPECT_TRUE(plan.skip[1]);
  EXPECT_EQ(plan.source[0], 0);
  EXPECT_EQ(plan.source[2], 1);  // pass 0 moved the data to the alternate buffer
  EXPECT_FALSE(plan.result_in_alternate);  // two passes ran: back in the user's buffer

  const bool none_run[2] = {true, true};
  EXPECT_FALSE(radix::plan_passes(none_run, 2).result_in_alternate);
  const bool all_run[3] = {false, false, false};
  EXPECT_TRUE(radix::plan_passes(all_run, 3).result_in_alternate);
  EXPECT_TRUE(radix::may_end_in_alternate(3));
  EXPECT_FALSE(radix::may_end_in_alternate(4));
}

TEST(RadixDigits, AnOddNumberOfMovingPassesRunsOneSingleDigitPassToEndInTheUsersBuffer) {
  const bool one_moves[3] = {true, false, true};
  const radix::pass_plan plan = radix::plan_passes(one_moves, 3);
  EXPECT_FALSE(plan.skip[0]);  // the first single-digit pass runs as a copy
  EXPECT_FALSE(plan.skip[1]);
  EXPECT_TRUE(plan.skip[2]);
  EXPECT_EQ(plan.source[1], 1);
  EXPECT_FALSE(plan.result_in_alternate);

  // Every combination of single-digit passes of a 4-pass key: an even pass count never
  // needs the copy back, and only single-digit passes are ever skipped.
  for (int mask = 0; mask < 16; ++mask) {
    bool single_digit[4];
    for (int p = 0; p < 4; ++p) single_digit[p] = (mask >> p) & 1;
    const radix::pass_plan four = radix::plan_passes(single_digit, 4);
    EXPECT_FALSE(four.result_in_alternate) << "mask " << mask;
    int skipped = 0;
    for (int p = 0; p < 4; ++p) {
      EXPECT_TRUE(!four.skip[p] || single_digit[p]) << "mask " << mask << " pass " << p;
      skipped += four.skip[p];
    }
    EXPECT_GE(skipped, __builtin_popcount(mask) - 1) << "mask " << mask;
  }
}

// The sort by buckets: taken where the most significant digit that differs is not the lowest
// and its widest bucket fits; only that pass runs, from the user's buffer.
TEST(RadixDigits, BucketPlanRunsOnlyTheMostSignificantDigitThatDiffers) {
  const bool none_single[4] = {false, false, false, false};
  const unsigned long long widest[4] = {300, 300, 300, 4500};
  const radix::pass_plan plan = radix::plan_msd_buckets(none_single, widest, 4, 5120);
  EXPECT_EQ(plan.msd_pass, 3);
  for (int p = 0; p < 3; ++p) EXPECT_TRUE(plan.skip[p]) << p;
  EXPECT_FALSE(plan.skip[3]);
  EXPECT_EQ(plan.source[3], 0);
  EXPECT_FALSE(plan.result_in_alternate);  // the buckets' clusters write the user's buffer

  // The top two digits the same for every key (keys below 2^16): buckets of digit 1.
  const bool top_single[4] = {false, false, true, true};
  const radix::pass_plan lower = radix::plan_msd_buckets(top_single, widest, 4, 5120);
  EXPECT_EQ(lower.msd_pass, 1);
  EXPECT_FALSE(lower.skip[1]);
  EXPECT_TRUE(lower.skip[0] && lower.skip[2] && lower.skip[3]);
}

TEST(RadixDigits, BucketPlanFallsBackToTheLsdPassesWhereABucketOverflows) {
  const bool none_single[4] = {false, false, false, false};
  const unsigned long long skewed[4] = {300, 300, 300, 5121};
  const radix::pass_plan lsd = radix::plan_msd_buckets(none_single, skewed, 4, 5120);
  EXPECT_EQ(lsd.msd_pass, 0);
  for (int p = 0; p < 4; ++p) EXPECT_FALSE(lsd.skip[p]) << p;
  EXPECT_EQ(lsd.source[1], 1);

  // Only the lowest digit differs: that one pass sorts, as the LSD plan runs it.
  const bool only_lowest[4] = {false, true, true, true};
  const unsigned long long any[4] = {10, 10, 10, 10};
  const radix::pass_plan one = radix::plan_msd_buckets(only_lowest, any, 4, 5120);
  EXPECT_EQ(one.msd_pass, 0);
  EXPECT_FALSE(one.skip[0]);
  EXPECT_FALSE(one.result_in_alternate);
}

TEST(RadixDigits, BucketClustersHoldAnEvenShareWithHeadroom) {
  // 2^20 keys over 256 buckets: 4096 each, 5120 with 25 %: two tiles of 4096.
  EXPECT_EQ(radix::bucket_cluster_blocks(std::size_t(1) << 20, 256, 4096, 25), 2);
  EXPECT_EQ(radix::bucket_cluster_blocks(std::size_t(1) << 17, 256, 4096, 25), 1);
  EXPECT_EQ(radix::bucket_cluster_blocks(std::size_t(1) << 22, 256, 4096, 25), 5);
  EXPECT_EQ(radix::bucket_cluster_blocks(1, 256, 4096, 25), 1);
}

TEST(RadixDigits, PortionsAreWholeTilesWithinTheLimit) {
  const int tile_items = 6912;
  const std::size_t limit = std::size_t(1) << 29;
  const std::size_t portion = radix::portion_items(tile_items, limit);
  EXPECT_EQ(portion % tile_items, 0u);
  EXPECT_LE(portion, limit);
  EXPECT_GT(portion + tile_items, limit);
  EXPECT_EQ(radix::portion_count(std::size_t(1) << 28, portion), 1u);
  EXPECT_EQ(radix::portion_count(portion, portion), 1u);
  EXPECT_EQ(radix::portion_count(portion + 1, portion), 2u);
  EXPECT_EQ(radix::portion_count((std::size_t(1) << 33) + 5, portion), 17u);
  // A limit below one tile still gives whole tiles.
  EXPECT_EQ(radix::portion_items(tile_items, 100), std::size_t(tile_items));
  // Every count of a portion fits the look-back word's count field.
  EXPECT_LE(radix::max_portion_items, std::size_t(radix::digit_status::count_mask));
}

TEST(RadixDigits, BalancedPortionsAreNearlyEqualWholeTilesWithinTheLimit) {
  const int tile_items = 6912;
  const std::size_t most = radix::portion_items(tile_items, std::size_t(1) << 29);
  for (std::size_t n : {std::size_t(1), std::size_t(6912), std::size_t(1) << 28, most, most + 1,
                        std::size_t(1) << 29, (std::size_t(1) << 30) + 12345,
                        (std::size_t(1) << 33) + 5}) {
    const std::size_t portion = radix::balanced_portion_items(n, tile_items, most);
    const std::size_t portions = radix::portion_count(n, portion);
    EXPECT_EQ(portion % tile_items, 0u) << n;
    EXPECT_LE(portion, most) << n;
    EXPECT_EQ(portions, radix::portion_count(n, most)) << n;
    // The last portion is short by less than a tile per portion.
    const std::size_t last = n - (portions - 1) * portion;
    EXPECT_GE(last + portions * std::size_t(tile_items), portion) << n;
  }
  // 2^29 keys: two portions of about 2^28, not 2^29 - 1 and a sliver.
  const std::size_t portion = radix::balanced_portion_items(std::size_t(1) << 29, tile_items, most);
  EXPECT_LT(portion, (std::size_t(1) << 28) + tile_items);
}

TEST(RadixLookback, StatusWordsKeepCountAndKindApart) {
  using status = radix::digit_status;
  const std::uint32_t largest = status::count_mask;
  const std::uint32_t tile_word = status::pack(largest, status::tile_count);
  const std::uint32_t prefix_word = status::pack(0, status::prefix_count);
  EXPECT_EQ(status::count_of(tile_word), largest);
  EXPECT_FALSE(status::is_prefix(tile_word));
  EXPECT_EQ(status::count_of(prefix_word), 0u);
  EXPECT_TRUE(status::is_prefix(prefix_word));
  // A published word is never zero, the "not yet" value, even for an empty digit.
  EXPECT_NE(status::pack(0, status::tile_count), 0u);
  EXPECT_NE(prefix_word, 0u);
}
