// A sort whose temporary storage does not fit: a gpusort::error naming the bytes needed and
// free, raised before the input is touched; the input intact and the library usable after.
// Memory that gpusort's pool keeps is given back and the allocation retried first.
// Holds nearly all of the device's memory, so ctest runs it alone (RUN_SERIAL).
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace gpusort::test {
namespace {

// What a memory_hog leaves alone: gpusort's cached memory, or nothing.
enum class gpusort_cache { given_back, kept };

// Takes all of the device's free memory but `spare` bytes, while it lives.
class memory_hog {
 public:
  explicit memory_hog(std::size_t spare, gpusort_cache cache = gpusort_cache::given_back) {
    // Memory the stream-ordered pools keep for reuse is not free: give it back first (gpusort's
    // too, unless the test is about what gpusort does with it).
    cudaMemPool_t pool;
    int device = 0;
    EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaDeviceGetDefaultMemPool(&pool, device), cudaSuccess);
    EXPECT_EQ(cudaMemPoolTrimTo(pool, 0), cudaSuccess);
    if (cache == gpusort_cache::given_back) gpusort::release_cached_memory();
    std::size_t free_bytes = 0, total_bytes = 0;
    EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
    // Fragmentation can refuse one block of exactly that much: step down until it fits.
    for (std::size_t bytes = free_bytes - spare; bytes > spare; bytes -= std::size_t(64) << 20) {
      if (cudaMalloc(&block_, bytes) == cudaSuccess) break;
      cudaGetLastError();
      block_ = nullptr;
    }
    EXPECT_NE(block_, nullptr) << "could not hold the device's memory";
  }
  ~memory_hog() { cudaFree(block_); }
  memory_hog(const memory_hog&) = delete;
  memory_hog& operator=(const memory_hog&) = delete;

 private:
  void* block_ = nullptr;
};

template <class SortCall>
void expect_out_of_memory_then_success(const char* name, SortCall sort_call) {
  const std::size_t n = std::size_t(1) << 26;  // 256 MiB of keys and as much of values
  const auto keys = make_keys<std::uint32_t>(n, distribution::uniform, 77);
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  device_array<std::uint32_t> device_keys(keys), device_values(values);
  {
    memory_hog hog(std::size_t(16) << 20);  // far less than the sort's alternate buffers
    try {
      sort_call(device_keys.begin(), device_keys.end(), device_values.begin());
      ADD_FAILURE() << name << ": expected a gpusort::error";
    } catch (const gpusort::error& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.code(), cudaErrorMemoryAllocation) << message;
      EXPECT_NE(message.find("bytes needed"), std::string::npos) << message;
      EXPECT_NE(message.find("bytes free"), std::string::npos) << message;
    }
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << name << ": the failure left an error behind";
  }
  EXPECT_EQ(device_keys.to_host(), keys) << name << ": keys touched";
  EXPECT_EQ(device_values.to_host(), values) << name << ": values touched";

  // With the memory back, the same call sorts.
  sort_call(device_keys.begin(), device_keys.end(), device_values.begin());
  EXPECT_EQ(device_keys.to_host(), reference_sorted(keys, false)) << name;
}

class OutOfMemory : public GpuTest {};

// gpusort's pool keeps the storage of an earlier, smaller sort; the device's free memory plus
// that is enough for the next sort, the free memory alone is not. The pool gives back what it
// keeps and the allocation is tried again: the sort succeeds.
TEST_F(OutOfMemory, CachedMemoryIsGivenBackAndTheAllocationRetried) {
  const std::size_t small_n = std::size_t(1) << 25, large_n = std::size_t(1) << 26;
  const auto keys = make_keys<std::uint32_t>(large_n, distribution::uniform, 78);
  std::vector<std::uint32_t> values(large_n);
  std::iota(values.begin(), values.end(), 0u);
  device_array<std::uint32_t> device_keys(keys), device_values(values);
  gpusort::release_cached_memory();
  // About 256 MiB kept: alternate keys and values of 2^25 pairs.
  gpusort::sort_by_key(gpusort::par, device_keys.begin(), device_keys.begin() + small_n,
                       device_values.begin());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::size_t cached = gpusort::cached_memory_bytes();
  ASSERT_GE(cached, small_n * 8);
  // The large sort needs about 512 MiB; leave 320-384 MiB free besides the cache.
  const std::vector<std::uint32_t> large_keys = make_keys<std::uint32_t>(large_n, distribution::uniform, 79);
  ASSERT_EQ(cudaMemcpy(device_keys.begin(), large_keys.data(), large_n * 4, cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device_values.begin(), values.data(), large_n * 4, cudaMemcpyHostToDevice),
            cudaSuccess);
  {
    memory_hog hog(std::size_t(320) << 20, gpusort_cache::kept);
    EXPECT_EQ(gpusort::cached_memory_bytes(), cached) << "the hog took gpusort's cache";
    gpusort::sort_by_key(gpusort::par, device_keys.begin(), device_keys.end(),
                         device_values.begin());
    EXPECT_EQ(device_keys.to_host(), reference_sorted(large_keys, false));
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// The block a sort on one stream gave back is kept for that stream (gpusort/detail/
// kept_blocks.cuh). When a sort on another stream finds the device full, the kept block goes
// back with the rest of the pool's memory before the retry: here the free memory alone is too
// little for the sort, the free memory and the kept block are enough.
TEST_F(OutOfMemory, KeptBlocksAreGivenBackAndTheAllocationRetried) {
  const std::size_t kept_n = std::size_t(1) << 23;                     // about 34 MiB of storage
  const std::size_t large_n = kept_n + (std::size_t(1) << 22) + 12345;  // about 50 MiB
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  const auto small_keys = make_keys<std::uint32_t>(kept_n, distribution::uniform, 80);
  const auto large_keys = make_keys<std::uint32_t>(large_n, distribution::uniform, 81);
  device_array<std::uint32_t> device_small(small_keys), device_large(large_keys);
  gpusort::release_cached_memory();
  gpusort::sort(gpusort::par.on(other), device_small.begin(), device_small.end());
  ASSERT_EQ(cudaStreamSynchronize(other), cudaSuccess);
  const std::size_t cached = gpusort::cached_memory_bytes();
  ASSERT_GE(cached, kept_n * 4);
  {
    memory_hog hog(std::size_t(24) << 20, gpusort_cache::kept);
    EXPECT_EQ(gpusort::cached_memory_bytes(), cached) << "the hog took gpusort's cache";
    gpusort::sort(gpusort::par, device_large.begin(), device_large.end());
    EXPECT_EQ(device_large.to_host(), reference_sorted(large_keys, false));
  }
  EXPECT_EQ(device_small.to_host(), reference_sorted(small_keys, false));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(other), cudaSuccess);
}

TEST_F(OutOfMemory, ParFailsCleanly) {
  expect_out_of_memory_then_success("par", [](auto first, auto last, auto values) {
    gpusort::sort_by_key(gpusort::par, first, last, values);
  });
}
TEST_F(OutOfMemory, RadixFailsCleanly) {
  expect_out_of_memory_then_success("radix", [](auto first, auto last, auto values) {
    gpusort::stable_sort_by_key(gpusort::radix, first, last, values);
  });
}
TEST_F(OutOfMemory, MergeFailsCleanly) {
  expect_out_of_memory_then_success("merge", [](auto first, auto last, auto values) {
    gpusort::stable_sort_by_key(gpusort::merge, first, last, values);
  });
}
TEST_F(OutOfMemory, BucketBitonicFailsCleanly) {
  expect_out_of_memory_then_success("bucket_bitonic", [](auto first, auto last, auto values) {
    gpusort::sort_by_key(gpusort::bucket_bitonic, first, last, values);
  });
}

}  // namespace
}  // namespace gpusort::test
