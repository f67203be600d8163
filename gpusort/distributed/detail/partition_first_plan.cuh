// The partition-first sort's host side (partition_first_sort.cuh): whether a call takes
// that way, how large a sample it draws, which sample keys bracket each cut, and, from every
// rank's class counts, whether each cut fell inside its bracket and where on this rank the
// exact search must look, and where the received pieces go. Pure arithmetic, tested without
// a GPU (test/host/partition_first_plan_test.cu).
#pragma once

#include "range_partition_kernels.cuh"
#include "sort_steps.cuh"
#include "splitter_search.cuh"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gpusort::distributed::detail {

// Below this many elements on some rank, the sort-first way: a partition pass and the
// brackets' round trips cost more than the overlap saves. Lowered by tests, so that small
// inputs take the partition-first way too.
inline std::atomic<std::size_t>& partition_first_min_count() {
  static std::atomic<std::size_t> count{std::size_t(1) << 20};
  return count;
}

// From this many ranks on; by default never (more than the kernels serve). On 2 and 4
// H200s the partition-first way measured slower than sorting first for u32 keys, and within
// 4 % either way for u32+u32 pairs (bench/results/2026-11-26-h200x4-distributed-vs-cub.md):
// its partition kernels take 8.4 ms for 2^30 keys on two ranks (12 on four) where a copy
// takes 2, more than the overlap saves. Lowered by tests and by the benchmark's
// partition-first rows.
inline std::atomic<int>& partition_first_min_ranks() {
  static std::atomic<int> ranks{most_partition_ranks + 1};
  return ranks;
}

// Ranks and element sizes the partition kernels serve, and enough elements on every rank.
template <class Key, class Value>
bool partition_first_applies(int ranks, const std::vector<std::uint64_t>& counts) {
  if (ranks < 2 || ranks < partition_first_min_ranks() || ranks > most_partition_ranks)
    return false;
  if (sizeof(Key) > 64 || sizeof(Value) > 64) return false;
  const std::uint64_t smallest = *std::min_element(counts.begin(), counts.end());
  return smallest >= partition_first_min_count();
}

// Every rank draws as many sample keys: 2^16 where they fit 4 MiB in all (the brackets
// then hold each cut within about 1.4 % of the total), never more than the smallest rank
// holds.
template <class Key>
std::size_t samples_per_rank(int ranks, std::uint64_t smallest_count) {
  const std::size_t by_bytes = (std::size_t(4) << 20) / (std::size_t(ranks) * sizeof(Key));
  return std::max<std::size_t>(1, std::min<std::size_t>({std::size_t(1) << 16, by_bytes,
                                                         std::size_t(smallest_count)}));
}

// Positions, in the sorted sample of `samples` keys (every rank's alike), of the brackets
// lo_1, hi_1, lo_2, hi_2, ...: five standard deviations of a sample quantile either side of
// where cut r's share of the total falls, so that a bracket misses its cut about once in
// two million sorts of data in random order (a miss costs time, not correctness).
inline std::vector<std::uint64_t> bracket_positions(const std::vector<std::uint64_t>& targets,
                                                    std::uint64_t total, std::uint64_t samples) {
  std::vector<std::uint64_t> positions;
  const double s = double(samples);
  for (std::uint64_t target : targets) {
    const double share = double(target) / double(total);
    const double margin = 5 * std::sqrt(s * share * (1 - share)) + 4;
    const double lo = std::floor(share * s - margin), hi = std::ceil(share * s + margin);
    positions.push_back(std::uint64_t(std::clamp(lo, 0.0, s - 1)));
    positions.push_back(std::uint64_t(std::clamp(hi, 0.0, s - 1)));
  }
  return positions;
}

// What every rank reports after counting its classes: where each of its 2 * ranks - 1
// classes starts (and its count after them), then whether the brackets are apart.
class class_census {
 public:
  static std::size_t record_words(int ranks) { return std::size_t(2 * ranks - 1) + 2; }

  class_census(int ranks, std::vector<std::uint64_t> records)
      : ranks_(ranks), records_(std::move(records)) {}

  // Element where class c starts on rank q (c = 2 * ranks - 1: the rank's count).
  std::uint64_t start(int q, int c) const { return records_[q * record_words(ranks_) + c]; }

  bool brackets_apart() const {
    for (int q = 0; q < ranks_; ++q)
      if (records_[q * record_words(ranks_) + record_words(ranks_) - 1] != 1) return false;
    return true;
  }

  // Elements of all ranks inside the brackets, and in all.
  std::uint64_t zoned() const {
    std::uint64_t inside = 0;
    for (int q = 0; q < ranks_; ++q)
      for (int zone = 1; zone < 2 * ranks_ - 1; zone += 2)
        inside += start(q, zone + 1) - start(q, zone);
    return inside;
  }
  std::uint64_t total() const {
    std::uint64_t all = 0;
    for (int q = 0; q < ranks_; ++q) all += start(q, 2 * ranks_ - 1);
    return all;
  }

  // The search windows of this rank's cuts (splitter_search's second constructor), or none
  // where the partition-first way does not pay: some cut's target lies outside its zone
  // (the brackets missed), the brackets touch, or the zones hold more than an eighth of
  // the data (equal keys piled up inside the brackets: sorting the zones would be most of
  // a sort). Every rank sees the same census, so all of them take the sort-first way then.
  std::optional<std::vector<splitter_search::window>> windows(
      int self, const std::vector<std::uint64_t>& targets) const {
    if (!brackets_apart() || zoned() * 8 > total()) return std::nullopt;
    std::vector<splitter_search::window> windows;
    for (std::size_t j = 0; j < targets.size(); ++j) {
      const int zone = int(2 * j + 1);
      std::uint64_t below = 0, inside = 0;
      for (int q = 0; q < ranks_; ++q) {
        below += start(q, zone);
        inside += start(q, zone + 1) - start(q, zone);
      }
      const std::uint64_t target = targets[j];
      if (target < below || target > below + inside) return std::nullopt;
      const std::uint64_t lo = start(self, zone), hi = start(self, zone + 1);
      // At either end of the zone every rank's cut is the zone's end: nothing to search.
      if (target == below)
        windows.push_back({lo, lo, true});
      else if (target == below + inside)
        windows.push_back({hi, hi, true});
      else
        windows.push_back({lo, hi, false});
    }
    return windows;
  }

 private:
  int ranks_;
  std::vector<std::uint64_t> records_;
};

// The received pieces' layout. Unstable sorts put the own piece first and every other
// after it, so that two runs merge in one pass; stable ones keep rank order (the merge
// breaks ties by position), so the pieces before and after the own one are two runs.
struct partitioned_layout {
  exchange_layout exchange;        // exchange.runs: what the merge takes
  run own;                         // where the own piece lands
  std::vector<run> received_runs;  // the other pieces, as the runs sorted once they are in
};

inline partitioned_layout plan_partitioned_exchange(const cut_table& cut,
                                                    const std::vector<std::uint64_t>& own_cuts,
                                                    int self, bool rank_order) {
  partitioned_layout layout{plan_exchange(cut, own_cuts, self), {}, {}};
  exchange_layout& x = layout.exchange;
  if (!rank_order) {  // the own piece first, then the others in rank order
    x.recv_pieces[self].begin = 0;
    std::size_t at = x.recv_pieces[self].count;
    for (int q = 0; q < cut.ranks(); ++q)
      if (q != self) {
        x.recv_pieces[q].begin = at;
        at += x.recv_pieces[q].count;
      }
  }
  std::size_t received = 0;
  for (const run& piece : x.recv_pieces) received += piece.count;
  layout.own = x.recv_pieces[self];
  const std::size_t own_end = layout.own.begin + layout.own.count;
  if (rank_order) {
    layout.received_runs = {{0, layout.own.begin}, {own_end, received - own_end}};
    x.runs = {layout.received_runs[0], layout.own, layout.received_runs[1]};
  } else {
    layout.received_runs = {{own_end, received - own_end}};
    x.runs = {layout.own, layout.received_runs[0]};
  }
  return layout;
}

}  // namespace gpusort::distributed::detail
