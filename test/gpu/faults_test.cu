// Bad input: each case gets a clear gpusort::error and leaves the data as it was, or (managed
// memory, sizes 0 and 1, comparators that are no strict weak ordering) a documented result.
#include "../support/gpu.cuh"
#include "../support/device_checks.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <thrust/host_vector.h>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace gpusort::test {
namespace {

class Faults : public GpuTest {};

// Runs `sort_call`, which must throw a gpusort::error whose message contains `expected`.
template <class SortCall>
void expect_error_mentioning(const std::string& expected, SortCall sort_call) {
  try {
    sort_call();
    ADD_FAILURE() << "expected a gpusort::error mentioning \"" << expected << "\"";
  } catch (const gpusort::error& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the error left CUDA state behind";
}

std::vector<std::uint32_t> random_u32(std::size_t n, std::uint64_t seed) {
  return make_keys<std::uint32_t>(n, distribution::uniform, seed);
}

TEST_F(Faults, HostIteratorsAreRejectedAndLeftAlone) {
  std::vector<std::uint32_t> keys = random_u32(5000, 1);
  thrust::host_vector<std::uint32_t> host_keys(keys.begin(), keys.end());
  const std::vector<std::uint32_t> before = keys;
  expect_error_mentioning("host memory", [&] { gpusort::sort(gpusort::par, keys.begin(), keys.end()); });
  expect_error_mentioning("host memory", [&] {
    gpusort::stable_sort(gpusort::merge, host_keys.begin(), host_keys.end());
  });
  EXPECT_EQ(keys, before);
  EXPECT_TRUE(std::equal(host_keys.begin(), host_keys.end(), before.begin()));

  // Device keys with host values: rejected before the keys are touched.
  device_array<std::uint32_t> device_keys(before);
  std::vector<std::uint32_t> values(before.size(), 7);
  expect_error_mentioning("the value range is in host memory", [&] {
    gpusort::sort_by_key(gpusort::radix, device_keys.begin(), device_keys.end(), values.begin());
  });
  EXPECT_EQ(device_keys.to_host(), before);
}

TEST_F(Faults, ALastBeforeItsFirstIsRejected) {
  const auto keys = random_u32(1000, 2);
  device_array<std::uint32_t> device(keys);
  expect_error_mentioning("last precedes its first", [&] {
    gpusort::sort(gpusort::par, device.begin() + 10, device.begin());
  });
  expect_error_mentioning("last precedes its first", [&] {
    gpusort::sort_by_key(gpusort::merge, device.end(), device.begin(), device.begin());
  });
  EXPECT_EQ(device.to_host(), keys);
}

TEST_F(Faults, OverlappingKeysAndValuesAreRejectedEitherWay) {
  const auto keys = random_u32(1000, 3);
  device_array<std::uint32_t> device(keys);
  // Values start inside the keys, and keys start inside the values.
  expect_error_mentioning("overlap", [&] {
    gpusort::sort_by_key(gpusort::par, device.begin(), device.begin() + 600, device.begin() + 599);
  });
  expect_error_mentioning("overlap", [&] {
    gpusort::stable_sort_by_key(gpusort::merge, device.begin() + 400, device.end(), device.begin());
  });
  EXPECT_EQ(device.to_host(), keys);
}

TEST_F(Faults, SizesZeroAndOneTakeNullPointers) {
  std::uint32_t* none = nullptr;
  float* no_values = nullptr;
  gpusort::sort(gpusort::par, none, none);
  gpusort::sort(gpusort::radix, none, none + 1);
  gpusort::stable_sort(gpusort::merge, none, none + 1, gpusort::greater<>{});
  gpusort::sort(gpusort::bucket_bitonic, none, none);
  gpusort::sort_by_key(gpusort::par, none, none + 1, no_values);
  gpusort::stable_sort_by_key(gpusort::merge, none, none, no_values);
  gpusort::sort_by_key(gpusort::bucket_bitonic, none, none + 1, no_values);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// Managed memory is accepted (documented): every policy sorts it.
TEST_F(Faults, ManagedMemorySortsWithEveryPolicy) {
  const std::size_t n = 300007;
  const auto keys = random_u32(n, 4);
  const auto expected = reference_sorted(keys, false);
  std::uint32_t* managed = nullptr;
  std::uint32_t* managed_values = nullptr;
  GPUSORT_TEST_CUDA(cudaMallocManaged(&managed, n * sizeof(std::uint32_t)));
  GPUSORT_TEST_CUDA(cudaMallocManaged(&managed_values, n * sizeof(std::uint32_t)));
  const auto sorts_managed = [&](const char* name, auto sort_call) {
    std::copy(keys.begin(), keys.end(), managed);
    for (std::size_t i = 0; i < n; ++i) managed_values[i] = std::uint32_t(i);
    sort_call();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << name;
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), managed)) << name;
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(keys[managed_values[i]], managed[i]) << name << ": value away from its key at " << i;
  };
  sorts_managed("par", [&] { gpusort::sort_by_key(gpusort::par, managed, managed + n, managed_values); });
  sorts_managed("radix", [&] {
    gpusort::stable_sort_by_key(gpusort::radix, managed, managed + n, managed_values);
  });
  sorts_managed("merge", [&] {
    gpusort::stable_sort_by_key(gpusort::merge, managed, managed + n, managed_values);
  });
  sorts_managed("bucket_bitonic", [&] {
    gpusort::sort_by_key(gpusort::bucket_bitonic, managed, managed + n, managed_values);
  });
  cudaFree(managed);
  cudaFree(managed_values);
}

TEST_F(Faults, RangesAndStreamsOfAnotherDeviceAreRejected) {
  int devices = 0;
  GPUSORT_TEST_CUDA(cudaGetDeviceCount(&devices));
  if (devices < 2) GTEST_SKIP() << "needs two GPUs";
  const auto keys = random_u32(10000, 5);
  GPUSORT_TEST_CUDA(cudaSetDevice(1));
  cudaStream_t stream_of_1;
  GPUSORT_TEST_CUDA(cudaStreamCreate(&stream_of_1));
  device_array<std::uint32_t> on_1(keys);
  GPUSORT_TEST_CUDA(cudaSetDevice(0));
  device_array<std::uint32_t> on_0(keys);

  expect_error_mentioning("the key range is on device 1", [&] {
    gpusort::sort(gpusort::radix, on_1.begin(), on_1.end());
  });
  expect_error_mentioning("the policy's stream belongs to device 1", [&] {
    gpusort::sort(gpusort::par.on(stream_of_1), on_0.begin(), on_0.end());
  });
  EXPECT_EQ(on_0.to_host(), keys);
  GPUSORT_TEST_CUDA(cudaSetDevice(1));
  EXPECT_EQ(on_1.to_host(), keys);
  // On its own device, with its own stream, the same call works.
  gpusort::sort(gpusort::par.on(stream_of_1), on_1.begin(), on_1.end());
  EXPECT_EQ(on_1.to_host(), reference_sorted(keys, false));
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream_of_1));
  GPUSORT_TEST_CUDA(cudaSetDevice(0));
}

// ---- Comparators that are no strict weak ordering: no crash, no hang, a permutation ----

struct less_or_equal {  // not irreflexive
  __host__ __device__ bool operator()(std::uint32_t a, std::uint32_t b) const { return a <= b; }
};
struct coin_flip {  // neither asymmetric nor transitive: a hash of the pair
  __host__ __device__ bool operator()(std::uint32_t a, std::uint32_t b) const {
    return (splitmix64_mix(std::uint64_t(a) << 32 | b) & 1) != 0;
  }
};
struct rock_paper_scissors {  // a cycle: 0 < 1 < 2 < 0 on the keys' residues
  __host__ __device__ bool operator()(std::uint32_t a, std::uint32_t b) const {
    return (a % 3 + 1) % 3 == b % 3;
  }
};
struct always_true {
  __host__ __device__ bool operator()(std::uint32_t, std::uint32_t) const { return true; }
};

// Sorts pairs (key, input position) and checks the output is a permutation of the input with
// each value next to its own key; the order is unspecified.
template <bool Stable, class Policy, class Compare>
void expect_permutation_for(const Policy& policy, Compare comp, std::size_t n, std::uint64_t seed) {
  const auto keys = make_keys<std::uint32_t>(n, distribution::few_distinct, seed);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  device_array<std::uint32_t> device_keys(keys), device_values(positions);
  if constexpr (Stable)
    gpusort::stable_sort_by_key(policy, device_keys.begin(), device_keys.end(), device_values.begin(), comp);
  else
    gpusort::sort_by_key(policy, device_keys.begin(), device_keys.end(), device_values.begin(), comp);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "n=" << n;
  const auto out_keys = device_keys.to_host();
  auto out_values = device_values.to_host();
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_TRUE(out_values[i] < n && keys[out_values[i]] == out_keys[i])
        << "n=" << n << ": the value at " << i << " does not name its key";
  std::sort(out_values.begin(), out_values.end());
  EXPECT_EQ(out_values, positions) << "n=" << n << ": keys lost or duplicated";
}

// Keys only (tiles and merges that track no positions): the output holds the input's keys.
template <class Policy, class Compare>
void expect_key_permutation_for(const Policy& policy, Compare comp, std::size_t n,
                                std::uint64_t seed) {
  auto keys = make_keys<std::uint32_t>(n, distribution::uniform, seed);
  device_array<std::uint32_t> device_keys(keys);
  gpusort::sort(policy, device_keys.begin(), device_keys.end(), comp);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "n=" << n;
  auto out_keys = device_keys.to_host();
  std::sort(out_keys.begin(), out_keys.end());
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(out_keys, keys) << "n=" << n << ": keys lost or duplicated";
}

template <class Compare>
void expect_permutations_for(Compare comp) {
  // 1000, 4097 and 6001: the one-block shapes (512 x 5, x 9, x 13 keys; pairs at 6001: a
  // cluster of one-block tiles); 9001 and 30001: a cluster of one-block tiles, 60001 one of
  // ordinary tiles (sm_90), whose merges write nothing where one missed.
  for (std::size_t n : capped({2, 1000, 4097, 6001, 9001, 30001, 60001, 100003, 1000003})) {
    expect_key_permutation_for(gpusort::merge, comp, n, n + 3);
    expect_permutation_for<false>(gpusort::merge, comp, n, n);
    expect_permutation_for<true>(gpusort::merge, comp, n, n + 1);
    expect_permutation_for<true>(gpusort::par, comp, n, n + 2);  // par sends these to merge
  }
}

TEST_F(Faults, LessOrEqualComparatorGivesAPermutation) { expect_permutations_for(less_or_equal{}); }
TEST_F(Faults, CoinFlipComparatorGivesAPermutation) { expect_permutations_for(coin_flip{}); }
TEST_F(Faults, CyclicComparatorGivesAPermutation) { expect_permutations_for(rock_paper_scissors{}); }
TEST_F(Faults, AlwaysTrueComparatorGivesAPermutation) { expect_permutations_for(always_true{}); }

// The merge passes above search their splits by lanes of a warp (passes of few merge blocks,
// as every pass of these sizes); the binary search per thread that large passes take must
// keep the output a permutation too.
struct binary_split_search_tuning {
  static constexpr gpusort::merge_knobs knobs = [] {
    gpusort::merge_knobs k = gpusort::merge_tuning_sm90::knobs;
    k.lane_split_search_most_blocks = 0;
    return k;
  }();
};

// Passes of few merge blocks search their splits inside the merge kernel
// (search_and_merge_runs), where no block sees the others' splits before it writes: a pass
// whose splits disagree garbles its output, and the next pass must leave that pass's input
// as it is. 64-key tiles and 96-key merge blocks make these sizes 7 to 11 passes, every one
// but the last searched inside the merge.
struct fused_split_search_tuning {
  static constexpr gpusort::merge_knobs knobs = [] {
    gpusort::merge_knobs k = gpusort::merge_tuning_sm90::knobs;
    k.tile_threads = 32;
    k.tile_items_per_thread = 2;
    k.wide_tile_threads = 0;
    k.cluster_most_blocks = 0;
    k.one_block_threads = 32;
    k.one_block_items_per_thread = 2;
    k.merge_threads = 32;
    k.merge_items_per_thread = 3;
    k.items_per_thread_8_byte_keys = 0;
    k.lane_split_search_most_blocks = 1 << 30;
    k.fused_split_search_most_blocks = 1 << 30;
    return k;
  }();
};

TEST_F(Faults, SplitSearchesInsideTheMergeGiveAPermutation) {
  const gpusort::merge_policy<fused_split_search_tuning> fused{};
  for (std::size_t n : capped({4097, 20001, 100003})) {
    expect_key_permutation_for(fused, coin_flip{}, n, n + 8);
    expect_key_permutation_for(fused, less_or_equal{}, n, n + 9);
    expect_permutation_for<true>(fused, always_true{}, n, n + 10);
    expect_permutation_for<false>(fused, rock_paper_scissors{}, n, n + 11);
    expect_permutation_for<true>(fused, coin_flip{}, n, n + 12);
  }
}

TEST_F(Faults, BinarySplitSearchesGiveAPermutation) {
  const gpusort::merge_policy<binary_split_search_tuning> binary_search{};
  for (std::size_t n : capped({4097, 100003, 1000003})) {
    expect_key_permutation_for(binary_search, coin_flip{}, n, n + 5);
    expect_permutation_for<true>(binary_search, always_true{}, n, n + 6);
    expect_permutation_for<false>(binary_search, rock_paper_scissors{}, n, n + 7);
  }
}

}  // namespace
}  // namespace gpusort::test
