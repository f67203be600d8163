// gpusort's own memory pool (gpusort/memory.cuh): a policy without an allocator takes its
// temporary storage from it; it keeps its memory across calls, serves several streams, threads
// and devices, gives everything back on request, can be capped, and is never touched when the
// policy has an allocator or by a user's default pool settings. The block a sort gave back is
// kept for the next sort on the same stream, and never lent to a sort on another.
#include "../support/gpu.cuh"
#include "../support/graphs.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

namespace gpusort::test {
namespace {

// Large enough for the one-sweep sort, which takes temporary storage (the cluster sort of
// small inputs takes none).
constexpr std::size_t pooled_n = std::size_t(1) << 20;

class MemoryPool : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    gpusort::release_cached_memory();
  }
};

// Bytes of gpusort's pool on the current device lent out right now: the storage of sorts in
// flight and the blocks kept per stream.
std::uint64_t pool_bytes_in_use() {
  std::uint64_t used = 0;
  const cudaMemPool_t pool = gpusort::detail::temporary_pool(gpusort::detail::current_device());
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used), cudaSuccess);
  return used;
}

// n keys on the device, copied in on `stream`; sorted on it by `policy` later.
struct stream_keys {
  std::vector<std::uint32_t> host;
  std::uint32_t* device = nullptr;

  stream_keys(std::size_t n, std::uint64_t seed, cudaStream_t stream)
      : host(make_keys<std::uint32_t>(n, distribution::uniform, seed)) {
    EXPECT_EQ(cudaMalloc(&device, n * sizeof(std::uint32_t)), cudaSuccess);
    EXPECT_EQ(cudaMemcpyAsync(device, host.data(), n * sizeof(std::uint32_t),
                              cudaMemcpyHostToDevice, stream),
              cudaSuccess);
  }
  ~stream_keys() { cudaFree(device); }
  stream_keys(const stream_keys&) = delete;
  stream_keys& operator=(const stream_keys&) = delete;

  // After the device is idle.
  bool sorted() const {
    std::vector<std::uint32_t> back(host.size());
    return cudaMemcpy(back.data(), device, back.size() * sizeof(std::uint32_t),
                      cudaMemcpyDeviceToHost) == cudaSuccess &&
           back == reference_sorted(host, false);
  }
};

// Sorts n keys on `stream` and waits for it; a failure is recorded as `what` (for threads,
// where the test's assertions cannot run).
void sort_and_check(cudaStream_t stream, std::size_t n, std::uint64_t seed, const std::string& what,
                    std::vector<std::string>* failures) {
  stream_keys keys(n, seed, stream);
  try {
    gpusort::sort(gpusort::par.on(stream), keys.device, keys.device + n);
  } catch (const gpusort::error& e) {
    failures->push_back(what + ": " + e.what());
    return;
  }
  if (cudaStreamSynchronize(stream) != cudaSuccess || !keys.sorted())
    failures->push_back(what + " (n " + std::to_string(n) + "): wrong result");
}

// Runs work(thread, failures) on two host threads at once; each failure recorded fails the test.
template <class Work>
void on_two_threads(Work work) {
  std::vector<std::string> failures_a, failures_b;
  std::thread a(work, 0, &failures_a), b(work, 1, &failures_b);
  a.join();
  b.join();
  for (const auto* failures : {&failures_a, &failures_b})
    for (const std::string& failure : *failures) ADD_FAILURE() << failure;
}

template <class Policy>
void expect_par_sorts(const Policy& policy, std::size_t n, std::uint64_t seed) {
  const auto keys = make_keys<std::uint32_t>(n, distribution::uniform, seed);
  device_array<std::uint32_t> device_keys(keys);
  gpusort::sort(policy, device_keys.begin(), device_keys.end());
  EXPECT_EQ(device_keys.to_host(), reference_sorted(keys, false)) << "n " << n << " seed " << seed;
}

TEST_F(MemoryPool, KeepsItsMemoryForTheNextCall) {
  EXPECT_EQ(gpusort::cached_memory_bytes(), 0u);
  expect_par_sorts(gpusort::par, pooled_n, 1);
  const std::size_t after_first = gpusort::cached_memory_bytes();
  EXPECT_GE(after_first, pooled_n * sizeof(std::uint32_t)) << "the alternate key buffer at least";
  for (std::uint64_t seed = 2; seed < 6; ++seed) {
    expect_par_sorts(gpusort::par, pooled_n, seed);
    EXPECT_EQ(gpusort::cached_memory_bytes(), after_first) << "a later call mapped memory again";
  }
}

TEST_F(MemoryPool, ServesSeveralStreamsAtOnce) {
  constexpr int streams = 3;
  std::vector<cudaStream_t> stream(streams);
  for (auto& s : stream) GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<std::vector<std::uint32_t>> keys;
  std::vector<std::unique_ptr<device_array<std::uint32_t>>> device_keys;
  for (int round = 0; round < 4; ++round) {
    keys.clear();
    device_keys.clear();
    for (int i = 0; i < streams; ++i) {
      keys.push_back(make_keys<std::uint32_t>(pooled_n + 977 * i, distribution::uniform,
                                              100 * round + i));
      device_keys.push_back(std::make_unique<device_array<std::uint32_t>>(keys.back()));
    }
    // Enqueued back to back, no synchronisation between: storage freed in one stream's order
    // must not be handed to another stream's sort still running.
    for (int i = 0; i < streams; ++i)
      gpusort::sort(gpusort::par.on(stream[i]), device_keys[i]->begin(), device_keys[i]->end());
    for (int i = 0; i < streams; ++i)
      EXPECT_EQ(device_keys[i]->to_host(), reference_sorted(keys[i], false))
          << "round " << round << " stream " << i;
  }
  for (auto& s : stream) GPUSORT_TEST_CUDA(cudaStreamDestroy(s));
}

TEST_F(MemoryPool, TwoHostThreadsSortOnTwoStreamsAtOnce) {
  on_two_threads([](int thread, std::vector<std::string>* failures) {
    cudaStream_t stream = nullptr;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
      failures->push_back("thread " + std::to_string(thread) + ": no stream");
      return;
    }
    for (int call = 0; call < 12; ++call)
      sort_and_check(stream, (pooled_n >> (call % 3)) + 31 * call + thread, 1000 * thread + call,
                     "thread " + std::to_string(thread) + " call " + std::to_string(call),
                     failures);
    cudaStreamDestroy(stream);
  });
}

TEST_F(MemoryPool, ReleaseGivesEverythingBack) {
  expect_par_sorts(gpusort::par, pooled_n, 7);
  ASSERT_GT(gpusort::cached_memory_bytes(), 0u);
  gpusort::release_cached_memory();
  EXPECT_EQ(gpusort::cached_memory_bytes(), 0u);
  expect_par_sorts(gpusort::par, pooled_n, 8);  // and the pool still works
  EXPECT_GT(gpusort::cached_memory_bytes(), 0u);
}

TEST_F(MemoryPool, ALimitOfZeroKeepsNothingAfterSynchronisation) {
  gpusort::set_cached_memory_limit(0);
  expect_par_sorts(gpusort::par, pooled_n, 9);  // ends in a synchronisation
  const std::size_t kept = gpusort::cached_memory_bytes();
  gpusort::set_cached_memory_limit(SIZE_MAX);  // back to the default for the other tests
  EXPECT_EQ(kept, 0u);
  expect_par_sorts(gpusort::par, pooled_n, 10);
  EXPECT_GT(gpusort::cached_memory_bytes(), 0u);
}

TEST_F(MemoryPool, KeepsASortsBlockForTheNextSortOnItsStream) {
  cudaStream_t stream = nullptr;
  GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  expect_par_sorts(gpusort::par.on(stream), pooled_n, 30);
  const std::uint64_t kept = pool_bytes_in_use();
  EXPECT_GE(kept, pooled_n * sizeof(std::uint32_t)) << "the sort's block was not kept";
  const std::size_t mapped = gpusort::cached_memory_bytes();
  for (std::uint64_t seed = 31; seed < 34; ++seed) {
    expect_par_sorts(gpusort::par.on(stream), pooled_n - 1000 * (seed - 31), seed);
    EXPECT_EQ(pool_bytes_in_use(), kept) << "a later sort on the stream took a new block";
    EXPECT_EQ(gpusort::cached_memory_bytes(), mapped);
  }
  gpusort::release_cached_memory();
  EXPECT_EQ(pool_bytes_in_use(), 0u) << "release_cached_memory left a kept block";
  EXPECT_EQ(gpusort::cached_memory_bytes(), 0u);
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

TEST_F(MemoryPool, KeepsNoBlockLargerThanItsBound) {
  // The alternate key buffer alone is larger than a kept block may be.
  const std::size_t n = gpusort::detail::kept_block_most_bytes / sizeof(std::uint32_t) + 4099;
  expect_par_sorts(gpusort::par, n, 35);
  GPUSORT_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(pool_bytes_in_use(), 0u);
  EXPECT_GT(gpusort::cached_memory_bytes(), 0u) << "the pool still keeps it mapped";
}

// More streams than the table keeps blocks for, each sort larger than its stream's last one
// (a kept block too small goes back on its stream), enqueued with no synchronisation between.
TEST_F(MemoryPool, StreamsBeyondTheKeptBlocksAndGrowingSorts) {
  constexpr int streams = gpusort::detail::kept_block_streams + 2;
  std::vector<cudaStream_t> stream(streams);
  for (auto& s : stream) GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int round = 0; round < 3; ++round) {
    std::vector<std::unique_ptr<stream_keys>> keys;
    for (int i = 0; i < streams; ++i) {
      const std::size_t n = (pooled_n >> (2 - round)) + 4801 * i + 3;
      keys.push_back(std::make_unique<stream_keys>(n, 40 + 10 * round + i, stream[i]));
      gpusort::sort(gpusort::par.on(stream[i]), keys[i]->device,
                    keys[i]->device + keys[i]->host.size());
    }
    GPUSORT_TEST_CUDA(cudaDeviceSynchronize());
    for (int i = 0; i < streams; ++i)
      EXPECT_TRUE(keys[i]->sorted()) << "round " << round << " stream " << i;
  }
  for (auto& s : stream) GPUSORT_TEST_CUDA(cudaStreamDestroy(s));
}

// A destroyed stream's handle may come back for the next stream made, while the old stream's
// sort still runs: its kept block must not be lent to the new stream's sort.
TEST_F(MemoryPool, AStreamMadeAfterAnotherIsDestroyedGetsNoBlockInUse) {
  constexpr int streams = 8;
  std::vector<std::unique_ptr<stream_keys>> keys;
  for (int i = 0; i < streams; ++i) {
    cudaStream_t stream = nullptr;
    GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    keys.push_back(std::make_unique<stream_keys>(2 * pooled_n + 97 * i, 60 + i, stream));
    gpusort::sort(gpusort::par.on(stream), keys[i]->device, keys[i]->device + keys[i]->host.size());
    GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));  // its work goes on
  }
  GPUSORT_TEST_CUDA(cudaDeviceSynchronize());
  for (int i = 0; i < streams; ++i) EXPECT_TRUE(keys[i]->sorted()) << "stream " << i;
}

// Every thread's per-thread default stream has the same handle; they are different streams.
TEST_F(MemoryPool, TwoThreadsSortOnTheirOwnPerThreadStreams) {
  on_two_threads([](int thread, std::vector<std::string>* failures) {
    for (int call = 0; call < 10; ++call)
      sort_and_check(cudaStreamPerThread, (pooled_n >> (call % 3)) + 53 * call + thread,
                     2000 * thread + call,
                     "thread " + std::to_string(thread) + " call " + std::to_string(call),
                     failures);
  });
}

TEST_F(MemoryPool, ALoweredLimitTakesBackABlockKeptBefore) {
  cudaStream_t stream = nullptr;
  GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  expect_par_sorts(gpusort::par.on(stream), pooled_n, 70);
  ASSERT_GT(pool_bytes_in_use(), 0u);
  gpusort::set_cached_memory_limit(0);
  expect_par_sorts(gpusort::par.on(stream), pooled_n, 71);  // ends in a synchronisation
  const std::uint64_t in_use = pool_bytes_in_use();
  const std::size_t mapped = gpusort::cached_memory_bytes();
  gpusort::set_cached_memory_limit(SIZE_MAX);
  EXPECT_EQ(in_use, 0u);
  EXPECT_EQ(mapped, 0u);
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

// An allocator that counts what it hands out (cudaMalloc underneath, so it never touches a
// stream-ordered pool).
struct counting_allocator {
  int allocations = 0;
  void* allocate(std::size_t bytes, cudaStream_t stream) {
    ++allocations;
    void* p = nullptr;
    if (cudaStreamSynchronize(stream) != cudaSuccess || cudaMalloc(&p, bytes) != cudaSuccess)
      throw std::bad_alloc();
    return p;
  }
  void deallocate(void* p, std::size_t, cudaStream_t stream) noexcept {
    cudaStreamSynchronize(stream);
    cudaFree(p);
  }
};

TEST_F(MemoryPool, AGivenAllocatorIsTheOnlyOneUsed) {
  counting_allocator allocator;
  expect_par_sorts(gpusort::par.with_allocator(allocator), pooled_n, 11);
  expect_par_sorts(gpusort::radix.with_allocator(allocator), pooled_n, 12);
  expect_par_sorts(gpusort::merge.with_allocator(allocator), pooled_n, 13);
  expect_par_sorts(gpusort::bucket_bitonic.with_allocator(allocator), pooled_n, 14);
  EXPECT_GE(allocator.allocations, 4);
  EXPECT_EQ(gpusort::cached_memory_bytes(), 0u) << "gpusort's own pool was used";
}

TEST_F(MemoryPool, LeavesTheDevicesDefaultPoolAlone) {
  int device = 0;
  GPUSORT_TEST_CUDA(cudaGetDevice(&device));
  cudaMemPool_t default_pool = nullptr;
  GPUSORT_TEST_CUDA(cudaDeviceGetDefaultMemPool(&default_pool, device));
  std::uint64_t threshold_before = 0, threshold_after = 0, used_before = 0, used_after = 0;
  GPUSORT_TEST_CUDA(cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold,
                                            &threshold_before));
  GPUSORT_TEST_CUDA(cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrUsedMemHigh, &used_before));
  expect_par_sorts(gpusort::par, pooled_n, 15);
  gpusort::set_cached_memory_limit(std::size_t(1) << 30);
  gpusort::set_cached_memory_limit(SIZE_MAX);
  GPUSORT_TEST_CUDA(cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold,
                                            &threshold_after));
  GPUSORT_TEST_CUDA(cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrUsedMemHigh, &used_after));
  EXPECT_EQ(threshold_after, threshold_before);
  EXPECT_EQ(used_after, used_before) << "a sort allocated from the default pool";
}

// No synchronisation inside the call: a sort that takes storage can be captured into a CUDA
// graph (its allocation becomes the graph's) and replayed on new data.
TEST_F(MemoryPool, APooledSortCanBeCapturedIntoAGraph) {
  cudaStream_t stream = nullptr;
  GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto keys = make_keys<std::uint32_t>(pooled_n, distribution::uniform, 16);
  device_array<std::uint32_t> device_keys(keys);
  gpusort::sort(gpusort::par.on(stream), device_keys.begin(), device_keys.end());  // set-up
  GPUSORT_TEST_CUDA(cudaStreamSynchronize(stream));

  cudaGraph_t graph = nullptr;
  GPUSORT_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  gpusort::sort(gpusort::par.on(stream), device_keys.begin(), device_keys.end());
  GPUSORT_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t replay = nullptr;
  GPUSORT_TEST_CUDA(cudaGraphInstantiate(&replay, graph, 0));
  for (std::uint64_t seed = 17; seed < 19; ++seed) {
    keys = make_keys<std::uint32_t>(pooled_n, distribution::uniform, seed);
    copy_to(device_keys, keys);
    GPUSORT_TEST_CUDA(cudaGraphLaunch(replay, stream));
    GPUSORT_TEST_CUDA(cudaStreamSynchronize(stream));
    EXPECT_EQ(device_keys.to_host(), reference_sorted(keys, false)) << "seed " << seed;
  }
  GPUSORT_TEST_CUDA(cudaGraphExecDestroy(replay));
  GPUSORT_TEST_CUDA(cudaGraphDestroy(graph));
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

TEST_F(MemoryPool, EachDeviceHasItsOwnPool) {
  int devices = 0;
  GPUSORT_TEST_CUDA(cudaGetDeviceCount(&devices));
  if (devices < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << devices;
  for (int device : {0, 1}) {
    GPUSORT_TEST_CUDA(cudaSetDevice(device));
    expect_par_sorts(gpusort::par, pooled_n + device, 20 + device);
  }
  EXPECT_GT(gpusort::cached_memory_bytes(0), 0u);
  EXPECT_GT(gpusort::cached_memory_bytes(1), 0u);
  gpusort::release_cached_memory();
  int current = -1;
  GPUSORT_TEST_CUDA(cudaGetDevice(&current));
  EXPECT_EQ(current, 1) << "release_cached_memory changed the current device";
  EXPECT_EQ(gpusort::cached_memory_bytes(0), 0u);
  EXPECT_EQ(gpusort::cached_memory_bytes(1), 0u);
  GPUSORT_TEST_CUDA(cudaSetDevice(0));
}

}  // namespace
}  // namespace gpusort::test
