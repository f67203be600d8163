// Tile shapes for Hopper (sm_90). Every magic number of a backend lives here.
#pragma once

#include "knobs.cuh"

#include <cstddef>

namespace gpusort {

// Satish radix backend. To try another shape, start from these knobs (tuning/knobs.cuh).
struct radix_tuning_sm90 final {
  static constexpr radix_knobs knobs = [] {
    radix_knobs k;
    // One-sweep passes: 384 threads x 19 keys per tile (7296 keys, 28.5 KB of u32 keys), as
    // many with values; large tiles amortise the per-tile look-back over 256 digits. Whole sort,
    // 2^28 u32, H200: 384 x 18 at 2 blocks/SM 7.35 ms, 384 x 21 6.94, 256 x 24 7.38; at 3
    // blocks/SM (below) 384 x 19 5.38 ms (CUB 5.44). bench/results/NOTES.md has the rest.
    k.block_threads = 384;
    k.items_per_thread = 19;
    k.items_per_thread_with_values = 19;
    // Wider keys or values get fewer items per thread so that a tile of them (and its digits,
    // where kept) fits this much shared memory, next to the digits' output pointers (2 KB,
    // 4 KB where values take the keys' place). Beyond 48 KB the tile takes dynamic shared
    // memory (at most 60 KB here, so that with the pointers every tile fits sm_75's 64 KB).
    // Keys only: u64 keys get 15 items below 2^24 (17 or 18: 14-17 % slower on the H100;
    // from 2^24 the large-input tile below); with values: u32+u32 19 (H100, whole sorts at 2^24 and
    // 2^26: 21 3-5 % slower, 20 1 %, 18 4-5 %, 17 7 %, 23 9 %; the register budget spills
    // differently at each), u64+u32 17 (H200: 1.6 % slower than 18, which needed 62 KB
    // before the values had pointers of their own; 13: 6 % slower, 16: 3 % slower).
    k.exchange_bytes = 46 * 1024;
    k.exchange_bytes_with_values = 60 * 1024;
    // Keys only, large inputs (backends/radix/large_input_tile.cuh): tiles of up to 32 keys
    // per thread, their keys read again when staged: in 384 x 32 x 5 bytes for keys of 4
    // bytes, 384 x 15 x 9 for 8-byte keys. u32, i32 and f32 keys get 32 (f32's each with a
    // kept digit), u64 and i64 16, f64 15 (with its digit); only where an SM holds three such
    // tiles (sm_90; sm_80 for u32, i32, u64 and i64, not measured there). H200, whole sorts,
    // time against the ordinary tile (three or four rotations in one program, best of each):
    //   u32 32 keys: 2^23 -0.2 %, 2^24 -2.7, 2^25 -6.7, 2^26 -10.5, 2^28 -13.0 (27: -6.4 % at
    //   2^23 but -9.4 at 2^28; 33: +2.3 % at 2^23, -14.0 at 2^28);
    //   f32 27 keys: 2^24 +3.0 %, 2^26 -3.2, 2^28 -5.6 (32: +6.3, -4.7, -8.1; below 2^26 its
    //   two ways to take digits spill more with more keys); 32 against 27 from f32's
    //   threshold: 2^25 -0.1 %, 2^26-2^27 -2.0, 2^28 -2.4 / -2.5 (bench/results/NOTES.md);
    //   u64 16 keys: 2^24 -0.9 %, 2^26 -1.7, 2^28 -2.2 (17: +0.6, -2.7, -3.3; 18 slower);
    //   f64 15 keys: 2^24 -1.8 %, 2^26 -3.3, 2^28 -4.5 (16: 1.1-1.5 % slower than 15).
    // At 2^19-2^23 8-byte keys gained nothing or lost up to 4 % (bench/results/NOTES.md).
    k.large_input_items_per_thread = 32;
    k.large_input_exchange_bytes = 384 * 32 * 5;
    k.large_input_wide_key_exchange_bytes = 384 * 15 * 9;
    k.large_input_min_keys = std::size_t(1) << 24;
    k.large_input_min_float_keys = std::size_t(1) << 25;
    // Pairs of 4-byte integer keys and 4-byte values, large inputs: 26 pairs per thread, the
    // values beside the keys (384 x 26 x 8 bytes, ~82 KB with the digits' pointers: two per
    // SM on sm_90 only), neither held through the rank. H200, whole sorts of u32+u32, time
    // against the ordinary 19-pair tile (as built, three runs): 2^22 +0.2 / +1.8 / +2.2 %,
    // 2^23 -3.3, 2^24 -4.7 / -3.6 / -3.1, 2^26 -5.1 / -4.9 / -5.3, 2^28 -5.3 / -5.8 / -5.5
    // (24 pairs: about -3.5 from 2^24; the values read after the look-back instead: +2.5 to
    // -4.0; u64+u32 with more pairs per tile gained nothing, bench/results/NOTES.md).
    k.large_input_items_per_thread_with_values = 26;
    k.large_input_exchange_bytes_with_values = 384 * 26 * 8;
    k.large_input_min_keys_with_values = std::size_t(1) << 23;
    // u32+u32 (and other pairs of integer keys up to 4 bytes with 4-byte values) stage their
    // values beside the keys: a 19-item tile takes 57 KB, and a key and its value leave
    // together (scratch timer, par / CUB, H200: 2^22 1.10 -> 1.17-1.21, 2^24 1.01 -> 1.04-1.05,
    // 2^26 0.96 -> 1.02; H100: 2^22 1.06 -> 1.17, 2^24-2^26 within 1 %; 256-thread tiles at 3
    // blocks per SM 7-15 % slower than these). u64+u32 would need 78 KB at 17
    // items, past sm_75's 64 KB. On GPUs with 100 KB of shared memory per SM (sm_86, sm_89)
    // this leaves one pairs block per SM instead of two: not measured there.
    k.values_beside_keys = true;
    // Register budget of the one-sweep kernel: at least this many blocks resident per SM.
    // Keys only: 3 (56 registers; 2 blocks left the pass 10 % slower). Pairs: 2 (3 blocks of
    // 12 items: u64+u32 +1 %, u32+u32 -2 %).
    k.onesweep_blocks_per_multiprocessor = 3;
    k.onesweep_blocks_per_multiprocessor_with_values = 2;
    // How a warp finds the lanes whose keys share its digit, in the rank: a shared-memory
    // atomicOr per key (false: eight ballots per key, CUB's default). Within 2 % either way.
    k.rank_match_by_atomic_or = false;
    // The look-back loads four predecessors' words at once for keys: u32 -11-12 % at
    // 2^20-2^22, -4-7 % from 2^24 (eight no better). Pairs load one at a time: they load
    // their values before the look-back, which hides its waiting, and four cost u32+u32 +8 %
    // and u64+u32 +5 % at 2^28 in look-back table traffic (H200, bench/results/NOTES.md).
    k.look_back_width = 4;
    k.look_back_width_with_values = 1;
    // The large-input tiles (keys only, from 2^24; floats from 2^25) one word at a time: H100,
    // whole radix sorts against width 4 (one program, rounds alternated): u32 2^26 / 2^28
    // -6.3 / -7.2 %, u64 2^24 / 2^26 / 2^28 -3.2 / -4.7 / -6.6 %, f64 -0.8 / -1.3 / -1.5 %,
    // f32 2^26 / 2^28 +0.7 / +0.5 % (width 2: u32 -2.4 %, f32 -2.3 % at 2^28). Width 4 for these
    // tiles had been measured on the H200 only (bench/results/NOTES.md, 2026-12-05).
    k.large_input_look_back_width = 1;
    // Keys only: 4-byte keys stay in registers through the rank; 8-byte keys are read again
    // (held, u64 keys and their bits spilled 136 bytes at 56 registers; reloaded: none, and
    // the u64 sort 5-6 % faster on the H100, bench/results/NOTES.md).
    k.held_key_bytes = 4;
    // 8-bit digits: 4 passes for 32-bit keys, a 1 KB row of look-back state per tile.
    k.digit_bits = 8;
    // The one up-front pass that counts every digit of every pass: blocks per SM, and keys
    // each thread loads at once (4 and 8, or 8 and 4: the same time).
    k.histogram_blocks_per_sm = 4;
    k.histogram_items_per_thread = 8;
    // Up to 2^23 keys two blocks per SM, each with more of the keys: fewer blocks flush their
    // 1024 counters by global atomics (par, H200: 2^21 u32 -6 %, f32 -7 %, u32+u32 -6 %, u64
    // -3 %; 2^20, 2^22 and 2^23 -1-3 %; fewer keys per thread instead lost 2-4 us at 2^20;
    // bench/results/NOTES.md).
    k.histogram_small_blocks_per_sm = 2;
    k.histogram_small_max_keys = std::size_t(1) << 23;
    // Its counters in a column per warp lane, one block of 1024 threads per SM, where the
    // device's blocks hold 128 KB. H200, the counting alone against the rows at 384 x 8: u32
    // 2^24 / 2^26 / 2^28 -17 / -22 / -25 %, u64 -6 / -12 / -14 % (bench/results/NOTES.md,
    // 2026-11-30). Whole par sorts, one round (scratch timer): u32 2^26 / 2^28 -1.8 / -2.3 %,
    // u64 -0.7 / -0.8 %, but f32 +0.4 / +0.2 % and f64 +1.7 / +1.6 %: integer keys only
    // (dispatch.cuh: may_count_in_lane_columns), and only past the small grid (n above
    // histogram_small_max_keys).
    k.histogram_lane_column_threads = 1024;
    // Each pass runs in portions of at most this many keys (one launch each; the look-back
    // table holds one portion): 2^28 keys are one portion. At most 2^30 - 1.
    k.max_portion_keys = std::size_t(1) << 29;
    // The sort by buckets (par's msd_buckets): a bucket's cluster takes 25 % more keys than an
    // even share; uniform keys' largest bucket of 2^22 is 3 % over it, of 2^17 16 %.
    k.bucket_headroom_percent = 25;
    // Keys-only sorts of integer, character and bool keys of at most 16 bits count every
    // value instead (backends/radix/counting_sort.cuh).
    // - count: 1024 threads x 2 loads of 16 bytes (32 u8 or 16 u16 keys per thread and step,
    //   the next step's loads in flight while this one counts). A u16 histogram takes 128 KB
    //   (65536 16-bit counters), so one block per SM. Its 16-bit counters are flushed at
    //   2^15, so a block counts at most 2^15 keys per counter between two barriers (asserted).
    //   1 or 4 loads per thread, 512 threads: within 3 % (H100, u8, 2^22-2^28).
    // From 2^16 keys and 64 keys per bin: u8 from 2^16, u16 from 2^22. H100, u8 counted /
    // par's other strategies, ratio to CUB: 2^16 1.30-1.53 / 1.25-1.39, 2^19 1.49-1.56 /
    // 0.88-0.90, 2^21 2.39-2.51 / 0.99-1.04 (2^14: 0.80 / 2.05, the cluster sort); u16 (one
    // count block per 65536 keys) 2^22 1.30 / 1.17-1.21, 2^23 1.71 / 1.17, 2^21 and below
    // the one-sweep passes (bench/results/NOTES.md).
    // 16-bit floats from 2^22 too, since mixed zeros and NaNs are kept aside instead of
    // sorted by a gated one-sweep sort (H200, f16 / bf16 at 2^22 counted 1.22 / 1.56x CUB
    // against the passes' 1.16x; bench/results/NOTES.md).
    k.counting.min_keys = std::size_t(1) << 16;
    k.counting.min_keys_per_bin = 64;
    k.counting.count_threads = 1024;
    k.counting.count_vectors_per_thread = 2;
    // A block writes out its histogram (u16: 128 KB) and the sum reads it back: one count
    // block per 65536 keys (so 2^24 u16 keys take 132 blocks, one per SM) left 2^24 1.41 ->
    // 2.21x CUB, 2^22 0.63 -> 1.30x; 8 keys per bin (32 blocks at 2^24) had too few SMs reading.
    k.counting.count_keys_per_bin = 1;
    // u8 and bool: a copy of the 256 bins per warp lane (32 KB of 32-bit counters): a warp's
    // 32 adds fall on 32 banks whatever the keys (all equal included).
    k.counting.lane_private_max_bins = 256;
    // u16: all 65536 counters in one block (sm_90 opts in to 227 KB), one read of the keys.
    k.counting.histogram_shared_bytes = 128 * 1024;
    // 65536 bins = 256 groups of 256: one block sums and scans a group, the last one the
    // groups' totals.
    k.counting.group_bins = 256;
    // fill: 256 threads x 4 stores of 16 bytes (16 KB per block), so that the block's two
    // binary searches for its first and last bin are paid once per 16 KB written. 2 stores:
    // the same; 8 or 16 were slower where a vector was still built key by key (H100, u8).
    k.counting.fill_threads = 256;
    k.counting.fill_vectors_per_thread = 4;
    return k;
  }();
};

// radix_tuning_sm90 with other one-sweep tiles: `threads` x `items` keys (with values too)
// per tile, `blocks` of them resident per SM. These run at sizes of about one wave of tiles
// per pass, where pairs gain from the wide look-back too (u32+u32 at 2^21 -6-9 %, H200).
constexpr radix_knobs onesweep_tiles_sm90(int threads, int items, int blocks) {
  radix_knobs k = radix_tuning_sm90::knobs;
  k.block_threads = threads;
  k.items_per_thread = items;
  k.items_per_thread_with_values = items;
  k.onesweep_blocks_per_multiprocessor = blocks;
  k.onesweep_blocks_per_multiprocessor_with_values = blocks;
  k.look_back_width_with_values = k.look_back_width;
  k.count_in_first_pass = true;  // (one wave of these tiles at the sizes they run)
  k.large_input_items_per_thread = 0;  // (the 384-thread tiles', for large sizes)
  k.large_input_items_per_thread_with_values = 0;
  return k;
}

// The one-sweep passes with small tiles, for gpusort::par at mid sizes: 2^18 keys are 36
// tiles of radix_tuning_sm90 (a quarter of the SMs busy, each pass as long as one tile
// takes) but 128 of these. Chosen by n through par's dispatch table.
struct radix_tuning_small_tiles_sm90 final {
  static constexpr radix_knobs knobs = onesweep_tiles_sm90(256, 8, 4);
};

// The one-sweep passes with 512-thread tiles at 2 blocks per SM, for gpusort::par at about
// 2^20-2^22 keys, where a pass has one or two tiles per SM and takes as long as one tile's
// chain of steps: cut among more threads, each ranks fewer keys. Scratch timer, H200, ratio
// to CUB against radix_tuning_sm90's (three rounds): u32 2^20 1.31-1.33 against 1.16-1.18,
// 2^21 1.27-1.32 against 1.18-1.20, 2^22 1.26-1.27 against 1.21-1.23; u32+u32 2^21
// 1.16-1.22 against 1.02-1.04; u64 and u64+u32 at 2^20-2^21 +3-4 %; 2^24 lost (512 x 14:
// 1.12 against 1.26). One block of 1024 threads lost at every size (bench/results/NOTES.md).
// Chosen by n through par's dispatch table.
struct radix_tuning_mid_tiles_sm90 final {
  static constexpr radix_knobs knobs = onesweep_tiles_sm90(512, 16, 2);
};

// The one-sweep passes with 512 x 12 tiles at 2 blocks per SM, for gpusort::par's pairs of
// 4-byte keys past one wave of the mid tiles (the H200's table: 2097153-2^22, and f32 pairs
// at 524289-741455, where integer keys take msd_buckets): more tiles than the mid
// tiles' one or two a block, each with fewer pairs to rank. Scratch timer, H200, ratio to CUB
// (two rounds), u32+u32: 2965820 1.40 against the mid tiles' 1.25, 2^22 1.27 against 1.25,
// 6000000 1.20 against radix_tuning_sm90's 1.18; keys lost (u32 2^22 1.35 against 1.47).
// Below about 2^21.3 the mid tiles still count in their first pass and these do not.
// Chosen by n through par's dispatch table.
struct radix_tuning_pair_tiles_sm90 final {
  static constexpr radix_knobs knobs = onesweep_tiles_sm90(512, 12, 2);
};

// Small inputs: gpusort::par's one-launch radix sort, one thread-block cluster holding the
// whole input in its blocks' shared memory (backends/radix/cluster_kernels.cuh). Each block
// owns block_threads x items_per_thread keys (fewer items for wide keys or values, so that
// the block's buffers fit shared_bytes), a cluster has up to max_cluster_blocks (16 needs
// sm_90's non-portable cluster size). Smaller tiles spread a given n over more SMs but hold
// fewer keys: two tilings, chosen by n through par's dispatch tables (par_tables.cuh).
// H200, one sort, u32 keys (CUB: 13 us at 1K, 48 us at 16K, 53 us at 64K): 256 x 8 tiles
// 13 us at 1K, 21 us at 16K; 512 x 8: 33 us at 64K. Larger tiles lose to the one-sweep sort
// with small tiles: 512 x 16 45 us at 128K (one-sweep 43); 1024 x 16 (spills at 64
// registers) 70 us at 256K (49).
struct cluster_tiling_small_sm90 final {
  static constexpr cluster_knobs knobs = [] {
    cluster_knobs k;
    k.block_threads = 256;
    k.items_per_thread = 8;
    k.max_cluster_blocks = 16;
    // Passes over 8-bit digits, as the one-sweep sort's (radix_tuning_sm90): at most 8, since
    // each staged digit is kept in a byte.
    k.digit_bits = 8;
    k.shared_bytes = 200 * 1024;
    return k;
  }();
};
struct cluster_tiling_medium_sm90 final {
  static constexpr cluster_knobs knobs = [] {
    cluster_knobs k = cluster_tiling_small_sm90::knobs;
    k.block_threads = 512;
    return k;
  }();
};

// The smallest inputs of 32-bit keys (keys only): gpusort::par's sorting network
// (backends/radix/network_kernels.cuh), one cluster of up to 8 blocks of 256 x 4 keys, so
// n up to 8192 (1024 before sm_90, where one block runs it). H100, whole calls, u32 (CUB's
// radix sort 15-16 us to 4096 keys, 53-58 us from 5000; par's cluster sort 12-18 us, 24 us
// at 8192): 256 x 4 9.0 us at 1024, 10.7 at 2048, 13.5 at 4096, 20.0 at 8192; 512 x 4 11.7,
// 10.4, 13.0, 19.6; 256 x 8 11.9, 11.3, 15.7, 24.6. From 12000 keys the cluster sort is
// faster again (bench/results/NOTES.md).
struct network_tiling_sm90 final {
  static constexpr network_knobs knobs = [] {
    network_knobs k;
    k.block_threads = 256;
    k.items_per_thread = 4;
    k.max_cluster_blocks = 8;
    return k;
  }();
};

// The same network for the smallest inputs of 32-bit keys with values, whose words are 64 bits
// (the key's bits over its input position): one cluster of up to 8 blocks of 256 x 2 keys, so
// n up to 4096. Scratch timer, whole calls, u32+u32, ratio to CUB's radix sort, H100 / H200:
// 256 x 2 at 1024 keys 1.39-1.43 / 1.46-1.55, 2048 1.14-1.19 / 1.23-1.32 (par's cluster sort
// 1.15 / 1.17 and 1.17 / 1.20); 256 x 4, 128 x 2 and 512 x 2 slower. Clusters of 8 blocks
// (3000-4096 keys) gain 20 % on the H200 but lose 5 % on the H100 against the cluster sort,
// so par takes them where its table says (par_tuned_table::network_pairs_max_keys).
struct network_tiling_with_values_sm90 final {
  static constexpr network_knobs knobs = [] {
    network_knobs k;
    k.block_threads = 256;
    k.items_per_thread = 2;
    k.max_cluster_blocks = 8;
    return k;
  }();
};

// The sort by buckets (par's msd_buckets; backends/radix/msd_buckets.cuh): one cluster per
// bucket, 256 buckets resident at once. 256 x 16 keys per block at 2 blocks per SM: up to
// 2^19.5 uniform keys every bucket is one block. H100, u32, ratio to CUB at 2^17 / 2^18 /
// 2^19 / 2^20: 512 x 8 at 1 block per SM 1.34 / 1.21 / 1.21 / 0.74 (one block per SM: 106
// registers), at 2 1.34 / 1.25 / 1.25 / 0.84; 256 x 16 at 2 1.41 / 1.32 / 1.33 / 0.86, at 4
// 1.33 / 1.23 / 1.26 / 0.95; 256 x 8 at 4 1.45 / 1.44 / 1.15 / 0.92; 512 x 16 at 2 1.14 /
// 1.02 / 1.08 / 1.07. From 2^20 a bucket takes a cluster of several blocks and the small-tile
// passes are faster (bench/results/NOTES.md).
struct cluster_tiling_buckets_sm90 final {
  static constexpr cluster_knobs knobs = [] {
    cluster_knobs k = cluster_tiling_small_sm90::knobs;
    k.block_threads = 256;
    k.items_per_thread = 16;
    k.min_blocks_per_multiprocessor = 2;
    return k;
  }();
};

// Comparison backend (tiles sorted in registers and merged in shared memory, then merge path
// merges).
struct merge_tuning_sm90 final {
  static constexpr merge_knobs knobs = [] {
    merge_knobs k;
    // Tile sort: 256 threads x 17 keys, sorted in registers and merged in shared memory. Whole
    // sort against the bitonic tiles it replaced (256 x 16), H100, 2^26: u32 4.23 -> 3.98 ms,
    // s16 23.1 -> 17.4 ms, u32 + u32 8.62 -> 7.12 ms (bench/results/NOTES.md).
    k.tile_threads = 256;
    k.tile_items_per_thread = 17;
    // Three blocks per SM: u32 + u32 tiles in 80 registers instead of 112, whole sort 2^24 /
    // 2^26 1.80 / 7.44 -> 1.73 / 7.16 ms; keys only unchanged.
    k.tile_blocks_per_multiprocessor = 3;
    // A sort of at most 512 x 5 keys: one block, 512 threads x 5 keys, instead of one tile
    // of 256 x 17: shorter chains of dependent shared-memory loads per merge level. H100,
    // ratio to CUB's merge sort at 1000 / 2048 keys: u32 0.93 / 0.89 -> 1.15 / 1.03, f64 0.94 /
    // 0.85 -> 1.00 / 1.00, u32 + u32 0.92 / 0.86 -> 1.13 / 1.09 (bench/results/NOTES.md).
    k.one_block_threads = 512;
    k.one_block_items_per_thread = 5;
    // A sort of at most 512 x 9 keys (8-byte keys: 512 x 7, what fits 40 KB) but more than
    // 512 x 5: one block of 512 x 9 rather than a tile of 256 x 17 or a cluster of two. Ratio
    // to CUB's merge sort, H100 / H200, 2561-4608 keys, before -> after: u32 0.87-0.94 /
    // 0.87-0.93 -> 0.93-1.14 / 0.92-1.13, u32 + u32 0.89-0.95 / 0.89-0.97 -> 0.95-1.19 /
    // 0.94-1.17; f64 (2561-3584) 0.93-0.95 / 0.94-0.98 -> 1.04-1.10 / 1.07-1.10. Below 2560
    // keys it loses to 512 x 5, and 512 x 7 or x 11 each win only part of the band
    // (bench/results/NOTES.md).
    k.one_block_large_items_per_thread = 9;
    // A sort of at most 512 x 13 keys but more than 512 x 9: one block of 512 x 13 in
    // dynamic shared memory rather than a cluster of two tiles. Ratio to CUB's merge sort, H100 /
    // H200, 5000-6656 keys, before -> after: u32 0.94-0.99 / 0.95-0.99 -> 1.15-1.22 /
    // 1.12-1.20, u32 + u32 1.00-1.03 / 0.99-1.03 -> 1.07-1.16 / 1.05-1.15. Not for 8-byte
    // keys (512 x 11 in 62 KB, more keys per thread than their tile: f64 at 4608 keys 1.09 ->
    // 0.98 in the benchmark). 512 x 15 and x 17 (to 7680 and 8704 keys) win for u32 keys but
    // lose for pairs; 1024 threads lose everywhere (bench/results/NOTES.md).
    k.one_block_larger_items_per_thread = 13;
    k.one_block_larger_exchange_bytes = 62 * 1024;
    // Keys without values past 512 x 13 (to 512 x 17 = 8704 keys): one block of 512 x 17 in
    // the same 62 KB rather than a cluster of two tiles. Ratio to CUB's merge sort, u32, H100 /
    // H200: 7168-7680 keys 0.90-0.95 / 0.93-0.99 -> 1.00-1.04 / 1.01-1.05, 8192 0.94-0.98 /
    // 0.94-0.97 -> 1.00-1.03 / 0.98 (scratch timer, bench/results/NOTES.md).
    k.one_block_keys_only_items_per_thread = 17;
    // A sort of 2 to 16 ordinary tiles (u32: to 69632 keys, 8-byte keys to 36864): one
    // cluster, its blocks merging through distributed shared memory, instead of tile sorts
    // and merge passes. H100, ratio to CUB's merge sort, tiles and passes / one cluster of
    // at most 8 / of at most 16 blocks: u32 8192 0.86 / 0.94 / 0.95, 2^14 0.90 / 1.06 / 1.07,
    // 2^15 0.98 / 1.11 / 1.12, 2^16 1.05 / 1.06 / 1.24; f64 2^13 0.98 / 1.12 / 1.13, 2^15
    // 1.06 / 1.06 / 1.27; u32 + u32 2^14 0.95 / 1.00 / 1.00, 2^16 0.92 / 0.92 / 1.10
    // (bench/results/NOTES.md). Where the GPU allows fewer than 16, as many as it allows.
    k.cluster_most_blocks = 16;
    // Before those, one cluster of one-block tiles (512 x 5: to 40960 keys): pairs past the
    // one block of 512 x 9 (4608 4-byte keys), ahead of the one of 512 x 13; keys alone past
    // that (6657). Shorter merge chains (5 keys a thread), twice the warps a block, more SMs.
    // H200, the public call, ratio to CUB's merge sort before / after (scratch timer, two
    // rounds; bench/results/NOTES.md, 2026-12-04): u32 + u32 5200-8704 0.93-1.04 / 1.06-1.11,
    // 9216-40960 0.97-1.16 / 1.13-1.55; u32 (and a lambda) 9216-40960 1.03-1.31 / 1.07-1.58,
    // 7000-8704 level with one block of 512 x 17; the 16-byte struct 2561-24576 0.98-1.25 /
    // 1.09-1.43. Not for 8-byte keys: f64 and u64 0-3 % slower than the ordinary tiles'
    // cluster, u64 + u32 4-19 %.
    k.clusters_of_one_block_tiles = true;
    k.clusters_of_one_block_tiles_8_byte_keys = false;
    // Inputs of at least 4 wide tiles are sorted in tiles of 512 threads (u32: 512 x 17 keys,
    // 61 KB with their positions, in dynamic shared memory): twice the keys per tile, one
    // merge pass fewer. H100, ratio to CUB's merge sort (int counts) with 256- / 512-thread
    // tiles for every n: u32 2^16 0.85 / 0.95, 2^20 0.91 / 1.00, 2^26 0.95 / 0.95; f64 2^22
    // 1.11 / 1.16; s16 2^18 0.88 / 0.98; u32 + u32 2^24 1.00 / 1.05, but 4096 0.88 / 0.71 and
    // 2^18 0.87 / 0.85; u32 4096 0.85 / 0.78 (bench/results/NOTES.md).
    k.wide_tile_threads = 512;
    // Keys only: three blocks per SM (u32 2^24 / 2^26 1.00 / 0.97 -> 1.03 / 0.99, f64 +1 %);
    // pairs two (at three, u32 + u32 spilled 392 bytes and lost 4 %).
    k.wide_tile_blocks_per_multiprocessor = 3;
    k.wide_tile_blocks_per_multiprocessor_with_values = 2;
    k.wide_tile_exchange_bytes = 62 * 1024;
    k.wide_tile_from_tiles = 4;
    // With values (keys other than 8 bytes): wide tiles from 192 of them (u32 + u32: from
    // 2^21), ordinary tiles below, where two wide tiles per SM leave most SMs idle. H200, ratio to CUB's merge sort, wide
    // tiles from 4 / from 192 (both with the 128 x 13 merge blocks below): 2^17 1.02 / 1.14,
    // 2^18 1.02 / 1.11, 2^19 0.93 / 1.05, 2^20 1.03 / 1.05, 2^21 1.19 / 1.19 (keys alone:
    // wide tiles win at every size; bench/results/NOTES.md, 2026-11-30).
    k.wide_tile_from_tiles_with_values = 192;
    // Merge pass: each block writes 128 x 17 merged keys. An odd count spreads the threads'
    // strided reads of the merge over all shared-memory banks. Whole sort, 2^26 u32, H200:
    // 256 x 16: 4.46 ms, 256 x 21: 4.70, 256 x 17: 4.18, 256 x 15: 4.17, 256 x 13: 4.06,
    // 128 x 17: 3.98.
    k.merge_threads = 128;
    k.merge_items_per_thread = 17;
    // With values, 13 (u32 + u32, wide tiles from 192, H200, ratio to CUB's merge sort, 128 x
    // 17 / 128 x 13 merge blocks: 2^17 1.10 / 1.14, 2^19 1.01 / 1.05, 2^21 1.13 / 1.19, 2^23
    // 1.14 / 1.22, 2^25 1.19 / 1.21, 2^27 1.19 / 1.20; 11 and 15 in between; keys alone lose
    // with 13: u32 2^21 / 2^22 1.10 / 1.14 -> 1.06 / 1.11; bench/results/NOTES.md, 2026-11-30).
    k.merge_items_per_thread_with_values = 13;
    // The merge kernels' register budgets, a pass taking the first that holds all its blocks
    // at once (one wave), else the last: where they all fit, more registers shorten each
    // block's chain; where they do not, more resident blocks start the last ones sooner.
    // Measured (H200, scratch timer, ratio to CUB's merge sort with each budget for every
    // pass; the compiler's choice is 40 registers for u32, 12 blocks per SM):
    //   u32 keys, 128 x 17 (1 / 8 / any / 16 blocks per SM): 2^20 (482 merge blocks) 1.44 /
    //   1.39 / 1.40 / 1.30, 2^21 (964) 1.17 / 1.41 / 1.34 / 1.30, 3000001 (1379) 1.07 / 1.21 /
    //   1.34 / 1.28, 2^22 (1928) 1.02 / 1.16 / 1.22 / 1.26, 2^23 1.01 / 1.12 / 1.17 / 1.24,
    //   2^24 0.93 / 1.06 / 1.12 / 1.13;
    //   u64 keys, 128 x 9: 2^20 1.58 / 1.52 / 1.40 / 1.34, 2^21 1.30 / 1.29 / 1.32 / 1.40,
    //   3000001 1.22 / 1.23 / 1.38 / 1.39, 2^23 1.21 / 1.24 / 1.29 / 1.26 (f64 alike);
    //   with values, u32 + u32 (128 x 13): 2^20 1.36 / 1.21 / 1.28 / 0.90, 2^21 1.22 / 1.24 /
    //   1.28 / 1.04, and 16 worse still from there; u64 + u32: 2^20 1.40 / 1.39 / 1.32 / 1.01,
    //   2^21 1.22 / 1.20 / 1.17 / 1.07 (12: 1.22), 2^23 1.09 / 1.15 / 1.18 / 0.87
    //   (bench/results/NOTES.md, 2026-12-03).
    k.merge_blocks_per_multiprocessor[0] = 1;
    k.merge_blocks_per_multiprocessor[1] = 8;
    k.merge_blocks_per_multiprocessor[2] = k.any_registers;
    k.merge_blocks_per_multiprocessor[3] = 16;
    k.merge_blocks_per_multiprocessor_8_byte_keys[0] = 1;
    k.merge_blocks_per_multiprocessor_8_byte_keys[1] = 8;
    k.merge_blocks_per_multiprocessor_8_byte_keys[2] = 16;
    k.merge_blocks_per_multiprocessor_8_byte_keys[3] = k.any_registers;
    k.merge_blocks_per_multiprocessor_with_values[0] = 1;
    k.merge_blocks_per_multiprocessor_with_values[1] = k.any_registers;
    // Keys of 8 bytes (u64, f64; alone or with values): 9 keys per thread in tiles and merges,
    // which hold twice the registers per key. Ratio to CUB's merge sort, H100, 2^16 / 2^20 /
    // 2^26: f64 0.74 / 0.95 / 1.02 -> 0.94 / 1.03 / 1.05, u64 0.73 / 0.92 / 0.98 -> 0.91 /
    // 1.04 / 1.05, u64 + u32 0.78 / 0.92 / 1.06 -> 0.91 / 1.00 / 1.03.
    k.items_per_thread_8_byte_keys = 9;
    // Split search before each merge pass (find_splits): its block size, one merge block's
    // search per 16 lanes (per thread from samples). Its blocks overlap by one merge block
    // (see there).
    k.split_search_threads = 128;
    // Passes of at most this many merge blocks search each split with 16 lanes of a warp:
    // a few rounds of loads instead of one load per halving; larger ones by halving, first
    // among samples of the runs (split_samples.cuh). u32 keys:
    // every pass to 2^22 keys (1928 blocks), none from 2^24 (7710). H100, ratio to CUB's
    // merge sort, binary searches / lanes: u32 2^16 0.95 / 1.06, 2^18 0.92 / 1.12, 2^22 1.05
    // / 1.11, but 2^24 1.02 / 0.95 and 2^26 0.99 / 0.88; f64 2^17 0.96 / 1.11, 2^22 1.16 /
    // 1.26, 2^24 1.11 / 0.99; u32 + u32 2^18 0.86 / 0.96, 2^22 1.06 / 1.15, 2^24 1.05 / 1.00.
    k.lane_split_search_most_blocks = 4096;
    // Of those, passes of at most 2048 merge blocks search in the merge kernel, one launch a
    // pass instead of two. H200, scratch timer, time with the searches in the merge kernel
    // against a launch of their own: u32 2^17 / 2^20 / 2^21 / 2^22 -16 / -23 / -17 / -7 %
    // (1928 merge blocks at 2^22), f64 2^17 / 2^20 / 2^21 -20 / -17 / -8 % (1820 blocks at
    // 2^21) but 2^22 +4 % (3641), u32 + u32 2^20 / 2^21 -17 / -7 % but 2^22 +5 % (2521).
    k.fused_split_search_most_blocks = 2048;
    // The larger passes' searches from samples: by 8 lanes each in passes of at most 16384
    // merge blocks, by one thread in larger ones (whose searches keep the SMs busy already,
    // where lanes only add instructions). H200, scratch timer, every such pass by 8 lanes
    // against one thread: u32 2^24 / 2^25 / 2^26 -2.9 / -1.1 / -0.2 % (7710 / 15420 / 30840
    // blocks), u32 + u32 2^23 / 2^24 / 2^25 -2.3 / -0.3 / +0.2 % (5041 / 10082 / 20164), f64
    // 6000000 / 2^23 / 2^24 / 2^25 -5.7 / -3.7 / -0.7 / +0.5 % (5209 / 7282 / 14564 / 29127);
    // 16 lanes lost from ~10 thousand blocks, 4 did as 8 (u32).
    k.sample_split_search_lanes = 8;
    k.sample_lane_search_most_blocks = 16384;
    // Wider keys get fewer items per thread so that a tile fits this much shared memory.
    k.exchange_bytes = 40 * 1024;
    // Sample sort (backends/merge/sample_sort.cuh) for wide keys without values: from 2^21
    // keys of 9-16 bytes, 6 x 2^20 of 8 bytes, to 3 x 2^26. H200, ratio to CUB's merge sort,
    // merge passes / sample sort: the 16-byte struct 2^21 1.52 / 1.66, 2^22 1.48 / 2.01, 2^24
    // 1.53 / 2.34, 2^26 1.57 / 2.46, 2^27 1.59 / 2.05; f64 2^22 1.34 / 1.37, 2^23 1.30 /
    // 1.49, 2^24 1.28 / 1.49, 2^26 1.24 / 1.43, 2^27 1.24 / 1.35, 2^28 1.22 / 1.18 (2^16
    // buckets of 2.3 tiles). Buckets of half a tile on average, which the segmented sort's
    // 128-thread blocks take, those past it a full block (f64 at 2^23 / 2^24, 75 / 50 / 45 %:
    // 615 / 565 / 550 and 1124 / 1082 / 1075 us; the struct at 2^22 664 / 628 / 656), 32
    // samples a bucket (16: +5 %), the classify's 8 keys a thread (bench/results/NOTES.md).
    k.sample_sort_min_keys = 2 << 20;
    k.sample_sort_min_keys_8_byte_keys = 6 << 20;
    k.sample_sort_max_keys = 3ll << 26;
    k.sample_sort_bucket_percent = 50;
    k.sample_sort_samples_per_bucket = 32;
    k.sample_sort_classify_threads = 256;
    k.sample_sort_classify_items_per_thread = 8;
    k.sample_sort_staged_tree_bytes = 48 * 1024;
    k.sample_sort_deep_tree_staged_bytes = 4 * 1024;
    return k;
  }();
  // The sample sort's scatter: a stable radix sort of u16 bucket numbers, the keys as values.
  using sample_sort_scatter_tuning = radix_tuning_sm90;
};

// Bucket + bitonic backend.
struct bucket_bitonic_tuning_sm90 final {
  static constexpr bucket_bitonic_knobs knobs = [] {
    bucket_bitonic_knobs k;
    // Partition kernels (min/max, bucket histogram, scatter): 256 threads x 16 keys per tile,
    // fewer for wide keys or values, so that a tile fits partition_exchange_bytes of shared
    // memory next to the scatter's per-bucket counters and offsets (12 bytes per bucket).
    k.partition_threads = 256;
    k.partition_items_per_thread = 16;
    k.partition_exchange_bytes = 20 * 1024;
    // Register budget of the scatter: at least this many blocks resident per SM.
    k.scatter_blocks_per_multiprocessor = 3;
    // A segment is split into up to 2^first_bucket_bits buckets (the scatter keeps a counter
    // and a global offset per bucket in shared memory); below the first level into at least
    // 2^deeper_bucket_bits, so that each level narrows the range by that many bits and the
    // recursion depth stays bounded. Integer keys that need two levels split the first one
    // more coarsely, as a sample of them allows (backends/bucket_bitonic/buckets.cuh).
    k.first_bucket_bits = 11;
    k.deeper_bucket_bits = 8;
    // Where that even split already takes first_bucket_bits (8-byte integer keys at
    // 2^28-2^29, 4-byte ones at 2^29-2^30), the sample can add no bits, but it can still find
    // that the keys fill a sliver of their range and cut that window instead: worth its one
    // block's ~20 us from 2^26 keys, where it is under 1 % of any sort.
    k.window_sample_min_keys = 1ll << 26;
    // Bucket sizes are fractions of a sort unit (unit_items keys: 2048 of 4 bytes, fewer for
    // wider keys). Within the bounds above, a level takes the fewest buckets that average at
    // most unit_items / target_buckets_per_unit keys: half a small bucket (below), 256 keys of
    // 4 bytes, so about n / 256 buckets for n keys.
    k.target_buckets_per_unit = 8;
    // Packing small buckets into sort units. A bucket is small when it holds at most
    // unit_items / small_buckets_per_unit keys: a quarter of a unit. Within a segment, a unit is
    // a run of consecutive small buckets whose first keys fall in the same window of
    // unit_window_quarters quarters of a unit: it spans less than a window plus one small
    // bucket, so at most unit_items keys, and about three quarters of that when buckets are much
    // smaller than a window (a bitonic tile costs the same however full it is: the networks of
    // 2^24 u32 keys took 1.53 ms on the H200 with these windows, 2.23 ms with half-unit ones).
    k.small_buckets_per_unit = 4;
    k.unit_window_quarters = 3;
    // Sort units: a bitonic network over 128 threads x 16 keys (2048 keys of 4 bytes), shrunk
    // to a power of two for wider keys (8-byte keys: 128 x 8 in 20 KB). Smaller units cost
    // fewer network steps per key (66 and 55 against 78 and 66 for 4096 and 2048 keys) and,
    // with buckets a share of a unit, the partition makes twice the buckets in the same
    // levels: from 2^22 integer keys 3-15 % faster than with units of 256 x 16 (u32 4096,
    // u64 2048 keys), 32-bit zipf keys 2-14 % slower; at 2^20, past the heavy-bucket limit
    // that the smaller buckets lower, sorted u32 keys up to 40 % slower (H100 and H200,
    // bench/results/NOTES.md).
    k.sort_threads = 128;
    k.sort_items_per_thread = 16;
    k.exchange_bytes = 20 * 1024;
    // Register budget of the sort-unit kernel: at least this many blocks resident per SM
    // (without it the compiler used enough registers for one block per SM: 3x slower).
    k.sort_blocks_per_multiprocessor = 4;
    // Units of 8-byte integer keys sort 32-bit prefix words (the full words in a kernel of
    // their own): 96 registers without spills at five blocks.
    k.wide_integer_sort_blocks_per_multiprocessor = 5;
    // Float and double keys keep units of 256 x 16 (f32 4096 keys, f64 2048): with the
    // smaller ones their planning took a level more for some distributions and sizes (f32
    // clustered at 2^20 2.1x, f64 exponential at 2^26 and normal at 2^28 1.5x as long) where
    // their other rows gained 2-10 %.
    k.float_sort_threads = 256;
    k.float_sort_items_per_thread = 16;
    k.float_exchange_bytes = 40 * 1024;
    k.float_sort_blocks_per_multiprocessor = 2;
    return k;
  }();
};

}  // namespace gpusort
