// The public API's ways into the merge backend: a __device__ lambda comparator, gpusort::par
// with a comparator of the user's own, thrust::device_vector iterators, a sub-range at an
// odd offset, values of any trivially copyable type, a stream and an allocator of the
// user's own.
#include "../support/allocators.cuh"
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <thrust/device_vector.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <bitset>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <thread>
#include <type_traits>
#include <vector>

namespace gpusort::test {
namespace {

class MergeApi : public GpuTest {};

std::vector<std::uint32_t> random_u32(std::size_t n, std::uint64_t seed) {
  return make_keys<std::uint32_t>(n, distribution::uniform, seed);
}

// ---- A __device__ lambda comparator ---------------------------------------------------

// The order of the lambda below, on the host: by the number of bits set. 33 classes of
// equivalent keys, so a stable sort shows in the keys alone.
bool fewer_bits_set(std::uint32_t a, std::uint32_t b) {
  return std::bitset<32>(a).count() < std::bitset<32>(b).count();
}

template <class Compare>
void sweep_by_bits_set(bool through_par, Compare by_bits_set) {
  for (std::size_t n : capped({0, 1, 2, 1025, 8193, 100003}))
    for (distribution d : {distribution::uniform, distribution::organ_pipe}) {
      const std::uint64_t seed = seed_for(n, d, 4) + (through_par ? 21 : 22);
      SCOPED_TRACE(
          describe(n, d, through_par ? "par, by_bits_set" : "merge, by_bits_set", seed, 4));
      const auto keys = make_keys_from<std::uint32_t>(n, d, seed, random_key<std::uint32_t>,
                                                      fewer_bits_set);
      if (through_par) {
        expect_sorts_keys_by<true>(gpusort::par, keys, by_bits_set, fewer_bits_set,
                                   guarantee::stable);
        expect_sorts_pairs_by<false>(gpusort::par, keys, by_bits_set, fewer_bits_set,
                                     guarantee::unstable);
      } else {
        expect_sorts_keys_by<true>(gpusort::merge, keys, by_bits_set, fewer_bits_set,
                                   guarantee::stable);
        expect_sorts_pairs_by<false>(gpusort::merge, keys, by_bits_set, fewer_bits_set,
                                     guarantee::unstable);
      }
      if (::testing::Test::HasFailure()) return;
    }
}

// The lambda is defined here, not in a test body: nvcc accepts an extended lambda only in
// a function whose address can be taken, and a test body is a private member function.
// (Not in a template either: each instantiation would be a new closure type, and new
// kernels.) Device-only: __popc has no host version. Needs nvcc's --extended-lambda.
void expect_device_lambda_sorts(bool through_par) {
  const auto by_bits_set = [] __device__(std::uint32_t a, std::uint32_t b) {
    return __popc(a) < __popc(b);
  };
  using device_lambda = decltype(by_bits_set);
  static_assert(std::is_same_v<automatic_backend_t<std::uint32_t, device_lambda>, merge_backend>,
                "gpusort::par has no radix route for a lambda: it must choose the merge backend");
  static_assert(backend_can_serve_v<merge_backend, std::uint32_t, device_lambda>,
                "the merge backend accepts extended __device__ lambdas");
  sweep_by_bits_set(through_par, by_bits_set);
}

TEST_F(MergeApi, DeviceLambdaComparatorSortsKeysAndPairs) {
  expect_device_lambda_sorts(/*through_par=*/false);
}

TEST_F(MergeApi, ParSendsADeviceLambdaComparatorToTheMergeBackend) {
  expect_device_lambda_sorts(/*through_par=*/true);
}

// ---- gpusort::par with a comparator of the user's own ----------------------------------

// An order of u32 keys (radix-sortable keys) that is neither ascending nor descending: by
// the low 16 bits only.
struct by_low_half {
  __host__ __device__ bool operator()(std::uint32_t a, std::uint32_t b) const {
    return (a & 0xFFFFu) < (b & 0xFFFFu);
  }
};

TEST_F(MergeApi, ParSortsRadixKeysWithACustomComparatorThroughTheMergeBackend) {
  static_assert(std::is_same_v<automatic_backend_t<std::uint32_t, by_low_half>, merge_backend>,
                "a custom comparator has no radix route, even for radix-sortable keys");
  const auto low_half_less = [](std::uint32_t a, std::uint32_t b) {
    return std::uint16_t(a) < std::uint16_t(b);
  };
  for (std::size_t n : capped({2049, 100003}))
    for (distribution d : {distribution::uniform, distribution::few_distinct}) {
      const std::uint64_t seed = seed_for(n, d, 4) + 23;
      SCOPED_TRACE(describe(n, d, "par, by_low_half", seed, 4));
      const auto keys = make_keys_from<std::uint32_t>(n, d, seed, random_key<std::uint32_t>,
                                                      low_half_less);
      expect_sorts_keys_by<false>(gpusort::par, keys, by_low_half{}, low_half_less,
                                  guarantee::unstable);
      expect_sorts_pairs_by<true>(gpusort::par, keys, by_low_half{}, low_half_less,
                                  guarantee::stable);
      if (::testing::Test::HasFailure()) return;
    }
}

// ---- A tuning of the user's own ------------------------------------------------------

// Every launch shape of the merge backend comes from its tuning, the split search's block too:
// 64-key tiles, 96-key merge blocks and one warp per split search block make 100003 keys eleven
// merge passes of over a thousand merge blocks, each pass's split search (from samples, one
// thread a search) 35 to 51 launch blocks that overlap by one merge block; the same from
// samples by 8 lanes a search; the same with every split searched over the keys by 16 lanes,
// each one-warp launch block searching one merge block's split and the next's (the agreement
// check); and the same with every pass but the last searching inside its merge kernel. On
// sm_90, 97 and 1000 keys are one cluster of 2 and of 16 one-warp blocks, each split searched
// by half a warp.
struct narrow_merge_tuning {
  static constexpr gpusort::merge_knobs knobs = [] {
    gpusort::merge_knobs k = gpusort::merge_tuning_sm90::knobs;
    k.tile_threads = 32;
    k.tile_items_per_thread = 2;
    k.one_block_threads = 32;  // 97 keys: more than one block sorts whole
    k.one_block_items_per_thread = 2;
    k.merge_threads = 32;
    k.merge_items_per_thread = 3;
    k.split_search_threads = 32;
    k.lane_split_search_most_blocks = 0;   // from samples, every pass,
    k.sample_lane_search_most_blocks = 0;  // by one thread a search
    return k;
  }();
};

struct narrow_merge_tuning_searching_by_lanes {
  static constexpr gpusort::merge_knobs knobs = [] {
    gpusort::merge_knobs k = narrow_merge_tuning::knobs;
    k.lane_split_search_most_blocks = 1 << 30;  // every pass
    k.fused_split_search_most_blocks = 0;       // in a launch of their own
    return k;
  }();
};

// Every pass from samples by groups of 8 lanes, three to a one-warp launch block.
struct narrow_merge_tuning_searching_samples_by_lanes {
  static constexpr gpusort::merge_knobs knobs = [] {
    gpusort::merge_knobs k = narrow_merge_tuning::knobs;
    k.sample_split_search_lanes = 8;
    k.sample_lane_search_most_blocks = 1 << 30;
    return k;
  }();
};

// Every pass but the last searched inside the merge kernel (search_and_merge_runs).
struct narrow_merge_tuning_searching_in_the_merge {
  static constexpr gpusort::merge_knobs knobs = [] {
    gpusort::merge_knobs k = narrow_merge_tuning_searching_by_lanes::knobs;
    k.fused_split_search_most_blocks = 1 << 30;
    return k;
  }();
};

template <class Policy>
void expect_narrow_tuning_sorts(const Policy& narrow, const char* name) {
  const auto less = [](std::uint32_t a, std::uint32_t b) { return a < b; };
  for (std::size_t n : capped({97, 1000, 100003}))
    for (distribution d : {distribution::uniform, distribution::few_distinct}) {
      const std::uint64_t seed = seed_for(n, d, 4) + 24;
      SCOPED_TRACE(describe(n, d, name, seed, 4));
      const auto keys = make_keys<std::uint32_t>(n, d, seed);
      expect_sorts_keys_by<false>(narrow, keys, gpusort::less<>{}, less, guarantee::unstable);
      expect_sorts_pairs_by<true>(narrow, keys, gpusort::less<>{}, less, guarantee::stable);
      if (::testing::Test::HasFailure()) return;
    }
}

TEST_F(MergeApi, ATuningOfTheUsersOwnSetsEveryLaunchShape) {
  expect_narrow_tuning_sorts(gpusort::merge_policy<narrow_merge_tuning>{},
                             "narrow merge tuning");
  if (::testing::Test::HasFailure()) return;
  expect_narrow_tuning_sorts(gpusort::merge_policy<narrow_merge_tuning_searching_by_lanes>{},
                             "narrow merge tuning, splits searched by lanes");
  if (::testing::Test::HasFailure()) return;
  expect_narrow_tuning_sorts(
      gpusort::merge_policy<narrow_merge_tuning_searching_samples_by_lanes>{},
      "narrow merge tuning, splits searched from samples by lanes");
  if (::testing::Test::HasFailure()) return;
  expect_narrow_tuning_sorts(
      gpusort::merge_policy<narrow_merge_tuning_searching_in_the_merge>{},
      "narrow merge tuning, splits searched inside the merge kernel");
}

// ---- One cluster for a few tiles (sm_90) ------------------------------------------------

// On sm_90 the sizes of the merge suites from 2 to 16 tiles are sorted by one cluster (of
// ordinary tiles, and below them of one-block tiles): so the largest cluster this GPU allows
// each kind of sort must hold at least 8 blocks (an H100 or H200 allows 16). A storage grown
// past what a block may have would silently turn the cluster sort off; this says so.
template <class Key, class Value>
void expect_cluster_of_at_least_eight_blocks(const char* what) {
  using sorter = backends::merge::cluster_merge_sorter<merge_tuning_sm90, Key, Value,
                                                       gpusort::less<>>;
  EXPECT_GE(sorter::max_blocks(), 8) << what;
  using one_block_tiles = backends::merge::one_block_tuning<merge_tuning_sm90>;
  using one_block_sorter =
      backends::merge::cluster_merge_sorter<one_block_tiles, Key, Value, gpusort::less<>>;
  EXPECT_GE(one_block_sorter::max_blocks(), 8) << what << ", one-block tiles";
}

TEST_F(MergeApi, OnSm90OneClusterOfAtLeastEightBlocksSortsAFewTiles) {
  int device = 0;
  int major = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
            cudaSuccess);
  if (major < 9) GTEST_SKIP() << "thread-block clusters need sm_90";
  expect_cluster_of_at_least_eight_blocks<std::uint32_t, no_values>("u32");
  expect_cluster_of_at_least_eight_blocks<std::uint32_t, std::uint32_t>("u32 + u32");
  expect_cluster_of_at_least_eight_blocks<double, no_values>("f64");
  expect_cluster_of_at_least_eight_blocks<std::uint64_t, std::uint32_t>("u64 + u32");
}

// ---- Ranges ---------------------------------------------------------------------------

TEST_F(MergeApi, SortsThrustDeviceVectorIterators) {
  const auto keys = random_u32(50001, 1);
  thrust::device_vector<std::uint32_t> vector(keys.begin(), keys.end());
  gpusort::sort(gpusort::merge, vector.begin(), vector.end());
  expect_same_bits(std::vector<std::uint32_t>(vector.begin(), vector.end()),
                   reference_sorted(keys, false), "keys");
}

TEST_F(MergeApi, SortsASubRangeAtAnOddOffsetAndLeavesTheRestAlone) {
  const std::size_t size = 20000, key_offset = 3, value_offset = 5, count = 12345;
  const auto keys = random_u32(size, 2);
  constexpr std::uint32_t untouched = 0xFFFFFFFFu;
  std::vector<std::uint32_t> values(size, untouched);  // sub-range positions, then untouched
  for (std::uint32_t i = 0; i < count; ++i) values[value_offset + i] = i;
  device_array<std::uint32_t> device_keys(keys), device_values(values);
  gpusort::sort_by_key(gpusort::merge, device_keys.begin() + key_offset,
                       device_keys.begin() + key_offset + count,
                       device_values.begin() + value_offset);

  std::vector<std::uint32_t> expected_keys = keys;
  std::stable_sort(expected_keys.begin() + key_offset, expected_keys.begin() + key_offset + count);
  const auto sorted_keys = device_keys.to_host();
  const auto moved_values = device_values.to_host();
  expect_same_bits(sorted_keys, expected_keys, "keys");
  for (std::size_t i = 0; i < size; ++i)
    if (i < value_offset || i >= value_offset + count)
      ASSERT_EQ(moved_values[i], untouched) << "value outside the range changed at index " << i;
  const auto sub = [](const std::vector<std::uint32_t>& v, std::size_t offset, std::size_t n) {
    return std::vector<std::uint32_t>(v.begin() + offset, v.begin() + offset + n);
  };
  expect_values_name_their_keys(sub(sorted_keys, key_offset, count),
                                sub(moved_values, value_offset, count),
                                sub(keys, key_offset, count));
}

// 7 bytes, alignment 1: no vector load or store width fits it.
struct seven_bytes {
  std::uint8_t bytes[7];
};
static_assert(sizeof(seven_bytes) == 7 && alignof(seven_bytes) == 1);

// The input position in the first four bytes, its complement's low bytes in the rest, so
// a torn or shifted copy shows.
seven_bytes payload_for(std::uint32_t position) {
  seven_bytes p;
  const std::uint32_t complement = ~position;
  std::memcpy(p.bytes, &position, 4);
  std::memcpy(p.bytes + 4, &complement, 3);
  return p;
}

TEST_F(MergeApi, ValuesOfAnyTriviallyCopyableTypeMoveWithTheirKeys) {
  const std::size_t n = 100003;
  const auto keys = make_keys<std::uint32_t>(n, distribution::few_distinct, 3);
  std::vector<seven_bytes> values(n);
  for (std::uint32_t i = 0; i < n; ++i) values[i] = payload_for(i);
  device_array<std::uint32_t> device_keys(keys);
  device_array<seven_bytes> device_values(values);
  gpusort::stable_sort_by_key(gpusort::merge, device_keys.begin(), device_keys.end(),
                              device_values.begin());
  const auto order = stable_order(keys, reference_order<std::uint32_t>{false});
  expect_same_bits(device_keys.to_host(), gather(keys, order), "keys");
  expect_same_bits(device_values.to_host(), gather(values, order), "values");
}

// ---- Stream and allocator -------------------------------------------------------------

void CUDART_CB hold_the_stream(void*) {
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

// The input reaches the device only after a 100 ms hold on the stream: a sort enqueued
// anywhere but on that stream (a non-blocking one) would run before it and leave unsorted
// keys behind.
TEST_F(MergeApi, WorkIsOrderedOnTheGivenStreamWithOneAllocationFromTheGivenAllocator) {
  const std::size_t n = 1000003;
  const auto keys = random_u32(n, 4);
  cudaStream_t stream;
  GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::uint32_t* host_keys = nullptr;
  std::uint32_t* host_values = nullptr;
  GPUSORT_TEST_CUDA(cudaMallocHost(&host_keys, n * sizeof(std::uint32_t)));
  GPUSORT_TEST_CUDA(cudaMallocHost(&host_values, n * sizeof(std::uint32_t)));
  std::copy(keys.begin(), keys.end(), host_keys);
  std::iota(host_values, host_values + n, 0u);
  const std::vector<std::uint32_t> zeros(n, 0);
  device_array<std::uint32_t> device_keys(zeros), device_values(zeros);

  GPUSORT_TEST_CUDA(cudaLaunchHostFunc(stream, hold_the_stream, nullptr));
  GPUSORT_TEST_CUDA(cudaMemcpyAsync(device_keys.begin(), host_keys, n * sizeof(std::uint32_t),
                                    cudaMemcpyHostToDevice, stream));
  GPUSORT_TEST_CUDA(cudaMemcpyAsync(device_values.begin(), host_values, n * sizeof(std::uint32_t),
                                    cudaMemcpyHostToDevice, stream));
  counting_allocator allocator;
  gpusort::sort_by_key(gpusort::merge.on(stream).with_allocator(allocator), device_keys.begin(),
                       device_keys.end(), device_values.begin());
  GPUSORT_TEST_CUDA(cudaMemcpyAsync(host_keys, device_keys.begin(), n * sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToHost, stream));
  GPUSORT_TEST_CUDA(cudaMemcpyAsync(host_values, device_values.begin(), n * sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToHost, stream));
  GPUSORT_TEST_CUDA(cudaStreamSynchronize(stream));

  const std::vector<std::uint32_t> sorted_keys(host_keys, host_keys + n);
  const std::vector<std::uint32_t> moved_values(host_values, host_values + n);
  expect_same_bits(sorted_keys, reference_sorted(keys, false), "keys");
  expect_values_name_their_keys(sorted_keys, moved_values, keys);
  EXPECT_EQ(allocator.allocations, 1);  // one up-front allocation
  EXPECT_EQ(allocator.deallocations, 1);
  EXPECT_EQ(allocator.last_stream, stream);
  cudaFreeHost(host_keys);
  cudaFreeHost(host_values);
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

TEST_F(MergeApi, AllocationFailureLeavesTheInputExactlyAsItWas) {
  const auto keys = random_u32(100000, 5);
  std::vector<std::uint32_t> values(keys.size(), 17);
  device_array<std::uint32_t> device_keys(keys), device_values(values);
  refusing_allocator allocator;
  EXPECT_THROW(gpusort::sort_by_key(gpusort::merge.with_allocator(allocator), device_keys.begin(),
                                    device_keys.end(), device_values.begin()),
               gpusort::error);
  EXPECT_EQ(device_keys.to_host(), keys);
  EXPECT_EQ(device_values.to_host(), values);
}

}  // namespace
}  // namespace gpusort::test
