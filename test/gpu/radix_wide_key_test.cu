// The wide keys' larger one-sweep tile (backends/radix/wide_key_tile.cuh): the radix order
// bit for bit at every edge size and distribution, f64's kept digits and sort bits included;
// and taken exactly where the device holds the tuning's blocks per SM of it (sm_90: always).
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

// The built-in tuning with the wide-key tile from the first key (it starts at 2^24 keys), so
// that the edge sizes run through it.
struct wide_key_tile_from_one_key {
  static constexpr radix_knobs knobs = [] {
    radix_knobs k = radix_tuning_sm90::knobs;
    k.wide_key_min_keys = 0;
    return k;
  }();
};

int device_attribute(cudaDeviceAttr attribute) {
  int device = 0;
  int value = 0;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&value, attribute, device), cudaSuccess);
  return value;
}

template <class Key>
class RadixWideKeyTile : public GpuTest {};
using WideKeys = ::testing::Types<std::uint64_t, std::int64_t, double>;
TYPED_TEST_SUITE(RadixWideKeyTile, WideKeys);

TYPED_TEST(RadixWideKeyTile, KeysMatchStdStableSortAtEveryEdgeSize) {
  if (!radix::takes_wide_key_tile<wide_key_tile_from_one_key, TypeParam, no_values>(1))
    std::printf("note: this device keeps the narrower tile: the sweep runs that one\n");
  sweep_keys<TypeParam>(gpusort::radix_policy<wide_key_tile_from_one_key>{});
}

// The device's own limits, against the occupancy query behind the choice: shared memory per
// block and per SM (with the runtime's reserve per block) and threads per SM for the tuning's
// blocks per SM (the kernel's register budget is that many by its launch bounds).
TYPED_TEST(RadixWideKeyTile, TakenFromItsSizeWhereTheDeviceHoldsItsBlocksPerSm) {
  using Key = TypeParam;
  using sm90 = radix_tuning_sm90;
  using wide = radix::wide_key_tuning<sm90>;
  using shape = radix::radix_shape<wide, Key, no_values>;
  using storage = typename radix::onesweep_tile<wide, Key, no_values>::storage_t;
  const std::size_t block_bytes =
      sizeof(storage) + std::size_t(device_attribute(cudaDevAttrReservedSharedMemoryPerBlock));
  const bool holds =
      sizeof(storage) <= std::size_t(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin)) &&
      shape::onesweep_blocks * block_bytes <=
          std::size_t(device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor)) &&
      shape::onesweep_blocks * shape::block_threads <=
          device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
  const std::size_t from = sm90::knobs.wide_key_min_keys;
  EXPECT_EQ((radix::takes_wide_key_tile<sm90, Key, no_values>(from)), holds);
  EXPECT_FALSE((radix::takes_wide_key_tile<sm90, Key, no_values>(from - 1)));
  if (device_attribute(cudaDevAttrComputeCapabilityMajor) == 9)
    EXPECT_TRUE(holds) << "an sm_90 SM holds " << shape::onesweep_blocks << " tiles of "
                       << sizeof(storage) << " bytes";
}

// f64 keys keep each staged key's digit in the wide tile too: one -0.0 or NaN anywhere
// switches every pass to sort bits, and the output stays the stable radix order.
class RadixWideKeyTileFloat : public GpuTest {};

TEST_F(RadixWideKeyTileFloat, OneSpecialDoubleAnywhereSwitchesTheWholeSortToSortBits) {
  const double specials[] = {-0.0, std::numeric_limits<double>::quiet_NaN(),
                             -std::numeric_limits<double>::quiet_NaN()};
  const gpusort::radix_policy<wide_key_tile_from_one_key> policy;
  for (std::size_t n : capped({30011, (std::size_t(1) << 20) + 17}))
    for (double special : specials)
      for (std::size_t at : {std::size_t(0), n / 2 + 3, n - 1})
        for (bool descending : {false, true}) {
          std::vector<double> keys = make_keys<double>(n, distribution::uniform, 41 + at);
          for (double& key : keys)
            if (key == 0.0) key = 0.0;  // +0.0 only: the inserted key is the one special
          keys[at] = special;
          SCOPED_TRACE(describe<double>(n, distribution::uniform, descending, 41 + at) + ", " +
                       key_text(special) + " at " + std::to_string(at));
          if (descending)
            expect_sorts_keys_by<false>(policy, keys, gpusort::greater<>{},
                                        reference_order<double>{true}, guarantee::stable);
          else
            expect_sorts_keys_by<false>(policy, keys, gpusort::less<>{},
                                        reference_order<double>{false}, guarantee::stable);
        }
}

}  // namespace
}  // namespace gpusort::test
