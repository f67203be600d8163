// The distributed sort's partition-first way, one rank's view: the exchange runs while the
// rank sorts the part it keeps, instead of after a sort of everything.
//   1. every rank samples its unsorted keys; the sorted sample of all ranks gives each cut
//      a bracket of two keys that holds it with near certainty (partition_first_plan.cuh);
//   2. the keys are counted by class (key ranges: between brackets, and inside each one),
//      and every rank learns every rank's counts. Where a cut missed its bracket (or equal
//      keys made brackets touch), every rank sees it and the sort-first way runs instead;
//   3. a stable partition by class (range_partition_kernels.cuh); only the keys inside the
//      brackets are sorted, which is enough for the exact cut search of the sort-first way,
//      started inside them (ties broken by rank and position as there);
//   4. the pieces for other ranks travel on a side stream while the rank sorts its own;
//   5. once they are in, the received pieces are sorted and merged with the own one.
// It needs about three times the rank's data in device memory (the partitioned copy and the
// receive buffer beside the data); where any rank cannot allocate that, every rank takes
// the sort-first way. The data stays as it was until the final merge writes it.
// Off by default (partition_first_plan.cuh says why and how to switch it on): on H200s its
// partition costs more than the overlap saves.
#pragma once

#include "../../allocator.cuh"
#include "../../error.cuh"
#include "../../no_values.cuh"
#include "../../sort.cuh"
#include "../communicator.cuh"
#include "../profiling.cuh"
#include "collectives.cuh"
#include "failure_agreement.cuh"
#include "host_round_trip.cuh"
#include "merge_received.cuh"
#include "partition_first_plan.cuh"
#include "range_partition_kernels.cuh"
#include "sort_steps.cuh"
#include "split_kernels.cuh"

#include <cub/device/device_scan.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gpusort::distributed::detail {

// What the partition-first way allocates besides the receive buffer (receive_buffers, made
// in the same agreed attempt): the partitioned copy, the sample, the brackets, the class
// counts and their scan, and the ranks' census records.
template <class Key, class Value>
class partition_first_buffers {
 public:
  struct sizes {
    int ranks;
    std::size_t count, samples_per_rank, tiles, scan_bytes;
  };

  partition_first_buffers(const sizes& n, allocator_ref allocator, cudaStream_t stream)
      : at_(layout(n)), storage_(allocator, at_.total_bytes, stream) {}

  // The data partitioned by class, then the pieces to send.
  Key* partitioned_keys() const { return storage_.at<Key>(at_.partitioned_keys); }
  Value* partitioned_values() const { return values_at(at_.partitioned_values); }
  // This rank's sample, then every rank's, sorted.
  Key* own_samples() const { return storage_.at<Key>(at_.own_samples); }
  Key* samples() const { return storage_.at<Key>(at_.samples); }
  std::uint64_t* bracket_positions() const { return words(at_.bracket_positions); }
  Key* brackets() const { return storage_.at<Key>(at_.brackets); }
  // Class-major counts per tile, and their exclusive sums: where each tile's class goes.
  std::uint64_t* tile_counts() const { return words(at_.tile_counts); }
  std::uint64_t* tile_offsets() const { return words(at_.tile_offsets); }
  char* scan_temp() const { return storage_.at<char>(at_.scan_temp); }
  // This rank's class_census record, then every rank's.
  std::uint64_t* own_record() const { return words(at_.own_record); }
  std::uint64_t* records() const { return words(at_.records); }

 private:
  struct offsets {
    std::size_t partitioned_keys, partitioned_values, own_samples, samples, bracket_positions,
        brackets, tile_counts, tile_offsets, scan_temp, own_record, records, total_bytes;
  };
  static offsets layout(const sizes& n) {
    const std::size_t values = has_values_v<Value> ? n.count : 0;
    const std::size_t classes = std::size_t(2 * n.ranks - 1), bounds = 2 * std::size_t(n.ranks - 1);
    const std::size_t record = class_census::record_words(n.ranks);
    storage_plan plan;
    offsets at{};
    at.partitioned_keys = plan.reserve<Key>(n.count);
    at.partitioned_values = plan.reserve<Value>(values);
    at.own_samples = plan.reserve<Key>(n.samples_per_rank);
    at.samples = plan.reserve<Key>(n.samples_per_rank * n.ranks);
    at.bracket_positions = plan.reserve<std::uint64_t>(bounds);
    at.brackets = plan.reserve<Key>(bounds);
    at.tile_counts = plan.reserve<std::uint64_t>(classes * n.tiles);
    at.tile_offsets = plan.reserve<std::uint64_t>(classes * n.tiles);
    at.scan_temp = plan.reserve_bytes(n.scan_bytes);
    at.own_record = plan.reserve<std::uint64_t>(record);
    at.records = plan.reserve<std::uint64_t>(record * n.ranks);
    at.total_bytes = plan.total_bytes();
    return at;
  }
  std::uint64_t* words(std::size_t offset) const { return storage_.at<std::uint64_t>(offset); }
  Value* values_at(std::size_t offset) const {
    return has_values_v<Value> ? storage_.at<Value>(offset) : nullptr;
  }

  offsets at_;
  temporary_storage storage_;
};

// values + offset, or no values.
template <class Value>
Value* values_from(Value* values, std::size_t offset) {
  if constexpr (has_values_v<Value>)
    return values + offset;
  else
    return values;
}

// Sorts elements [begin, begin + count) of keys (and values) with the local policy.
template <bool Stable, class Policy, class Key, class Value, class Compare>
void sort_run(const Policy& policy, Key* keys, Value* values, run r, const Compare& comp) {
  gpusort::detail::sort_front_door<Stable>(policy, keys + r.begin, keys + r.begin + r.count,
                                           values_from(values, r.begin), comp);
}

// Steps 1 and 2: the brackets from every rank's sample, and every rank's class counts.
template <class Policy, class Key, class Value, class Compare>
class_census count_classes_everywhere(const communicator& comm, const Policy& policy,
                                      host_round_trip& trip, const Key* keys, std::size_t count,
                                      const rank_counts& counts, const Compare& comp,
                                      const partition_first_buffers<Key, Value>& b,
                                      std::size_t samples, std::size_t tiles,
                                      std::size_t scan_bytes) {
  using gpusort::detail::check_cuda;
  using gpusort::detail::check_launch;
  const cudaStream_t stream = policy.stream();
  const int ranks = comm.size(), cuts = ranks - 1, classes = 2 * ranks - 1;
  constexpr int items = partition_items<Key, Value>;

  backends::pick_samples<<<unsigned((samples + 255) / 256), 256, 0, stream>>>(
      keys, count, samples, b.own_samples());
  check_launch("distributed sort: pick_samples");
  all_gather_bytes(comm, b.own_samples(), b.samples(), samples * sizeof(Key), stream);
  const std::size_t all_samples = samples * ranks;
  gpusort::detail::sort_front_door<false>(policy, b.samples(), b.samples() + all_samples,
                                          static_cast<no_values*>(nullptr), comp);
  trip.to_device(b.bracket_positions(),
                 bracket_positions(counts.targets, counts.total, all_samples));
  gather_candidates<<<1, split_kernel_threads, 0, stream>>>(b.samples(), b.bracket_positions(),
                                                            std::size_t(2 * cuts), b.brackets());
  check_launch("distributed sort: gather_candidates (brackets)");
  std::uint64_t* record = b.own_record();
  check_brackets<<<1, 1, 0, stream>>>(b.brackets(), cuts, comp, record + classes + 1);
  check_launch("distributed sort: check_brackets");

  count_classes<items><<<unsigned(tiles), partition_threads, 0, stream>>>(
      keys, count, b.brackets(), cuts, comp, tiles, b.tile_counts());
  check_launch("distributed sort: count_classes");
  std::size_t temp_bytes = scan_bytes;
  check_cuda(cub::DeviceScan::ExclusiveSum(b.scan_temp(), temp_bytes, b.tile_counts(),
                                           b.tile_offsets(), std::int64_t(classes * tiles),
                                           stream),
             "distributed sort: scanning the class counts (cub::DeviceScan)");
  // Class c starts where its first tile's part goes.
  check_cuda(cudaMemcpy2DAsync(record, sizeof(std::uint64_t), b.tile_offsets(),
                               tiles * sizeof(std::uint64_t), sizeof(std::uint64_t), classes,
                               cudaMemcpyDeviceToDevice, stream),
             "distributed sort: collecting the class starts");
  trip.to_device(record + classes, {std::uint64_t(count)});

  const std::size_t words = class_census::record_words(ranks);
  all_gather_bytes(comm, record, b.records(), words * sizeof(std::uint64_t), stream);
  std::vector<std::uint64_t> records(words * ranks);
  trip.to_host(records, b.records());
  trip.wait("to count the key ranges");
  return class_census(ranks, std::move(records));
}

// How many sorts this process's ranks finished the partition-first way (tests check that
// it ran).
inline std::atomic<std::uint64_t>& partition_first_runs() {
  static std::atomic<std::uint64_t> runs{0};
  return runs;
}

// The partition-first way (see the top of this file). False, with nothing changed, where
// the ranks took the sort-first way instead (every rank returns the same); throws as the
// sort-first way does.
template <bool Stable, class Policy, class Key, class Value, class Compare>
bool partition_first_sort(const communicator& comm, const Policy& policy, host_round_trip& trip,
                          Key* keys, Value* values, std::size_t count, const rank_counts& counts,
                          const Compare& comp, const control_buffers<Key>& control,
                          const step_events& events) {
  if (!partition_first_applies<Key, Value>(comm.size(), counts.of_rank)) return false;
  const cudaStream_t stream = policy.stream();
  const int ranks = comm.size(), self = comm.rank();
  constexpr std::size_t tile = partition_tile<Key, Value>;

  const std::size_t samples = samples_per_rank<Key>(
      ranks, *std::min_element(counts.of_rank.begin(), counts.of_rank.end()));
  const std::size_t tiles = (count + tile - 1) / tile;
  std::size_t scan_bytes = 0;
  gpusort::detail::check_cuda(
      cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<std::uint64_t*>(nullptr),
                                    static_cast<std::uint64_t*>(nullptr),
                                    std::int64_t((2 * ranks - 1) * tiles), stream),
      "distributed sort: sizing the class scan (cub::DeviceScan)");
  std::optional<partition_first_buffers<Key, Value>> b;
  std::optional<receive_buffers<Stable, Key, Value>> received;
  const auto allocate = [&] {
    b.emplace(typename partition_first_buffers<Key, Value>::sizes{ranks, count, samples, tiles,
                                                                  scan_bytes},
              policy.allocator(), stream);
    // Sized for two runs as long as all the data: the merge's largest pass, whatever the cuts.
    received.emplace(count, std::vector<run>{{0, count / 2}, {count / 2, count - count / 2}},
                     comp, policy.allocator(), stream);
  };
  if (!all_ranks_succeed(comm, trip, control.flag(), "to allocate the partition", stream,
                         allocate))
    return false;

  record_step(events.begun, stream);
  const class_census census = count_classes_everywhere(comm, policy, trip, keys, count, counts,
                                                       comp, *b, samples, tiles, scan_bytes);
  std::optional<std::vector<splitter_search::window>> windows =
      census.windows(self, counts.targets);
  if (!windows) return false;

  // Step 3: partition, then sort inside the brackets; every rank must get that far before
  // the cut search's collectives.
  scatter_classes<partition_items<Key, Value>><<<unsigned(tiles), partition_threads, 0, stream>>>(
      keys, values, count, b->brackets(), ranks - 1, comp, tiles, b->tile_offsets(),
      b->partitioned_keys(), b->partitioned_values());
  gpusort::detail::check_launch("distributed sort: scatter_classes");
  all_ranks_succeed_or_throw(comm, trip, control.flag(), "to sort inside the brackets", stream,
                             [&] {
                               for (int cut = 1; cut < ranks; ++cut) {
                                 const std::uint64_t begin = census.start(self, 2 * cut - 1);
                                 const std::uint64_t end = census.start(self, 2 * cut);
                                 sort_run<Stable>(policy, b->partitioned_keys(),
                                                  b->partitioned_values(), {begin, end - begin},
                                                  comp);
                               }
                             });
  record_step(events.sorted, stream);

  const std::vector<std::uint64_t> own_cuts = find_own_cuts(
      comm, trip, b->partitioned_keys(), count,
      splitter_search(counts.targets, std::move(*windows), candidates_per_splitter), comp, control,
      stream);
  const cut_table cuts = gather_cuts(comm, trip, own_cuts, control, stream);
  record_step(events.split, stream);
  require_consistent_cuts(cuts, counts.of_rank);
  const partitioned_layout layout = plan_partitioned_exchange(cuts, own_cuts, self, Stable);

  // Step 4: the pieces travel on a side stream; the own piece is sorted meanwhile.
  {
    side_stream transfer(stream);
    std::vector<exchange_plane> planes{{b->partitioned_keys(), received->keys(), sizeof(Key)}};
    if constexpr (has_values_v<Value>)
      planes.push_back({b->partitioned_values(), received->values(), sizeof(Value)});
    exchange(comm, planes, layout.exchange.send_pieces, layout.exchange.recv_pieces,
             transfer.get(), own_piece::left_to_caller);
    copy_own_piece(planes, layout.exchange.send_pieces[self], layout.own.begin, stream);
    sort_run<Stable>(policy, received->keys(), received->values(), layout.own, comp);
    transfer.join();
  }
  record_step(events.exchanged, stream);

  // Step 5.
  for (const run& r : layout.received_runs)
    sort_run<Stable>(policy, received->keys(), received->values(), r, comp);
  merge_received<Stable>(received->keys(), received->values(), keys, values, count,
                         layout.exchange.runs, received->merge_temp(), received->merge_bytes,
                         comp, stream);
  record_step(events.merged, stream);
  ++partition_first_runs();
  return true;
}

}  // namespace gpusort::distributed::detail
