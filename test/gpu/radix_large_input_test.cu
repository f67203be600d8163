// The tiles for large inputs (backends/radix/large_input_tile.cuh), keys only and pairs of
// 4-byte integer keys with 4-byte values: the radix order bit for bit at every edge size and
// distribution, floats' kept digits and sort bits included, every value with its key; and
// each taken from its size exactly where the device holds the tuning's blocks per SM of it
// (sm_90: always).
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace gpusort::test {
namespace {

namespace radix = gpusort::backends::radix;

// The built-in tuning with the large-input tile from the first key (it starts at 2^24 or
// 2^25 keys), so that the edge sizes run through it.
struct large_input_tile_from_one_key {
  static constexpr radix_knobs knobs = [] {
    radix_knobs k = radix_tuning_sm90::knobs;
    k.large_input_min_keys = 0;
    k.large_input_min_float_keys = 0;
    k.large_input_min_keys_with_values = 0;
    return k;
  }();
};

template <class Key>
class RadixLargeInputTile : public GpuTest {};
using LargeInputKeys =
    ::testing::Types<std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t, double>;
TYPED_TEST_SUITE(RadixLargeInputTile, LargeInputKeys);

TYPED_TEST(RadixLargeInputTile, KeysMatchStdStableSortAtEveryEdgeSize) {
  if (!radix::takes_large_input_tile<large_input_tile_from_one_key, TypeParam, no_values>(1))
    std::printf("note: this device keeps the ordinary tile: the sweep runs that one\n");
  sweep_keys<TypeParam>(gpusort::radix_policy<large_input_tile_from_one_key>{});
}

// The device's own limits, against the occupancy query behind the choice: shared memory per
// block and per SM (with the runtime's reserve per block) and threads per SM for the tuning's
// blocks per SM (the kernel's register budget is that many by its launch bounds).
template <class Key, class Value>
void expect_taken_from_its_size_where_the_device_holds_it() {
  using sm90 = radix_tuning_sm90;
  using large = radix::large_input_tuning<sm90, Key>;
  using shape = radix::radix_shape<large, Key, Value>;
  using storage = typename radix::onesweep_tile<large, Key, Value>::storage_t;
  const std::size_t block_bytes =
      sizeof(storage) + std::size_t(device_attribute(cudaDevAttrReservedSharedMemoryPerBlock));
  const bool holds =
      sizeof(storage) <= std::size_t(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin)) &&
      shape::onesweep_blocks * block_bytes <=
          std::size_t(device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor)) &&
      shape::onesweep_blocks * shape::block_threads <=
          device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
  const std::size_t from = radix::large_input_min_keys<sm90, Key, Value>();
  EXPECT_EQ((radix::takes_large_input_tile<sm90, Key, Value>(from)), holds);
  EXPECT_FALSE((radix::takes_large_input_tile<sm90, Key, Value>(from - 1)));
  if (device_attribute(cudaDevAttrComputeCapabilityMajor) == 9)
    EXPECT_TRUE(holds) << "an sm_90 SM holds " << shape::onesweep_blocks << " tiles of "
                       << sizeof(storage) << " bytes";
}

TYPED_TEST(RadixLargeInputTile, TakenFromItsSizeWhereTheDeviceHoldsItsBlocksPerSm) {
  expect_taken_from_its_size_where_the_device_holds_it<TypeParam, no_values>();
}

// Pairs: keys and values both read again when staged, the values straight into their
// exchange before the look-back.
template <class Key>
class RadixLargeInputPairs : public GpuTest {};
using LargeInputPairKeys = ::testing::Types<std::uint32_t, std::int32_t>;
TYPED_TEST_SUITE(RadixLargeInputPairs, LargeInputPairKeys);

TYPED_TEST(RadixLargeInputPairs, PairsMatchStdStableSortAtEveryEdgeSize) {
  if (!radix::takes_large_input_tile<large_input_tile_from_one_key, TypeParam, std::uint32_t>(1))
    std::printf("note: this device keeps the ordinary tile: the sweep runs that one\n");
  sweep_pairs<TypeParam>(gpusort::radix_policy<large_input_tile_from_one_key>{});
}

// From the built-in tuning's own threshold, as gpusort::radix sorts them: several waves of
// tiles, every digit's look-back crossing many of them.
TYPED_TEST(RadixLargeInputPairs, PairsPastItsThresholdMatchStdStableSort) {
  using Key = TypeParam;
  const std::size_t from = radix::large_input_min_keys<radix_tuning_sm90, Key, std::uint32_t>();
  for (std::size_t n : capped({from, from + 4097}))
    for (distribution d : {distribution::uniform, distribution::few_distinct})
      for (bool descending : {false, true}) {
        expect_sorts_pairs<Key>(gpusort::radix, n, d, descending, seed_for(n, d, sizeof(Key)));
        if (::testing::Test::HasFailure()) return;
      }
}

TYPED_TEST(RadixLargeInputPairs, TakenFromItsSizeWhereTheDeviceHoldsItsBlocksPerSm) {
  expect_taken_from_its_size_where_the_device_holds_it<TypeParam, std::uint32_t>();
}

// Floats keep each staged key's digit in the large tile too: one -0.0 or NaN anywhere switches
// every pass to sort bits, and the output stays the stable radix order.
template <class Key>
class RadixLargeInputTileFloat : public GpuTest {};
using FloatKeys = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RadixLargeInputTileFloat, FloatKeys);

TYPED_TEST(RadixLargeInputTileFloat, OneSpecialKeyAnywhereSwitchesTheWholeSortToSortBits) {
  using Key = TypeParam;
  const Key specials[] = {-Key(0), std::numeric_limits<Key>::quiet_NaN(),
                          -std::numeric_limits<Key>::quiet_NaN()};
  const gpusort::radix_policy<large_input_tile_from_one_key> policy;
  for (std::size_t n : capped({30011, (std::size_t(1) << 20) + 17}))
    for (Key special : specials)
      for (std::size_t at : {std::size_t(0), n / 2 + 3, n - 1})
        for (bool descending : {false, true}) {
          std::vector<Key> keys = make_keys<Key>(n, distribution::uniform, 41 + at);
          for (Key& key : keys)
            if (key == Key(0)) key = Key(0);  // +0.0 only: the inserted key is the one special
          keys[at] = special;
          SCOPED_TRACE(describe<Key>(n, distribution::uniform, descending, 41 + at) + ", " +
                       key_text(special) + " at " + std::to_string(at));
          if (descending)
            expect_sorts_keys_by<false>(policy, keys, gpusort::greater<>{},
                                        reference_order<Key>{true}, guarantee::stable);
          else
            expect_sorts_keys_by<false>(policy, keys, gpusort::less<>{},
                                        reference_order<Key>{false}, guarantee::stable);
        }
}

}  // namespace
}  // namespace gpusort::test
