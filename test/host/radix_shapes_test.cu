// The one-sweep tile of every key and value type fits the GPU it is tuned for: shared
// memory per block (static up to 48 KB, dynamic beyond) times the blocks per SM the
// register budget promises, within the SM's 227 KB. Checked on the host: a shape that does
// not fit would otherwise only show as a launch failure or a silent loss of occupancy.
#include <gpusort/detail/backends/common/kernel_setup.cuh>
#include <gpusort/detail/backends/radix/cluster_dispatch.cuh>
#include <gpusort/detail/backends/radix/kernels.cuh>
#include <gpusort/detail/backends/radix/large_input_tile.cuh>
#include <gpusort/detail/policies/tuning/sm90.cuh>

#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <climits>
#include <cstddef>
#include <cstdint>

namespace radix = gpusort::backends::radix;
using gpusort::no_values;
using gpusort::backends::dynamic_shared_bytes;
using gpusort::backends::static_shared_limit;

namespace {

constexpr std::size_t sm90_shared_per_multiprocessor = 227 * 1024;
constexpr std::size_t sm90_shared_per_block = 227 * 1024;

template <class Key, class Value, class Tuning = gpusort::radix_tuning_sm90>
void expect_tile_fits() {
  using tile = radix::onesweep_tile<Tuning, Key, Value>;
  using shape = typename tile::shape;
  using storage = typename tile::storage_t;
  SCOPED_TRACE(testing::Message() << sizeof(Key) << "-byte keys, " << sizeof(Value)
                                  << "-byte values, " << shape::items_per_thread
                                  << " items per thread");
  EXPECT_GE(shape::items_per_thread, 1);
  EXPECT_LE(sizeof(storage), sm90_shared_per_block);
  // The same shapes run on every GPU: within the smallest block opt-in (sm_75's 64 KB), but
  // for a tile taken only where the device is found to hold it (the large-input tiles).
  if (!radix::shared_bytes_checked_on_device<Tuning>)
    EXPECT_LE(sizeof(storage), std::size_t(gpusort::backends::every_gpu_shared_bytes));
  EXPECT_LE(sizeof(storage) * shape::onesweep_blocks, sm90_shared_per_multiprocessor);
  // Dynamic shared memory exactly when the static limit would be exceeded.
  EXPECT_EQ(dynamic_shared_bytes<storage> > 0, sizeof(storage) > static_shared_limit);
  // Every tile's keys (and values) fit the exchange the tuning allows.
  EXPECT_LE(std::size_t(shape::tile_items) * std::size_t(shape::item_bytes),
            std::size_t(shape::exchange_bytes));
  if (shape::values_beside_keys) {
    EXPECT_EQ(shape::item_bytes, int(sizeof(Key) + sizeof(Value)));
    EXPECT_FALSE(shape::keeps_digits) << "the scatter recomputes the digit from the key";
  }
}

}  // namespace

TEST(RadixShapes, KeysOnlyTilesFitTheSharedMemoryOfAnSm90) {
  expect_tile_fits<std::uint8_t, no_values>();
  expect_tile_fits<std::uint16_t, no_values>();
  expect_tile_fits<__half, no_values>();
  expect_tile_fits<std::uint32_t, no_values>();
  expect_tile_fits<float, no_values>();
  expect_tile_fits<std::uint64_t, no_values>();
  expect_tile_fits<double, no_values>();
}

TEST(RadixShapes, PairTilesFitTheSharedMemoryOfAnSm90) {
  expect_tile_fits<std::uint8_t, std::uint32_t>();
  expect_tile_fits<std::uint16_t, std::uint32_t>();
  expect_tile_fits<std::uint32_t, std::uint32_t>();
  expect_tile_fits<std::int32_t, std::uint32_t>();
  expect_tile_fits<float, std::uint64_t>();
  expect_tile_fits<std::uint64_t, std::uint32_t>();
  expect_tile_fits<std::uint64_t, std::uint64_t>();
  expect_tile_fits<double, double>();
}

// Values beside the keys only where the whole tile fits, never at the cost of items per
// thread, and never for keys whose digits may come from sort bits (floats).
TEST(RadixShapes, PairsOfIntegerKeysStageTheirValuesBesideTheKeysWhereTheTileFits) {
  using sm90 = gpusort::radix_tuning_sm90;
  using u32_pairs = radix::radix_shape<sm90, std::uint32_t, std::uint32_t>;
  EXPECT_TRUE(u32_pairs::values_beside_keys);
  EXPECT_EQ(u32_pairs::items_per_thread, sm90::knobs.items_per_thread_with_values);
  EXPECT_TRUE((radix::radix_shape<sm90, std::int32_t, std::uint32_t>::values_beside_keys));
  EXPECT_TRUE((radix::radix_shape<sm90, std::uint8_t, std::uint32_t>::values_beside_keys));
  EXPECT_FALSE((radix::radix_shape<sm90, std::uint64_t, std::uint32_t>::values_beside_keys));
  EXPECT_FALSE((radix::radix_shape<sm90, float, std::uint32_t>::values_beside_keys));
  EXPECT_FALSE((radix::radix_shape<sm90, std::uint32_t, no_values>::values_beside_keys));
  // Pairs whose values take the keys' place carry their digits in registers, not shared
  // memory, and keep the tile shape they were measured with (a byte an item counted).
  using u64_pairs = radix::radix_shape<sm90, std::uint64_t, std::uint32_t>;
  EXPECT_FALSE(u64_pairs::keeps_digits);
  EXPECT_EQ(u64_pairs::items_per_thread, 17);
  EXPECT_TRUE((radix::radix_shape<sm90, float, std::uint32_t>::keeps_digits));
}

// The look-back width of keys-only sorts and of pairs each from its own knob; the tilings for
// mid sizes give pairs the keys' width.
TEST(RadixShapes, KeysAndPairsTakeTheirOwnLookBackWidth) {
  using sm90 = gpusort::radix_tuning_sm90;
  using mid = gpusort::radix_tuning_mid_tiles_sm90;
  EXPECT_EQ((radix::radix_shape<sm90, std::uint32_t, no_values>::look_back_width),
            sm90::knobs.look_back_width);
  EXPECT_EQ((radix::radix_shape<sm90, std::uint32_t, std::uint32_t>::look_back_width),
            sm90::knobs.look_back_width_with_values);
  EXPECT_EQ((radix::radix_shape<mid, std::uint64_t, std::uint32_t>::look_back_width),
            sm90::knobs.look_back_width);
  EXPECT_NE(sm90::knobs.look_back_width, sm90::knobs.look_back_width_with_values);
}

// The large-input tiles of keys look back by their own width where the tuning gives one, and
// by the ordinary tiles' where it leaves it 0.
struct large_input_width_unset final {
  static constexpr gpusort::radix_knobs knobs = [] {
    auto k = gpusort::radix_tuning_sm90::knobs;
    k.large_input_look_back_width = 0;
    return k;
  }();
};

TEST(RadixShapes, LargeInputTilesTakeTheirOwnLookBackWidth) {
  using sm90 = gpusort::radix_tuning_sm90;
  using large_u64 = radix::large_input_tuning<sm90, std::uint64_t>;
  using large_unset = radix::large_input_tuning<large_input_width_unset, std::uint32_t>;
  EXPECT_EQ((radix::radix_shape<large_u64, std::uint64_t, no_values>::look_back_width),
            sm90::knobs.large_input_look_back_width);
  EXPECT_NE(sm90::knobs.large_input_look_back_width, sm90::knobs.look_back_width);
  EXPECT_EQ((radix::radix_shape<large_unset, std::uint32_t, no_values>::look_back_width),
            sm90::knobs.look_back_width);
}

TEST(RadixShapes, WideTilesTakeDynamicSharedMemoryAndNarrowOnesDoNot) {
  using narrow = radix::onesweep_tile<gpusort::radix_tuning_sm90, std::uint32_t, no_values>;
  using wide = radix::onesweep_tile<gpusort::radix_tuning_sm90, std::uint64_t, std::uint32_t>;
  EXPECT_EQ(dynamic_shared_bytes<narrow::storage_t>, 0);
  EXPECT_GT(dynamic_shared_bytes<wide::storage_t>, 0);
}

// The large-input tiles (large_input_tile.cuh) are compiled only where they give a tile more
// keys: keys only but for narrow keys (counted at such sizes), pairs only of 4-byte integer
// keys with 4-byte values beside them; never for par's small and mid tiles. Each fits an
// sm_90 SM as many times as its blocks per SM.
template <class Key>
using large_input = radix::large_input_tuning<gpusort::radix_tuning_sm90, Key>;

TEST(RadixShapes, LargeInputTilesWidenKeysOnlyTilesAndU32SizedPairs) {
  using sm90 = gpusort::radix_tuning_sm90;
  EXPECT_TRUE((radix::has_large_input_tile<sm90, std::uint32_t, no_values>()));
  EXPECT_TRUE((radix::has_large_input_tile<sm90, std::int32_t, no_values>()));
  EXPECT_TRUE((radix::has_large_input_tile<sm90, float, no_values>()));
  EXPECT_TRUE((radix::has_large_input_tile<sm90, std::uint64_t, no_values>()));
  EXPECT_TRUE((radix::has_large_input_tile<sm90, std::int64_t, no_values>()));
  EXPECT_TRUE((radix::has_large_input_tile<sm90, double, no_values>()));
  EXPECT_FALSE((radix::has_large_input_tile<sm90, std::uint16_t, no_values>()));
  EXPECT_FALSE((radix::has_large_input_tile<sm90, __half, no_values>()));
  EXPECT_TRUE((radix::has_large_input_tile<sm90, std::uint32_t, std::uint32_t>()));
  EXPECT_TRUE((radix::has_large_input_tile<sm90, std::int32_t, std::uint32_t>()));
  EXPECT_TRUE((radix::has_large_input_tile<sm90, std::uint32_t, float>()));
  EXPECT_FALSE((radix::has_large_input_tile<sm90, float, std::uint32_t>()));
  EXPECT_FALSE((radix::has_large_input_tile<sm90, std::uint32_t, std::uint64_t>()));
  EXPECT_FALSE((radix::has_large_input_tile<sm90, std::uint16_t, std::uint32_t>()));
  EXPECT_FALSE((radix::has_large_input_tile<sm90, std::uint64_t, std::uint32_t>()));
  EXPECT_FALSE((radix::has_large_input_tile<sm90, double, double>()));
  EXPECT_FALSE((radix::has_large_input_tile<gpusort::radix_tuning_mid_tiles_sm90, std::uint32_t,
                                            std::uint32_t>()));
  EXPECT_FALSE((radix::has_large_input_tile<gpusort::radix_tuning_mid_tiles_sm90, std::uint32_t,
                                            no_values>()));
  EXPECT_FALSE((radix::has_large_input_tile<gpusort::radix_tuning_small_tiles_sm90, double,
                                            no_values>()));
  EXPECT_GT((radix::radix_shape<large_input<std::uint32_t>, std::uint32_t>::items_per_thread),
            (radix::radix_shape<sm90, std::uint32_t>::items_per_thread));
  EXPECT_GT((radix::radix_shape<large_input<float>, float>::items_per_thread),
            (radix::radix_shape<sm90, float>::items_per_thread));
  EXPECT_GT((radix::radix_shape<large_input<std::uint64_t>, std::uint64_t>::items_per_thread),
            (radix::radix_shape<sm90, std::uint64_t>::items_per_thread));
  EXPECT_GT((radix::radix_shape<large_input<double>, double>::items_per_thread),
            (radix::radix_shape<sm90, double>::items_per_thread));
  using pairs_large =
      radix::radix_shape<large_input<std::uint32_t>, std::uint32_t, std::uint32_t>;
  EXPECT_GT(pairs_large::items_per_thread,
            (radix::radix_shape<sm90, std::uint32_t, std::uint32_t>::items_per_thread));
  EXPECT_TRUE(pairs_large::values_beside_keys);
  EXPECT_TRUE((radix::onesweep_tile<large_input<std::uint32_t>, std::uint32_t,
                                    std::uint32_t>::reads_pairs_when_staged));
  // 4-byte floats as many keys per thread as 4-byte integers, their kept digits beside them;
  // 8-byte keys their own, smaller exchange.
  EXPECT_EQ((radix::radix_shape<large_input<float>, float>::items_per_thread),
            (radix::radix_shape<large_input<std::uint32_t>, std::uint32_t>::items_per_thread));
  EXPECT_TRUE((radix::radix_shape<large_input<float>, float>::keeps_digits));
  EXPECT_LT((radix::radix_shape<large_input<double>, double>::exchange_bytes),
            (radix::radix_shape<large_input<float>, float>::exchange_bytes));
  // Floats from their own, larger size.
  EXPECT_GE((radix::large_input_min_keys<sm90, float>()),
            (radix::large_input_min_keys<sm90, std::uint32_t>()));
  expect_tile_fits<std::uint32_t, no_values, large_input<std::uint32_t>>();
  expect_tile_fits<float, no_values, large_input<float>>();
  expect_tile_fits<std::uint64_t, no_values, large_input<std::uint64_t>>();
  expect_tile_fits<double, no_values, large_input<double>>();
  expect_tile_fits<std::uint32_t, std::uint32_t, large_input<std::uint32_t>>();
  expect_tile_fits<std::int32_t, std::uint32_t, large_input<std::int32_t>>();
}

TEST(RadixShapes, ParsSmallTilesFitTheSharedMemoryOfAnSm90) {
  using small_tiles = gpusort::radix_tuning_small_tiles_sm90;
  expect_tile_fits<std::uint32_t, no_values, small_tiles>();
  expect_tile_fits<std::uint64_t, no_values, small_tiles>();
  expect_tile_fits<std::uint32_t, std::uint32_t, small_tiles>();
  expect_tile_fits<std::uint64_t, std::uint64_t, small_tiles>();
  expect_tile_fits<double, double, small_tiles>();
}

// par's tiles for 4-byte pairs (512 x 12): two of them per SM, as their blocks per SM say, and
// no large-input tile (they run at about 2^21.5-2^22 only).
TEST(RadixShapes, ParsPairTilesFitTwicePerSm90AndHaveNoLargeInputTile) {
  using pair_tiles = gpusort::radix_tuning_pair_tiles_sm90;
  static_assert(pair_tiles::knobs.onesweep_blocks_per_multiprocessor_with_values == 2);
  expect_tile_fits<std::uint32_t, std::uint32_t, pair_tiles>();
  expect_tile_fits<float, std::uint32_t, pair_tiles>();
  expect_tile_fits<std::uint32_t, no_values, pair_tiles>();
  EXPECT_EQ((radix::radix_shape<pair_tiles, std::uint32_t, std::uint32_t>::tile_items),
            512u * 12u);
  EXPECT_FALSE((radix::has_large_input_tile<pair_tiles, std::uint32_t, std::uint32_t>()));
}

// The cluster sort runs only where the device and the kernel as loaded say it can; par falls
// back to its other strategies elsewhere.
TEST(ClusterSortAvailability, FromTheDeviceAndTheKernelAsLoaded) {
  using gpusort::backends::cluster_sort_runs_on;
  cudaFuncAttributes sm90_code{};
  sm90_code.ptxVersion = 90;
  sm90_code.binaryVersion = 90;
  cudaFuncAttributes jit_of_compute_80 = sm90_code;  // compute_80 PTX made sm_90 code
  jit_of_compute_80.ptxVersion = 80;
  cudaFuncAttributes sm120_code = sm90_code;
  sm120_code.ptxVersion = sm120_code.binaryVersion = 120;
  constexpr std::size_t storage = 200 * 1024;
  EXPECT_TRUE(cluster_sort_runs_on(9, sm90_code, 227 * 1024, storage));    // H100, H200
  EXPECT_TRUE(cluster_sort_runs_on(10, sm90_code, 227 * 1024, storage));   // B200 from PTX
  EXPECT_FALSE(cluster_sort_runs_on(9, jit_of_compute_80, 227 * 1024, storage));
  EXPECT_FALSE(cluster_sort_runs_on(12, sm120_code, 99 * 1024, storage));  // RTX 50xx
  EXPECT_TRUE(cluster_sort_runs_on(12, sm120_code, 99 * 1024, 64 * 1024));
  EXPECT_FALSE(cluster_sort_runs_on(8, sm90_code, 163 * 1024, storage));   // A100
}

// A tuning turns a large-input tile off by leaving its exchange at 0 as well as its item
// count: a user's tuning that sets only the item counts compiles, with no large tile for the
// keys whose exchange it leaves out (each check below named a zero exchange's shape before).
struct large_items_without_wide_key_exchange {
  static constexpr gpusort::radix_knobs knobs = [] {
    auto k = gpusort::radix_tuning_sm90::knobs;
    k.large_input_wide_key_exchange_bytes = 0;
    k.large_input_exchange_bytes_with_values = 0;
    return k;
  }();
};
struct large_items_without_any_exchange {
  static constexpr gpusort::radix_knobs knobs = [] {
    auto k = large_items_without_wide_key_exchange::knobs;
    k.large_input_exchange_bytes = 0;
    return k;
  }();
};

TEST(RadixShapes, LargeInputTileWithoutExchangeIsOff) {
  using wide_off = large_items_without_wide_key_exchange;
  using all_off = large_items_without_any_exchange;
  EXPECT_GT(wide_off::knobs.large_input_items_per_thread, 0);
  EXPECT_GT(wide_off::knobs.large_input_items_per_thread_with_values, 0);
  EXPECT_TRUE((radix::has_large_input_tile<wide_off, std::uint32_t, no_values>()));
  EXPECT_TRUE((radix::has_large_input_tile<wide_off, float, no_values>()));
  EXPECT_FALSE((radix::has_large_input_tile<wide_off, std::uint64_t, no_values>()));
  EXPECT_FALSE((radix::has_large_input_tile<wide_off, double, no_values>()));
  EXPECT_FALSE((radix::has_large_input_tile<wide_off, std::uint32_t, std::uint32_t>()));
  EXPECT_FALSE((radix::has_large_input_tile<all_off, std::uint32_t, no_values>()));
  EXPECT_FALSE((radix::has_large_input_tile<all_off, float, no_values>()));
}

// The up-front histogram's lane columns (digit_counters.cuh): 32-bit counters where a block's
// columns fit 128 KB (keys of up to 4 bytes), else 16-bit ones two to a word (8-byte keys),
// added out before any 16-bit counter could overflow; both within sm_90's block.
TEST(RadixShapes, HistogramLaneColumnsFitAndNeverOverflow) {
  using tuning = gpusort::radix_tuning_sm90;
  using u32_columns = radix::histogram_counters_t<tuning, std::uint32_t, true>;
  using u64_columns = radix::histogram_counters_t<tuning, std::uint64_t, true>;
  using u16_columns = radix::histogram_counters_t<tuning, std::uint16_t, true>;
  EXPECT_EQ(u32_columns::counter_bits, 32);
  EXPECT_EQ(u16_columns::counter_bits, 32);
  EXPECT_EQ(u64_columns::counter_bits, 16);
  EXPECT_EQ(sizeof(u32_columns), std::size_t(radix::lane_columns_most_bytes));
  EXPECT_EQ(sizeof(u64_columns), std::size_t(radix::lane_columns_most_bytes));
  EXPECT_LE(sizeof(u64_columns), sm90_shared_per_block);
  // A block adds at most one per warp and item to a counter each chunk.
  constexpr int threads = radix::histogram_threads<tuning, true>;
  constexpr int warps = threads / 32;
  constexpr int items = tuning::knobs.histogram_items_per_thread;
  constexpr int chunks = u64_columns::chunks_before_full(warps, items);
  EXPECT_GT(chunks, 0);
  EXPECT_LE(chunks * warps * items, 65535);
  EXPECT_GT((chunks + 1) * warps * items, 65535);
  EXPECT_EQ(u32_columns::chunks_before_full(warps, items), INT_MAX);
  // The rows, in blocks of the passes' size, are never full either.
  using u64_rows = radix::histogram_counters_t<tuning, std::uint64_t, false>;
  EXPECT_EQ(u64_rows::chunks_before_full(warps, items), INT_MAX);
  EXPECT_EQ((radix::histogram_threads<tuning, false>), tuning::knobs.block_threads);
}
