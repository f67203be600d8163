// Exact splitters for the distributed sort: where each rank's sorted data must be cut so
// that rank r receives exactly the elements of global ranks [targets[r - 1], targets[r]).
//
// The order is total: equal keys are ordered by (rank, position), so the cut is exact
// even when every key is equal, and it is the stable order. Each round, every rank offers
// `per_splitter` evenly spaced candidates from its current window for every unresolved
// splitter; every rank counts how many of its elements precede each candidate, and the
// sums give each candidate's global rank. The candidates just below and above a target
// become the new window: every rank's window shrinks about per_splitter-fold per round,
// and once a window is small enough to be offered whole, the element at the target is a
// candidate. This is the host side: pure bookkeeping, tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace gpusort::distributed::detail {

inline constexpr std::uint64_t no_candidate = std::numeric_limits<std::uint64_t>::max();

class splitter_search {
 public:
  // Where a cut may lie on this rank: [lo, hi]; resolved once it is known to be lo.
  struct window {
    std::uint64_t lo, hi;
    bool resolved;
  };

  // targets: global ranks where rank 1, 2, ... begin (nondecreasing, each <= total);
  // local_count: this rank's element count.
  splitter_search(std::vector<std::uint64_t> targets, std::uint64_t local_count,
                  std::uint64_t total, int per_splitter)
      : targets_(std::move(targets)), per_splitter_(per_splitter) {
    for (std::uint64_t target : targets_) {
      window w{0, local_count, false};
      if (target == 0) w = {0, 0, true};
      if (target >= total) w = {local_count, local_count, true};
      windows_.push_back(w);
    }
  }

  // Where each cut is known to lie already: one window per target. The data need only be
  // sorted inside the unresolved windows, if every element before a window precedes, and
  // every element after it follows, each key the window holds (the partition-first sort's
  // zones).
  splitter_search(std::vector<std::uint64_t> targets, std::vector<window> windows,
                  int per_splitter)
      : targets_(std::move(targets)), windows_(std::move(windows)), per_splitter_(per_splitter) {}

  int splitters() const noexcept { return int(targets_.size()); }
  std::size_t candidates_per_rank() const noexcept {
    return targets_.size() * std::size_t(per_splitter_);
  }

  bool done() const noexcept {
    for (const window& w : windows_)
      if (!w.resolved) return false;
    return true;
  }

  // This rank's candidates for the next round: splitter j's slots are
  // [j * per_splitter, (j + 1) * per_splitter), positions into the local sorted data or
  // no_candidate. A window that fits is offered whole, else evenly spaced from its start.
  std::vector<std::uint64_t> candidate_positions() const {
    std::vector<std::uint64_t> positions(candidates_per_rank(), no_candidate);
    for (int j = 0; j < splitters(); ++j) {
      const window& w = windows_[j];
      // lo > hi only comes from a comparator that is no strict weak ordering: offer nothing
      // (the search then runs out of rounds and says so).
      if (w.resolved || w.lo >= w.hi) continue;
      const std::uint64_t width = w.hi - w.lo;
      const int offered = width < std::uint64_t(per_splitter_) ? int(width) : per_splitter_;
      for (int t = 0; t < offered; ++t)
        positions[std::size_t(j) * per_splitter_ + t] =
            w.lo + std::uint64_t(t) * width / std::uint64_t(offered);
    }
    return positions;
  }

  // After a round. For every rank q and slot s (index q * candidates_per_rank() + s):
  // the candidate's position on its rank (no_candidate for an empty slot), its global rank
  // (elements of all ranks before it) and how many of this rank's elements precede it.
  void narrow(const std::vector<std::uint64_t>& positions,
              const std::vector<std::uint64_t>& global_ranks,
              const std::vector<std::uint64_t>& local_counts) {
    const std::size_t per_rank = candidates_per_rank();
    const std::size_t ranks = per_rank == 0 ? 0 : positions.size() / per_rank;
    for (int j = 0; j < splitters(); ++j) {
      window& w = windows_[j];
      if (w.resolved) continue;
      const std::uint64_t target = targets_[j];
      std::uint64_t below_rank = 0, above_rank = no_candidate;
      std::uint64_t below_local = w.lo, above_local = w.hi;
      bool found_below = false;
      for (std::size_t q = 0; q < ranks; ++q)
        for (int t = 0; t < per_splitter_; ++t) {
          const std::size_t c = q * per_rank + std::size_t(j) * per_splitter_ + t;
          if (positions[c] == no_candidate) continue;
          const std::uint64_t g = global_ranks[c];
          if (g <= target && (!found_below || g > below_rank)) {
            found_below = true;
            below_rank = g;
            below_local = local_counts[c];
          } else if (g > target && g < above_rank) {
            above_rank = g;
            above_local = local_counts[c];
          }
        }
      if (found_below && below_rank == target) {
        w = {below_local, below_local, true};
      } else {
        w.lo = below_local > w.lo ? below_local : w.lo;
        w.hi = above_local < w.hi ? above_local : w.hi;
      }
    }
  }

  // Where this rank's data is cut: split j is the number of its elements that go to
  // ranks 0..j. Valid once done().
  std::vector<std::uint64_t> splits() const {
    std::vector<std::uint64_t> result;
    for (const window& w : windows_) result.push_back(w.lo);
    return result;
  }

 private:
  std::vector<std::uint64_t> targets_;
  std::vector<window> windows_;
  int per_splitter_;
};

}  // namespace gpusort::distributed::detail
