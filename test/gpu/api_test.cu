// The public API end to end on the GPU: iterators, comparators, streams, allocators,
// user key types and backends, and the errors users get.
#include "../../examples/thrust_backend.cuh"
#include "../support/allocators.cuh"
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>

#include <cuda/std/functional>

#include <cstdint>
#include <string>
#include <vector>

// (No unnamed namespace: with clang++ as nvcc's host compiler, tests declared in one warn
// that their test_info_ is never referenced.)
namespace gpusort::test {

class Api : public GpuTest {};

std::vector<std::uint32_t> random_u32(std::size_t n, std::uint64_t seed) {
  return make_keys<std::uint32_t>(n, distribution::uniform, seed);
}

TEST_F(Api, SortsDeviceVectorIteratorsAndDevicePointers) {
  const auto keys = random_u32(50001, 1);
  auto expected = reference_sorted(keys, false);

  thrust::device_vector<std::uint32_t> vector(keys.begin(), keys.end());
  gpusort::sort(gpusort::par, vector.begin(), vector.end());
  EXPECT_EQ(std::vector<std::uint32_t>(vector.begin(), vector.end()), expected);

  thrust::device_vector<std::uint32_t> other(keys.begin(), keys.end());
  thrust::device_ptr<std::uint32_t> first = other.data();
  gpusort::sort(gpusort::radix, first, first + other.size());
  EXPECT_EQ(std::vector<std::uint32_t>(other.begin(), other.end()), expected);
}

TEST_F(Api, SortsASubRangeAtAnOddOffsetAndLeavesTheRestAlone) {
  const auto keys = random_u32(20000, 2);
  thrust::device_vector<std::uint32_t> vector(keys.begin(), keys.end());
  const std::size_t offset = 3, count = 12345;
  gpusort::sort(gpusort::radix, vector.begin() + offset, vector.begin() + offset + count);

  std::vector<std::uint32_t> expected = keys;
  std::stable_sort(expected.begin() + offset, expected.begin() + offset + count);
  EXPECT_EQ(std::vector<std::uint32_t>(vector.begin(), vector.end()), expected);
}

TEST_F(Api, ThrustAndCudaStdComparatorsAreTheSameOrders) {
  const auto keys = make_keys<float>(30011, distribution::float_specials, 3);
  device_array<float> a(keys), b(keys), c(keys);
  gpusort::sort(gpusort::par, a.begin(), a.end(), thrust::greater<float>{});
  gpusort::sort(gpusort::radix, b.begin(), b.end(), cuda::std::greater<>{});
  gpusort::stable_sort(gpusort::par, c.begin(), c.end(), gpusort::greater<float>{});
  const auto expected = reference_sorted(keys, true);
  expect_same_bits(a.to_host(), expected, "thrust::greater");
  expect_same_bits(b.to_host(), expected, "cuda::std::greater");
  expect_same_bits(c.to_host(), expected, "gpusort::greater");
}

TEST_F(Api, WorksOnTheGivenStreamWithTheGivenAllocator) {
  cudaStream_t stream;
  GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  counting_allocator allocator;
  const auto keys = random_u32(300007, 4);
  device_array<std::uint32_t> device(keys);
  gpusort::sort(gpusort::radix.on(stream).with_allocator(allocator), device.begin(), device.end());
  GPUSORT_TEST_CUDA(cudaStreamSynchronize(stream));
  EXPECT_EQ(device.to_host(), reference_sorted(keys, false));
  EXPECT_EQ(allocator.allocations, 1);  // one up-front allocation
  EXPECT_EQ(allocator.deallocations, 1);
  EXPECT_EQ(allocator.last_stream, stream);
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

TEST_F(Api, HostMemoryIsRejectedBeforeAnythingRuns) {
  std::vector<std::uint32_t> pageable = random_u32(1000, 5);
  const auto before = pageable;
  try {
    gpusort::sort(gpusort::radix, pageable.data(), pageable.data() + pageable.size());
    FAIL() << "expected gpusort::error";
  } catch (const gpusort::error& e) {
    EXPECT_NE(std::string(e.what()).find("host memory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(pageable, before);

  std::uint32_t* pinned = nullptr;
  GPUSORT_TEST_CUDA(cudaMallocHost(&pinned, 100 * sizeof(std::uint32_t)));
  EXPECT_THROW(gpusort::sort(gpusort::par, pinned, pinned + 100), gpusort::error);
  // The library stays usable afterwards.
  device_array<std::uint32_t> device(before);
  gpusort::sort(gpusort::radix, device.begin(), device.end());
  EXPECT_EQ(device.to_host(), reference_sorted(before, false));
  cudaFreeHost(pinned);
}

TEST_F(Api, OverlappingKeysAndValuesAreRejected) {
  device_array<std::uint32_t> device(random_u32(1000, 6));
  EXPECT_THROW(gpusort::sort_by_key(gpusort::radix, device.begin(), device.begin() + 600,
                                    device.begin() + 500),
               gpusort::error);
}

TEST_F(Api, AllocationFailureLeavesTheInputExactlyAsItWas) {
  const auto keys = random_u32(100000, 7);
  std::vector<std::uint32_t> values(keys.size(), 17);
  device_array<std::uint32_t> device_keys(keys), device_values(values);
  refusing_allocator allocator;
  EXPECT_THROW(gpusort::sort_by_key(gpusort::radix.with_allocator(allocator), device_keys.begin(),
                                    device_keys.end(), device_values.begin()),
               gpusort::error);
  EXPECT_EQ(device_keys.to_host(), keys);
  EXPECT_EQ(device_values.to_host(), values);
}

__global__ void do_nothing() {}

TEST_F(Api, AnEarlierCudaErrorIsReportedNotBlamedOnTheSort) {
  device_array<std::uint32_t> device(random_u32(1000, 8));
  do_nothing<<<1, 4096>>>();  // too many threads: a (non-sticky) launch error is now pending
  const cudaError_t pending = cudaPeekAtLastError();
  ASSERT_NE(pending, cudaSuccess);
  try {
    gpusort::sort(gpusort::radix, device.begin(), device.end());
    FAIL() << "expected gpusort::error";
  } catch (const gpusort::error& e) {
    EXPECT_NE(std::string(e.what()).find("pending before the sort call"), std::string::npos) << e.what();
    EXPECT_EQ(e.code(), pending);
  }
}

// The legacy default stream cannot be used while a blocking stream of the device is captured
// into a graph: the sort says so before it enqueues anything, the input stays as it was, the
// capture goes on, and no error is left behind for the next call.
TEST_F(Api, TheLegacyStreamIsRefusedWhileAnotherStreamIsCaptured) {
  const auto keys = random_u32(5000, 9);
  device_array<std::uint32_t> device(keys), marker(std::vector<std::uint32_t>(16, 1));
  cudaStream_t blocking = nullptr;
  GPUSORT_TEST_CUDA(cudaStreamCreate(&blocking));
  GPUSORT_TEST_CUDA(cudaStreamBeginCapture(blocking, cudaStreamCaptureModeGlobal));
  GPUSORT_TEST_CUDA(cudaMemsetAsync(marker.begin(), 0, 16 * sizeof(std::uint32_t), blocking));
  try {
    gpusort::sort(gpusort::par, device.begin(), device.end());
    ADD_FAILURE() << "expected gpusort::error";
  } catch (const gpusort::error& e) {
    EXPECT_NE(std::string(e.what()).find("legacy default stream"), std::string::npos) << e.what();
    EXPECT_EQ(e.code(), cudaErrorStreamCaptureImplicit);
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(blocking, &graph), cudaSuccess);
  EXPECT_NE(graph, nullptr);
  if (graph != nullptr) GPUSORT_TEST_CUDA(cudaGraphDestroy(graph));
  GPUSORT_TEST_CUDA(cudaStreamDestroy(blocking));

  EXPECT_EQ(device.to_host(), keys);
  gpusort::sort(gpusort::par, device.begin(), device.end());
  EXPECT_EQ(device.to_host(), reference_sorted(keys, false));
}

struct particle {
  std::uint32_t cell;
  float depth;
  std::uint32_t id;  // payload, not part of the key
};

}  // namespace gpusort::test

template <>
struct gpusort::radix_key_traits<gpusort::test::particle>
    : gpusort::radix_members<&gpusort::test::particle::cell, &gpusort::test::particle::depth> {};

namespace gpusort::test {

TEST_F(Api, UserKeyTypeWithRadixMembersSortsByThoseMembers) {
  std::mt19937_64 rng(9);
  std::vector<particle> particles(70001);
  for (std::uint32_t i = 0; i < particles.size(); ++i)
    particles[i] = {std::uint32_t(rng() % 50), special_float<float>(rng), i};
  device_array<particle> device(particles);
  gpusort::sort(gpusort::par, device.begin(), device.end());

  std::stable_sort(particles.begin(), particles.end(), [](const particle& a, const particle& b) {
    return a.cell != b.cell ? a.cell < b.cell : reference_less(a.depth, b.depth);
  });
  const auto sorted = device.to_host();
  for (std::size_t i = 0; i < sorted.size(); ++i)
    ASSERT_EQ(sorted[i].id, particles[i].id) << "at " << i;
}

struct small_tiles {
  static constexpr gpusort::radix_knobs knobs = [] {
    gpusort::radix_knobs k = gpusort::radix_tuning_sm90::knobs;
    k.items_per_thread = 3;
    return k;
  }();
};

TEST_F(Api, DerivedTuningReusesTheRadixBackend) {
  const auto keys = make_keys<std::int64_t>(123457, distribution::few_distinct, 10);
  std::vector<std::uint32_t> values(keys.size());
  std::iota(values.begin(), values.end(), 0u);
  device_array<std::int64_t> device_keys(keys);
  device_array<std::uint32_t> device_values(values);
  gpusort::stable_sort_by_key(gpusort::radix_policy<small_tiles>{}, device_keys.begin(),
                              device_keys.end(), device_values.begin(), gpusort::greater<>{});
  const auto expected = reference_sorted(keys, true);
  EXPECT_EQ(device_keys.to_host(), expected);
  const auto moved = device_values.to_host();
  for (std::size_t i = 0; i < moved.size(); ++i) ASSERT_EQ(keys[moved[i]], expected[i]) << "at " << i;
}

// Policies of the user's own name that sort as a built-in one.
struct few_items_radix : gpusort::radix_policy<small_tiles> {};
struct project_par : gpusort::par_policy {};
static_assert(gpusort::is_execution_policy_v<few_items_radix>);
static_assert(gpusort::is_execution_policy_v<const project_par>);

TEST_F(Api, PolicyDerivedFromABuiltInSortsAsThatBuiltIn) {
  const auto keys = make_keys<std::uint64_t>(2000003, distribution::few_distinct, 12);
  std::vector<std::uint32_t> values(keys.size());
  std::iota(values.begin(), values.end(), 0u);
  device_array<std::uint64_t> device_keys(keys), par_keys(keys);
  device_array<std::uint32_t> device_values(values);
  gpusort::stable_sort_by_key(few_items_radix{}, device_keys.begin(), device_keys.end(),
                              device_values.begin());
  const auto expected = reference_sorted(keys, false);
  EXPECT_EQ(device_keys.to_host(), expected);
  // Stable: equal keys keep the order of their input positions.
  const auto moved = device_values.to_host();
  for (std::size_t i = 0; i < moved.size(); ++i) {
    ASSERT_EQ(keys[moved[i]], expected[i]) << "at " << i;
    if (i > 0 && expected[i] == expected[i - 1]) ASSERT_LT(moved[i - 1], moved[i]) << "at " << i;
  }

  cudaStream_t stream;
  GPUSORT_TEST_CUDA(cudaStreamCreate(&stream));
  counting_allocator allocator;
  gpusort::sort(project_par{}.on(stream).with_allocator(allocator), par_keys.begin(),
                par_keys.end(), gpusort::greater<>{});
  GPUSORT_TEST_CUDA(cudaStreamSynchronize(stream));
  EXPECT_EQ(par_keys.to_host(), reference_sorted(keys, true));
  EXPECT_EQ(allocator.last_stream, stream);  // 2M keys: the one-sweep sort, which allocates
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

TEST_F(Api, UserDefinedBackendIsReachedThroughTheFrontDoor) {
  const auto keys = make_keys<double>(200003, distribution::uniform, 11);
  std::vector<std::uint32_t> values(keys.size());
  std::iota(values.begin(), values.end(), 0u);
  device_array<double> device_keys(keys);
  device_array<std::uint32_t> device_values(values);
  counting_allocator allocator;
  cudaStream_t stream;
  GPUSORT_TEST_CUDA(cudaStreamCreate(&stream));
  gpusort::stable_sort_by_key(my_project::thrust_sort.on(stream).with_allocator(allocator),
                              device_keys.begin(), device_keys.end(), device_values.begin());
  GPUSORT_TEST_CUDA(cudaStreamSynchronize(stream));
  EXPECT_EQ(device_keys.to_host(), reference_sorted(keys, false));
  EXPECT_GE(allocator.allocations, 1);  // the user's allocator reached the user's backend
  EXPECT_EQ(allocator.last_stream, stream);
  // The front door's checks apply to user backends too.
  std::vector<double> host(10);
  EXPECT_THROW(gpusort::sort(my_project::thrust_sort, host.data(), host.data() + 10), gpusort::error);
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

}  // namespace gpusort::test
