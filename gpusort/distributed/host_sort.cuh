// Sorting a pinned host array larger than one GPU holds, with every GPU the process sees:
//
//   gpusort::sort(gpusort::distributed::pinned_host, data, data + n);
//   gpusort::sort(gpusort::distributed::pinned_host.device_memory_limit(8ull << 30)
//                     .on_progress([](const gpusort::distributed::progress& p) { ... }),
//                 data, data + n, gpusort::greater<>{});
//
// The array is cut into one shard per GPU (in proportion to the memory each may use),
// every shard is copied to its GPU in chunks, the shards are sorted together by the
// distributed sort (NCCL between the GPUs), and copied back in place. Each GPU needs
// about twice its shard's bytes; the call throws before touching the data when the
// GPUs cannot hold that. Without NCCL only the first GPU is used.
//
// The policy and what the call reports are in pinned_host_policy.cuh and
// host_sort_report.cuh; the plan in detail/host_sort_plan.cuh; one shard's thread in
// detail/shard_thread.cuh.
#pragma once

#include "../error.cuh"
#include "../functional.cuh"
#include "../no_values.cuh"
#include "communicator.cuh"
#include "detail/barrier.cuh"
#include "detail/communicator_cache.cuh"
#include "detail/host_sort_plan.cuh"
#include "detail/shard_failures.cuh"
#include "detail/shard_progress.cuh"
#include "detail/shard_thread.cuh"
#include "host_sort_report.cuh"
#include "pinned_host_policy.cuh"
#include "sort.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gpusort::distributed::detail {

// The shards are copied straight between the array and the GPUs: it must be pinned.
inline void require_pinned_host(const void* p, const char* name) {
  cudaPointerAttributes attributes{};
  gpusort::detail::check_cuda(cudaPointerGetAttributes(&attributes, p),
                              (std::string("checking where ") + name + " lives").c_str());
  if (attributes.type != cudaMemoryTypeHost)
    gpusort::detail::throw_usage_error(
        std::string(name) +
        " is not pinned host memory: allocate it with cudaMallocHost/cudaHostAlloc or pin it "
        "with cudaHostRegister (device ranges go to gpusort::sort with a device policy)");
}

// First an earlier CUDA error, so that it is reported as such and not as a check's.
template <class Key, class Value>
void require_sortable_host_arrays(const Key* keys, const Value* values) {
  gpusort::detail::require_no_pending_error();
  require_pinned_host(keys, "the key range");
  if constexpr (has_values_v<Value>) require_pinned_host(values, "the value range");
}

// A thread per shard; the calling thread reports progress until all of them ended.
template <bool Stable, class Key, class Value, class Compare>
void run_shard_threads(const host_sort_job<Key, Value, Compare>& job,
                       const shard_progress::callback& report) {
  std::vector<std::thread> threads;
  for (int r = 0; r < int(job.plan.size()); ++r)
    threads.emplace_back([&job, r] { run_shard_thread<Stable>(job, r); });
  job.progress.report_until_every_shard_ended(report);
  for (std::thread& t : threads) t.join();
}

// Behind gpusort::sort(pinned_host, ...): plan the shards, take the GPUs' communicators,
// sort every shard on a thread of its own, then rethrow what failed or report.
template <bool Stable, class Key, class Value, class Compare>
host_sort_report host_sort(const pinned_host_policy& policy, Key* keys, Value* values,
                           std::size_t count, const Compare& comp) {
  const auto start = clock::now();
  if (count < 2) return {0, 0, 0, 0};
  require_sortable_host_arrays(keys, values);
  const std::size_t element_bytes = sizeof(Key) + (has_values_v<Value> ? sizeof(Value) : 0);
  const std::vector<shard_plan> plan = plan_shards(policy, count, element_bytes);

  const std::shared_ptr<device_group> group = device_group::for_devices(devices_of(plan));
  const std::lock_guard<std::mutex> one_sort_at_a_time(group->in_use);

  const int shards = int(plan.size());
  shard_progress progress(shards, std::uint64_t(count) * element_bytes, start);
  shard_barrier before_sort(shards);
  shard_failures failures(shards);
  const host_sort_job<Key, Value, Compare> job{
      plan, group->comms, {keys, values}, comp, progress, before_sort, failures};
  run_shard_threads<Stable>(job, policy.progress_callback());
  failures.rethrow_if_any();
  progress.report_done(policy.progress_callback());
  return progress.summary();
}

}  // namespace gpusort::distributed::detail

namespace gpusort {

// gpusort::sort and friends for pinned host arrays (see the top of this file).
template <class T, class Compare = less<>>
distributed::host_sort_report sort(const distributed::pinned_host_policy& policy, T* first,
                                   T* last, Compare comp = {}) {
  if (last < first) detail::throw_usage_error("the range's last precedes its first");
  return distributed::detail::host_sort<false>(policy, first, static_cast<no_values*>(nullptr),
                                               std::size_t(last - first), comp);
}
template <class T, class Compare = less<>>
distributed::host_sort_report stable_sort(const distributed::pinned_host_policy& policy, T* first,
                                          T* last, Compare comp = {}) {
  if (last < first) detail::throw_usage_error("the range's last precedes its first");
  return distributed::detail::host_sort<true>(policy, first, static_cast<no_values*>(nullptr),
                                              std::size_t(last - first), comp);
}
template <class K, class V, class Compare = less<>>
distributed::host_sort_report sort_by_key(const distributed::pinned_host_policy& policy,
                                          K* keys_first, K* keys_last, V* values_first,
                                          Compare comp = {}) {
  if (keys_last < keys_first) detail::throw_usage_error("the range's last precedes its first");
  return distributed::detail::host_sort<false>(policy, keys_first, values_first,
                                               std::size_t(keys_last - keys_first), comp);
}
template <class K, class V, class Compare = less<>>
distributed::host_sort_report stable_sort_by_key(const distributed::pinned_host_policy& policy,
                                                 K* keys_first, K* keys_last, V* values_first,
                                                 Compare comp = {}) {
  if (keys_last < keys_first) detail::throw_usage_error("the range's last precedes its first");
  return distributed::detail::host_sort<true>(policy, keys_first, values_first,
                                              std::size_t(keys_last - keys_first), comp);
}

}  // namespace gpusort
