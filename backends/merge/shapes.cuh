// The launch shapes of the comparison sort for one key type, from a tuning's knobs
// (policies/tuning/knobs.cuh): the tile sort's ordinary tile, the one-block sort of small
// inputs, the wide tile of large ones, and the merge passes' blocks.
#pragma once

#include "../common/bitonic_tile.cuh"  // bitonic_bytes_per_item
#include "../common/launch_bounds.cuh"

#include <cstddef>
#include <type_traits>

namespace gpusort::backends::merge {

// Items per thread: `wanted`, or where that does not fit, the largest odd count that does
// (odd counts spread a thread's consecutive shared-memory positions over all banks).
__host__ __device__ constexpr int items_that_fit(int wanted, int fitting) {
  return wanted <= fitting ? wanted : fitting % 2 == 1 || fitting == 0 ? fitting : fitting - 1;
}

// The shapes of both kernels for one key type: what Tuning asks for, shrunk to fit
// Tuning::knobs.exchange_bytes of shared memory (per key: the key, its 2-byte position and
// the padding, as a bitonic tile holds them).
template <class Tuning, class Key>
struct merge_shape {
  static constexpr int tile_threads = Tuning::knobs.tile_threads;
  static constexpr int tile_blocks_per_multiprocessor = min_blocks_per_multiprocessor(
      Tuning::knobs.tile_blocks_per_multiprocessor, tile_threads);
  static constexpr int merge_threads = Tuning::knobs.merge_threads;
  static_assert(tile_threads % 32 == 0 && (tile_threads & (tile_threads - 1)) == 0,
                "tile_threads: a power of two, at least one warp");
  static_assert(merge_threads % 32 == 0 && (merge_threads & (merge_threads - 1)) == 0,
                "merge_threads: a power of two, at least one warp");
  static constexpr int fitting_tile_items =
      Tuning::knobs.exchange_bytes / (bitonic_bytes_per_item<Key> * tile_threads);
  static constexpr int fitting_merge_items =
      Tuning::knobs.exchange_bytes / (bitonic_bytes_per_item<Key> * merge_threads);
  static_assert(fitting_tile_items >= 1 && fitting_merge_items >= 1,
                "gpusort::merge: the key type is too large for a tile in shared memory; sort "
                "indices (or a smaller key) with a comparator that looks the keys up");
  // Any counts: tiles and chunks need not be powers of two (merge_block_of cuts each pair).
  static constexpr bool eight_byte_key =
      sizeof(Key) == 8 && Tuning::knobs.items_per_thread_8_byte_keys > 0;
  static constexpr int tile_items_per_thread = items_that_fit(
      eight_byte_key ? Tuning::knobs.items_per_thread_8_byte_keys
                     : Tuning::knobs.tile_items_per_thread,
      fitting_tile_items);
  static constexpr int tile_items = tile_threads * tile_items_per_thread;
  static constexpr int merge_items_per_thread = items_that_fit(
      eight_byte_key ? Tuning::knobs.items_per_thread_8_byte_keys
                     : Tuning::knobs.merge_items_per_thread,
      fitting_merge_items);
  static constexpr int chunk_items = merge_threads * merge_items_per_thread;
  // The merge kernels' register budgets (merge_budgets.cuh): Tuning's for the key's width up
  // to their first 0, at least one (any_registers where none). Keys wider than 8 bytes take
  // any_registers alone: their merge blocks are held by shared memory (16 bytes: 31 KB a
  // block, 7 per SM), and a budget of more blocks than that only spills (16 per SM: 880
  // bytes). Budget b's launch bound: merge_budget<b>::blocks_per_multiprocessor (0: none).
  static constexpr bool budgeted_key = sizeof(Key) <= 4 || eight_byte_key;
  static constexpr auto& merge_budget_list =
      eight_byte_key ? Tuning::knobs.merge_blocks_per_multiprocessor_8_byte_keys
                     : Tuning::knobs.merge_blocks_per_multiprocessor;
  static constexpr int merge_budget_count = [] {
    constexpr int most = int(std::extent_v<std::remove_reference_t<decltype(merge_budget_list)>>);
    int count = 0;
    while (budgeted_key && count < most && merge_budget_list[count] != 0) ++count;
    return count > 0 ? count : 1;
  }();
  template <int Budget>
  struct merge_budget {
    static constexpr int blocks_per_multiprocessor =
        budgeted_key && merge_budget_list[Budget] > 0
            ? min_blocks_per_multiprocessor(merge_budget_list[Budget], merge_threads)
            : 0;
  };
  static_assert(tile_items <= 65536 && chunk_items <= 65536,
                "positions are 16-bit in shared memory");
  // find_splits: one search per group of lanes (key_search_lanes where it searches the keys,
  // sample_search_lanes or one thread where it starts from samples); each launch block also
  // searches the first merge block of the next, so it covers one merge block fewer than it
  // has searches. (Constants, not functions: kernels read them, and a user's nvcc need not
  // relax constexpr.)
  static constexpr int split_search_threads = Tuning::knobs.split_search_threads;
  static_assert(split_search_threads >= 32 && split_search_threads % 32 == 0,
                "split_search_threads: whole warps");
  static constexpr int key_search_lanes = 16;
  static constexpr int sample_search_lanes =
      Tuning::knobs.sample_split_search_lanes > 1 ? Tuning::knobs.sample_split_search_lanes : 1;
  static_assert(32 % sample_search_lanes == 0 && split_search_threads / sample_search_lanes >= 2,
                "sample_split_search_lanes: a power of two to 32, and two searches a block");
  template <int Lanes>
  static constexpr int split_searches_per_block = split_search_threads / Lanes - 1;
  // Passes of at most this many merge blocks search the keys by lanes, larger ones from
  // samples of their runs.
  static constexpr std::size_t lane_search_most_blocks =
      std::size_t(Tuning::knobs.lane_split_search_most_blocks);
  // Of those, passes of at most this many merge blocks search in the merge kernel itself
  // (search_and_merge_runs).
  static constexpr std::size_t fused_search_most_blocks =
      std::size_t(Tuning::knobs.fused_split_search_most_blocks);
  // Passes that search from samples: those of at most this many merge blocks by
  // sample_search_lanes, larger ones by one thread.
  static constexpr std::size_t sample_lane_search_most_blocks =
      std::size_t(Tuning::knobs.sample_lane_search_most_blocks);
};

// Tuning's knobs for the tiles and merge passes of a sort of Key with values: its _with_values
// knobs in place of those they refine, where set. Keys of 8 bytes, which have knobs of their own
// (items_per_thread_8_byte_keys), keep those of keys alone, but for the merge kernels' register
// budgets (with values, those of keys alone lost: policies/tuning/sm90.cuh): with values their
// wide tiles won from 4 of them (u64 + u32, H200, from 4 / from 192: 2^16 1.05 / 0.98x, 2^17
// 1.06 / 0.95x CUB's merge sort; bench/results/NOTES.md, 2026-11-30).
template <class Tuning, class Key>
struct with_values_tuning {
  static constexpr auto knobs = [] {
    auto k = Tuning::knobs;
    if (k.merge_blocks_per_multiprocessor_with_values[0] != 0)
      for (int b = 0; b < k.most_merge_budgets; ++b)
        k.merge_blocks_per_multiprocessor[b] = k.merge_blocks_per_multiprocessor_8_byte_keys[b] =
            k.merge_blocks_per_multiprocessor_with_values[b];
    if (sizeof(Key) == 8 && k.items_per_thread_8_byte_keys > 0) return k;
    if (k.wide_tile_from_tiles_with_values > 0)
      k.wide_tile_from_tiles = k.wide_tile_from_tiles_with_values;
    if (k.merge_items_per_thread_with_values > 0)
      k.merge_items_per_thread = k.merge_items_per_thread_with_values;
    return k;
  }();
};

template <class Tuning, class Key, bool HasValues>
using tuning_for_values =
    std::conditional_t<HasValues, with_values_tuning<Tuning, Key>, Tuning>;

// The shape of a sort that one block does whole: Tuning's one_block knobs as its tile where
// a key fits them, else (no one_block knobs, or keys too wide for that many threads) the
// ordinary tile.
template <class Tuning>
struct one_block_tuning {
  static constexpr auto knobs = [] {
    auto k = Tuning::knobs;
    k.tile_threads = k.one_block_threads;
    k.tile_items_per_thread = k.one_block_items_per_thread;
    k.tile_blocks_per_multiprocessor = 1;
    k.items_per_thread_8_byte_keys = 0;  // one_block_items_per_thread for every key
    return k;
  }();
};

template <class Tuning, class Key>
constexpr bool one_block_fits =
    Tuning::knobs.one_block_threads > 0 && Tuning::knobs.one_block_items_per_thread > 0 &&
    Tuning::knobs.exchange_bytes /
            (bitonic_bytes_per_item<Key> * Tuning::knobs.one_block_threads) >= 1;

template <class Tuning, class Key>
using one_block_shape = std::conditional_t<one_block_fits<Tuning, Key>,
                                           merge_shape<one_block_tuning<Tuning>, Key>,
                                           merge_shape<Tuning, Key>>;

// The one-block sort's block with ItemsPerThread keys each in ExchangeBytes of shared memory.
template <class Tuning, int ItemsPerThread, int ExchangeBytes>
struct one_block_tuning_with {
  static constexpr auto knobs = [] {
    auto k = one_block_tuning<Tuning>::knobs;
    k.tile_items_per_thread = ItemsPerThread;
    k.exchange_bytes = ExchangeBytes;
    return k;
  }();
};

template <class Tuning, class Key, int ItemsPerThread, int ExchangeBytes>
using one_block_shape_with =
    merge_shape<one_block_tuning_with<Tuning, ItemsPerThread, ExchangeBytes>, Key>;

// The shape of a sort that one block does whole just past the one-block shape: as many
// threads, Tuning's one_block_large_items_per_thread keys each (fewer where they do not fit).
template <class Tuning, class Key>
using large_one_block_shape =
    one_block_shape_with<Tuning, Key, Tuning::knobs.one_block_large_items_per_thread,
                         Tuning::knobs.exchange_bytes>;

// Whether Tuning has such a shape for Key, and it holds more keys than the one-block shape.
template <class Tuning, class Key>
constexpr bool has_large_one_block() {
  if constexpr (!one_block_fits<Tuning, Key> ||
                Tuning::knobs.one_block_large_items_per_thread <= 0)
    return false;
  else
    return large_one_block_shape<Tuning, Key>::tile_items >
           one_block_shape<Tuning, Key>::tile_items;
}

// The shape of a sort that one block does whole past both: as many threads,
// Tuning's one_block_larger_items_per_thread keys each in one_block_larger_exchange_bytes of
// shared memory (fewer keys where they do not fit).
template <class Tuning, class Key>
using larger_one_block_shape =
    one_block_shape_with<Tuning, Key, Tuning::knobs.one_block_larger_items_per_thread,
                         Tuning::knobs.one_block_larger_exchange_bytes>;

// The most keys the one-block shapes before it hold.
template <class Tuning, class Key>
constexpr int largest_one_block_before_larger() {
  if constexpr (has_large_one_block<Tuning, Key>())
    return large_one_block_shape<Tuning, Key>::tile_items;
  else
    return one_block_shape<Tuning, Key>::tile_items;
}

// Whether one block of ItemsPerThread keys each in ExchangeBytes (Tuning's threads) is worth
// a shape of its own for Key: it holds more than the `before` keys of the shapes tried ahead
// of it, with no more keys per thread than the ordinary tile. Its rival is a cluster of two
// ordinary tiles, whose merge levels are chains of that many dependent loads; with longer
// chains (8-byte keys: 512 x 11 against 256 x 9) one block lost to two full tiles.
template <class Tuning, class Key, int ItemsPerThread, int ExchangeBytes>
constexpr bool one_block_holds_more_than(int before) {
  if constexpr (!one_block_fits<Tuning, Key> || ItemsPerThread <= 0 ||
                ExchangeBytes / (bitonic_bytes_per_item<Key> * Tuning::knobs.one_block_threads) < 1) {
    return false;
  } else {
    using shape = one_block_shape_with<Tuning, Key, ItemsPerThread, ExchangeBytes>;
    return shape::tile_items > before &&
           shape::tile_items_per_thread <= merge_shape<Tuning, Key>::tile_items_per_thread;
  }
}

// Whether Tuning has the larger shape for Key (one_block_holds_more_than the shapes before it).
template <class Tuning, class Key>
constexpr bool has_larger_one_block() {
  constexpr auto& knobs = Tuning::knobs;
  return one_block_holds_more_than<Tuning, Key, knobs.one_block_larger_items_per_thread,
                                   knobs.one_block_larger_exchange_bytes>(
      largest_one_block_before_larger<Tuning, Key>());
}

// The shape of a sort of keys without values that one block does whole past all three: as
// many threads, Tuning's one_block_keys_only_items_per_thread keys each in the larger shape's
// shared memory. Pairs stay with a cluster of two tiles there (one block of 512 x 17 lost
// 5-15 % to it, bench/results/NOTES.md).
template <class Tuning, class Key>
using keys_only_one_block_shape =
    one_block_shape_with<Tuning, Key, Tuning::knobs.one_block_keys_only_items_per_thread,
                         Tuning::knobs.one_block_larger_exchange_bytes>;

// Whether Tuning has that shape for Key (one_block_holds_more_than the shapes before it).
template <class Tuning, class Key>
constexpr bool has_keys_only_one_block() {
  constexpr auto& knobs = Tuning::knobs;
  int before = largest_one_block_before_larger<Tuning, Key>();
  if constexpr (has_larger_one_block<Tuning, Key>())
    before = larger_one_block_shape<Tuning, Key>::tile_items;
  return one_block_holds_more_than<Tuning, Key, knobs.one_block_keys_only_items_per_thread,
                                   knobs.one_block_larger_exchange_bytes>(before);
}

// The tile shape for inputs of at least Tuning's wide_tile_from_tiles wide tiles: Tuning's
// wide_tile knobs as its tile where that holds more of a key than the ordinary tile, else the
// ordinary tile (keys too wide for that many threads). Merge passes keep Tuning's own shape.
template <class Tuning, bool HasValues>
struct wide_tile_tuning {
  static constexpr auto knobs = [] {
    auto k = Tuning::knobs;
    k.tile_threads = k.wide_tile_threads;
    k.tile_blocks_per_multiprocessor = HasValues
                                           ? k.wide_tile_blocks_per_multiprocessor_with_values
                                           : k.wide_tile_blocks_per_multiprocessor;
    k.exchange_bytes = k.wide_tile_exchange_bytes;
    return k;
  }();
};

template <class Tuning>
constexpr bool has_wide_tiles = Tuning::knobs.wide_tile_threads > 0;

template <class Tuning, class Key>
__host__ __device__ constexpr bool wide_tile_holds_more() {
  // (Nested, so that a tuning without wide tiles never divides by their 0 threads.)
  if constexpr (!has_wide_tiles<Tuning>)
    return false;
  else if constexpr (Tuning::knobs.wide_tile_exchange_bytes /
                         (bitonic_bytes_per_item<Key> * Tuning::knobs.wide_tile_threads) <
                     1)
    return false;
  else
    return merge_shape<wide_tile_tuning<Tuning, false>, Key>::tile_items >
           merge_shape<Tuning, Key>::tile_items;
}

// (HasValues: the tile of a sort with values, which differs only in its register budget.)
template <class Tuning, class Key, bool HasValues = false>
using wide_tile_shape = std::conditional_t<wide_tile_holds_more<Tuning, Key>(),
                                           merge_shape<wide_tile_tuning<Tuning, HasValues>, Key>,
                                           merge_shape<Tuning, Key>>;

// Whether a sort of n keys is done in wide tiles: keys that gain from them, and at least
// Tuning's wide_tile_from_tiles of them.
template <class Tuning, class Key>
__host__ __device__ constexpr bool sorts_in_wide_tiles(std::size_t n) {
  if constexpr (!wide_tile_holds_more<Tuning, Key>())
    return false;
  else
    return n >= std::size_t(wide_tile_shape<Tuning, Key>::tile_items) *
                    std::size_t(Tuning::knobs.wide_tile_from_tiles);
}

}  // namespace gpusort::backends::merge
