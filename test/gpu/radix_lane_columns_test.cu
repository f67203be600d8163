// The up-front histogram counted in lane columns (backends/radix/digit_counters.cuh): taken
// where the device's blocks hold them; the radix order at every edge size with the columns
// from the first key; the built-in tuning past its small grid in both orders; and 8-byte
// keys' 16-bit counters added out before one overflows. The large inputs are made and checked
// on the device (test/support/device_checks.cuh): the output is in order and has the input's
// multiset fingerprint.
#include "../support/device_checks.cuh"
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpusort::test {
namespace {

namespace radix = gpusort::backends::radix;
using sm90 = radix_tuning_sm90;

// The built-in tuning without its small grid: the lane columns count from the first key.
struct lane_columns_from_one_key {
  static constexpr radix_knobs knobs = [] {
    radix_knobs k = sm90::knobs;
    k.histogram_small_blocks_per_sm = 0;
    return k;
  }();
};

template <class Key>
class RadixLaneColumns : public GpuTest {};
using IntegerKeys = ::testing::Types<std::uint32_t, std::int32_t, std::uint64_t, std::int64_t>;
TYPED_TEST_SUITE(RadixLaneColumns, IntegerKeys);

TYPED_TEST(RadixLaneColumns, TakenWhereTheDeviceBlocksHoldThem) {
  using Key = TypeParam;
  static_assert(radix::may_count_in_lane_columns<sm90, Key>);
  using counters = radix::histogram_counters_t<sm90, Key, true>;
  const bool holds = sizeof(counters) <= std::size_t(device_attribute(
                                             cudaDevAttrMaxSharedMemoryPerBlockOptin));
  EXPECT_EQ((radix::counts_in_lane_columns<sm90, Key>()), holds);
  if (device_attribute(cudaDevAttrComputeCapabilityMajor) == 9)
    EXPECT_TRUE(holds) << "an sm_90 block holds " << sizeof(counters) << " bytes";
}

TYPED_TEST(RadixLaneColumns, KeysMatchStdStableSortAtEveryEdgeSize) {
  sweep_keys<TypeParam>(gpusort::radix_policy<lane_columns_from_one_key>{});
}

TYPED_TEST(RadixLaneColumns, PairsMatchStdStableSortAtEveryEdgeSize) {
  sweep_pairs<TypeParam>(gpusort::radix_policy<lane_columns_from_one_key>{});
}

// Just past the small grid (the rows there) and at 2^24 + 4097: several waves of chunks per
// block, the last one partial; uniform keys and a few distinct ones (crowded digits).
TYPED_TEST(RadixLaneColumns, SortsPastTheSmallGridInBothOrders) {
  using Key = TypeParam;
  for (std::size_t n :
       capped({sm90::knobs.histogram_small_max_keys + 1, (std::size_t(1) << 24) + 4097})) {
    device_array<Key> keys(n);
    ASSERT_NE(keys.begin(), nullptr);
    for (std::uint64_t distinct : {std::uint64_t(0), std::uint64_t(5)})
      for (bool descending : {false, true}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", distinct " + std::to_string(distinct) +
                     (descending ? ", descending" : ", ascending"));
        fill_keys_on_device(keys.begin(), n, 2026 + n, distinct);
        expect_sorts_on_device(gpusort::radix_policy<sm90>{}, keys.begin(), n, descending);
        if (::testing::Test::HasFailure()) return;
      }
  }
}

// 127 of every 128 keys one value, the rest a larger one that differs from it in every byte:
// each pass, one digit takes nearly every key of every lane.
__global__ void fill_one_heavy_value(std::uint64_t* keys, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    keys[i] = i % 128 == 77 ? 0xf1e2d3c4b5a69788ull : 0x0102030405060708ull;
}

// A lane's 16-bit counter of the heavy value's digit would pass 65535 long before a block has
// counted its share, unless the block adds its counters out in time: without that the larger
// value's digit starts fall short and its keys overwrite the heavy ones.
TEST(RadixLaneColumnsHuge, SixteenBitCountersAddedOutBeforeTheyOverflow) {
  if (!gpu_present()) GTEST_SKIP() << "no CUDA GPU here";
  using Key = std::uint64_t;
  using counters = radix::histogram_counters_t<sm90, Key, true>;
  static_assert(counters::counter_bits == 16);
  if (!radix::counts_in_lane_columns<sm90, Key>())
    GTEST_SKIP() << "this device's blocks do not hold the lane columns";
  const std::size_t n = std::size_t(3) << 27;
  if (!device_has_free(2 * n * sizeof(Key) + (std::size_t(1) << 30)))
    GTEST_SKIP() << "device memory too small for " << n << " keys";
  // One block per SM, as the columns' 128 KB allow: the heavy digit's adds to one lane's
  // counter over a block's share, which must pass a 16-bit counter's limit.
  constexpr int threads = radix::histogram_threads<sm90, true>;
  constexpr int items = sm90::knobs.histogram_items_per_thread;
  const std::size_t chunk = std::size_t(threads) * items;
  const std::size_t blocks = std::size_t(device_attribute(cudaDevAttrMultiProcessorCount));
  const std::size_t chunks_per_block = (n + blocks * chunk - 1) / (blocks * chunk);
  const std::size_t heavy_adds_per_lane = chunks_per_block * (threads / 32) * items * 127 / 128;
  ASSERT_GT(heavy_adds_per_lane, 65535u)
      << "too few keys per block on this device to take a 16-bit counter past its limit";

  device_array<Key> keys(n);
  ASSERT_NE(keys.begin(), nullptr);
  fill_one_heavy_value<<<1024, 256>>>(keys.begin(), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  expect_sorts_on_device(gpusort::radix_policy<sm90>{}, keys.begin(), n, false);
}

}  // namespace
}  // namespace gpusort::test
