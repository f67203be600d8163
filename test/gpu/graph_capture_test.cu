// A sort captured into a CUDA graph as the very first call of its kind in the process: what
// the first call sets up once (the device's facts, kernel attributes such as large shared
// memory and cluster sizes, gpusort's memory pool) must be legal while a stream is captured
// in global mode, and the graph must sort new input on every replay. CTest runs each test in
// a process of its own, so each test's sort is that process's first.
#include "../support/gpu.cuh"
#include "../support/graphs.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace gpusort::test {
namespace {

class GraphCapture : public GpuTest {};

struct descending_u32 {
  __host__ __device__ bool operator()(std::uint32_t a, std::uint32_t b) const { return a > b; }
};

// Captures sort(stream, keys) on a new stream, then replays it on two sets of new keys.
template <class Key, class Sort>
void expect_captured_sort_replays(std::size_t n, bool descending, std::uint64_t seed,
                                  Sort sort) {
  device_array<Key> keys(std::vector<Key>(n, Key{}));
  cudaStream_t stream = nullptr;
  GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const cudaGraphExec_t replay = capture(stream, [&] { sort(stream, keys.begin(), keys.end()); });
  ASSERT_NE(replay, nullptr);
  for (std::uint64_t s : {seed, seed + 1}) {
    SCOPED_TRACE("n " + std::to_string(n) + ", replay with keys of seed " + std::to_string(s));
    const std::vector<Key> input = make_keys<Key>(n, distribution::uniform, s);
    copy_to(keys, input);
    GPUSORT_TEST_CUDA(cudaGraphLaunch(replay, stream));
    GPUSORT_TEST_CUDA(cudaStreamSynchronize(stream));
    EXPECT_EQ(keys.to_host(), reference_sorted(input, descending));
  }
  GPUSORT_TEST_CUDA(cudaGraphExecDestroy(replay));
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

const auto par_sort = [](cudaStream_t stream, auto first, auto last) {
  gpusort::sort(gpusort::par.on(stream), first, last);
};

// The one-sweep passes, with temporary storage from gpusort's pool.
TEST_F(GraphCapture, ParFirstCallOfLargeKeys) {
  expect_captured_sort_replays<std::uint32_t>(std::size_t(1) << 20, false, 1, par_sort);
}

// Past one wave: the histogram kernel's cooperative launch, which clears the counters
// itself; each replay passes it the same mark (backends/radix/clearing_mark.cuh).
TEST_F(GraphCapture, ParFirstCallPastOneWave) {
  expect_captured_sort_replays<std::uint32_t>((std::size_t(1) << 22) + 5, false, 13, par_sort);
}

// The sorting network of the smallest inputs: one cluster, no temporary storage.
TEST_F(GraphCapture, ParFirstCallOfSmallKeys) {
  expect_captured_sort_replays<std::uint32_t>(4096, false, 3, par_sort);
}

// 8-byte keys of this size go to par's comparison sort or its sort by buckets (wide tiles in
// dynamic shared memory, or a cluster per bucket).
TEST_F(GraphCapture, ParFirstCallOfEightByteKeys) {
  expect_captured_sort_replays<std::uint64_t>(std::size_t(1) << 19, false, 5, par_sort);
}

// The comparison sort of a few tiles: one cluster of up to 16 blocks (non-portable sizes are
// allowed with a kernel attribute on the first call).
TEST_F(GraphCapture, MergeFirstCallOfAFewTiles) {
  expect_captured_sort_replays<std::uint32_t>(
      30001, true, 7, [](cudaStream_t stream, auto first, auto last) {
        gpusort::sort(gpusort::merge.on(stream), first, last, descending_u32{});
      });
}

// The comparison sort of many tiles: wide tiles in dynamic shared memory, then merge passes.
TEST_F(GraphCapture, MergeFirstCallOfManyTiles) {
  expect_captured_sort_replays<std::uint32_t>(
      (std::size_t(1) << 20) + 3, true, 9, [](cudaStream_t stream, auto first, auto last) {
        gpusort::sort(gpusort::merge.on(stream), first, last, descending_u32{});
      });
}

// The bucket sort: persistent partition kernels sized by occupancy queries.
TEST_F(GraphCapture, BucketBitonicFirstCall) {
  expect_captured_sort_replays<std::uint64_t>(
      std::size_t(1) << 20, false, 11, [](cudaStream_t stream, auto first, auto last) {
        gpusort::sort(gpusort::bucket_bitonic.on(stream), first, last);
      });
}

// Pairs of u32 keys and values: their one-sweep tile in dynamic shared memory. The values are
// the input positions, so the replay checks stability too.
TEST_F(GraphCapture, ParFirstCallOfPairs) {
  const std::size_t n = std::size_t(1) << 20;
  device_array<std::uint32_t> keys(std::vector<std::uint32_t>(n, 0));
  device_array<std::uint32_t> values(std::vector<std::uint32_t>(n, 0));
  cudaStream_t stream = nullptr;
  GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const cudaGraphExec_t replay = capture(stream, [&] {
    gpusort::stable_sort_by_key(gpusort::par.on(stream), keys.begin(), keys.end(),
                                values.begin());
  });
  ASSERT_NE(replay, nullptr);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  const std::vector<std::uint32_t> input =
      make_keys<std::uint32_t>(n, distribution::few_distinct, 13);
  copy_to(keys, input);
  copy_to(values, positions);
  GPUSORT_TEST_CUDA(cudaGraphLaunch(replay, stream));
  GPUSORT_TEST_CUDA(cudaStreamSynchronize(stream));
  const std::vector<std::uint32_t> order =
      stable_order(input, reference_order<std::uint32_t>{false});
  EXPECT_EQ(keys.to_host(), gather(input, order));
  EXPECT_EQ(values.to_host(), order);
  GPUSORT_TEST_CUDA(cudaGraphExecDestroy(replay));
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace gpusort::test
