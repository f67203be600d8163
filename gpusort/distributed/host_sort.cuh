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
#pragma once

#include "../detail/device_range.cuh"
#include "../error.cuh"
#include "../functional.cuh"
#include "../sort_request.cuh"
#include "communicator.cuh"
#include "detail/capped_allocator.cuh"
#include "sort.cuh"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace gpusort::distributed {

// What a long host sort reports, from the calling thread, about every 100 ms and at
// each phase's end.
struct progress {
  enum class phase { to_devices, sorting, to_host, done };
  phase step;
  std::uint64_t bytes_done;   // of the current copy phase (all GPUs together)
  std::uint64_t bytes_total;  // the array's bytes (keys and values)
  double seconds;             // since the call began
};

// Where the time of a host sort went (seconds; each phase ends when the slowest GPU ends it).
struct host_sort_report {
  int devices;
  double to_devices_seconds;
  double sorting_seconds;
  double to_host_seconds;
};

class pinned_host_policy {
 public:
  // The GPUs to use (default: every visible one).
  pinned_host_policy devices(std::vector<int> ids) const {
    pinned_host_policy copy = *this;
    copy.devices_ = std::move(ids);
    return copy;
  }
  // At most this many bytes of each GPU's memory (default: what is free, less 5 %).
  pinned_host_policy device_memory_limit(std::size_t bytes) const {
    pinned_host_policy copy = *this;
    copy.limit_ = bytes;
    return copy;
  }
  pinned_host_policy on_progress(std::function<void(const progress&)> callback) const {
    pinned_host_policy copy = *this;
    copy.progress_ = std::move(callback);
    return copy;
  }

  const std::vector<int>& device_ids() const noexcept { return devices_; }
  std::size_t memory_limit() const noexcept { return limit_; }
  const std::function<void(const progress&)>& progress_callback() const noexcept {
    return progress_;
  }

 private:
  std::vector<int> devices_;
  std::size_t limit_ = 0;
  std::function<void(const progress&)> progress_;
};

inline const pinned_host_policy pinned_host{};

namespace detail {

// Transfers go in pieces this large so that progress moves and a copy never pins a GPU's
// copy engine for seconds.
inline constexpr std::size_t transfer_chunk_bytes = std::size_t(256) << 20;

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

using clock = std::chrono::steady_clock;

// The communicators of one set of GPUs, made at the first pinned-host sort that uses the set
// (ncclCommInitAll takes a quarter of a second on two H200s) and kept for the process's life.
// Sorts on the same set take turns: two at once would interleave on the same communicators.
struct device_group {
  std::vector<communicator> comms;
  std::mutex in_use;

  static std::shared_ptr<device_group> for_devices(const std::vector<int>& devices) {
    static std::mutex made_lock;
    // Never destroyed: NCCL teardown during static destruction can outlive the CUDA runtime.
    static auto* made = new std::map<std::vector<int>, std::shared_ptr<device_group>>();
    const std::lock_guard<std::mutex> lock(made_lock);
    std::shared_ptr<device_group>& group = (*made)[devices];
    if (!group) {
      auto fresh = std::make_shared<device_group>();
#if GPUSORT_WITH_NCCL
      if (devices.size() > 1) fresh->comms = communicator::for_devices(devices);
#endif
      if (devices.size() == 1) fresh->comms.push_back(communicator::solo(devices[0]));
      group = std::move(fresh);
    }
    return group;
  }
};

// The shard threads meet here before the distributed sort: if any of them failed to get
// its shard onto its GPU, none enters the sort's collectives (where the others would wait
// for it forever).
class shard_barrier {
 public:
  explicit shard_barrier(int threads) : waiting_for_(threads) {}
  // True when every thread arrived ready.
  bool arrive(bool ready) {
    std::unique_lock<std::mutex> lock(mutex_);
    all_ready_ = all_ready_ && ready;
    if (--waiting_for_ == 0)
      everyone_arrived_.notify_all();
    else
      everyone_arrived_.wait(lock, [&] { return waiting_for_ == 0; });
    return all_ready_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable everyone_arrived_;
  int waiting_for_;
  bool all_ready_ = true;
};

struct shard_plan {
  int device;
  std::size_t begin, count;
  std::size_t limit_bytes;
};

inline std::vector<shard_plan> plan_shards(const pinned_host_policy& policy, std::size_t count,
                                           std::size_t element_bytes) {
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
  std::vector<shard_plan> plan;
  std::size_t capacity_total = 0;
  for (int device : devices) {
    std::size_t limit = policy.memory_limit();
    if (limit == 0) {
      detail::scoped_device on(device);
      std::size_t free_bytes = 0, total_bytes = 0;
      gpusort::detail::check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes),
                                  "asking how much device memory is free");
      limit = free_bytes / 20 * 19;
    }
    plan.push_back({device, 0, 0, limit});
    capacity_total += shard_capacity(limit, element_bytes);
  }
  if (count > capacity_total)
    gpusort::detail::throw_usage_error(
        "the array's " + std::to_string(count) + " elements need about " +
        std::to_string(shard_device_bytes(count, element_bytes)) +
        " bytes of device memory in all, and the " + std::to_string(plan.size()) +
        " GPU(s) offer room for " + std::to_string(capacity_total) +
        " elements under their limit; the array is untouched");
  // Shards in proportion to capacity; the last takes the rounding.
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
  return plan;
}

// Copies bytes [0, total) between host and device in chunks, counting them into `moved`.
inline void copy_in_chunks(void* to, const void* from, std::size_t total, cudaMemcpyKind kind,
                           cudaStream_t stream, std::atomic<std::uint64_t>& moved) {
  for (std::size_t at = 0; at < total; at += transfer_chunk_bytes) {
    const std::size_t bytes = std::min(transfer_chunk_bytes, total - at);
    gpusort::detail::check_cuda(cudaMemcpyAsync(static_cast<char*>(to) + at,
                                                static_cast<const char*>(from) + at, bytes, kind,
                                                stream),
                                "copying a chunk between host and device");
    gpusort::detail::check_cuda(cudaStreamSynchronize(stream), "waiting for a chunk");
    moved += bytes;
  }
}

template <bool Stable, class Key, class Value, class Compare>
host_sort_report host_sort(const pinned_host_policy& policy, Key* keys, Value* values,
                           std::size_t count, const Compare& comp) {
  constexpr bool has_values = has_values_v<Value>;
  const auto start = clock::now();
  if (count < 2) return {0, 0, 0, 0};
  gpusort::detail::require_no_pending_error();
  require_pinned_host(keys, "the key range");
  if constexpr (has_values) require_pinned_host(values, "the value range");
  const std::size_t element_bytes = sizeof(Key) + (has_values ? sizeof(Value) : 0);
  const std::vector<shard_plan> plan = plan_shards(policy, count, element_bytes);
  const int ranks = int(plan.size());

  std::vector<int> devices;
  for (const shard_plan& s : plan) devices.push_back(s.device);
  const std::shared_ptr<device_group> group = device_group::for_devices(devices);
  const std::lock_guard<std::mutex> one_sort_at_a_time(group->in_use);
  const std::vector<communicator>& comms = group->comms;

  std::atomic<std::uint64_t> uploaded{0}, downloaded{0};
  std::atomic<int> uploads_done{0}, sorts_done{0}, downloads_done{0};
  std::vector<double> upload_end(ranks), sort_end(ranks), download_end(ranks);
  std::vector<std::exception_ptr> failures(ranks);
  std::vector<char> failed_first(ranks, 0);  // failed on its own, not for another's failure
  shard_barrier before_sort(ranks);
  const auto seconds_since_start = [&] {
    return std::chrono::duration<double>(clock::now() - start).count();
  };

  const auto run_rank = [&](int r) {
    bool arrived = false;
    try {
      const shard_plan& s = plan[r];
      scoped_device on(s.device);
      cudaStream_t stream = nullptr;
      gpusort::detail::check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                                  "creating the shard's stream");
      struct stream_owner {
        cudaStream_t s;
        ~stream_owner() { cudaStreamDestroy(s); }
      } owns_stream{stream};
      capped_allocator allocator(s.limit_bytes);
      {
        storage_plan layout;
        const std::size_t keys_at = layout.reserve<Key>(s.count);
        const std::size_t values_at = layout.reserve<Value>(has_values ? s.count : 0);
        temporary_storage shard_storage(allocator_ref(allocator), layout.total_bytes(), stream);
        Key* shard_keys = shard_storage.at<Key>(keys_at);
        Value* shard_values = has_values ? shard_storage.at<Value>(values_at) : nullptr;
        copy_in_chunks(shard_keys, keys + s.begin, s.count * sizeof(Key), cudaMemcpyHostToDevice,
                       stream, uploaded);
        if constexpr (has_values)
          copy_in_chunks(shard_values, values + s.begin, s.count * sizeof(Value),
                         cudaMemcpyHostToDevice, stream, uploaded);
        upload_end[r] = seconds_since_start();
        ++uploads_done;
        arrived = true;
        if (!before_sort.arrive(true))
          gpusort::detail::throw_usage_error(
              "another GPU failed before the sort; the array is untouched");
        const auto local = gpusort::par.on(stream).with_allocator(allocator);
        sharded_sort<Stable>(comms[r], local, shard_keys, shard_values, s.count, comp);
        gpusort::detail::check_cuda(cudaStreamSynchronize(stream), "waiting for the sort");
        sort_end[r] = seconds_since_start();
        ++sorts_done;
        copy_in_chunks(keys + s.begin, shard_keys, s.count * sizeof(Key), cudaMemcpyDeviceToHost,
                       stream, downloaded);
        if constexpr (has_values)
          copy_in_chunks(values + s.begin, shard_values, s.count * sizeof(Value),
                         cudaMemcpyDeviceToHost, stream, downloaded);
        download_end[r] = seconds_since_start();
      }
      gpusort::detail::check_cuda(cudaStreamSynchronize(stream), "releasing the shard");
    } catch (...) {
      failures[r] = std::current_exception();
      if (!arrived) {
        failed_first[r] = 1;
        before_sort.arrive(false);
      }
    }
    ++downloads_done;
  };

  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) threads.emplace_back(run_rank, r);
  const std::uint64_t total_bytes = std::uint64_t(count) * element_bytes;
  const auto& callback = policy.progress_callback();
  while (downloads_done.load() < ranks) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!callback) continue;
    if (uploads_done.load() < ranks)
      callback({progress::phase::to_devices, uploaded.load(), total_bytes, seconds_since_start()});
    else if (sorts_done.load() < ranks)
      callback({progress::phase::sorting, 0, total_bytes, seconds_since_start()});
    else
      callback({progress::phase::to_host, downloaded.load(), total_bytes, seconds_since_start()});
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < ranks; ++r)
    if (failed_first[r]) std::rethrow_exception(failures[r]);
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  if (callback) callback({progress::phase::done, total_bytes, total_bytes, seconds_since_start()});
  const auto latest = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
  return {ranks, latest(upload_end), latest(sort_end) - latest(upload_end),
          latest(download_end) - latest(sort_end)};
}

}  // namespace detail
}  // namespace gpusort::distributed

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
