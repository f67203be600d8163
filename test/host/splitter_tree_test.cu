// The sample sort's splitter tree (backends/merge/splitter_tree.cuh), on the host: every
// key's bucket is the number of sorted splitters not greater than it (std::upper_bound), for
// duplicate-heavy splitters and keys outside their range, at every tree depth up to 2^12
// buckets, whole or stored as a top and rows below it; and a comparator that is no strict
// weak ordering still gets a bucket in range.
#include <gpusort/detail/backends/merge/splitter_tree.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

namespace {

using gpusort::backends::merge::bucket_of;
using gpusort::backends::merge::node_of_slot;
using gpusort::backends::merge::splitter_of_node;
using gpusort::backends::merge::stored_tree_slots;

// The stored tree (padding slots hold a value no search may read).
std::vector<int> tree_of(const std::vector<int>& sorted, int log_buckets, int top_levels) {
  std::vector<int> tree(stored_tree_slots(log_buckets, top_levels));
  for (int slot = 0; slot < int(tree.size()); ++slot) {
    const int node = node_of_slot(slot, log_buckets, top_levels);
    tree[slot] = node < 0 ? 0x7EADBEEF : sorted[splitter_of_node(node, log_buckets)];
  }
  return tree;
}

TEST(SplitterTree, EveryNodeIsStoredOnce) {
  for (int log_buckets = 1; log_buckets <= 12; ++log_buckets)
    for (int top_levels : {1, 3, log_buckets - 1, log_buckets, log_buckets + 2}) {
      if (top_levels < 1) continue;
      std::vector<int> seen((1 << log_buckets) - 1, 0);
      for (int slot = 0; slot < stored_tree_slots(log_buckets, top_levels); ++slot) {
        const int node = node_of_slot(slot, log_buckets, top_levels);
        ASSERT_LT(node, int(seen.size()));
        if (node >= 0) ++seen[node];
      }
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }))
          << log_buckets << " levels, " << top_levels << " at the top";
    }
}

TEST(SplitterTree, EveryNodeHoldsADifferentSplitter) {
  for (int log_buckets = 1; log_buckets <= 12; ++log_buckets) {
    const int splitters = (1 << log_buckets) - 1;
    std::vector<int> seen(splitters, 0);
    for (int node = 0; node < splitters; ++node) {
      const int at = splitter_of_node(node, log_buckets);
      ASSERT_GE(at, 0);
      ASSERT_LT(at, splitters);
      ++seen[at];
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
  }
  EXPECT_EQ(splitter_of_node(0, 3), 3);  // the root: the median of 7
  EXPECT_EQ(splitter_of_node(1, 3), 1);
  EXPECT_EQ(splitter_of_node(2, 3), 5);
  EXPECT_EQ(splitter_of_node(6, 3), 6);
}

TEST(SplitterTree, BucketIsTheCountOfSplittersNotGreater) {
  std::mt19937 random(7);
  for (int log_buckets = 1; log_buckets <= 12; ++log_buckets)
    for (int range : {5, 1000, 1 << 30}) {  // few distinct splitters, some, all distinct
      std::uniform_int_distribution<int> value(-range, range);
      std::vector<int> sorted((1 << log_buckets) - 1);
      for (int& s : sorted) s = value(random);
      std::sort(sorted.begin(), sorted.end());
      for (int top_levels : {1, 2, log_buckets - 3, log_buckets}) {
        if (top_levels < 1) continue;
        const std::vector<int> tree = tree_of(sorted, log_buckets, top_levels);
        std::uniform_int_distribution<int> key_value(-range - 3, range + 3);
        for (int k = 0; k < 2000; ++k) {
          const int key = k < int(sorted.size()) ? sorted[k] : key_value(random);
          const int expected =
              int(std::upper_bound(sorted.begin(), sorted.end(), key) - sorted.begin());
          ASSERT_EQ(bucket_of(key, tree.data(), log_buckets, top_levels, std::less<int>{}),
                    expected)
              << "key " << key << ", " << (1 << log_buckets) << " buckets, " << top_levels
              << " levels at the top, range " << range;
        }
      }
    }
}

TEST(SplitterTree, AnyComparatorGivesABucketInRange) {
  std::mt19937 random(11);
  const int log_buckets = 8, top_levels = 5;
  std::vector<int> tree(stored_tree_slots(log_buckets, top_levels));
  for (int& s : tree) s = int(random() % 100);
  const auto coin = [&random](int, int) { return (random() & 1) != 0; };  // no ordering at all
  for (int k = 0; k < 10000; ++k) {
    const int bucket =
        bucket_of(int(random() % 100), tree.data(), log_buckets, top_levels, coin);
    ASSERT_GE(bucket, 0);
    ASSERT_LT(bucket, 1 << log_buckets);
  }
}

}  // namespace
