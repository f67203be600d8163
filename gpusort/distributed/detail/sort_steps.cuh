// The steps both ways of the distributed sort share (sharded_sort.cuh sorts first,
// partition_first_sort.cuh partitions first): the control block, the counts, the cuts and
// their checks, the exchange's layout, the receive buffer, and the profiling events.
#pragma once

#include "../../allocator.cuh"
#include "../../error.cuh"
#include "../../no_values.cuh"
#include "../communicator.cuh"
#include "collectives.cuh"
#include "find_rank_splits.cuh"
#include "host_round_trip.cuh"
#include "merge_received.cuh"
#include "peer_copy_exchange.cuh"
#include "run.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpusort::distributed::detail {

// The small device arrays the steps share, in one allocation made before any collective:
// every rank's count (and this rank's own behind them, to gather from), the failure flag,
// every rank's cuts, the splitter search's candidates, and for exchanges by peer copies the
// table of every rank's arrays and the word of the closing collective.
template <class Key>
class control_buffers {
 public:
  control_buffers(int ranks, allocator_ref allocator, cudaStream_t stream)
      : ranks_(ranks), at_(layout(ranks)), storage_(allocator, at_.total_bytes, stream) {}

  std::uint64_t* counts() const { return words(at_.counts); }  // ranks + 1
  std::uint64_t* flag() const { return words(at_.flag); }
  // Rank q's row of ranks + 1 cuts; the rows follow each other from cuts_of(0).
  std::uint64_t* cuts_of(int q) const { return words(at_.cuts) + std::size_t(q) * (ranks_ + 1); }
  candidate_buffers<Key> candidates() const {
    return candidate_buffers<Key>(ranks_, storage_.at<char>(at_.candidates));
  }
  std::uint64_t* peer_table() const { return words(at_.peer_table); }  // ranks + 1 rows
  std::uint64_t* exchange_done() const { return words(at_.exchange_done); }

 private:
  struct offsets {
    std::size_t counts, flag, cuts, candidates, peer_table, exchange_done, total_bytes;
  };
  static offsets layout(int ranks) {
    storage_plan plan;
    offsets at{};
    at.counts = plan.reserve<std::uint64_t>(ranks + 1);
    at.flag = plan.reserve<std::uint64_t>(1);
    at.cuts = plan.reserve<std::uint64_t>(std::size_t(ranks) * (ranks + 1));
    at.candidates = candidate_buffers<Key>::reserve(plan, ranks);
    at.peer_table = plan.reserve<std::uint64_t>(std::size_t(ranks + 1) * peer_row_words);
    at.exchange_done = plan.reserve<std::uint64_t>(1);
    at.total_bytes = plan.total_bytes();
    return at;
  }
  std::uint64_t* words(std::size_t offset) const { return storage_.at<std::uint64_t>(offset); }

  int ranks_;
  offsets at_;
  temporary_storage storage_;
};

// Makes the control block from the policy's allocator; where that fails, from gpusort's own
// memory, so that this rank can still gather the counts and tell the others; returns the
// first failure. Throws only where both fail: the other ranks then wait in the gathering of
// the counts until their timeout.
template <class Key>
std::exception_ptr emplace_control_buffers(std::optional<control_buffers<Key>>& control,
                                           int ranks, allocator_ref allocator,
                                           cudaStream_t stream) {
  try {
    control.emplace(ranks, allocator, stream);
    return nullptr;
  } catch (...) {
    const std::exception_ptr failure = std::current_exception();
    control.emplace(ranks, allocator_ref{}, stream);
    return failure;
  }
}

// What step 1 learns; every rank computes the same.
struct rank_counts {
  std::vector<std::uint64_t> of_rank;  // every rank's element count
  std::vector<std::uint64_t> targets;  // the global rank where ranks 1, 2, ... begin
  std::uint64_t total;
};

// The count a rank gathers in place of its own when it could not make its control block.
inline constexpr std::uint64_t failed_rank_count = ~std::uint64_t(0);

// Step 1: rank r ends with as many elements as it brought, so the counts fix every share.
// Every rank throws where any could not make its control block (`control_failure`).
template <class Key>
rank_counts gather_counts(const communicator& comm, host_round_trip& trip, std::size_t count,
                          const control_buffers<Key>& control,
                          const std::exception_ptr& control_failure, cudaStream_t stream) {
  const int ranks = comm.size();
  rank_counts counts{std::vector<std::uint64_t>(ranks), {}, 0};
  trip.to_device(control.counts() + ranks,
                 {control_failure ? failed_rank_count : std::uint64_t(count)});
  all_gather_bytes(comm, control.counts() + ranks, control.counts(), sizeof(std::uint64_t),
                   stream);
  trip.to_host(counts.of_rank, control.counts());
  trip.wait("to gather the counts");
  if (control_failure) std::rethrow_exception(control_failure);
  for (int r = 0; r < ranks; ++r)
    if (counts.of_rank[r] == failed_rank_count)
      gpusort::detail::throw_usage_error(
          "rank " + std::to_string(r) + " failed to allocate the distributed sort's control "
          "block; this rank's data is as it was");
  for (int r = 0; r < ranks; ++r) {
    if (r > 0) counts.targets.push_back(counts.total);
    counts.total += counts.of_rank[r];
  }
  return counts;
}

// Every rank's cuts: cut(q, r) = how many of rank q's elements go to ranks before r.
class cut_table {
 public:
  cut_table(int ranks, std::vector<std::uint64_t> cuts) : ranks_(ranks), cuts_(std::move(cuts)) {}
  int ranks() const noexcept { return ranks_; }
  std::uint64_t operator()(int q, int r) const { return cuts_[std::size_t(q) * (ranks_ + 1) + r]; }

 private:
  int ranks_;
  std::vector<std::uint64_t> cuts_;
};

// Step 3: this rank's cuts, 0 and its count included: its elements [own[r], own[r + 1])
// go to rank r. `search` says where each cut may lie (all of the data, sorted, unless the
// partition-first sort narrowed it).
template <class Key, class Compare>
std::vector<std::uint64_t> find_own_cuts(const communicator& comm, host_round_trip& trip,
                                         const Key* keys, std::size_t count,
                                         splitter_search search, const Compare& comp,
                                         const control_buffers<Key>& control,
                                         cudaStream_t stream) {
  std::vector<std::uint64_t> own{0};
  for (std::uint64_t s : find_rank_splits(comm, trip, keys, count, std::move(search), comp,
                                          control.candidates(), stream))
    own.push_back(s);
  own.push_back(count);
  return own;
}

// Every rank needs every rank's cuts: to check them, and to know what it will receive.
template <class Key>
cut_table gather_cuts(const communicator& comm, host_round_trip& trip,
                      const std::vector<std::uint64_t>& own, const control_buffers<Key>& control,
                      cudaStream_t stream) {
  const int ranks = comm.size();
  trip.to_device(control.cuts_of(comm.rank()), own);
  all_gather_bytes(comm, control.cuts_of(comm.rank()), control.cuts_of(0),
                   (ranks + 1) * sizeof(std::uint64_t), stream);
  std::vector<std::uint64_t> cuts(std::size_t(ranks) * (ranks + 1));
  trip.to_host(cuts, control.cuts_of(0));
  trip.wait("to gather the cuts");
  return cut_table(ranks, std::move(cuts));
}

// Every rank checks every rank's cuts, so that all of them throw or none does (a
// comparator that is no strict weak ordering can make the searches disagree).
inline void require_consistent_cuts(const cut_table& cut,
                                    const std::vector<std::uint64_t>& counts) {
  const int ranks = cut.ranks();
  for (int r = 0; r < ranks; ++r) {
    std::uint64_t received = 0;
    for (int q = 0; q < ranks; ++q) {
      if (cut(q, r + 1) < cut(q, r) || cut(q, ranks) != counts[q])
        gpusort::detail::throw_usage_error(
            "the distributed sort's cuts are inconsistent: the comparator is not a strict weak "
            "ordering; every rank's data is a permutation of its input");
      received += cut(q, r + 1) - cut(q, r);
    }
    if (received != counts[r])
      gpusort::detail::throw_usage_error(
          "the distributed sort's cuts do not add up (rank " + std::to_string(r) +
          " would receive " + std::to_string(received) + " of " + std::to_string(counts[r]) +
          "): the comparator is not a strict weak ordering; every rank's data is a "
          "permutation of its input");
  }
}

// Step 4's pieces and step 5's runs.
struct exchange_layout {
  std::vector<run> send_pieces;  // this rank's piece for rank q
  std::vector<run> recv_pieces;  // where rank q's piece lands
  std::vector<std::uint64_t> source_begin;  // where rank q's piece for this rank begins there
  std::vector<run> runs;         // the received pieces: sorted runs, in rank order
};

// From the cuts alone: what this rank sends where, and what it receives from whom.
inline exchange_layout plan_exchange(const cut_table& cut, const std::vector<std::uint64_t>& own,
                                     int self) {
  exchange_layout layout;
  std::size_t received = 0;
  for (int q = 0; q < cut.ranks(); ++q) {
    layout.send_pieces.push_back({own[q], own[q + 1] - own[q]});
    const std::size_t piece = cut(q, self + 1) - cut(q, self);
    layout.recv_pieces.push_back({received, piece});
    layout.source_begin.push_back(cut(q, self));
    received += piece;
  }
  layout.runs = layout.recv_pieces;
  return layout;
}

// The exchange's receive buffer, as large as the rank's data, and the merge's storage: one
// allocation, made by every rank before any sends.
template <bool Stable, class Key, class Value>
class receive_buffers {
 public:
  template <class Compare>
  receive_buffers(std::size_t count, const std::vector<run>& runs, const Compare& comp,
                  allocator_ref allocator, cudaStream_t stream)
      : merge_bytes(merge_temp_bytes<Stable, Key, Value>(runs, comp)),
        at_(layout(count, merge_bytes)),
        storage_(allocator, at_.total_bytes, stream) {}

  const std::size_t merge_bytes;
  Key* keys() const { return storage_.at<Key>(at_.keys); }
  Value* values() const { return has_values_v<Value> ? storage_.at<Value>(at_.values) : nullptr; }
  char* merge_temp() const { return storage_.at<char>(at_.merge_temp); }

 private:
  struct offsets {
    std::size_t keys, values, merge_temp, total_bytes;
  };
  static offsets layout(std::size_t count, std::size_t merge_bytes) {
    storage_plan plan;
    offsets at{};
    at.keys = plan.reserve<Key>(count);
    at.values = plan.reserve<Value>(has_values_v<Value> ? count : 0);
    at.merge_temp = plan.reserve_bytes(merge_bytes);
    at.total_bytes = plan.total_bytes();
    return at;
  }

  offsets at_;
  temporary_storage storage_;
};

// For profiling (step_events): a null event is not recorded.
inline void record_step(cudaEvent_t event, cudaStream_t stream) {
  if (event != nullptr)
    gpusort::detail::check_cuda(cudaEventRecord(event, stream), "recording a step event");
}

}  // namespace gpusort::distributed::detail
