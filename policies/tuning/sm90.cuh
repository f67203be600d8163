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

}  // namespace gpusort
