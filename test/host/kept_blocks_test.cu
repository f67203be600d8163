// The table of blocks kept per stream (gpusort/detail/kept_blocks.cuh), with its releases to
// the pool recorded instead of made: which block a stream's next sort gets, and when a block
// goes back (too small, beyond the bounds or the limit, the device idle). No GPU needed.
#include <gpusort/detail/kept_blocks.cuh>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using gpusort::detail::kept_block_most_bytes;
using gpusort::detail::kept_block_streams;
using gpusort::detail::kept_blocks;

struct release {
  void* block;
  cudaStream_t stream;
  bool operator==(const release& other) const {
    return block == other.block && stream == other.stream;
  }
};
std::vector<release> released;
void record(void* block, cudaStream_t stream) { released.push_back({block, stream}); }

// Distinct fake addresses and stream handles (never dereferenced).
void* block(int i) { return reinterpret_cast<void*>(std::uintptr_t(0x10000) * (i + 1)); }
cudaStream_t stream(int i) {
  return reinterpret_cast<cudaStream_t>(std::uintptr_t(0x100) * (i + 1));
}

class KeptBlocks : public ::testing::Test {
 protected:
  void SetUp() override { released.clear(); }
  kept_blocks table{record};
};

TEST_F(KeptBlocks, AStreamsNextSortGetsTheBlockItGaveBack) {
  EXPECT_EQ(table.take(7, 1000, stream(0)), nullptr) << "nothing kept yet";
  table.give_back(7, block(0), 1000, stream(0));
  EXPECT_TRUE(released.empty());
  EXPECT_EQ(table.take(8, 1000, stream(1)), nullptr) << "another stream's block";
  EXPECT_EQ(table.take(7, 600, stream(0)), block(0)) << "smaller sorts take it too";
  EXPECT_EQ(table.take(7, 600, stream(0)), nullptr)
      << "lent: a second sort on the stream meanwhile";
  table.give_back(7, block(1), 600, stream(0));  // that sort's own block: the stream has one
  EXPECT_EQ(released, (std::vector<release>{{block(1), stream(0)}}));
  table.give_back(7, block(0), 600, stream(0));
  EXPECT_EQ(table.take(7, 1000, stream(0)), block(0)) << "lent blocks keep their own size";
}

TEST_F(KeptBlocks, ABlockTooSmallGoesBackOnItsStream) {
  table.give_back(7, block(0), 1000, stream(0));
  EXPECT_EQ(table.take(7, 1001, stream(0)), nullptr);
  EXPECT_EQ(released, (std::vector<release>{{block(0), stream(0)}}));
  table.give_back(7, block(1), 1001, stream(0));
  EXPECT_EQ(table.take(7, 1001, stream(0)), block(1));
}

TEST_F(KeptBlocks, KeepsAtMostItsStreamsAndBlocksOfBoundedSize) {
  for (int i = 0; i < kept_block_streams; ++i) table.give_back(10 + i, block(i), 100, stream(i));
  EXPECT_TRUE(released.empty());
  table.give_back(99, block(50), 100, stream(50));
  table.give_back(98, block(51), kept_block_most_bytes + 1, stream(51));
  EXPECT_EQ(released, (std::vector<release>{{block(50), stream(50)}, {block(51), stream(51)}}));
  for (int i = 0; i < kept_block_streams; ++i)
    EXPECT_EQ(table.take(10 + i, 100, stream(i)), block(i)) << i;
}

TEST_F(KeptBlocks, KeepsNoMoreThanTheLimitAndGivesBackWhatItLowered) {
  table.set_limit(1500);
  table.give_back(1, block(0), 1000, stream(0));
  table.give_back(2, block(1), 1000, stream(1));  // 2000 in all: beyond the limit
  EXPECT_EQ(released, (std::vector<release>{{block(1), stream(1)}}));
  released.clear();
  EXPECT_EQ(table.take(1, 1000, stream(0)), block(0));
  table.set_limit(0);
  table.give_back(1, block(0), 1000, stream(0));
  EXPECT_EQ(released, (std::vector<release>{{block(0), stream(0)}}));
  EXPECT_EQ(table.take(1, 1, stream(0)), nullptr);
}

TEST_F(KeptBlocks, ReleaseAllGivesBackEveryBlockNotLent) {
  table.give_back(1, block(0), 1000, stream(0));
  table.give_back(2, block(1), 1000, stream(1));
  ASSERT_EQ(table.take(2, 1000, stream(1)), block(1));
  table.release_all(table.given_back_count());
  EXPECT_EQ(released, (std::vector<release>{{block(0), nullptr}}));
  EXPECT_EQ(table.take(1, 1000, stream(0)), nullptr);
  table.give_back(2, block(1), 1000, stream(1));  // the lent one comes back and stays
  EXPECT_EQ(table.take(2, 1000, stream(1)), block(1));
}

// A block given back after the mark was taken (another thread's sort, its work perhaps still
// running when the device was found idle) is not freed on the default stream.
TEST_F(KeptBlocks, ReleaseAllLeavesBlocksGivenBackAfterItsMark) {
  table.give_back(1, block(0), 1000, stream(0));
  ASSERT_EQ(table.take(1, 1000, stream(0)), block(0));
  const unsigned long long mark = table.given_back_count();
  table.give_back(1, block(0), 1000, stream(0));
  table.give_back(2, block(1), 1000, stream(1));
  table.release_all(mark);
  EXPECT_TRUE(released.empty());
  table.release_all(table.given_back_count());
  EXPECT_EQ(released, (std::vector<release>{{block(0), nullptr}, {block(1), nullptr}}));
}

}  // namespace
