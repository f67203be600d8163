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
  // pass (one read and write of everything) but pays more steps. Whole sort, 2^26 u32, H200,
  // 256 x 16 merges: 2048-key tiles 5.53 ms, 4096 5.36 ms (an earlier network: 1024 8.12,
  // 2048 5.17, 4096 5.09). 8192 does not fit 48 KB of static shared memory with indices.
  static constexpr int tile_threads = 256;
  static constexpr int tile_items_per_thread = 16;
  // Merge pass: each block writes 128 x 17 merged keys. An odd count spreads the threads'
  // strided reads of the merge over all shared-memory banks. Whole sort, 2^26 u32, H200:
  // 256 x 16: 4.46 ms, 256 x 21: 4.70, 256 x 17: 4.18, 256 x 15: 4.17, 256 x 13: 4.06,
  // 128 x 17: 3.98.
  static constexpr int merge_threads = 128;
  static constexpr int merge_items_per_thread = 17;
  // Wider keys get fewer items per thread so that a tile fits this much shared memory.
  static constexpr int exchange_bytes = 40 * 1024;
};

// Bucket + bitonic backend. Same way to derive and shadow.
struct bucket_bitonic_tuning_sm90 {
  // Partition kernels (min/max, bucket histogram, scatter): 256 threads x 16 keys per tile,
  // fewer for wide keys or values, so that a tile fits partition_exchange_bytes of shared
  // memory next to the scatter's per-bucket counters and offsets (12 bytes per bucket).
  static constexpr int partition_threads = 256;
  static constexpr int partition_items_per_thread = 16;
  static constexpr int partition_exchange_bytes = 20 * 1024;
  // Register budget of the scatter: at least this many blocks resident per SM.
  static constexpr int scatter_blocks_per_multiprocessor = 3;
  // A segment is split into up to 2^first_bucket_bits buckets (the scatter keeps a counter
  // and a global offset per bucket in shared memory), about n / 512 for n keys; below the
  // first level into at least 2^deeper_bucket_bits, so that each level narrows the range by
  // that many bits and the recursion depth stays bounded.
  static constexpr int first_bucket_bits = 11;
  static constexpr int deeper_bucket_bits = 8;
  // Sort units: a bitonic network over 256 threads x 16 keys (4096 keys of 4 bytes), shrunk
  // to a power of two for wider keys.
  static constexpr int sort_threads = 256;
  static constexpr int sort_items_per_thread = 16;
  static constexpr int exchange_bytes = 40 * 1024;
  // Register budget of the sort-unit kernel: at least this many blocks resident per SM
  // (without it the compiler used enough registers for one block per SM: 3x slower).
  static constexpr int sort_blocks_per_multiprocessor = 2;
};

}  // namespace gpusort
