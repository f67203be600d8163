// The four-way merge's split search, checked on the host against the stable sort of all four
// runs: at every multiple of the tile (tiles from 1 to 64), how many outputs come from each
// run, with ties in run order; and which run counts take the four-way merge.
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

// Pair (a, b)'s splits at every multiple of the tile, as the device's first kernel finds them.
template <class Compare>
std::vector<std::size_t> splits_at_multiples(const std::vector<int>& a, const std::vector<int>& b,
                                             std::size_t tile, const Compare& comp) {
  std::vector<std::size_t> splits;
  const std::size_t count = a.size() + b.size();
  for (std::size_t k = 0; k <= (count + tile - 1) / tile; ++k)
    splits.push_back(gpusort::backends::merge::merge_path_split(
        a.data(), a.size(), b.data(), b.size(), std::min(k * tile, count), comp));
  return splits;
}

// Every multiple of the tile and the end, for several tiles (1: every diagonal).
template <class Compare>
void expect_every_split(std::vector<int> (&runs)[4], const Compare& comp, bool descending) {
  for (auto& r : runs)
    std::stable_sort(r.begin(), r.end(), [&](int a, int b) { return comp(a, b); });
  const auto expected = expected_splits(runs, descending);
  const std::size_t total = expected.size() - 1;
  for (std::size_t tile : {1, 2, 3, 5, 8, 64}) {
    const auto low_splits = splits_at_multiples(runs[0], runs[1], tile, comp);
    const auto high_splits = splits_at_multiples(runs[2], runs[3], tile, comp);
    const d::tiled_pair<const int*, Compare> low{runs[0].data(), runs[0].size(), runs[1].data(),
                                                 runs[1].size(), low_splits.data(), tile, comp};
    const d::tiled_pair<const int*, Compare> high{runs[2].data(), runs[2].size(), runs[3].data(),
                                                  runs[3].size(), high_splits.data(), tile, comp};
    for (std::size_t diagonal = 0; diagonal <= total; diagonal += tile) {
      for (std::size_t at : {diagonal, total}) {
        const d::four_way_split<std::size_t> split = d::split_four_runs(low, high, at);
        for (int j = 0; j < 4; ++j)
          ASSERT_EQ(split.from[j], expected[at][j])
              << "diagonal " << at << " run " << j << " tile " << tile << " of "
              << runs[0].size() << "+" << runs[1].size() << "+" << runs[2].size() << "+"
              << runs[3].size();
      }
    }
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

TEST(FourWaySplit, ATiledPairGivesEveryOutputOfTheStableMerge) {
  const std::vector<int> a{1, 3, 3, 7}, b{0, 3, 8};
  const std::vector<int> merged{0, 1, 3, 3, 3, 7, 8};
  for (std::size_t tile : {1, 2, 3, 7}) {
    const auto splits = splits_at_multiples(a, b, tile, gpusort::less<>{});
    const d::tiled_pair<const int*, gpusort::less<>> pair{a.data(), a.size(), b.data(),
                                                          b.size(), splits.data(), tile, {}};
    for (std::size_t x = 0; x < merged.size(); ++x) EXPECT_EQ(pair[x], merged[x]) << x;
    for (std::size_t k = 0; k * tile < merged.size(); ++k)
      EXPECT_EQ(pair.at_multiple(k), merged[k * tile]) << k;
    for (std::size_t k = 1; k * tile <= merged.size(); ++k)
      EXPECT_EQ(pair.last_before_multiple(k), merged[k * tile - 1]) << k;
  }
}

TEST(FourWaySplit, TheFewestRunsSetTakeTheFourWayMergeUpToFour) {
  const auto runs = [](std::vector<std::size_t> lengths) {
    std::vector<d::run> r;
    std::size_t begin = 0;
    for (std::size_t l : lengths) {
      r.push_back({begin, l});
      begin += l;
    }
    return r;
  };
  // By default: never for keys alone, from 3 runs for pairs.
  ASSERT_EQ(d::four_way_merge_fewest_runs(), d::four_way_merge_off);
  ASSERT_EQ(d::four_way_merge_fewest_runs_with_values(), 3);
  EXPECT_FALSE(d::merged_four_ways<std::uint32_t>(runs({5, 1, 6, 7})));
  EXPECT_TRUE((d::merged_four_ways<std::uint32_t, std::uint32_t>(runs({5, 1, 6, 7}))));
  EXPECT_TRUE((d::merged_four_ways<std::uint32_t, std::uint32_t>(runs({5, 0, 6, 7}))));
  EXPECT_FALSE((d::merged_four_ways<std::uint32_t, std::uint32_t>(runs({5, 0, 0, 7}))));
  d::four_way_merge_fewest_runs_with_values() = d::four_way_merge_off;
  EXPECT_FALSE((d::merged_four_ways<std::uint32_t, std::uint32_t>(runs({5, 1, 6, 7}))));
  d::four_way_merge_fewest_runs_with_values() = d::four_way_merge_default_with_values;
  d::four_way_merge_fewest_runs() = 3;
  EXPECT_TRUE(d::merged_four_ways<std::uint32_t>(runs({5, 0, 6, 7})));
  EXPECT_TRUE(d::merged_four_ways<std::uint32_t>(runs({5, 1, 6, 7})));
  EXPECT_FALSE(d::merged_four_ways<std::uint32_t>(runs({5, 0, 0, 7})));
  EXPECT_FALSE(d::merged_four_ways<std::uint32_t>(runs({5, 1, 6, 7, 8})));
  struct too_wide {
    char bytes[65];
  };
  EXPECT_FALSE(d::merged_four_ways<too_wide>(runs({5, 1, 6, 7})));
  d::four_way_merge_fewest_runs() = 2;
  EXPECT_TRUE(d::merged_four_ways<std::uint32_t>(runs({5, 0, 0, 7})));
  EXPECT_FALSE(d::merged_four_ways<std::uint32_t>(runs({5, 0, 0, 0})));
  d::four_way_merge_fewest_runs() = d::four_way_merge_off;
}

}  // namespace
