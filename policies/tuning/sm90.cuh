// Tile shapes for Hopper (sm_90). Every magic number of a backend lives here.
#pragma once

namespace gpusort {

// Satish radix backend. Derive from this and shadow a member to try another shape:
//   struct my_tuning : gpusort::radix_tuning_sm90 { static constexpr int items_per_thread = 8; };
//   gpusort::sort(gpusort::radix_policy<my_tuning>{}, first, last);
struct radix_tuning_sm90 {
  // 256 threads x 16 keys: a 4096-key tile, as in the per-tile local sort of Satish et al.;
  // enough keys per thread to amortise the block-wide rank, little enough shared memory
  // (16 KB of u32 keys) for several blocks per SM.
  static constexpr int block_threads = 256;
  static constexpr int items_per_thread = 16;
  // Wider keys or values get fewer items per thread so that a tile of them fits this much
  // shared memory (the static limit is 48 KB per block).
  static constexpr int exchange_bytes = 40 * 1024;
  // 8-bit digits: 4 passes for 32-bit keys; the (digit x tile) table stays small enough to scan.
  static constexpr int digit_bits = 8;
  // Blocks per SM for the one up-front pass that counts every digit of every pass.
  static constexpr int histogram_blocks_per_sm = 4;
};

// Comparison backend (bitonic tiles + merge path merges). Same way to derive and shadow.
struct merge_tuning_sm90 {
  // Tile sort: 256 threads x 16 keys, a 4096-key bitonic network per block. A bitonic tile
  // costs log2(T)(log2(T)+1)/2 compare-exchange steps per key, so a larger tile saves a merge
  // pass (one read and write of everything) but pays more steps. Measured at 2^26 u32 on the
  // H200 (whole sort): 2048-key tiles 5.17 ms, 4096 5.09 ms, 1024 8.12 ms.
  static constexpr int tile_threads = 256;
  static constexpr int tile_items_per_thread = 16;
  // Merge pass: each block writes 256 x 16 merged keys (x 8: 5.83 ms; 128 x 16: 5.39 ms).
  static constexpr int merge_threads = 256;
  static constexpr int merge_items_per_thread = 16;
  // Wider keys get fewer items per thread so that a tile fits this much shared memory.
  static constexpr int exchange_bytes = 40 * 1024;
};

}  // namespace gpusort
