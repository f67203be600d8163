// The distributed sort, one rank's view (sample sort with exact splitters):
//   1. gather every rank's element count: rank r's share of the output is as many
//      elements as it holds, starting at global rank targets[r] = sum of counts before it;
//      where it is switched on and every rank holds enough, the partition-first way runs
//      instead of the steps below (partition_first_sort.cuh: the exchange overlaps the
//      local sort; off by default, see partition_first_plan.cuh), unless its brackets
//      missed or it could not allocate;
//   2. sort locally with the single-GPU policy;
//   3. find where to cut the local data so that every rank receives exactly its share
//      (find_rank_splits.cuh, splitter_search.cuh: ties broken by rank and position, so
//      duplicate-heavy keys spread evenly and the result is the stable order);
//   4. exchange the pieces: one NCCL group of sends and receives, or, between the GPUs of
//      one process, reads from the peers' arrays on the copy engines (peer_copy_exchange.cuh);
//   5. merge the received runs (merge_received.cuh).
// The host waits for the counts of steps 1 and 3; everything else is stream-ordered.
// Every rank learns, before the exchange, whether any rank failed to allocate or sort,
// and then all of them throw: no rank is left waiting in a collective. A failure that the
// ranks cannot agree on (a CUDA error in the middle of the splitter search, a rank that
// never calls) ends, on the ranks left waiting, at the communicator's timeout
// (host_round_trip.cuh).
#pragma once

#include "../../allocator.cuh"
#include "../../detail/device_range.cuh"
#include "../../error.cuh"
#include "../../no_values.cuh"
#include "../../sort.cuh"
#include "../communicator.cuh"
#include "../profiling.cuh"
#include "../shard.cuh"
#include "collectives.cuh"
#include "failure_agreement.cuh"
#include "find_rank_splits.cuh"
#include "host_round_trip.cuh"
#include "merge_received.cuh"
#include "partition_first_sort.cuh"
#include "scoped_device.cuh"
#include "sort_steps.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpusort::distributed::detail {

// Step 4: the keys, and the values alongside, in one exchange; by peer copies where the
// ranks' arrays were gathered (`peers`).
template <bool Stable, class Key, class Value>
void exchange_pieces(const communicator& comm, Key* keys, Value* values,
                     const receive_buffers<Stable, Key, Value>& received,
                     const exchange_layout& layout, const std::optional<peer_arrays>& peers,
                     std::uint64_t* done, cudaStream_t stream) {
  std::vector<exchange_plane> planes{{keys, received.keys(), sizeof(Key)}};
  if constexpr (has_values_v<Value>) planes.push_back({values, received.values(), sizeof(Value)});
  if (peers)
    peer_exchange(comm, planes, *peers, layout.send_pieces[comm.rank()], layout.source_begin,
                  layout.recv_pieces, done, stream);
  else
    exchange(comm, planes, layout.send_pieces, layout.recv_pieces, stream);
}

// One rank's part of the distributed sort (see the top of this file); `events` time its
// steps.
template <bool Stable, class Policy, class Key, class Value, class Compare>
shard sharded_sort(const communicator& comm, const Policy& policy, Key* keys, Value* values,
                   std::size_t count, const Compare& comp, const step_events& events = {}) {
  scoped_device on_rank_device(comm.device());
  const cudaStream_t stream = policy.stream();
  const allocator_ref allocator = policy.allocator();
  const int self = comm.rank();
  if (comm.size() == 1) {  // nothing to exchange
    gpusort::detail::sort_front_door<Stable>(policy, keys, keys + count, values, comp);
    return {0, 0, count, count};
  }
  gpusort::detail::require_no_pending_error();
  gpusort::detail::require_stream_of_device(stream, comm.device());

  host_round_trip trip(comm, stream);
  std::optional<control_buffers<Key>> control;
  const std::exception_ptr control_failure =
      emplace_control_buffers(control, comm.size(), allocator, stream);
  const rank_counts counts = gather_counts(comm, trip, count, *control, control_failure, stream);
  const std::uint64_t global_begin = self == 0 ? 0 : counts.targets[self - 1];
  const shard result{self, global_begin, count, counts.total};
  if (counts.total == 0) return result;
  if (partition_first_sort<Stable>(comm, policy, trip, keys, values, count, counts, comp,
                                   *control, events))
    return result;

  record_step(events.begun, stream);
  all_ranks_succeed_or_throw(comm, trip, control->flag(), "to sort locally", stream, [&] {
    // The checks on the ranges happen here too.
    gpusort::detail::sort_front_door<Stable>(policy, keys, keys + count, values, comp);
  });
  record_step(events.sorted, stream);

  const std::vector<std::uint64_t> own_cuts =
      find_own_cuts(comm, trip, keys, count,
                    splitter_search(counts.targets, count, counts.total, candidates_per_splitter),
                    comp, *control, stream);
  const cut_table cuts = gather_cuts(comm, trip, own_cuts, *control, stream);
  record_step(events.split, stream);
  require_consistent_cuts(cuts, counts.of_rank);
  const exchange_layout layout = plan_exchange(cuts, own_cuts, self);

  std::optional<receive_buffers<Stable, Key, Value>> received;
  const auto allocate_received = [&] {
    received.emplace(count, layout.runs, comp, allocator, stream);
  };
  all_ranks_succeed_or_throw(comm, trip, control->flag(), "to allocate the exchange buffer",
                             stream, allocate_received);
  std::optional<peer_arrays> peers;
  if (exchanges_by_peer_copies(comm)) {
    peers = gather_peer_arrays(comm, trip, {keys, values}, control->peer_table(), stream);
    if (!peers->readable_everywhere()) peers.reset();  // through NCCL, on every rank
  }
  exchange_pieces(comm, keys, values, *received, layout, peers, control->exchange_done(), stream);
  record_step(events.exchanged, stream);

  merge_received<Stable>(received->keys(), received->values(), keys, values, count, layout.runs,
                         received->merge_temp(), received->merge_bytes, comp, stream);
  record_step(events.merged, stream);
  return result;
}

}  // namespace gpusort::distributed::detail
