// The pinned-host sort's plan: which GPUs take which part of the array, sized so that each
// shard fits the device memory its GPU may use. Pure arithmetic but for asking CUDA about
// the devices; tested without a GPU (test/host/host_sort_plan_test.cu).
#pragma once

#include "../../error.cuh"
#include "../pinned_host_policy.cuh"
#include "scoped_device.cuh"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace gpusort::distributed::detail {

// Device bytes a shard of `count` elements of `element_bytes` needs: the shard, as much
// again for the local sort's and the exchange's buffers, and the small change (histograms,
// merge splits: data / 32; splitter candidates and counters: a fixed part).
inline constexpr std::size_t shard_fixed_bytes = std::size_t(256) << 10;

inline std::size_t shard_device_bytes(std::size_t count, std::size_t element_bytes) {
  const std::size_t data = count * element_bytes;
  return 2 * data + data / 32 + shard_fixed_bytes;
}

// The most elements whose shard_device_bytes fit `budget` (2 + 1/32 = 65/32 times the data).
inline std::size_t shard_capacity(std::size_t budget, std::size_t element_bytes) {
  if (budget <= shard_fixed_bytes) return 0;
  return (budget - shard_fixed_bytes) * 32 / (65 * element_bytes);
}

// Elements [begin, begin + count) of the array go to `device`, which may use `limit_bytes`.
struct shard_plan {
  int device;
  std::size_t begin, count;
  std::size_t limit_bytes;
};

// The policy's GPUs, else every visible one; without NCCL only the first (no exchange).
inline std::vector<int> devices_to_use(const pinned_host_policy& policy) {
  std::vector<int> devices = policy.device_ids();
  if (devices.empty()) {
    int visible = 0;
    gpusort::detail::check_cuda(cudaGetDeviceCount(&visible), "counting the devices");
    for (int d = 0; d < visible; ++d) devices.push_back(d);
  }
#if !GPUSORT_WITH_NCCL
  devices.resize(std::min<std::size_t>(devices.size(), 1));  // no NCCL: one GPU
#endif
  if (devices.empty()) gpusort::detail::throw_usage_error("the pinned-host sort found no GPU");
  return devices;
}

// The bytes `device` may use: the policy's limit, else what is free now but 1/32 of it
// (1 GiB at least) for what the plan does not count (NCCL's buffers, CUDA's own), so that
// 2^34 u32 keys fit an H200 (2^36 on four).
inline std::size_t device_memory_budget(const pinned_host_policy& policy, int device) {
  if (policy.memory_limit() != 0) return policy.memory_limit();
  scoped_device on(device);
  std::size_t free_bytes = 0, total_bytes = 0;
  gpusort::detail::check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes),
                              "asking how much device memory is free");
  const std::size_t reserve = std::max(std::size_t(1) << 30, free_bytes / 32);
  return free_bytes > reserve ? free_bytes - reserve : 0;
}

inline std::size_t total_capacity(const std::vector<shard_plan>& plan,
                                  std::size_t element_bytes) {
  std::size_t capacity = 0;
  for (const shard_plan& s : plan) capacity += shard_capacity(s.limit_bytes, element_bytes);
  return capacity;
}

// Refused before anything is copied, so that the array stays as it was.
inline void require_room(std::size_t count, std::size_t element_bytes, std::size_t gpus,
                         std::size_t capacity_total) {
  if (count > capacity_total)
    gpusort::detail::throw_usage_error(
        "the array's " + std::to_string(count) + " elements need about " +
        std::to_string(shard_device_bytes(count, element_bytes)) +
        " bytes of device memory in all, and the " + std::to_string(gpus) +
        " GPU(s) offer room for " + std::to_string(capacity_total) +
        " elements under their limit; the array is untouched");
}

// Shards in proportion to capacity, so that a GPU with more room takes more; the last takes
// the rounding.
inline void share_by_capacity(std::vector<shard_plan>& plan, std::size_t count,
                              std::size_t element_bytes, std::size_t capacity_total) {
  std::size_t begin = 0;
  for (std::size_t g = 0; g < plan.size(); ++g) {
    const std::size_t capacity = shard_capacity(plan[g].limit_bytes, element_bytes);
    std::size_t share = g + 1 == plan.size()
                            ? count - begin
                            : std::size_t((long double)count * capacity / capacity_total);
    share = std::min(share, count - begin);
    plan[g].begin = begin;
    plan[g].count = share;
    begin += share;
  }
}

// The GPUs of `plan`, in shard order: rank r of the sort drives the GPU of shard r.
inline std::vector<int> devices_of(const std::vector<shard_plan>& plan) {
  std::vector<int> devices;
  for (const shard_plan& s : plan) devices.push_back(s.device);
  return devices;
}

inline std::vector<shard_plan> plan_shards(const pinned_host_policy& policy, std::size_t count,
                                           std::size_t element_bytes) {
  std::vector<shard_plan> plan;
  for (int device : devices_to_use(policy))
    plan.push_back({device, 0, 0, device_memory_budget(policy, device)});
  const std::size_t capacity_total = total_capacity(plan, element_bytes);
  require_room(count, element_bytes, plan.size(), capacity_total);
  share_by_capacity(plan, count, element_bytes, capacity_total);
  return plan;
}

}  // namespace gpusort::distributed::detail
