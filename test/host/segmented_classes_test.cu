// The segmented sort's arithmetic, checked on the host: size classes, the lists' room, the
// bounds on the multi-block segments' tiles and merge blocks, the virtual block -> segment
// lookup and the buffers each pass reads; and the narrow blocks' shapes.
#include <gpusort/detail/backends/merge/merge_path.cuh>
#include <gpusort/detail/backends/segmented/classes.cuh>
#include <gpusort/detail/backends/segmented/small_block_shape.cuh>
#include <gpusort/detail/policies/tuning/sm90.cuh>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace segmented = gpusort::backends::segmented;
namespace merge = gpusort::backends::merge;

namespace {

constexpr segmented::class_limits limits{1088, 2176, 4352};

TEST(SegmentedClasses, EachSizeGoesToTheSmallestSorterThatHoldsIt) {
  EXPECT_EQ(segmented::class_of(0, limits), segmented::no_class);
  EXPECT_EQ(segmented::class_of(1, limits), segmented::no_class);
  EXPECT_EQ(segmented::class_of(2, limits), segmented::in_group_of_4);
  EXPECT_EQ(segmented::class_of(4, limits), segmented::in_group_of_4);
  EXPECT_EQ(segmented::class_of(5, limits), segmented::in_group_of_8);
  EXPECT_EQ(segmented::class_of(8, limits), segmented::in_group_of_8);
  EXPECT_EQ(segmented::class_of(9, limits), segmented::in_group_of_16);
  EXPECT_EQ(segmented::class_of(16, limits), segmented::in_group_of_16);
  EXPECT_EQ(segmented::class_of(17, limits), segmented::in_group_of_32);
  EXPECT_EQ(segmented::class_of(32, limits), segmented::in_group_of_32);
  EXPECT_EQ(segmented::class_of(33, limits), segmented::in_group_of_64);
  EXPECT_EQ(segmented::class_of(64, limits), segmented::in_group_of_64);
  EXPECT_EQ(segmented::class_of(65, limits), segmented::in_small_block);
  EXPECT_EQ(segmented::class_of(1088, limits), segmented::in_small_block);
  EXPECT_EQ(segmented::class_of(1089, limits), segmented::in_half_block);
  EXPECT_EQ(segmented::class_of(2176, limits), segmented::in_half_block);
  EXPECT_EQ(segmented::class_of(2177, limits), segmented::in_block);
  EXPECT_EQ(segmented::class_of(4352, limits), segmented::in_block);
  EXPECT_EQ(segmented::class_of(4353, limits), segmented::in_blocks);
  EXPECT_EQ(segmented::class_of(std::size_t(1) << 40, limits), segmented::in_blocks);
}

TEST(SegmentedClasses, ASingleSegmentGoesToTheMultiBlockSorterWhateverItsSize) {
  constexpr segmented::class_limits single{1088, 2176, 4352, true};
  EXPECT_EQ(segmented::class_of(1, single), segmented::no_class);
  EXPECT_EQ(segmented::class_of(2, single), segmented::in_blocks);
  EXPECT_EQ(segmented::class_of(4352, single), segmented::in_blocks);
  for (int c = 0; c < segmented::in_blocks; ++c)
    EXPECT_EQ(segmented::most_segments_of(c, 100000, 1, single), 0u) << c;
  EXPECT_EQ(segmented::most_segments_of(segmented::in_blocks, 100000, 1, single), 1u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_blocks, 1, 1, single), 0u);
}

TEST(SegmentedClasses, ListsHaveRoomForEveryWayOfCuttingTheKeys) {
  // Room is the most segments of the class that n keys can hold, and no more than there are.
  EXPECT_EQ(segmented::most_segments_of(segmented::in_group_of_4, 100, 1000, limits), 50u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_group_of_4, 100, 7, limits), 7u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_group_of_8, 100, 1000, limits), 20u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_group_of_64, 100, 1000, limits), 3u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_small_block, 200, 1000, limits), 3u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_half_block, 1089 * 3, 1000, limits), 3u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_half_block, 1088, 1000, limits), 0u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_block, 2177 * 3, 1000, limits), 3u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_block, 2176, 1000, limits), 0u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_blocks, 4352, 1000, limits), 0u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_blocks, 4353 * 2, 1000, limits), 2u);
  // Random cuttings never need more room than that.
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = random() % 100000;
    std::vector<std::size_t> count(segmented::class_count, 0);
    std::size_t segments = 0;
    for (std::size_t left = n; left > 0; ++segments) {
      const std::size_t most = std::size_t(1) << (random() % 15);
      const std::size_t size = std::min(left, random() % (most + 1));
      left -= size;
      const int cls = segmented::class_of(size, limits);
      if (cls != segmented::no_class) ++count[cls];
    }
    for (int c = 0; c < segmented::class_count; ++c)
      EXPECT_LE(count[c], segmented::most_segments_of(c, n, segments, limits));
  }
}

TEST(SegmentedClasses, HostBoundsCoverEveryMultiBlockSegmentsTilesAndMergeBlocks) {
  constexpr int tile = 4352;
  constexpr int chunk = 2176;
  std::mt19937_64 random(11);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 4353 + random() % 3000000;
    std::vector<std::size_t> sizes;
    for (std::size_t left = n; left > tile;) {
      // Sizes just above a tile or a run width are the worst case for the bounds.
      const std::size_t size =
          std::min(left, trial % 3 == 0 ? std::size_t(tile) + 1 + random() % 64
                                        : std::size_t(tile) + 1 + random() % (n / 2 + 1));
      sizes.push_back(size);
      left -= size;
    }
    std::size_t tiles = 0;
    for (std::size_t size : sizes) tiles += gpusort::backends::tile_count(size, tile);
    EXPECT_LE(tiles, segmented::most_multi_block_tiles(n, tile));
    const int passes = merge::merge_pass_count(n, tile);
    for (int pass = 0; pass < passes + 2; ++pass) {
      std::size_t blocks = 0;
      for (std::size_t size : sizes)
        blocks += segmented::merge_blocks_of_segment(size, tile, pass, chunk);
      EXPECT_LE(blocks, segmented::most_merge_blocks(n, tile, pass, chunk))
          << "n " << n << ", pass " << pass;
    }
    // No segment needs more passes than the host launches.
    for (std::size_t size : sizes) EXPECT_LE(merge::merge_pass_count(size, tile), passes);
  }
}

TEST(SegmentedClasses, MergeBlocksStopOnceASegmentIsOneRun) {
  EXPECT_EQ(segmented::merge_blocks_of_segment(4352, 4352, 0, 2176), 0u);
  EXPECT_EQ(segmented::merge_blocks_of_segment(4353, 4352, 0, 2176),
            merge::merge_block_count(4353, 4352, 2176));
  EXPECT_EQ(segmented::merge_blocks_of_segment(4353, 4352, 1, 2176), 0u);
  EXPECT_GT(segmented::merge_blocks_of_segment(3 * 4352, 4352, 1, 2176), 0u);
}

TEST(SegmentedClasses, EveryVirtualBlockFindsItsSegmentEvenPastEmptyOnes) {
  // Blocks per segment 3, 0, 1, 0, 0, 2: first blocks 0 3 3 4 4 4 6.
  const std::vector<std::size_t> first{0, 3, 3, 4, 4, 4, 6};
  const std::size_t segments = first.size() - 1;
  const std::size_t expected[] = {0, 0, 0, 2, 5, 5};
  for (std::size_t block = 0; block < 6; ++block)
    EXPECT_EQ(segmented::owner_of(first.data(), segments, block), expected[block]) << block;
  const std::vector<std::size_t> one{0, 5};
  EXPECT_EQ(segmented::owner_of(one.data(), 1, 4), 0u);
}

TEST(SegmentedClasses, EverySegmentsLastPassWritesIntoTheKeys) {
  for (int passes = 1; passes < 30; ++passes) {
    // Simulate the ping-pong: where the tiles go, then each pass reads one buffer and
    // writes the other.
    bool in_alternate = segmented::tiles_go_to_alternate(passes);
    for (int pass = 0; pass < passes; ++pass) {
      EXPECT_EQ(segmented::pass_reads_alternate(passes, pass), in_alternate);
      in_alternate = !in_alternate;
    }
    EXPECT_FALSE(in_alternate) << passes << " passes";
  }
}

// A block class no larger than the one below it takes no segment and gets no room (a tuning
// whose tile is no wider than a narrow block's).
TEST(SegmentedClasses, ABlockClassNoLargerThanTheOneBelowTakesNothing) {
  constexpr segmented::class_limits narrow_tile{1088, 1088, 1088};
  EXPECT_EQ(segmented::class_of(1088, narrow_tile), segmented::in_small_block);
  EXPECT_EQ(segmented::class_of(1089, narrow_tile), segmented::in_blocks);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_half_block, 1 << 20, 1000, narrow_tile),
            0u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_block, 1 << 20, 1000, narrow_tile), 0u);
  EXPECT_EQ(segmented::most_segments_of(segmented::in_blocks, 1089 * 3, 1000, narrow_tile), 3u);
}

// A narrow block is the tile on 64 or 128 threads with the tile's keys per thread, never more:
// keys of 16 bytes once took 17 a thread in a small block where the tile takes 7, spilled,
// and sorted slower than a whole block would.
template <class Key>
void expect_narrow_blocks_keep_tiles_keys_per_thread() {
  using tuning = gpusort::merge_tuning_sm90;
  using tile = merge::merge_shape<tuning, Key>;
  using small = segmented::small_block_shape<tuning, Key>;
  using half = segmented::half_block_shape<tuning, Key>;
  EXPECT_EQ(small::tile_threads, segmented::small_block_threads) << sizeof(Key);
  EXPECT_EQ(half::tile_threads, segmented::half_block_threads) << sizeof(Key);
  EXPECT_EQ(small::tile_items_per_thread, tile::tile_items_per_thread) << sizeof(Key);
  EXPECT_EQ(half::tile_items_per_thread, tile::tile_items_per_thread) << sizeof(Key);
  EXPECT_LT(small::tile_items, half::tile_items) << sizeof(Key);
  EXPECT_LT(half::tile_items, tile::tile_items) << sizeof(Key);
}

struct twelve_bytes { std::uint32_t a, b, c; };
struct sixteen_bytes { std::uint32_t major; float minor; std::uint64_t id; };

TEST(SegmentedClasses, NarrowBlocksHoldAsManyKeysPerThreadAsTheTile) {
  expect_narrow_blocks_keep_tiles_keys_per_thread<std::uint32_t>();
  expect_narrow_blocks_keep_tiles_keys_per_thread<double>();
  expect_narrow_blocks_keep_tiles_keys_per_thread<twelve_bytes>();
  expect_narrow_blocks_keep_tiles_keys_per_thread<sixteen_bytes>();
  // The sizes the measurements were made at (sm_90's tuning): 64 x 17 u32, 64 x 9 f64 and
  // 64 x 7 16-byte keys.
  EXPECT_EQ((segmented::small_block_shape<gpusort::merge_tuning_sm90, std::uint32_t>::tile_items),
            1088);
  EXPECT_EQ((segmented::small_block_shape<gpusort::merge_tuning_sm90, double>::tile_items), 576);
  EXPECT_EQ((segmented::small_block_shape<gpusort::merge_tuning_sm90, sixteen_bytes>::tile_items),
            448);
}

}  // namespace
