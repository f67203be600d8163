// After the exchange a rank holds one sorted run from every rank, side by side in rank
// order. They are merged pairwise (cub::DeviceMerge, log2(ranks) passes, ping-ponging
// between two buffers), or, where four_way_merge_fewest_runs() (keys alone: off by default)
// or four_way_merge_fewest_runs_with_values() (pairs: from 3 runs) allows, two to four of
// them in one pass (four_way_merge.cuh, stable by run order). CUB's merge does not promise
// stability, so for stable sorts each key carries its position in its pair of runs (32 bits
// where the pair allows: half the shared memory of 64) and ties are broken by it: run
// order, hence rank order, survives every pass. Unstable sorts merge the bare keys.
#pragma once

#include "../../allocator.cuh"
#include "../../error.cuh"
#include "../../sort_request.cuh"
#include "four_way_merge.cuh"
#include "run.cuh"

#include <cub/device/device_merge.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpusort::distributed::detail {

using gpusort::detail::check_cuda;

template <class Key, class Position>
struct positioned_key {
  Key key;
  Position position;
};

template <class Key, class Position>
struct attach_position {
  const Key* keys;
  __host__ __device__ positioned_key<Key, Position> operator()(Position position) const {
    return {keys[position], position};
  }
};

template <class Key, class Position>
struct drop_position {
  __host__ __device__ Key operator()(const positioned_key<Key, Position>& k) const {
    return k.key;
  }
};

template <class Key, class Position, class Compare>
struct position_breaks_ties {
  Compare comp;
  __host__ __device__ bool operator()(const positioned_key<Key, Position>& a,
                                      const positioned_key<Key, Position>& b) const {
    if (comp(a.key, b.key)) return true;
    if (comp(b.key, a.key)) return false;
    return a.position < b.position;
  }
};

// One cub::DeviceMerge of runs a and b of `from` into `to` at a.begin (b follows a), keys
// tagged with their Position in the pair (Position void: bare keys). With temp == nullptr
// only sizes the temporary storage.
template <class Position, class Key, class Value, class Compare>
std::size_t cub_merge(void* temp, std::size_t temp_bytes, const Key* from_keys,
                      const Value* from_values, Key* to_keys, Value* to_values, run a, run b,
                      const Compare& comp, cudaStream_t stream) {
  constexpr bool has_values = has_values_v<Value>;
  cudaError_t status;
  const auto merge = [&](auto keys_a, auto keys_b, auto out, auto order) {
    if constexpr (has_values)
      return cub::DeviceMerge::MergePairs(temp, temp_bytes, keys_a, from_values + a.begin,
                                          std::int64_t(a.count), keys_b, from_values + b.begin,
                                          std::int64_t(b.count), out, to_values + a.begin, order,
                                          stream);
    else
      return cub::DeviceMerge::MergeKeys(temp, temp_bytes, keys_a, std::int64_t(a.count), keys_b,
                                         std::int64_t(b.count), out, order, stream);
  };
  if constexpr (std::is_void_v<Position>) {
    status = merge(from_keys + a.begin, from_keys + b.begin, to_keys + a.begin, comp);
  } else {
    const auto positions = thrust::counting_iterator<Position>(0);
    const auto keys = thrust::make_transform_iterator(
        positions, attach_position<Key, Position>{from_keys + a.begin});
    status = merge(keys, keys + a.count,
                   thrust::make_transform_output_iterator(to_keys + a.begin,
                                                          drop_position<Key, Position>{}),
                   position_breaks_ties<Key, Position, Compare>{comp});
  }
  check_cuda(status, "merging received runs (cub::DeviceMerge)");
  return temp_bytes;
}

template <bool Stable, class Key, class Value, class Compare>
std::size_t merge_two_runs(void* temp, std::size_t temp_bytes, const Key* from_keys,
                           const Value* from_values, Key* to_keys, Value* to_values, run a, run b,
                           const Compare& comp, cudaStream_t stream) {
  if constexpr (!Stable)
    return cub_merge<void>(temp, temp_bytes, from_keys, from_values, to_keys, to_values, a, b,
                           comp, stream);
  else if (a.count + b.count <= std::numeric_limits<std::uint32_t>::max())
    return cub_merge<std::uint32_t>(temp, temp_bytes, from_keys, from_values, to_keys, to_values,
                                    a, b, comp, stream);
  else
    return cub_merge<std::uint64_t>(temp, temp_bytes, from_keys, from_values, to_keys, to_values,
                                    a, b, comp, stream);
}

inline std::vector<run> non_empty(std::vector<run> runs) {
  runs.erase(std::remove_if(runs.begin(), runs.end(), [](const run& r) { return r.count == 0; }),
             runs.end());
  return runs;
}

// The fewest non-empty received runs (2 to 4) that take the four-way merge, for keys alone
// and for keys with values; more than 4 (four_way_merge_off): never. On 4 H200s (u32 and
// u32+u32, 2^30 per GPU; bench/results/2026-11-26-h200x4-four-way-merge-rebuilt.md) it took
// 12.3 ms where the pairwise merge takes 7.05 for keys, and 14.7 where it takes 17.8 for pairs
// (each pairwise pass gathers the values again): off for keys, from 3 runs for pairs. With 2
// it also replaces the one CUB merge of two runs. Settable for the tests and experiments,
// while no sort runs.
inline constexpr int four_way_merge_off = 5;
inline constexpr int four_way_merge_default_with_values = 3;
inline std::atomic<int>& four_way_merge_fewest_runs() {
  static std::atomic<int> fewest{four_way_merge_off};
  return fewest;
}
inline std::atomic<int>& four_way_merge_fewest_runs_with_values() {
  static std::atomic<int> fewest{four_way_merge_default_with_values};
  return fewest;
}

// Whether `runs` of Key (and Value) are merged in one four-way pass.
template <class Key, class Value = no_values>
bool merged_four_ways(const std::vector<run>& runs) {
  const std::size_t merged = non_empty(runs).size();
  const int fewest = has_values_v<Value> ? four_way_merge_fewest_runs_with_values().load()
                                         : four_way_merge_fewest_runs().load();
  return merges_four_ways<Key> && merged >= 2 && merged >= std::size_t(fewest) && merged <= 4;
}

// The passes of a pairwise merge of `runs` (empty ones dropped first): each pass lists the
// pairs it merges (a lone last run is copied across).
inline std::vector<std::vector<std::pair<run, run>>> merge_passes(std::vector<run> runs) {
  runs = non_empty(std::move(runs));
  std::vector<std::vector<std::pair<run, run>>> passes;
  while (runs.size() > 1) {
    std::vector<std::pair<run, run>> pass;
    std::vector<run> merged;
    for (std::size_t i = 0; i < runs.size(); i += 2) {
      const run b = i + 1 < runs.size() ? runs[i + 1] : run{runs[i].begin + runs[i].count, 0};
      pass.push_back({runs[i], b});
      merged.push_back({runs[i].begin, runs[i].count + b.count});
    }
    passes.push_back(std::move(pass));
    runs = std::move(merged);
  }
  return passes;
}

// Bytes of temporary storage the merges of `runs` need (the four-way merge's splits, or
// CUB's, the largest of any pass).
template <bool Stable, class Key, class Value, class Compare>
std::size_t merge_temp_bytes(const std::vector<run>& runs, const Compare& comp) {
  if (merged_four_ways<Key, Value>(runs)) {
    std::size_t count = 0;
    for (const run& r : runs) count += r.count;
    return four_way_temp_bytes<Key>(count);
  }
  std::size_t most = 0;
  for (const auto& pass : merge_passes(runs))
    for (const auto& [a, b] : pass) {
      std::size_t bytes = 0;
      bytes = merge_two_runs<Stable, Key, Value>(
          nullptr, bytes, static_cast<const Key*>(nullptr), static_cast<const Value*>(nullptr),
          static_cast<Key*>(nullptr), static_cast<Value*>(nullptr), a, b, comp, nullptr);
      most = bytes > most ? bytes : most;
    }
  return most;
}

// Merges the sorted `runs` (rank order) of received_keys/values into keys/values; the
// received buffers serve as the other half of the ping-pong and are overwritten.
template <bool Stable, class Key, class Value, class Compare>
void merge_received(Key* received_keys, Value* received_values, Key* keys, Value* values,
                    std::size_t count, const std::vector<run>& runs, void* temp,
                    std::size_t temp_bytes, const Compare& comp, cudaStream_t stream) {
  if (merged_four_ways<Key, Value>(runs)) {
    merge_runs_four_ways(received_keys, received_values, keys, values, count, non_empty(runs),
                         temp, comp, stream);
    return;
  }
  constexpr bool has_values = has_values_v<Value>;
  Key* from_keys = received_keys;
  Key* to_keys = keys;
  Value* from_values = received_values;
  Value* to_values = values;
  for (const auto& pass : merge_passes(runs)) {
    for (const auto& [a, b] : pass) {
      if (b.count == 0) {  // the lone last run
        check_cuda(cudaMemcpyAsync(to_keys + a.begin, from_keys + a.begin, a.count * sizeof(Key),
                                   cudaMemcpyDeviceToDevice, stream),
                   "copying a lone received run");
        if constexpr (has_values)
          check_cuda(cudaMemcpyAsync(to_values + a.begin, from_values + a.begin,
                                     a.count * sizeof(Value), cudaMemcpyDeviceToDevice, stream),
                     "copying a lone received run's values");
        continue;
      }
      merge_two_runs<Stable>(temp, temp_bytes, from_keys, from_values, to_keys, to_values, a, b,
                             comp, stream);
    }
    std::swap(from_keys, to_keys);
    std::swap(from_values, to_values);
  }
  if (from_keys != keys) {  // an even number of passes (or none) ends in the received buffer
    check_cuda(cudaMemcpyAsync(keys, from_keys, count * sizeof(Key), cudaMemcpyDeviceToDevice,
                               stream),
               "copying the merged keys back");
    if constexpr (has_values)
      check_cuda(cudaMemcpyAsync(values, from_values, count * sizeof(Value),
                                 cudaMemcpyDeviceToDevice, stream),
                 "copying the merged values back");
  }
}

}  // namespace gpusort::distributed::detail
