// The segmented sort's narrow blocks: the comparison sort's tile on fewer threads, with as many
// keys per thread as the tile, for segments that a full block would sort with most of its
// threads idle. The small block (64 threads) takes segments of 65 keys up to its tile (H200,
// 2^24 keys in segments of 65 keys to the small tile, small blocks against 256-thread blocks:
// u32 2.7-3.0x and f64 2.8-3.0x faster); the half block (128 threads) those past it up to its
// own tile (bench/results/NOTES.md, 2026-11-30).
#pragma once

#include "../merge/shapes.cuh"

namespace gpusort::backends::segmented {

inline constexpr int small_block_threads = 64;
inline constexpr int half_block_threads = 128;

// Tuning's knobs with the tile on Threads threads and as many keys per thread as Tuning's
// tile of Key holds: no more, though more shared memory per thread would fit more (16-byte
// keys took 17 a thread where the tile takes 7, spilled, and sorted 2x slower than a full
// block; bench/results/NOTES.md, 2026-11-30).
template <class Tuning, class Key, int Threads>
struct narrow_block_tuning {
  static constexpr auto knobs = [] {
    auto k = Tuning::knobs;
    k.tile_threads = Threads;
    k.tile_items_per_thread = merge::merge_shape<Tuning, Key>::tile_items_per_thread;
    k.items_per_thread_8_byte_keys = 0;  // tile_items_per_thread for every key
    // Registers as for the tile: about 85 per thread on a 64 K register file.
    k.tile_blocks_per_multiprocessor =
        k.tile_blocks_per_multiprocessor * Tuning::knobs.tile_threads / Threads;
    return k;
  }();
};

template <class Tuning, class Key>
using small_block_shape =
    merge::merge_shape<narrow_block_tuning<Tuning, Key, small_block_threads>, Key>;
template <class Tuning, class Key>
using half_block_shape =
    merge::merge_shape<narrow_block_tuning<Tuning, Key, half_block_threads>, Key>;

}  // namespace gpusort::backends::segmented
