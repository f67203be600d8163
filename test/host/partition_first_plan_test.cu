// The partition-first sort's planning, without a GPU: which calls take that way, where the
// brackets lie in the sorted sample, and what every rank's class counts say about each cut.
#include <gpusort/distributed/detail/partition_first_plan.cuh>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

namespace plan = gpusort::distributed::detail;
using window = plan::splitter_search::window;

TEST(PartitionFirstPlan, NeverAppliesUnlessSwitchedOn) {
  const std::size_t enough = plan::partition_first_min_count();
  for (int ranks : {2, 4, 16})
    EXPECT_FALSE((plan::partition_first_applies<std::uint32_t, gpusort::no_values>(
        ranks, std::vector<std::uint64_t>(ranks, enough))));
}

// The fixture switches the way on from four ranks, and back off.
class PartitionFirstSwitchedOn : public testing::Test {
 protected:
  void SetUp() override { plan::partition_first_min_ranks() = 4; }
  void TearDown() override { plan::partition_first_min_ranks() = default_min_ranks; }
  const int default_min_ranks = plan::partition_first_min_ranks();
};

TEST_F(PartitionFirstSwitchedOn, AppliesFromFourToSixteenRanksWithEnoughOnEveryRank) {
  const std::size_t enough = plan::partition_first_min_count();
  const std::vector<std::uint64_t> four(4, enough);
  EXPECT_FALSE((plan::partition_first_applies<std::uint32_t, gpusort::no_values>(1, {enough})));
  EXPECT_FALSE((plan::partition_first_applies<std::uint32_t, gpusort::no_values>(2, {enough, enough})));
  EXPECT_TRUE((plan::partition_first_applies<std::uint32_t, gpusort::no_values>(4, four)));
  EXPECT_FALSE((plan::partition_first_applies<std::uint32_t, gpusort::no_values>(
      4, {enough, enough, enough, enough - 1})));
  EXPECT_TRUE((plan::partition_first_applies<std::uint64_t, std::uint32_t>(
      16, std::vector<std::uint64_t>(16, enough))));
  EXPECT_FALSE((plan::partition_first_applies<std::uint32_t, gpusort::no_values>(
      17, std::vector<std::uint64_t>(17, enough))));
  struct wide {
    char bytes[72];
  };
  EXPECT_FALSE((plan::partition_first_applies<wide, gpusort::no_values>(4, four)));
}

TEST(PartitionFirstPlan, SamplesAreBoundedByBytesAndTheSmallestRank) {
  EXPECT_EQ(plan::samples_per_rank<std::uint32_t>(4, std::uint64_t(1) << 30), 65536u);
  EXPECT_EQ(plan::samples_per_rank<std::uint64_t>(16, std::uint64_t(1) << 30), 32768u);
  EXPECT_EQ(plan::samples_per_rank<std::uint32_t>(2, 1000), 1000u);
}

TEST(PartitionFirstPlan, BracketsSurroundEachCutsShareOfTheSample) {
  const std::uint64_t samples = 1 << 17;
  const std::vector<std::uint64_t> positions =
      plan::bracket_positions({250, 500, 750}, 1000, samples);
  ASSERT_EQ(positions.size(), 6u);
  for (int cut = 0; cut < 3; ++cut) {
    const std::uint64_t share = samples * (cut + 1) / 4;
    EXPECT_LT(positions[2 * cut], share);
    EXPECT_GT(positions[2 * cut + 1], share);
    // Near 1.4 % of the sample either side, no wider than 2 %.
    EXPECT_LT(positions[2 * cut + 1] - positions[2 * cut], samples / 50);
    EXPECT_GT(positions[2 * cut + 1] - positions[2 * cut], samples / 200);
  }
  EXPECT_LT(positions[1], positions[2]);  // apart
  // A cut at the very start or end stays inside the sample.
  const std::vector<std::uint64_t> ends = plan::bracket_positions({1, 999}, 1000, 100);
  EXPECT_EQ(ends[0], 0u);
  EXPECT_EQ(ends[3], 99u);
}

// Two ranks, classes definite 0 | zone 1 | definite 1: rank 0 starts them at 0, 40, 60
// (100 elements), rank 1 at 0, 45, 55 (100): 85 elements lie below the zone, 30 inside.
plan::class_census two_rank_census(std::uint64_t apart = 1) {
  return plan::class_census(2, {0, 40, 60, 100, apart, 0, 45, 55, 100, apart});
}

void expect_window(const window& w, std::uint64_t lo, std::uint64_t hi, bool resolved) {
  EXPECT_EQ(w.lo, lo);
  EXPECT_EQ(w.hi, hi);
  EXPECT_EQ(w.resolved, resolved);
}

// The same, with the zones holding at most an eighth of all: 0, 45, 50, 100 and
// 0, 45, 47, 100 (90 below, 7 inside).
plan::class_census narrow_census(std::uint64_t apart = 1) {
  return plan::class_census(2, {0, 45, 50, 100, apart, 0, 45, 47, 100, apart});
}

TEST(PartitionFirstPlan, ACutInsideItsZoneIsSearchedThereOnEveryRank) {
  const auto rank0 = narrow_census().windows(0, {93});
  const auto rank1 = narrow_census().windows(1, {93});
  ASSERT_TRUE(rank0 && rank1);
  expect_window((*rank0)[0], 45, 50, false);
  expect_window((*rank1)[0], 45, 47, false);
}

TEST(PartitionFirstPlan, ZonesHoldingMoreThanAnEighthMeanSortingFirst) {
  EXPECT_EQ(two_rank_census().zoned(), 30u);
  EXPECT_EQ(two_rank_census().total(), 200u);
  EXPECT_FALSE(two_rank_census().windows(0, {100}));
}

TEST(PartitionFirstPlan, ARankWithoutZoneKeysStillGetsItsWindow) {
  const plan::class_census census(2, {0, 45, 50, 100, 1, 0, 47, 47, 100, 1});
  expect_window((*census.windows(1, {94}))[0], 47, 47, false);
}

TEST(PartitionFirstPlan, ACutAtAZonesEndNeedsNoSearch) {
  expect_window((*narrow_census().windows(0, {90}))[0], 45, 45, true);
  expect_window((*narrow_census().windows(1, {97}))[0], 47, 47, true);
}

TEST(PartitionFirstPlan, ACutOutsideItsZoneOrTouchingBracketsMeanSortingFirst) {
  EXPECT_FALSE(narrow_census().windows(0, {89}));
  EXPECT_FALSE(narrow_census().windows(0, {98}));
  EXPECT_FALSE(narrow_census(0).windows(0, {93}));
}

// Three ranks holding 5, 4 and 6 elements; rank 2 keeps 2 of its own and receives 1 from
// each of the others (cut(q, r): how many of q's elements go to ranks before r).
plan::cut_table three_ranks() {
  return plan::cut_table(3, {0, 2, 4, 5, 0, 1, 3, 4, 0, 2, 4, 6});
}

void expect_runs(const std::vector<plan::run>& got, const std::vector<plan::run>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].begin, expected[i].begin) << "run " << i;
    EXPECT_EQ(got[i].count, expected[i].count) << "run " << i;
  }
}

TEST(PartitionFirstPlan, StableCallsReceiveThePiecesInRankOrder) {
  const plan::partitioned_layout layout =
      plan::plan_partitioned_exchange(three_ranks(), {0, 2, 4, 6}, 2, true);
  expect_runs(layout.exchange.send_pieces, {{0, 2}, {2, 2}, {4, 2}});
  expect_runs(layout.exchange.recv_pieces, {{0, 1}, {1, 1}, {2, 2}});
  expect_runs({layout.own}, {{2, 2}});
  expect_runs(layout.received_runs, {{0, 2}, {4, 0}});
  expect_runs(layout.exchange.runs, {{0, 2}, {2, 2}, {4, 0}});
}

TEST(PartitionFirstPlan, UnstableCallsReceiveTheOwnPieceFirst) {
  const plan::partitioned_layout layout =
      plan::plan_partitioned_exchange(three_ranks(), {0, 2, 4, 6}, 2, false);
  expect_runs(layout.exchange.recv_pieces, {{2, 1}, {3, 1}, {0, 2}});
  expect_runs({layout.own}, {{0, 2}});
  expect_runs(layout.received_runs, {{2, 2}});
  expect_runs(layout.exchange.runs, {{0, 2}, {2, 2}});
  EXPECT_EQ(layout.exchange.source_begin, (std::vector<std::uint64_t>{4, 3, 4}));
}

}  // namespace
