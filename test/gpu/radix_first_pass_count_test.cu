// The first one-sweep pass that counts every pass's digits itself, in place of the up-front
// histogram kernel (backends/radix/first_pass_count.cuh): taken where every tile is resident
// at once and not past that; then std::stable_sort's result at every edge size (all of them
// one wave of the mid and small tiles), every distribution (all_equal: every pass one digit;
// float_specials: -0.0 and NaNs, so that every tile switches to sort bits after the barrier)
// and both orders, keys and pairs; pass 0 with one digit, run as a copy or skipped as the
// plan says; eight sorts at once on eight streams, each a grid that waits for all its
// blocks or for its block 0; and temporary memory that is not zero to start with.
// (graph_capture_test.cu captures par at 2^20, this kernel's cooperative launch, and past one
// wave, the histogram kernel's.)
#include "../support/allocators.cuh"
#include "../support/device_checks.cuh"
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpusort::test {
namespace {

namespace radix = gpusort::backends::radix;
using mid_tiles = radix_tuning_mid_tiles_sm90;
using small_tiles = radix_tuning_small_tiles_sm90;
static_assert(radix::may_count_in_first_pass<mid_tiles> &&
              radix::may_count_in_first_pass<small_tiles>);
static_assert(!radix::may_count_in_first_pass<radix_tuning_sm90>);

template <class Key, class Value = no_values>
constexpr std::size_t mid_tile_items = radix::radix_shape<mid_tiles, Key, Value>::tile_items;

class RadixFirstPassCount : public GpuTest {};

// One block per tile up to what the device holds at once (sm_90: 2 mid tiles per SM, 132 SMs
// on the H100 and H200), none past it.
TEST_F(RadixFirstPassCount, TakenWhereEveryTileIsResident) {
  const std::size_t most = std::size_t(device_attribute(cudaDevAttrMultiProcessorCount)) *
                           mid_tiles::knobs.onesweep_blocks_per_multiprocessor;
  const std::size_t tile = mid_tile_items<std::uint32_t>;
  // A device that cannot launch cooperatively leaves every count to the histogram kernel.
  const bool cooperative = device_attribute(cudaDevAttrCooperativeLaunch) != 0;
  EXPECT_EQ((radix::first_pass_counting_grid<mid_tiles, std::uint32_t, no_values>(1)),
            cooperative ? 1u : 0u);
  EXPECT_EQ((radix::first_pass_counting_grid<mid_tiles, std::uint32_t, no_values>(
                tile * (most + 1))),
            0u);
  if (cooperative && device_attribute(cudaDevAttrComputeCapabilityMajor) == 9) {
    EXPECT_EQ((radix::first_pass_counting_grid<mid_tiles, std::uint32_t, no_values>(
                  tile * most)),
              most);
    const std::size_t pairs_tile = mid_tile_items<float, std::uint32_t>;
    EXPECT_EQ((radix::first_pass_counting_grid<mid_tiles, float, std::uint32_t>(
                  pairs_tile * 100 + 1)),
              101u);
  }
}

template <class Key>
class RadixFirstPassCountKeys : public GpuTest {};
using Keys = ::testing::Types<std::uint32_t, std::int32_t, float, std::uint64_t, double>;
TYPED_TEST_SUITE(RadixFirstPassCountKeys, Keys);

TYPED_TEST(RadixFirstPassCountKeys, MidTilesMatchStdStableSort) {
  sweep_keys<TypeParam>(gpusort::radix_policy<mid_tiles>{});
}

template <class Key>
class RadixFirstPassCountPairs : public GpuTest {};
using PairKeys = ::testing::Types<std::uint32_t, float, std::uint64_t>;
TYPED_TEST_SUITE(RadixFirstPassCountPairs, PairKeys);

TYPED_TEST(RadixFirstPassCountPairs, MidTilesMatchStdStableSort) {
  sweep_pairs<TypeParam>(gpusort::radix_policy<mid_tiles>{});
}

TEST_F(RadixFirstPassCount, SmallTilesMatchStdStableSort) {
  sweep_keys<std::uint32_t>(gpusort::radix_policy<small_tiles>{});
  sweep_keys<float>(gpusort::radix_policy<small_tiles>{});
  sweep_pairs<std::uint32_t>(gpusort::radix_policy<small_tiles>{});
}

// The counting first pass clears the histograms, counters and look-back rows itself (no
// memset before it), and so does the histogram kernel past one wave where the device
// launches it cooperatively: temporary memory handed over with every byte set must sort as
// clean memory does, through one tile, a few, a whole wave and past it (the histogram
// kernel's blocks then count several chunks each), keys, floats and pairs.
TEST_F(RadixFirstPassCount, ClearsTheTemporaryMemoryItReads) {
  const std::size_t tile = mid_tile_items<std::uint32_t>;
  const std::size_t most = std::size_t(device_attribute(cudaDevAttrMultiProcessorCount)) *
                           mid_tiles::knobs.onesweep_blocks_per_multiprocessor;
  for (unsigned char fill : {0xa5, 0xff, 0x01}) {
    dirty_allocator allocator{fill};
    const auto policy = gpusort::radix_policy<mid_tiles>{}.with_allocator(allocator);
    for (std::size_t n : capped({std::size_t(3), tile - 5, 7 * tile + 11, most * tile,
                                 most * tile + 1, 5 * most * tile + 7})) {
      SCOPED_TRACE("fill " + std::to_string(fill));
      expect_sorts_keys<std::uint32_t>(policy, n, distribution::uniform, false, n + fill);
      expect_sorts_keys<float>(policy, n, distribution::float_specials, true, n + fill + 1);
      expect_sorts_pairs<std::uint32_t>(policy, n, distribution::uniform, false, n + fill + 2);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// Every key with the same lowest byte: the first pass finds one digit there. With three
// passes moving the keys, the plan runs it anyway as a copy (so that the result ends in the
// user's buffer); with the top byte the same too, two move and the plan skips it. Every block
// of the first pass must do as that plan says.
TEST_F(RadixFirstPassCount, APassZeroOfOneDigitRunsAsThePlanSays) {
  const std::size_t tile = mid_tile_items<std::uint32_t>;
  for (std::size_t n : capped({tile + 1, (std::size_t(1) << 20) + 3}))
    for (bool top_byte_too : {false, true})
      for (bool descending : {false, true}) {
        SCOPED_TRACE("n " + std::to_string(n) +
                     (top_byte_too ? ", lowest and top byte" : ", lowest byte") +
                     (descending ? ", descending" : ", ascending"));
        std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, distribution::uniform, n);
        for (std::uint32_t& key : keys)
          key = top_byte_too ? (key & 0x00ffff00u) | 0x9100005au : (key & ~0xffu) | 0x5au;
        if (descending)
          expect_sorts_pairs_by<true>(gpusort::radix_policy<mid_tiles>{}, keys,
                                      gpusort::greater<>{}, reference_order<std::uint32_t>{true},
                                      guarantee::stable);
        else
          expect_sorts_keys_by<false>(gpusort::radix_policy<mid_tiles>{}, keys,
                                      gpusort::less<>{}, reference_order<std::uint32_t>{false},
                                      guarantee::stable);
      }
}

// Eight sorts enqueued on eight streams before any is waited for, three times, four of one
// wave and four past it: each counting first pass's barrier waits for all its blocks, and
// each histogram kernel's blocks for its block 0, whatever else holds the SMs.
TEST_F(RadixFirstPassCount, EightStreamsSortAtOnce) {
  constexpr int streams = 8;
  std::vector<cudaStream_t> stream(streams, nullptr);
  std::vector<std::size_t> begin, size;  // each stream's part of one array
  std::size_t total = 0;
  for (int s = 0; s < streams; ++s) {
    GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream[s], cudaStreamNonBlocking));
    begin.push_back(total);
    size.push_back((std::size_t(1) << (s < streams / 2 ? 20 : 22)) + 977 * std::size_t(s));
    total += size.back();
  }
  device_array<std::uint32_t> keys(total);
  ASSERT_NE(keys.begin(), nullptr);
  for (int round = 0; round < 3; ++round) {
    std::vector<multiset_fingerprint> before;
    for (int s = 0; s < streams; ++s) {
      fill_keys_on_device(keys.begin() + begin[s], size[s], 31 * round + s, s % 2 ? 1000 : 0);
      before.push_back(fingerprint_of(keys.begin() + begin[s], size[s]));
    }
    for (int s = 0; s < streams; ++s) {
      std::uint32_t* first = keys.begin() + begin[s];
      gpusort::sort(gpusort::radix_policy<mid_tiles>{}.on(stream[s]), first, first + size[s]);
    }
    GPUSORT_TEST_CUDA(cudaDeviceSynchronize());
    for (int s = 0; s < streams; ++s) {
      SCOPED_TRACE("round " + std::to_string(round) + ", stream " + std::to_string(s));
      EXPECT_EQ(first_bad_position(keys.begin() + begin[s], size[s], false), size[s]);
      EXPECT_TRUE(fingerprint_of(keys.begin() + begin[s], size[s]) == before[s]);
    }
  }
  for (cudaStream_t s : stream) GPUSORT_TEST_CUDA(cudaStreamDestroy(s));
}

}  // namespace
}  // namespace gpusort::test
