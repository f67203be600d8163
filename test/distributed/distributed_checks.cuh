// Running a distributed sort on several ranks of one process (a thread per rank) and
// comparing the ranks' outputs, taken in rank order, with std::stable_sort of all inputs
// taken in rank order.
#pragma once

#include "../support/device_vector.cuh"
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/distributed.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace gpusort::test {

using gpusort::distributed::communicator;

// `ranks` communicators over devices 0..ranks-1, or why there are none: one rank is a solo
// communicator everywhere; more need NCCL and as many GPUs.
inline std::vector<communicator> communicators_for(int ranks, std::string* why) {
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess) {
    cudaGetLastError();
    visible = 0;
  }
  if (visible < ranks) {
    *why = std::to_string(ranks) + " rank(s) need as many GPUs; " + std::to_string(visible) +
           " visible";
    return {};
  }
#if GPUSORT_WITH_NCCL
  if (ranks > 1) {
    std::vector<int> devices;
    for (int d = 0; d < ranks; ++d) devices.push_back(d);
    return communicator::for_devices(devices);
  }
#else
  if (ranks > 1) {
    *why = "built without NCCL (gpusort::distributed was not found by CMake)";
    return {};
  }
#endif
  return {communicator::solo(0)};
}

// Calls run(rank) on a thread per rank, each with its rank's device current; rethrows the
// first exception.
template <class Run>
void on_every_rank(const std::vector<communicator>& comms, Run run) {
  std::vector<std::exception_ptr> failures(comms.size());
  std::vector<std::thread> threads;
  for (std::size_t r = 0; r < comms.size(); ++r)
    threads.emplace_back([&, r] {
      try {
        if (cudaSetDevice(comms[r].device()) != cudaSuccess) throw std::runtime_error("cudaSetDevice");
        run(int(r));
      } catch (...) {
        failures[r] = std::current_exception();
      }
    });
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

enum class call { sort, stable_sort, sort_by_key, stable_sort_by_key };

inline const char* name_of(call c) {
  switch (c) {
    case call::sort: return "sort";
    case call::stable_sort: return "stable_sort";
    case call::sort_by_key: return "sort_by_key";
    case call::stable_sort_by_key: return "stable_sort_by_key";
  }
  return "?";
}

// Sorts inputs[r] on rank r with `what`, checks every rank's output and shard.
template <call What, class Key, class Compare, class Less>
void expect_distributed_sort(const std::vector<communicator>& comms,
                             const std::vector<std::vector<Key>>& inputs, Compare comp, Less less) {
  constexpr bool pairs = What == call::sort_by_key || What == call::stable_sort_by_key;
  constexpr bool stable = What == call::stable_sort || What == call::stable_sort_by_key;
  const int ranks = int(comms.size());
  std::vector<Key> all;
  std::vector<std::size_t> begins;
  for (const auto& input : inputs) {
    begins.push_back(all.size());
    all.insert(all.end(), input.begin(), input.end());
  }
  std::vector<std::vector<Key>> out_keys(ranks);
  std::vector<std::vector<std::uint32_t>> out_values(ranks);
  std::vector<distributed::shard> shards(ranks);
  on_every_rank(comms, [&](int r) {
    std::vector<std::uint32_t> positions(inputs[r].size());
    for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = std::uint32_t(begins[r] + i);
    device_array<Key> keys(inputs[r]);
    device_array<std::uint32_t> values(positions);
    if constexpr (What == call::sort)
      shards[r] = distributed::sort(comms[r], keys.begin(), keys.end(), comp);
    else if constexpr (What == call::stable_sort)
      shards[r] = distributed::stable_sort(comms[r], keys.begin(), keys.end(), comp);
    else if constexpr (What == call::sort_by_key)
      shards[r] = distributed::sort_by_key(comms[r], keys.begin(), keys.end(), values.begin(), comp);
    else
      shards[r] = distributed::stable_sort_by_key(comms[r], keys.begin(), keys.end(),
                                                  values.begin(), comp);
    out_keys[r] = keys.to_host();
    out_values[r] = values.to_host();
  });
  std::vector<Key> keys;
  std::vector<std::uint32_t> values;
  for (int r = 0; r < ranks; ++r) {
    EXPECT_EQ(out_keys[r].size(), inputs[r].size()) << "rank " << r << " keeps its count";
    EXPECT_EQ(shards[r].rank, r);
    EXPECT_EQ(shards[r].global_begin, begins[r]) << "rank " << r;
    EXPECT_EQ(shards[r].count, inputs[r].size()) << "rank " << r;
    EXPECT_EQ(shards[r].global_count, all.size()) << "rank " << r;
    keys.insert(keys.end(), out_keys[r].begin(), out_keys[r].end());
    values.insert(values.end(), out_values[r].begin(), out_values[r].end());
  }
  const stable_reference<Key> reference = stable_reference_of(all, less);
  if constexpr (stable) {
    expect_same_bits(keys, reference.keys, "keys");
    if constexpr (pairs) expect_same_values(values, reference.order);
  } else {
    expect_sorted_permutation(keys, reference.keys, less, "keys");
    if constexpr (pairs) expect_values_name_their_keys(keys, values, all);
  }
}

// Each rank's input: counts[r] keys of distribution d (each rank its own seed).
template <class Key>
std::vector<std::vector<Key>> rank_inputs(const std::vector<std::size_t>& counts, distribution d,
                                          std::uint64_t seed) {
  std::vector<std::vector<Key>> inputs;
  for (std::size_t r = 0; r < counts.size(); ++r)
    inputs.push_back(make_keys<Key>(counts[r], d, seed * 131 + r));
  return inputs;
}

// Uneven per-rank counts for `ranks` ranks: one rank empty, tiny ones, and sizes off the
// powers of two.
inline std::vector<std::vector<std::size_t>> rank_count_shapes(int ranks) {
  std::vector<std::vector<std::size_t>> shapes;
  const std::vector<std::size_t> sizes = capped({0, 1, 2, 1009, 65521, 300007, 1000003});
  const std::size_t big = sizes.back();
  std::vector<std::size_t> even(ranks, big), one_empty(ranks, big / 3 + 1), tiny(ranks);
  one_empty[ranks / 2] = 0;
  for (int r = 0; r < ranks; ++r) tiny[r] = sizes[r % sizes.size()];
  std::vector<std::size_t> all_empty(ranks, 0), lopsided(ranks, 3);
  lopsided[0] = big;
  shapes = {even, one_empty, tiny, all_empty, lopsided};
  return shapes;
}

}  // namespace gpusort::test
