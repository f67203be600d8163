// The segmented sort's arithmetic, as pure __host__ __device__ functions that the host tests
// check without a GPU:
//   - which class of sorter takes a segment of a given size (a group of lanes, a small
//     block, a half block, a block, or several blocks with merge passes), and how many
//     segments of a class n keys can hold (the lists' room, fixed before the offsets are
//     read);
//   - for the segments that need several blocks: bounds on their tiles and merge blocks, the
//     virtual block -> segment lookup, and which buffer each pass reads.
#pragma once

#include "../common/tiles.cuh"
#include "../merge/merge_path.cuh"

#include <cstddef>

namespace gpusort::backends::segmented {

// The sorter classes, in order of size; a segment of 0 or 1 keys is in none. A segment of at
// most 64 keys is sorted in registers by a group of lanes of one warp (in_group_of_N: at most
// N keys; the kernels pick the group's width), larger ones by a small block, a half block, a
// block, or several blocks with merge passes.
enum segment_class : int {
  in_group_of_4,
  in_group_of_8,
  in_group_of_16,
  in_group_of_32,
  in_group_of_64,
  in_small_block,
  in_half_block,
  in_block,
  in_blocks,
  class_count
};
inline constexpr int no_class = -1;

// The most keys of a group class: 4, 8, 16, 32, 64.
__host__ __device__ constexpr int group_most_keys(int cls) { return 4 << cls; }

// The largest segment each on-chip class takes: a group its class's keys, a small block, a
// half block and a block one tile of their shapes (a block class no larger than the one below
// it takes nothing). A call with a single segment puts it in in_blocks whatever its size (the
// tile sort takes a short one whole): one class, so that the launches for the others are left
// out.
struct class_limits {
  std::size_t small_block_most;
  std::size_t half_block_most;
  std::size_t block_most;
  bool single_segment = false;
};

__host__ __device__ constexpr std::size_t most_keys_of(int cls, const class_limits& limits) {
  return cls <= in_group_of_64  ? std::size_t(group_most_keys(cls))
         : cls == in_small_block ? limits.small_block_most
         : cls == in_half_block  ? limits.half_block_most
                                 : limits.block_most;  // in_blocks: more than this
}

// Whether class cls takes no size at all: a block class no larger than the class below it.
__host__ __device__ constexpr bool takes_no_size(int cls, const class_limits& limits) {
  return cls > in_group_of_64 && cls < in_blocks &&
         most_keys_of(cls, limits) <= most_keys_of(cls - 1, limits);
}

__host__ __device__ constexpr int class_of(std::size_t size, const class_limits& limits) {
  if (size < 2) return no_class;
  if (limits.single_segment) return in_blocks;
  for (int cls = in_group_of_4; cls < in_blocks; ++cls)
    if (size <= most_keys_of(cls, limits)) return cls;
  return in_blocks;
}

// The most segments of a class that fit in n keys (each has more keys than the class below
// it takes), and never more than there are segments.
__host__ __device__ constexpr std::size_t most_segments_of(int cls, std::size_t n,
                                                           std::size_t segment_count,
                                                           const class_limits& limits) {
  if (limits.single_segment) return cls == in_blocks && n >= 2 && segment_count > 0 ? 1 : 0;
  if (takes_no_size(cls, limits)) return 0;
  const std::size_t smallest = cls == in_group_of_4 ? 2 : most_keys_of(cls - 1, limits) + 1;
  const std::size_t most = n / smallest;
  return most < segment_count ? most : segment_count;
}

// Segments sorted by several blocks: tiles of tile_items keys, then merge passes. Their sizes
// add up to at most n and each is more than one tile (or there is only one), so there are at
// most n / tile_items of them, and at most twice that many tiles.
__host__ __device__ constexpr std::size_t most_multi_block_tiles(std::size_t n, int tile_items) {
  return 2 * tile_count(n, tile_items) + 1;
}

// Merge blocks of pass `pass` (runs of tile_items << pass keys, chunk keys per block) over
// segments of at most n keys in all: a segment of m keys takes part while m > run width w,
// and takes at most ceil(m / 2w) * ceil(2w / chunk) <= 3m / chunk + m / w + 1 blocks (fewer
// where its last pair is short: merge::merge_block_count).
__host__ __device__ constexpr std::size_t most_merge_blocks(std::size_t n, int tile_items,
                                                            int pass, int chunk) {
  const std::size_t run_width = std::size_t(tile_items) << pass;
  return 3 * tile_count(n, chunk) + 2 * ((n + run_width - 1) / run_width) + 1;
}

// Merge blocks of pass `pass` for one segment of `size` keys: none once it is one run.
__host__ __device__ constexpr std::size_t merge_blocks_of_segment(std::size_t size,
                                                                  int tile_items, int pass,
                                                                  int chunk) {
  const std::size_t run_width = std::size_t(tile_items) << pass;
  return size > run_width ? merge::merge_block_count(size, run_width, chunk) : 0;
}

// Each segment ping-pongs between the keys and the alternate buffer, so that its own last pass
// writes into the keys: with an odd number of passes its tiles go to the alternate buffer,
// and pass p reads the alternate buffer when passes - 1 - p is even.
__host__ __device__ constexpr bool tiles_go_to_alternate(int passes) { return passes % 2 == 1; }
__host__ __device__ constexpr bool pass_reads_alternate(int passes, int pass) {
  return (passes - 1 - pass) % 2 == 0;
}

// The segment (index into the class list) that owns virtual block `block`, where
// first_blocks[j] is the first block of segment j (an exclusive prefix sum of the blocks per
// segment, segments first_blocks[0 .. segments], block < first_blocks[segments]). Segments
// without blocks are skipped: the last j with first_blocks[j] <= block.
__host__ __device__ constexpr std::size_t owner_of(const std::size_t* first_blocks,
                                                   std::size_t segments, std::size_t block) {
  std::size_t low = 0;
  std::size_t high = segments;  // first_blocks[low] <= block < first_blocks[high]
  while (high - low > 1) {
    const std::size_t middle = low + (high - low) / 2;
    if (first_blocks[middle] <= block)
      low = middle;
    else
      high = middle;
  }
  return low;
}

}  // namespace gpusort::backends::segmented
