// One shard's part of a pinned-host sort, on a thread of its own: onto its GPU, the
// distributed sort together with the other shards' threads, and back in place.
#pragma once

#include "../../allocator.cuh"
#include "../../error.cuh"
#include "../../execution_policy.cuh"
#include "../../no_values.cuh"
#include "../communicator.cuh"
#include "barrier.cuh"
#include "capped_allocator.cuh"
#include "chunked_copy.cuh"
#include "host_sort_plan.cuh"
#include "scoped_device.cuh"
#include "shard_failures.cuh"
#include "shard_progress.cuh"
#include "sharded_sort.cuh"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <vector>

namespace gpusort::distributed::detail {

// The array being sorted: keys, and values alongside (Value no_values: none).
template <class Key, class Value>
struct host_arrays {
  Key* keys;
  Value* values;
};

// What a host sort's shard threads share; shard r reads plan[r] and comms[r].
template <class Key, class Value, class Compare>
struct host_sort_job {
  const std::vector<shard_plan>& plan;
  const std::vector<communicator>& comms;
  host_arrays<Key, Value> host;
  const Compare& comp;
  shard_progress& progress;
  shard_barrier& before_sort;
  shard_failures& failures;
};

// The shard's own non-blocking stream for its copies and its part of the sort.
class owned_stream {
 public:
  owned_stream() {
    gpusort::detail::check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                                "creating the shard's stream");
  }
  ~owned_stream() { cudaStreamDestroy(stream_); }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;

  cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// The shard's keys (and values) on its GPU, in one allocation from the shard's allocator;
// given back in stream order when it goes out of scope.
template <class Key, class Value>
class device_shard {
 public:
  device_shard(std::size_t count, allocator_ref allocator, cudaStream_t stream)
      : at_(layout(count)), storage_(allocator, at_.total_bytes, stream) {}

  Key* keys() const { return storage_.at<Key>(at_.keys); }
  Value* values() const { return has_values_v<Value> ? storage_.at<Value>(at_.values) : nullptr; }

 private:
  struct offsets {
    std::size_t keys, values, total_bytes;
  };
  static offsets layout(std::size_t count) {
    storage_plan plan;
    const std::size_t keys_at = plan.reserve<Key>(count);
    const std::size_t values_at = plan.reserve<Value>(has_values_v<Value> ? count : 0);
    return {keys_at, values_at, plan.total_bytes()};
  }

  offsets at_;
  temporary_storage storage_;
};

template <class Key, class Value>
void copy_to_gpu(const host_arrays<Key, Value>& host, const shard_plan& s,
                 const device_shard<Key, Value>& shard, cudaStream_t stream,
                 std::atomic<std::uint64_t>& moved) {
  copy_in_chunks(shard.keys(), host.keys + s.begin, s.count * sizeof(Key),
                 cudaMemcpyHostToDevice, stream, moved);
  if constexpr (has_values_v<Value>)
    copy_in_chunks(shard.values(), host.values + s.begin, s.count * sizeof(Value),
                   cudaMemcpyHostToDevice, stream, moved);
}

template <class Key, class Value>
void copy_back_in_place(const host_arrays<Key, Value>& host, const shard_plan& s,
                        const device_shard<Key, Value>& shard, cudaStream_t stream,
                        std::atomic<std::uint64_t>& moved) {
  copy_in_chunks(host.keys + s.begin, shard.keys(), s.count * sizeof(Key),
                 cudaMemcpyDeviceToHost, stream, moved);
  if constexpr (has_values_v<Value>)
    copy_in_chunks(host.values + s.begin, shard.values(), s.count * sizeof(Value),
                   cudaMemcpyDeviceToHost, stream, moved);
}

// The shard's rank of the distributed sort; its local sort takes memory from the shard's
// capped allocator, so that the GPU keeps to its limit.
template <bool Stable, class Key, class Value, class Compare>
void sort_with_other_shards(const communicator& comm, capped_allocator& allocator,
                            cudaStream_t stream, const device_shard<Key, Value>& shard,
                            std::size_t count, const Compare& comp) {
  const auto local = gpusort::par.on(stream).with_allocator(allocator);
  sharded_sort<Stable>(comm, local, shard.keys(), shard.values(), count, comp);
  gpusort::detail::check_cuda(cudaStreamSynchronize(stream), "waiting for the sort");
}

// Shard r's whole part. `arrived` says whether it reached the barrier before the sort: a
// shard that fails before it must still release the others.
template <bool Stable, class Key, class Value, class Compare>
void sort_shard(const host_sort_job<Key, Value, Compare>& job, int r, bool& arrived) {
  const shard_plan& s = job.plan[r];
  scoped_device on(s.device);
  const owned_stream stream;
  capped_allocator allocator(s.limit_bytes);
  {
    const device_shard<Key, Value> shard(s.count, allocator_ref(allocator), stream.get());
    copy_to_gpu(job.host, s, shard, stream.get(), job.progress.uploaded);
    job.progress.upload_ended(r);
    arrived = true;
    if (!job.before_sort.arrive(true))
      gpusort::detail::throw_usage_error(
          "another GPU failed before the sort; the array is untouched");
    sort_with_other_shards<Stable>(job.comms[r], allocator, stream.get(), shard, s.count,
                                   job.comp);
    job.progress.sort_ended(r);
    copy_back_in_place(job.host, s, shard, stream.get(), job.progress.downloaded);
    job.progress.download_ended(r);
  }
  // The shard's memory went back in stream order: wait until it has.
  gpusort::detail::check_cuda(cudaStreamSynchronize(stream.get()), "releasing the shard");
}

// The body of shard r's thread: whatever happens to it, the barrier, the failures and the
// progress hear of it, so that neither the other shards nor the calling thread wait forever.
template <bool Stable, class Key, class Value, class Compare>
void run_shard_thread(const host_sort_job<Key, Value, Compare>& job, int r) {
  bool arrived = false;
  try {
    sort_shard<Stable>(job, r, arrived);
  } catch (...) {
    job.failures.record(r, std::current_exception(), !arrived);
    if (!arrived) job.before_sort.arrive(false);
  }
  job.progress.shard_ended();
}

}  // namespace gpusort::distributed::detail
