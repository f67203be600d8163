// The distributed sort's splitter search, run on the host for simulated ranks: the cuts it
// finds must give every rank exactly its share of the stable global order, for uneven
// counts, empty ranks and duplicate-heavy keys, within the promised number of rounds.
#include <gpusort/distributed/detail/splitter_search.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

namespace {

using gpusort::distributed::detail::no_candidate;
using gpusort::distributed::detail::splitter_search;

// How many of `keys` (rank `self`, sorted) precede candidate (key, owner, position) in
// the order (key, rank, position): what count_preceding computes on the device.
std::uint64_t count_preceding(const std::vector<int>& keys, int self, int key, int owner,
                              std::uint64_t position) {
  if (self == owner) return position;
  if (self < owner) return std::upper_bound(keys.begin(), keys.end(), key) - keys.begin();
  return std::lower_bound(keys.begin(), keys.end(), key) - keys.begin();
}

struct outcome {
  std::vector<std::vector<std::uint64_t>> splits;  // per rank
  int rounds;
};

outcome search_all(const std::vector<std::vector<int>>& ranks, int per_splitter) {
  const int p = int(ranks.size());
  std::vector<std::uint64_t> targets;
  std::uint64_t total = 0;
  for (int r = 0; r < p; ++r) {
    if (r > 0) targets.push_back(total);
    total += ranks[r].size();
  }
  std::vector<splitter_search> searches;
  for (int r = 0; r < p; ++r) searches.emplace_back(targets, ranks[r].size(), total, per_splitter);
  int rounds = 0;
  while (!searches[0].done() && rounds < 64) {
    ++rounds;
    // All-gather of positions and keys.
    std::vector<std::uint64_t> positions;
    std::vector<int> keys;
    for (int r = 0; r < p; ++r)
      for (std::uint64_t pos : searches[r].candidate_positions()) {
        positions.push_back(pos);
        keys.push_back(pos == no_candidate ? 0 : ranks[r][pos]);
      }
    const std::size_t per_rank = searches[0].candidates_per_rank();
    std::vector<std::vector<std::uint64_t>> local(p, std::vector<std::uint64_t>(positions.size()));
    std::vector<std::uint64_t> global(positions.size(), 0);
    for (int r = 0; r < p; ++r)
      for (std::size_t c = 0; c < positions.size(); ++c) {
        if (positions[c] == no_candidate) continue;
        local[r][c] = count_preceding(ranks[r], r, keys[c], int(c / per_rank), positions[c]);
        global[c] += local[r][c];
      }
    for (int r = 0; r < p; ++r) searches[r].narrow(positions, global, local[r]);
    for (int r = 1; r < p; ++r) EXPECT_EQ(searches[r].done(), searches[0].done());
  }
  outcome result{{}, rounds};
  for (int r = 0; r < p; ++r) {
    EXPECT_TRUE(searches[r].done());
    result.splits.push_back(searches[r].splits());
  }
  return result;
}

// Checks the cuts against the stable order of all ranks' (key, rank, position).
void expect_exact_cuts(const std::vector<std::vector<int>>& ranks, const outcome& found) {
  const int p = int(ranks.size());
  std::vector<std::tuple<int, int, std::uint64_t>> all;
  for (int r = 0; r < p; ++r)
    for (std::uint64_t i = 0; i < ranks[r].size(); ++i) all.emplace_back(ranks[r][i], r, i);
  std::sort(all.begin(), all.end());
  std::uint64_t begin = 0;
  for (int dest = 0; dest < p; ++dest) {
    const std::uint64_t end = begin + ranks[dest].size();
    for (std::uint64_t g = begin; g < end; ++g) {
      const auto [key, owner, position] = all[g];
      const std::uint64_t from = dest == 0 ? 0 : found.splits[owner][dest - 1];
      const std::uint64_t to = dest == p - 1 ? ranks[owner].size() : found.splits[owner][dest];
      ASSERT_TRUE(position >= from && position < to)
          << "global rank " << g << " (key " << key << ", rank " << owner << ", position "
          << position << ") should go to rank " << dest;
    }
    begin = end;
  }
}

std::vector<std::vector<int>> sorted_ranks(const std::vector<std::size_t>& counts, int key_range,
                                           std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int> key(0, key_range - 1);
  std::vector<std::vector<int>> ranks;
  for (std::size_t n : counts) {
    std::vector<int> keys(n);
    for (int& k : keys) k = key(random);
    std::sort(keys.begin(), keys.end());
    ranks.push_back(keys);
  }
  return ranks;
}

TEST(SplitterSearch, CutsAreExactForUnevenCountsAndEmptyRanks) {
  const std::vector<std::vector<std::size_t>> shapes = {
      {1000, 1000}, {0, 777}, {777, 0}, {1, 0, 0, 5}, {3000, 17, 0, 1234}, {5, 5, 5, 5, 5, 5, 5, 5},
      {0, 0, 0}, {100000, 1, 99999}};
  std::uint64_t seed = 1;
  for (const auto& counts : shapes)
    for (int key_range : {1, 2, 1000, 1 << 30}) {
      SCOPED_TRACE(testing::Message() << "ranks " << counts.size() << " keys < " << key_range);
      const auto ranks = sorted_ranks(counts, key_range, seed++);
      const outcome found = search_all(ranks, 8);
      expect_exact_cuts(ranks, found);
    }
}

TEST(SplitterSearch, AllEqualKeysSpreadByRankAndPosition) {
  const std::vector<std::vector<int>> ranks(4, std::vector<int>(1001, 42));
  const outcome found = search_all(ranks, 16);
  expect_exact_cuts(ranks, found);
  // Rank 0's own elements fill rank 0: everything before its end goes to it.
  EXPECT_EQ(found.splits[0][0], 1001u);
  EXPECT_EQ(found.splits[1][0], 0u);
}

TEST(SplitterSearch, RoundsGrowWithTheLogarithmOfTheCount) {
  // 128 candidates per splitter: windows shrink about 128-fold per round.
  const auto ranks = sorted_ranks({1 << 20, 1 << 20, 1 << 20}, 1 << 30, 99);
  const outcome found = search_all(ranks, 128);
  expect_exact_cuts(ranks, found);
  EXPECT_LE(found.rounds, 5);
}

TEST(SplitterSearch, InconsistentCountsNeverOfferPositionsOutsideTheData) {
  // Two ranks of 100 elements; a broken comparator reports a candidate below the target
  // with a local count above another's that is above the target: the window inverts.
  splitter_search search({100}, 100, 200, 4);
  std::vector<std::uint64_t> positions = search.candidate_positions();
  ASSERT_EQ(positions.size(), 4u);
  positions.resize(8, no_candidate);
  positions[4] = 10;  // rank 1's candidate
  std::vector<std::uint64_t> global(8, 0), local(8, 0);
  global[0] = 50, local[0] = 90;    // below the target, but 90 of ours precede it
  global[4] = 150, local[4] = 20;   // above the target, 20 of ours precede it
  search.narrow(positions, global, local);
  EXPECT_FALSE(search.done());
  for (std::uint64_t p : search.candidate_positions()) EXPECT_EQ(p, no_candidate);
}

}  // namespace
