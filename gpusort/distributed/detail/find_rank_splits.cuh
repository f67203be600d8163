// The collective side of the splitter search: rounds in which every rank offers candidate
// keys (splitter_search.cuh chooses them), every rank counts its elements before each
// (split_kernels.cuh), and the sums give each candidate's global rank, until every cut of
// this rank's sorted data is exact.
#pragma once

#include "../../allocator.cuh"
#include "../../error.cuh"
#include "../communicator.cuh"
#include "collectives.cuh"
#include "host_round_trip.cuh"
#include "split_kernels.cuh"
#include "splitter_search.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpusort::distributed::detail {

// Candidates each rank offers per splitter and round: windows shrink this much per round,
// so 2^34 elements per rank need 5 rounds; more only grows the (tiny) candidate arrays.
inline constexpr int candidates_per_splitter = 128;

// A search's device arrays, reused by every round. They lie in the sort's control block
// (sharded_sort.cuh), allocated before the ranks first agree, so that no rank can fail to
// allocate them between two agreements and leave the others waiting in a collective.
template <class Key>
class candidate_buffers {
 public:
  // Candidates one rank offers per round: as many for every splitter (splitter_search).
  static std::size_t per_rank_for(int ranks) {
    return std::size_t(ranks - 1) * candidates_per_splitter;
  }
  // Room for the arrays of `ranks` ranks in a plan; returns their offset there.
  static std::size_t reserve(storage_plan& plan, int ranks) {
    return plan.reserve_bytes(layout(ranks).total_bytes);
  }

  // Over the arrays at `base`: the storage of the plan reserve() took room in, plus its offset.
  candidate_buffers(int ranks, char* base)
      : per_rank(per_rank_for(ranks)), all(per_rank * std::size_t(ranks)), at_(layout(ranks)),
        base_(base) {}

  const std::size_t per_rank;  // candidates one rank offers per round
  const std::size_t all;       // of all ranks

  // This rank's candidates.
  std::uint64_t* local_positions() const { return words(at_.local_positions); }
  Key* local_keys() const { return reinterpret_cast<Key*>(base_ + at_.local_keys); }
  // Every rank's candidates, in rank order.
  std::uint64_t* positions() const { return words(at_.positions); }
  Key* candidates() const { return reinterpret_cast<Key*>(base_ + at_.candidates); }
  // How many of this rank's elements precede each candidate; then of all ranks' elements.
  std::uint64_t* local_counts() const { return words(at_.local_counts); }
  std::uint64_t* global_ranks() const { return words(at_.global_ranks); }

 private:
  struct offsets {
    std::size_t local_positions, local_keys, positions, candidates, local_counts, global_ranks;
    std::size_t total_bytes;
  };
  static offsets layout(int ranks) {
    const std::size_t per_rank = per_rank_for(ranks), all = per_rank * std::size_t(ranks);
    storage_plan plan;
    offsets at{};
    at.local_positions = plan.reserve<std::uint64_t>(per_rank);
    at.local_keys = plan.reserve<Key>(per_rank);
    at.positions = plan.reserve<std::uint64_t>(all);
    at.candidates = plan.reserve<Key>(all);
    at.local_counts = plan.reserve<std::uint64_t>(all);
    at.global_ranks = plan.reserve<std::uint64_t>(all);
    at.total_bytes = plan.total_bytes();
    return at;
  }
  std::uint64_t* words(std::size_t offset) const {
    return reinterpret_cast<std::uint64_t*>(base_ + offset);
  }

  offsets at_;
  char* base_;
};

// A round's results on the host: for every rank's candidate, its position on its rank, how
// many of this rank's elements precede it, and its global rank.
struct ranked_candidates {
  explicit ranked_candidates(std::size_t all)
      : positions(all), local_counts(all), global_ranks(all) {}
  std::vector<std::uint64_t> positions, local_counts, global_ranks;
};

// This rank picks up its candidate keys; then every rank has every rank's candidates.
template <class Key>
void share_candidates(const communicator& comm, host_round_trip& trip, const Key* keys,
                      const std::vector<std::uint64_t>& positions,
                      const candidate_buffers<Key>& b, cudaStream_t stream) {
  trip.to_device(b.local_positions(), positions);
  const auto blocks = unsigned((b.per_rank + split_kernel_threads - 1) / split_kernel_threads);
  gather_candidates<<<blocks, split_kernel_threads, 0, stream>>>(
      keys, b.local_positions(), b.per_rank, b.local_keys());
  gpusort::detail::check_launch("distributed sort: gather_candidates");
  all_gather_bytes(comm, b.local_positions(), b.positions(), b.per_rank * sizeof(std::uint64_t),
                   stream);
  all_gather_bytes(comm, b.local_keys(), b.candidates(), b.per_rank * sizeof(Key), stream);
}

// Each rank counts its elements before every candidate; the sums over ranks are the
// candidates' global ranks.
template <class Key, class Compare>
void rank_candidates(const communicator& comm, const Key* keys, std::size_t count,
                     const Compare& comp, const candidate_buffers<Key>& b, cudaStream_t stream) {
  const auto blocks = unsigned((b.all + split_kernel_threads - 1) / split_kernel_threads);
  count_preceding<<<blocks, split_kernel_threads, 0, stream>>>(
      keys, count, comm.rank(), b.candidates(), b.positions(), b.all, b.per_rank, comp,
      b.local_counts());
  gpusort::detail::check_launch("distributed sort: count_preceding");
  gpusort::detail::check_cuda(cudaMemcpyAsync(b.global_ranks(), b.local_counts(),
                                              b.all * sizeof(std::uint64_t),
                                              cudaMemcpyDeviceToDevice, stream),
                              "copying local counts");
  all_reduce_sum(comm, b.global_ranks(), b.all, stream);
}

// The host narrows the search's windows from these.
template <class Key>
void copy_ranked_to_host(host_round_trip& trip, const candidate_buffers<Key>& b,
                         ranked_candidates& ranked) {
  trip.to_host(ranked.positions, b.positions());
  trip.to_host(ranked.local_counts, b.local_counts());
  trip.to_host(ranked.global_ranks, b.global_ranks());
  trip.wait("to search the splitters");
}

// Where this rank's data is cut (splitter_search::splits()), found together with every
// other rank: all of them call it with the same targets and total, each with its search
// (splitter_search's first constructor over sorted data, or its second with the windows the
// partition-first sort found, both with candidates_per_splitter).
template <class Key, class Compare>
std::vector<std::uint64_t> find_rank_splits(const communicator& comm, host_round_trip& trip,
                                            const Key* keys, std::size_t count,
                                            splitter_search search, const Compare& comp,
                                            const candidate_buffers<Key>& buffers,
                                            cudaStream_t stream) {
  if (search.candidates_per_rank() != buffers.per_rank)
    throw gpusort::error("gpusort: internal error: the splitter search's candidate arrays "
                         "were sized for another rank count");
  ranked_candidates ranked(buffers.all);
  constexpr int most_rounds = 64;  // 128-fold per round: never reached by a strict weak order
  for (int round = 0; round < most_rounds && !search.done(); ++round) {
    share_candidates(comm, trip, keys, search.candidate_positions(), buffers, stream);
    rank_candidates(comm, keys, count, comp, buffers, stream);
    copy_ranked_to_host(trip, buffers, ranked);
    search.narrow(ranked.positions, ranked.global_ranks, ranked.local_counts);
  }
  if (!search.done())
    gpusort::detail::throw_usage_error(
        "the distributed sort's splitter search did not converge: the comparator is not a "
        "strict weak ordering");
  return search.splits();
}

}  // namespace gpusort::distributed::detail
