// The segmented sort's small block: the comparison sort's tile on 64 threads, for segments of
// 65 keys up to its tile, which a full block would sort with most of its threads idle (H200,
// 2^24 keys in segments of 65 keys to the small tile, small blocks against 256-thread blocks:
// u32 2.7-3.0x and f64 2.8-3.0x faster; bench/results/NOTES.md, 2026-11-30).
#pragma once

#include "../merge/shapes.cuh"

namespace gpusort::backends::segmented {

inline constexpr int small_block_threads = 64;

// Tuning's knobs with the tile on small_block_threads threads and as many keys per thread as
// Tuning's tile of Key holds: no more, though four times the shared memory per thread would
// fit more (16-byte keys took 17 a thread where the tile takes 7, spilled, and sorted 2x
// slower than a full block; bench/results/NOTES.md, 2026-11-30).
template <class Tuning, class Key>
struct small_block_tuning {
  static constexpr auto knobs = [] {
    auto k = Tuning::knobs;
    k.tile_threads = small_block_threads;
    k.tile_items_per_thread = merge::merge_shape<Tuning, Key>::tile_items_per_thread;
    k.items_per_thread_8_byte_keys = 0;  // tile_items_per_thread for every key
    // Registers as for the tile: about 85 per thread on a 64 K register file.
    k.tile_blocks_per_multiprocessor = k.tile_blocks_per_multiprocessor *
                                       Tuning::knobs.tile_threads / small_block_threads;
    return k;
  }();
};

template <class Tuning, class Key>
using small_block_shape = merge::merge_shape<small_block_tuning<Tuning, Key>, Key>;

}  // namespace gpusort::backends::segmented
