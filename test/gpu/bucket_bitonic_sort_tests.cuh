// The bucket_bitonic backend's correctness suite, written once and instantiated per key-type
// group in separate translation units (so each TU compiles a few kernels, in parallel).
//
// The backend is unstable: gpusort::sort must give a sorted permutation of the input and
// gpusort::sort_by_key must keep every value with its own key (guarantee::unstable), both
// checked against std::stable_sort on the host. Its work depends on how the keys fill
// [min, max], so besides the usual distributions it sees the skewed ones (keys.cuh).
#pragma once

#include "../support/allocators.cuh"
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

namespace gpusort::test {

// Tiny sizes; one below, at and above a sort unit and two (default tuning: integer keys 2048
// of up to 4 bytes and 1024 of 8, floats 4096 and doubles 2048); primes, so no tile comes out
// even.
inline std::vector<std::size_t> bucket_bitonic_sizes() {
  return capped({0, 1, 2, 3, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8193,
                 1009, 65521, 999983});
}

inline constexpr std::size_t two_to_the_22_plus_3 = (std::size_t(1) << 22) + 3;
inline constexpr std::size_t two_to_the_25 = std::size_t(1) << 25;

template <class Key>
std::vector<distribution> bucket_bitonic_distributions() {
  std::vector<distribution> all = distributions_for<Key>();
  for (distribution d : skewed_distributions_for<Key>()) all.push_back(d);
  return all;
}

enum class calls { sort, sort_by_key, sort_and_sort_by_key };

// One input through gpusort::sort and/or gpusort::sort_by_key, ascending (gpusort::less<>)
// and descending (gpusort::greater<>), against one std::stable_sort on the host.
template <class Key, class Policy>
void expect_sorts_both_ways(const Policy& policy, const std::vector<Key>& keys, calls which) {
  // Keys only: std::stable_sort of the keys themselves, several times faster on big inputs
  // than the order of input positions that pairs are checked with.
  stable_reference<Key> ascending;
  if (which == calls::sort)
    ascending.keys = reference_sorted_by(keys, reference_order<Key>{false});
  else
    ascending = stable_reference_of(keys, reference_order<Key>{false});
  // For a sorted permutation, the ascending result read backwards is a descending one: the
  // same runs of equivalent keys, in the opposite order. (Not std::stable_sort's descending
  // order within a run, which guarantee::unstable does not look at.)
  const stable_reference<Key> descending{{ascending.order.rbegin(), ascending.order.rend()},
                                         {ascending.keys.rbegin(), ascending.keys.rend()}};
  const auto check = [&](auto comp, const stable_reference<Key>& expected, bool is_descending) {
    SCOPED_TRACE(is_descending ? "descending" : "ascending");
    const reference_order<Key> less{is_descending};
    if (which != calls::sort_by_key) {
      SCOPED_TRACE("gpusort::sort");
      expect_sorts_keys_by<false>(policy, keys, expected.keys, comp, less, guarantee::unstable);
    }
    if (which != calls::sort) {
      SCOPED_TRACE("gpusort::sort_by_key");
      expect_sorts_pairs_by<false>(policy, keys, expected, comp, less, guarantee::unstable);
    }
  };
  check(gpusort::less<>{}, ascending, false);
  if (::testing::Test::HasFailure()) return;
  check(gpusort::greater<>{}, descending, true);
}

// Every size x distribution, both orders; stops at the first failing input (the trace names
// it: n, distribution, seed).
template <class Key, class Policy>
void sweep_bucket_bitonic(const Policy& policy, const std::vector<std::size_t>& sizes,
                          const std::vector<distribution>& distributions, calls which,
                          std::uint64_t salt) {
  for (std::size_t n : sizes)
    for (distribution d : distributions) {
      const std::uint64_t seed = seed_for(n, d, sizeof(Key)) + salt;
      SCOPED_TRACE(describe(n, d, "ascending and descending", seed, sizeof(Key)));
      expect_sorts_both_ways(policy, make_keys<Key>(n, d, seed), which);
      if (::testing::Test::HasFailure()) return;
    }
}

// Keys in a narrow band (integers: 2^-20 of the type's range, mid-range; floats: [1, 2)),
// except at the first 3000 positions that the first level's sample skips (it takes
// first_level_samples keys evenly spaced), which hold keys spread far below and far above it,
// half each. The sample sees only the band, so the first level cuts that window of the range
// (buckets.cuh: cuts_sample_window) and the keys it missed fill the window's two end buckets,
// which the levels after it cut from the whole range again: the plan's extra levels.
template <class Key>
std::vector<Key> band_and_keys_the_sample_misses(std::size_t n, std::uint64_t seed) {
  using shape = backends::bucket_bitonic::bucket_shape<bucket_bitonic_tuning_sm90, Key>;
  const std::size_t samples = shape::first_level_samples;
  std::mt19937_64 rng(seed);
  const Key top = std::numeric_limits<Key>::max();
  const auto band_key = [&]() -> Key {
    if constexpr (std::is_integral_v<Key>)
      return Key(top / 2 + rng() % (top >> 20));
    else
      return Key(1) + Key(rng() % 4096) / Key(4096);
  };
  const auto far_key = [&](bool below) -> Key {
    if constexpr (std::is_integral_v<Key>) {
      const Key band_end = top / 2 + (top >> 20);
      return below ? Key(rng() % (top / 2)) : Key(band_end + rng() % (top - band_end));
    } else {
      const Key magnitude = Key(1e4) * Key(1 + rng() % 100000);
      return below ? -magnitude : magnitude;
    }
  };
  std::vector<Key> keys(n);
  for (Key& key : keys) key = band_key();
  std::vector<bool> sampled(n, false);
  for (std::size_t s = 0; s < samples; ++s) sampled[s * n / samples] = true;
  for (std::size_t i = 0; i < n && i < 3000; ++i)
    if (!sampled[i]) keys[i] = far_key(i % 2 == 0);
  return keys;
}

template <class Key, class Policy = bucket_bitonic_policy<>>
void expect_sorts_band_and_keys_the_sample_misses(std::size_t n, const char* name,
                                                  const Policy& policy = {},
                                                  calls which = calls::sort_and_sort_by_key) {
  SCOPED_TRACE(name);
  expect_sorts_both_ways(policy, band_and_keys_the_sample_misses<Key>(n, n), which);
}

template <class Key>
class BucketBitonicSort : public GpuTest {};
TYPED_TEST_SUITE_P(BucketBitonicSort);

TYPED_TEST_P(BucketBitonicSort, SortGivesASortedPermutationOfTheInput) {
  sweep_bucket_bitonic<TypeParam>(gpusort::bucket_bitonic, bucket_bitonic_sizes(),
                                  bucket_bitonic_distributions<TypeParam>(), calls::sort, 1);
}

TYPED_TEST_P(BucketBitonicSort, SortByKeyKeepsEveryValueWithItsKey) {
  sweep_bucket_bitonic<TypeParam>(gpusort::bucket_bitonic, bucket_bitonic_sizes(),
                                  bucket_bitonic_distributions<TypeParam>(), calls::sort_by_key,
                                  2);
}

// Several partition levels and many work-list entries, in every distribution; one host
// reference per input for both calls and both orders.
TYPED_TEST_P(BucketBitonicSort, LargeInputsInEveryDistribution) {
  sweep_bucket_bitonic<TypeParam>(gpusort::bucket_bitonic, capped({two_to_the_22_plus_3}),
                                  bucket_bitonic_distributions<TypeParam>(),
                                  calls::sort_and_sort_by_key, 3);
}

// Keys only: the host reference of 2^25 keys is the slow part. zipf_like puts about 10% of
// the keys on one value: a bucket that no level can split.
TYPED_TEST_P(BucketBitonicSort, TwoToThe25UniformAndZipfLikeKeys) {
  sweep_bucket_bitonic<TypeParam>(gpusort::bucket_bitonic, capped({two_to_the_25}),
                                  {distribution::uniform, distribution::zipf_like}, calls::sort,
                                  4);
}

inline void CUDART_CB hold_stream_100ms(void*) {
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

// The input reaches the device only after a 100 ms hold on the stream: a sort enqueued
// anywhere but on that stream (a non-blocking one) would run before it and leave unsorted
// keys behind.
TYPED_TEST_P(BucketBitonicSort, WorkIsOrderedOnTheGivenStreamWithOneAllocation) {
  using Key = TypeParam;
  const std::size_t n = 300007;
  const std::vector<Key> keys = make_keys<Key>(n, distribution::uniform, 5);
  cudaStream_t stream;
  GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Key* host_keys = nullptr;  // page-locked: the copies are really asynchronous
  std::uint32_t* host_values = nullptr;
  GPUSORT_TEST_CUDA(cudaMallocHost(&host_keys, n * sizeof(Key)));
  GPUSORT_TEST_CUDA(cudaMallocHost(&host_values, n * sizeof(std::uint32_t)));
  std::copy(keys.begin(), keys.end(), host_keys);
  std::iota(host_values, host_values + n, 0u);
  device_array<Key> device_keys(std::vector<Key>(n, keys[0]));
  device_array<std::uint32_t> device_values(std::vector<std::uint32_t>(n, 0));
  GPUSORT_TEST_CUDA(cudaDeviceSynchronize());  // the placeholders are in before the hold

  GPUSORT_TEST_CUDA(cudaLaunchHostFunc(stream, hold_stream_100ms, nullptr));
  GPUSORT_TEST_CUDA(cudaMemcpyAsync(device_keys.begin(), host_keys, n * sizeof(Key),
                                    cudaMemcpyHostToDevice, stream));
  GPUSORT_TEST_CUDA(cudaMemcpyAsync(device_values.begin(), host_values,
                                    n * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream));
  counting_allocator allocator;
  gpusort::sort_by_key(gpusort::bucket_bitonic.on(stream).with_allocator(allocator),
                       device_keys.begin(), device_keys.end(), device_values.begin());
  GPUSORT_TEST_CUDA(cudaMemcpyAsync(host_keys, device_keys.begin(), n * sizeof(Key),
                                    cudaMemcpyDeviceToHost, stream));
  GPUSORT_TEST_CUDA(cudaMemcpyAsync(host_values, device_values.begin(),
                                    n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
  GPUSORT_TEST_CUDA(cudaStreamSynchronize(stream));

  const std::vector<Key> sorted_keys(host_keys, host_keys + n);
  const std::vector<std::uint32_t> moved_values(host_values, host_values + n);
  expect_sorted_permutation(sorted_keys, reference_sorted(keys, false),
                            reference_order<Key>{false}, "keys");
  expect_values_name_their_keys(sorted_keys, moved_values, keys);
  EXPECT_EQ(allocator.allocations, 1);  // one up-front allocation
  EXPECT_EQ(allocator.deallocations, 1);
  EXPECT_EQ(allocator.last_stream, stream);
  cudaFreeHost(host_keys);
  cudaFreeHost(host_values);
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

// thrust::greater<Key> is recognised as the descending order; thrust::device_vector
// iterators are contiguous device ranges. A sub-range at an odd offset leaves the rest alone.
TYPED_TEST_P(BucketBitonicSort, SortsThrustDeviceVectorIteratorsWithThrustGreater) {
  using Key = TypeParam;
  const std::size_t n = 123457, offset = 3, count = 100003;
  const std::vector<Key> keys = make_keys<Key>(n, distribution::zipf_like, 6);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  thrust::device_vector<Key> device_keys(keys.begin(), keys.end());
  thrust::device_vector<std::uint32_t> device_values(positions.begin(), positions.end());
  gpusort::sort_by_key(gpusort::bucket_bitonic, device_keys.begin() + offset,
                       device_keys.begin() + offset + count, device_values.begin() + offset,
                       thrust::greater<Key>{});
  std::vector<Key> sorted_keys(n);
  std::vector<std::uint32_t> moved_values(n);
  thrust::copy(device_keys.begin(), device_keys.end(), sorted_keys.begin());
  thrust::copy(device_values.begin(), device_values.end(), moved_values.begin());

  const std::vector<Key> range(keys.begin() + offset, keys.begin() + offset + count);
  const std::vector<Key> sorted_range(sorted_keys.begin() + offset,
                                      sorted_keys.begin() + offset + count);
  std::vector<std::uint32_t> moved_in_range(moved_values.begin() + offset,
                                            moved_values.begin() + offset + count);
  for (auto& v : moved_in_range) v -= std::uint32_t(offset);  // positions within the range
  expect_sorted_permutation(sorted_range, reference_sorted(range, true),
                            reference_order<Key>{true}, "keys");
  expect_values_name_their_keys(sorted_range, moved_in_range, range);
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= offset && i < offset + count) continue;
    ASSERT_TRUE(same_bytes(sorted_keys[i], keys[i])) << "key outside the range changed at " << i;
    ASSERT_EQ(moved_values[i], positions[i]) << "value outside the range changed at " << i;
  }
}

REGISTER_TYPED_TEST_SUITE_P(BucketBitonicSort, SortGivesASortedPermutationOfTheInput,
                            SortByKeyKeepsEveryValueWithItsKey, LargeInputsInEveryDistribution,
                            TwoToThe25UniformAndZipfLikeKeys,
                            WorkIsOrderedOnTheGivenStreamWithOneAllocation,
                            SortsThrustDeviceVectorIteratorsWithThrustGreater);

}  // namespace gpusort::test
