// The four-way merge's split search, checked on the host against the stable sort of all four
// runs: for every diagonal, how many outputs come from each run, with ties in run order; and
// which run counts take the four-way merge.
#include <gpusort/distributed/detail/four_way_split.cuh>
#include <gpusort/distributed/detail/merge_received.cuh>
#include <gpusort/functional.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace d = gpusort::distributed::detail;

namespace {

struct tagged {
  int key;
  int run;
};

// For each diagonal, how many of the first `diagonal` keys of the stable merge (run order
// breaking ties) come from each run.
std::vector<std::array<std::size_t, 4>> expected_splits(const std::vector<int> (&runs)[4],
                                                        bool descending) {
  std::vector<tagged> all;
  for (int j = 0; j < 4; ++j)
    for (int key : runs[j]) all.push_back({key, j});
  std::stable_sort(all.begin(), all.end(), [&](const tagged& a, const tagged& b) {
    return descending ? a.key > b.key : a.key < b.key;
  });
  std::vector<std::array<std::size_t, 4>> splits(1, {0, 0, 0, 0});
  for (const tagged& t : all) {
    splits.push_back(splits.back());
    ++splits.back()[t.run];
  }
  return splits;
}

template <class Compare>
void expect_every_split(std::vector<int> (&runs)[4], const Compare& comp, bool descending) {
  for (auto& r : runs)
    std::stable_sort(r.begin(), r.end(), [&](int a, int b) { return comp(a, b); });
  const int* starts[4] = {runs[0].data(), runs[1].data(), runs[2].data(), runs[3].data()};
  const std::size_t counts[4] = {runs[0].size(), runs[1].size(), runs[2].size(), runs[3].size()};
  const auto expected = expected_splits(runs, descending);
  for (std::size_t diagonal = 0; diagonal < expected.size(); ++diagonal) {
    const d::four_way_split<std::size_t> split = d::split_four_runs(starts, counts, diagonal, comp);
    for (int j = 0; j < 4; ++j)
      ASSERT_EQ(split.from[j], expected[diagonal][j])
          << "diagonal " << diagonal << " run " << j << " of " << counts[0] << "+" << counts[1]
          << "+" << counts[2] << "+" << counts[3];
  }
}

TEST(FourWaySplit, EveryDiagonalMatchesTheStableSortOfAllRuns) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<int> runs[4];
    const int distinct = trial % 3 == 0 ? 3 : 1000;  // duplicate-heavy every third trial
    for (auto& r : runs) {
      r.resize(random() % (trial % 10 == 0 ? 1 : 60));  // empty runs every tenth trial
      for (int& key : r) key = int(random() % distinct);
    }
    expect_every_split(runs, gpusort::less<>{}, false);
  }
}

TEST(FourWaySplit, DescendingOrderAndOneKeyEverywhere) {
  std::vector<int> runs[4] = {{5, 5, 5}, {5}, {}, {5, 5}};
  expect_every_split(runs, gpusort::less<>{}, false);
  std::vector<int> descending[4] = {{9, 4, 1}, {8, 8, 0}, {7}, {9, 9, 3, 2}};
  expect_every_split(descending, gpusort::greater<>{}, true);
}

TEST(FourWaySplit, MergedPairIsTheStableMergeOfItsRuns) {
  const std::vector<int> a{1, 3, 3, 7}, b{0, 3, 8};
  const d::merged_pair<const int*, std::size_t, gpusort::less<>> pair{a.data(), a.size(),
                                                                      b.data(), b.size(), {}};
  const std::vector<int> merged{0, 1, 3, 3, 3, 7, 8};
  for (std::size_t x = 0; x < merged.size(); ++x) EXPECT_EQ(pair[x], merged[x]) << x;
}

TEST(FourWaySplit, ThreeAndFourNonEmptyRunsTakeTheFourWayMergeWhereItIsOn) {
  const auto runs = [](std::vector<std::size_t> lengths) {
    std::vector<d::run> r;
    std::size_t begin = 0;
    for (std::size_t l : lengths) {
      r.push_back({begin, l});
      begin += l;
    }
    return r;
  };
  ASSERT_FALSE(d::four_way_merge_on());  // off by default
  EXPECT_FALSE(d::merged_four_ways<std::uint32_t>(runs({5, 1, 6, 7})));
  d::four_way_merge_on() = true;
  EXPECT_TRUE(d::merged_four_ways<std::uint32_t>(runs({5, 0, 6, 7})));
  EXPECT_TRUE(d::merged_four_ways<std::uint32_t>(runs({5, 1, 6, 7})));
  EXPECT_FALSE(d::merged_four_ways<std::uint32_t>(runs({5, 0, 0, 7})));
  EXPECT_FALSE(d::merged_four_ways<std::uint32_t>(runs({5, 1, 6, 7, 8})));
  struct too_wide {
    char bytes[65];
  };
  EXPECT_FALSE(d::merged_four_ways<too_wide>(runs({5, 1, 6, 7})));
  d::four_way_merge_on() = false;
}

}  // namespace
