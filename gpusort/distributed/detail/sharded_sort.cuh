// The distributed sort, one rank's view (sample sort with exact splitters):
//   1. gather every rank's element count: rank r's share of the output is as many
//      elements as it holds, starting at global rank targets[r] = sum of counts before it;
//   2. sort locally with the single-GPU policy;
//   3. find where to cut the local data so that every rank receives exactly its share
//      (splitter_search.cuh: ties broken by rank and position, so duplicate-heavy keys
//      spread evenly and the result is the stable order);
//   4. exchange the pieces (one NCCL group of sends and receives);
//   5. merge the received runs (merge_received.cuh).
// The host waits for the counts of steps 1 and 3; everything else is stream-ordered.
// Every rank learns, before the exchange, whether any rank failed to allocate or sort,
// and then all of them throw: no rank is left waiting in a collective.
#pragma once

#include "../../detail/device_range.cuh"
#include "../../error.cuh"
#include "../../sort.cuh"
#include "../communicator.cuh"
#include "collectives.cuh"
#include "merge_received.cuh"
#include "split_kernels.cuh"
#include "splitter_search.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace gpusort::distributed {

// Where a rank's share of the sorted union lives after a distributed sort: the rank's own
// range, which now holds global ranks [global_begin, global_begin + count).
struct shard {
  int rank;
  std::uint64_t global_begin;
  std::uint64_t count;
  std::uint64_t global_count;
};

namespace detail {

using gpusort::detail::check_cuda;

// Candidates each rank offers per splitter and round: windows shrink this much per round,
// so 2^34 elements per rank need 5 rounds; more only grows the (tiny) candidate arrays.
inline constexpr int candidates_per_splitter = 128;

// Makes `device` current for the call and restores the caller's device after.
class scoped_device {
 public:
  explicit scoped_device(int device) : previous_(gpusort::detail::current_device()) {
    if (device != previous_) check_cuda(cudaSetDevice(device), "switching to the rank's device");
  }
  ~scoped_device() { cudaSetDevice(previous_); }
  scoped_device(const scoped_device&) = delete;
  scoped_device& operator=(const scoped_device&) = delete;

 private:
  int previous_;
};

inline void copy_to_host(std::vector<std::uint64_t>& host, const std::uint64_t* device,
                         cudaStream_t stream) {
  check_cuda(cudaMemcpyAsync(host.data(), device, host.size() * sizeof(std::uint64_t),
                             cudaMemcpyDeviceToHost, stream),
             "copying counts to the host");
  check_cuda(cudaStreamSynchronize(stream), "waiting for counts");
}

inline void copy_to_device(std::uint64_t* device, const std::vector<std::uint64_t>& host,
                           cudaStream_t stream) {
  check_cuda(cudaMemcpyAsync(device, host.data(), host.size() * sizeof(std::uint64_t),
                             cudaMemcpyHostToDevice, stream),
             "copying counts to the device");
  // The host vector may go away when we return: wait for the copy to read it.
  check_cuda(cudaStreamSynchronize(stream), "waiting for counts");
}

// Every rank says whether it failed; if any did, every rank throws (the failing one its
// own error). `flag` is one device word.
inline void agree_or_throw(const communicator& comm, std::uint64_t* flag,
                           const std::exception_ptr& failure, const char* step,
                           cudaStream_t stream) {
  std::vector<std::uint64_t> failed{failure ? 1u : 0u};
  copy_to_device(flag, failed, stream);
  all_reduce_sum(comm, flag, 1, stream);
  copy_to_host(failed, flag, stream);
  if (failure) std::rethrow_exception(failure);
  if (failed[0] > 0)
    gpusort::detail::throw_usage_error(std::to_string(failed[0]) + " other rank(s) failed " +
                                       step + "; this rank's data is a permutation of its input");
}

template <class Key, class Compare>
std::vector<std::uint64_t> find_splits(const communicator& comm, const Key* keys, std::size_t count,
                                       const std::vector<std::uint64_t>& targets,
                                       std::uint64_t total, const Compare& comp,
                                       cudaStream_t stream, allocator_ref allocator) {
  splitter_search search(targets, count, total, candidates_per_splitter);
  const std::size_t per_rank = search.candidates_per_rank();
  const std::size_t all = per_rank * std::size_t(comm.size());
  storage_plan layout;
  const std::size_t local_positions_at = layout.reserve<std::uint64_t>(per_rank);
  const std::size_t local_keys_at = layout.reserve<Key>(per_rank);
  const std::size_t positions_at = layout.reserve<std::uint64_t>(all);
  const std::size_t candidates_at = layout.reserve<Key>(all);
  const std::size_t local_counts_at = layout.reserve<std::uint64_t>(all);
  const std::size_t global_ranks_at = layout.reserve<std::uint64_t>(all);
  temporary_storage storage(allocator, layout.total_bytes(), stream);

  std::vector<std::uint64_t> positions(all), local_counts(all), global_ranks(all);
  constexpr int most_rounds = 64;  // 128-fold per round: never reached by a strict weak order
  for (int round = 0; round < most_rounds && !search.done(); ++round) {
    copy_to_device(storage.at<std::uint64_t>(local_positions_at), search.candidate_positions(),
                   stream);
    const auto per_rank_blocks = unsigned((per_rank + split_kernel_threads - 1) / split_kernel_threads);
    gather_candidates<<<per_rank_blocks, split_kernel_threads, 0, stream>>>(
        keys, storage.at<std::uint64_t>(local_positions_at), per_rank,
        storage.at<Key>(local_keys_at));
    gpusort::detail::check_launch("distributed sort: gather_candidates");
    all_gather_bytes(comm, storage.at<std::uint64_t>(local_positions_at),
                     storage.at<std::uint64_t>(positions_at), per_rank * sizeof(std::uint64_t),
                     stream);
    all_gather_bytes(comm, storage.at<Key>(local_keys_at), storage.at<Key>(candidates_at),
                     per_rank * sizeof(Key), stream);
    const auto all_blocks = unsigned((all + split_kernel_threads - 1) / split_kernel_threads);
    count_preceding<<<all_blocks, split_kernel_threads, 0, stream>>>(
        keys, count, comm.rank(), storage.at<Key>(candidates_at),
        storage.at<std::uint64_t>(positions_at), all, per_rank, comp,
        storage.at<std::uint64_t>(local_counts_at));
    gpusort::detail::check_launch("distributed sort: count_preceding");
    check_cuda(cudaMemcpyAsync(storage.at<std::uint64_t>(global_ranks_at),
                               storage.at<std::uint64_t>(local_counts_at),
                               all * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice, stream),
               "copying local counts");
    all_reduce_sum(comm, storage.at<std::uint64_t>(global_ranks_at), all, stream);
    check_cuda(cudaMemcpyAsync(positions.data(), storage.at<std::uint64_t>(positions_at),
                               all * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream),
               "copying candidate positions to the host");
    check_cuda(cudaMemcpyAsync(local_counts.data(), storage.at<std::uint64_t>(local_counts_at),
                               all * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream),
               "copying candidate counts to the host");
    copy_to_host(global_ranks, storage.at<std::uint64_t>(global_ranks_at), stream);
    search.narrow(positions, global_ranks, local_counts);
  }
  if (!search.done())
    gpusort::detail::throw_usage_error(
        "the distributed sort's splitter search did not converge: the comparator is not a "
        "strict weak ordering");
  return search.splits();
}

// Events the benchmark records between the steps (created by the caller; null: none).
struct step_events {
  cudaEvent_t begun, sorted, split, exchanged, merged;
};

inline void record(cudaEvent_t event, cudaStream_t stream) {
  if (event != nullptr) check_cuda(cudaEventRecord(event, stream), "recording a step event");
}

template <bool Stable, class Policy, class Key, class Value, class Compare>
shard sharded_sort(const communicator& comm, const Policy& policy, Key* keys, Value* values,
                   std::size_t count, const Compare& comp, const step_events& events = {}) {
  constexpr bool has_values = has_values_v<Value>;
  scoped_device on_rank_device(comm.device());
  const cudaStream_t stream = policy.stream();
  const allocator_ref allocator = policy.allocator();
  const int ranks = comm.size();
  const int self = comm.rank();

  if (ranks == 1) {
    gpusort::detail::sort_front_door<Stable>(policy, keys, keys + count, values, comp);
    return {0, 0, count, count};
  }
  gpusort::detail::require_no_pending_error();
  gpusort::detail::require_stream_of_device(stream, comm.device());

  // 1. Counts: rank r ends with as many elements as it brought.
  storage_plan control_layout;
  const std::size_t counts_at = control_layout.reserve<std::uint64_t>(ranks + 1);
  const std::size_t flag_at = control_layout.reserve<std::uint64_t>(1);
  const std::size_t splits_at = control_layout.reserve<std::uint64_t>(std::size_t(ranks) * (ranks + 1));
  temporary_storage control(allocator, control_layout.total_bytes(), stream);
  std::uint64_t* flag = control.at<std::uint64_t>(flag_at);
  std::vector<std::uint64_t> counts(ranks);
  copy_to_device(control.at<std::uint64_t>(counts_at) + ranks, {std::uint64_t(count)}, stream);
  all_gather_bytes(comm, control.at<std::uint64_t>(counts_at) + ranks,
                   control.at<std::uint64_t>(counts_at), sizeof(std::uint64_t), stream);
  copy_to_host(counts, control.at<std::uint64_t>(counts_at), stream);
  std::vector<std::uint64_t> targets;  // global rank where ranks 1, 2, ... begin
  std::uint64_t total = 0;
  for (int r = 0; r < ranks; ++r) {
    if (r > 0) targets.push_back(total);
    total += counts[r];
  }
  const std::uint64_t global_begin = self == 0 ? 0 : targets[self - 1];
  const shard result{self, global_begin, count, total};
  if (total == 0) return result;

  // 2. Local sort (the checks on the ranges happen here too).
  record(events.begun, stream);
  std::exception_ptr failure;
  try {
    gpusort::detail::sort_front_door<Stable>(policy, keys, keys + count, values, comp);
  } catch (...) {
    failure = std::current_exception();
  }
  agree_or_throw(comm, flag, failure, "to sort locally", stream);
  record(events.sorted, stream);

  // 3. Exact cuts, then everyone's cuts: splits[q * (ranks + 1) + r] = how many of rank q's
  // elements go to ranks before r.
  std::vector<std::uint64_t> own_splits{0};
  for (std::uint64_t s : find_splits(comm, keys, count, targets, total, comp, stream, allocator))
    own_splits.push_back(s);
  own_splits.push_back(count);
  std::uint64_t* splits_device = control.at<std::uint64_t>(splits_at);
  copy_to_device(splits_device + std::size_t(self) * (ranks + 1), own_splits, stream);
  all_gather_bytes(comm, splits_device + std::size_t(self) * (ranks + 1), splits_device,
                   (ranks + 1) * sizeof(std::uint64_t), stream);
  std::vector<std::uint64_t> splits(std::size_t(ranks) * (ranks + 1));
  copy_to_host(splits, splits_device, stream);
  record(events.split, stream);
  // Every rank checks every rank's cuts, so that all of them throw or none does (a
  // comparator that is no strict weak ordering can make the searches disagree).
  const auto cut = [&](int q, int r) { return splits[std::size_t(q) * (ranks + 1) + r]; };
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
          "the distributed sort's cuts do not add up (rank " + std::to_string(r) + " would receive " +
          std::to_string(received) + " of " + std::to_string(counts[r]) +
          "): the comparator is not a strict weak ordering; every rank's data is a permutation "
          "of its input");
  }
  std::vector<std::size_t> send_offsets(own_splits.begin(), own_splits.end());
  std::vector<std::size_t> recv_offsets{0};
  std::vector<run> runs;
  for (int q = 0; q < ranks; ++q) {
    const std::size_t piece = cut(q, self + 1) - cut(q, self);
    runs.push_back({recv_offsets.back(), piece});
    recv_offsets.push_back(recv_offsets.back() + piece);
  }

  // 4. Exchange into a buffer as large as the rank's data, allocated (with the merge's
  // storage) by every rank before any sends.
  std::optional<temporary_storage> exchange_storage;
  std::size_t received_keys_at = 0, received_values_at = 0, merge_temp_at = 0, merge_bytes = 0;
  try {
    merge_bytes = merge_temp_bytes<Stable, Key, Value>(runs, comp);
    storage_plan layout;
    received_keys_at = layout.reserve<Key>(count);
    received_values_at = layout.reserve<Value>(has_values ? count : 0);
    merge_temp_at = layout.reserve_bytes(merge_bytes);
    exchange_storage.emplace(allocator, layout.total_bytes(), stream);
  } catch (...) {
    failure = std::current_exception();
  }
  agree_or_throw(comm, flag, failure, "to allocate the exchange buffer", stream);
  Key* received_keys = exchange_storage->template at<Key>(received_keys_at);
  Value* received_values = has_values ? exchange_storage->template at<Value>(received_values_at)
                                      : nullptr;
  std::vector<exchange_plane> planes{{keys, received_keys, sizeof(Key)}};
  if constexpr (has_values) planes.push_back({values, received_values, sizeof(Value)});
  exchange(comm, planes, send_offsets, recv_offsets, stream);
  record(events.exchanged, stream);

  // 5. Merge.
  merge_received<Stable>(received_keys, received_values, keys, values, count, runs,
                 exchange_storage->template at<char>(merge_temp_at), merge_bytes, comp, stream);
  record(events.merged, stream);
  return result;
}

}  // namespace detail
}  // namespace gpusort::distributed
