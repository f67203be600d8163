// What a tuning sets, backend by backend. A tuning is a type with one member,
// `static constexpr <backend>_knobs knobs`; the built-in ones (tuning/sm90.cuh) are final.
// To try another shape, start from a built-in tuning's knobs and change some:
//
//   struct narrow_tiles {
//     static constexpr gpusort::radix_knobs knobs = [] {
//       gpusort::radix_knobs k = gpusort::radix_tuning_sm90::knobs;
//       k.items_per_thread = 8;  // a misspelt knob does not compile
//       return k;
//     }();
//   };
//   gpusort::sort(gpusort::radix_policy<narrow_tiles>{}, first, last);
//
// Each knob says whether it applies to keys-only sorts (sort, stable_sort), to pairs
// (sort_by_key, stable_sort_by_key), or to both.
#pragma once

#include <cstddef>
#include <type_traits>

namespace gpusort {

// The radix backend's counting sort of narrow keys (keys only: integer, character and bool
// keys of at most 16 bits; backends/radix/counting_kernels.cuh).
struct counting_knobs {
  // Fewer keys than min_keys, or than min_keys_per_bin per possible key value, go through the
  // one-sweep passes instead (the counting sort's fixed cost, a histogram of every value per
  // count block, outweighs one or two passes).
  std::size_t min_keys = 0;
  std::size_t min_keys_per_bin = 0;
  int count_threads = 0;             // the count kernel's block
  int count_vectors_per_thread = 0;  // 16-byte loads each of its threads has in flight
  // A count block takes at least this many keys per bin of its histogram: writing out and
  // summing its histogram costs about as much as reading that many keys per bin.
  int count_keys_per_bin = 0;
  // Histograms of at most this many bins (at most 256) get a copy of 32-bit counters per
  // warp lane (no two lanes of a warp share a counter or a bank) and need no sum_bins launch;
  // wider ones one copy of 16-bit counters per block.
  int lane_private_max_bins = 0;
  // The most shared memory one count block's histogram may take; wider histograms are cut
  // into slices (each read of the keys counts one slice). Also capped by the device.
  int histogram_shared_bytes = 0;
  int group_bins = 0;  // bins summed and scanned by one block (at most 1024, a power of two)
  int fill_threads = 0;             // the fill kernel's block
  int fill_vectors_per_thread = 0;  // and the 16-byte stores of each of its threads
};

// The radix backend's one-sweep sort (backends/radix/kernels.cuh), and its counting sort of
// narrow keys (`counting`).
struct radix_knobs {
  int block_threads = 0;                 // both: threads per one-sweep tile
  int items_per_thread = 0;              // keys only: keys per thread of a tile
  int items_per_thread_with_values = 0;  // pairs: keys (and values) per thread of a tile
  // Shared memory a tile (and its digits, where kept) may take: fewer items per thread for
  // wide keys or values. Beyond 48 KB the tile takes dynamic shared memory.
  int exchange_bytes = 0;              // keys only
  int exchange_bytes_with_values = 0;  // pairs
  // Keys only, large inputs (backends/radix/large_input_tile.cuh): from large_input_min_keys
  // keys (floating-point keys from large_input_min_float_keys), tiles of up to
  // large_input_items_per_thread keys per thread in large_input_exchange_bytes (keys wider
  // than 4 bytes: large_input_wide_key_exchange_bytes), each key read again when staged
  // rather than held through the rank; where that gives the key type more keys per tile and
  // the device holds onesweep_blocks_per_multiprocessor such tiles per SM (0 items, or 0
  // exchange bytes for a key width: never, for those keys).
  int large_input_items_per_thread = 0;
  int large_input_exchange_bytes = 0;
  int large_input_wide_key_exchange_bytes = 0;
  std::size_t large_input_min_keys = 0;
  std::size_t large_input_min_float_keys = 0;
  // Pairs of 4-byte integer keys and 4-byte values, large inputs (large_input_tile.cuh): from
  // large_input_min_keys_with_values pairs, tiles of large_input_items_per_thread_with_values
  // pairs per thread, the values beside the keys in large_input_exchange_bytes_with_values,
  // neither held in registers through the rank (pairs_read_when_staged). This tile may take
  // more shared memory than every GPU gives a block: it is taken only where the device holds
  // onesweep_blocks_per_multiprocessor_with_values of it per SM (0 items or 0 exchange bytes:
  // never).
  int large_input_items_per_thread_with_values = 0;
  int large_input_exchange_bytes_with_values = 0;
  std::size_t large_input_min_keys_with_values = 0;
  // Register budget of the one-sweep kernel: at least this many blocks resident per SM.
  int onesweep_blocks_per_multiprocessor = 0;              // keys only
  int onesweep_blocks_per_multiprocessor_with_values = 0;  // pairs
  // Both: how a warp finds the lanes whose keys share its digit (true: a shared atomicOr per
  // key; false: ballots).
  bool rank_match_by_atomic_or = false;
  // How many predecessors' words a tile's look-back loads at once (backends/radix/lookback.cuh):
  // more cut the walk back where many tiles wait on each other, and cost look-back table
  // traffic where the walk is short or hidden.
  int look_back_width = 1;              // keys only
  int look_back_width_with_values = 1;  // pairs
  // Keys only, the large-input tile's (0: look_back_width): its tiles are fewer and longer,
  // so their walks are shorter.
  int large_input_look_back_width = 0;
  // Pairs of integer keys: the values take an exchange of their own beside the keys' where a
  // whole tile of both fits exchange_bytes_with_values (else they replace the keys in theirs,
  // and each key's digit is kept for them).
  bool values_beside_keys = false;
  // Keys only: keys of at most this many bytes stay in registers through the rank; wider ones
  // are read again from global memory (a cache hit) when the tile is staged.
  int held_key_bytes = 0;
  // Pairs whose values go beside the keys: neither keys nor values stay in registers through
  // the rank; the keys are read again when staged (a cache hit), the values read for the first
  // time straight into their exchange before the look-back, whose waiting hides that read.
  bool pairs_read_when_staged = false;
  int digit_bits = 0;                  // both: bits sorted per pass
  int histogram_blocks_per_sm = 0;     // both: the up-front histogram's blocks per SM
  int histogram_items_per_thread = 0;  // both: and the keys each of its threads loads at once
  // both: up to histogram_small_max_keys keys, histogram_small_blocks_per_sm blocks per SM
  // instead (0: histogram_blocks_per_sm at every size)
  int histogram_small_blocks_per_sm = 0;
  std::size_t histogram_small_max_keys = 0;
  // both: the up-front histogram counts in a column of counters per warp lane (no two lanes
  // of a warp on one bank; 128 KB a block) in blocks of this many threads, on GPUs whose
  // blocks hold the columns (backends/radix/digit_counters.cuh); 0: a row per pass, in
  // blocks of block_threads
  int histogram_lane_column_threads = 0;
  // both: where every tile of a one-portion sort is resident at once, the first pass counts
  // every pass's digits from the keys it holds, in place of the up-front histogram kernel
  // (backends/radix/first_pass_count.cuh)
  bool count_in_first_pass = false;
  std::size_t max_portion_keys = 0;    // both: keys per launch of a pass (at most 2^30 - 1)
  // both, the sort by buckets only (backends/radix/msd_buckets.cuh): each bucket's cluster
  // takes this many per cent more keys than an even share of n
  int bucket_headroom_percent = 0;
  counting_knobs counting;             // keys only, narrow integer keys: the counting sort
};

// The one-launch cluster sort of small inputs (backends/radix/cluster_kernels.cuh), used by
// gpusort::par; every knob applies to keys only and to pairs alike (wide keys or values get
// fewer items per thread so that a block's buffers fit shared_bytes).
struct cluster_knobs {
  int block_threads = 0;
  int items_per_thread = 0;
  int max_cluster_blocks = 0;  // at most 16 (sm_90's non-portable cluster size)
  int digit_bits = 0;          // at most 8: each staged digit is kept in a byte
  int shared_bytes = 0;        // a block's shared memory, at most what the GPU opts in to
  // Register budget: at least this many blocks resident per SM (the sort by buckets runs
  // many clusters at once; one cluster for a whole input does not need it).
  int min_blocks_per_multiprocessor = 1;
};

// The radix backend's sorting network for the smallest inputs (keys only, keys of at most 32
// bits; backends/radix/network_kernels.cuh): one cluster of up to max_cluster_blocks blocks
// (1, 2, 4 or 8; clusters need sm_90, so one block before it), each block_threads x
// items_per_thread keys (powers of two).
struct network_knobs {
  int block_threads = 0;
  int items_per_thread = 0;
  int max_cluster_blocks = 0;
};

// The comparison backend (backends/merge/). Every knob applies to keys only and to pairs
// alike; pairs carry each key's input position, so their tiles shrink to fit exchange_bytes.
struct merge_knobs {
  int tile_threads = 0;            // the tile sort's block (a power of two)
  int tile_items_per_thread = 0;   // and keys per thread (any count; odd spreads banks)
  int tile_blocks_per_multiprocessor = 0;  // register budget of the tile sort
  int one_block_threads = 0;       // a sort that one block does whole (n at most its tile):
  int one_block_items_per_thread = 0;  // its block and keys per thread
  int one_block_large_items_per_thread = 0;  // a sort just past that: one block of as many
                                             // threads, this many keys each (0: none)
  int one_block_larger_items_per_thread = 0;  // and past that: as many threads, this many
  int one_block_larger_exchange_bytes = 0;    // keys each in this much shared memory (0: none)
  int one_block_keys_only_items_per_thread = 0;  // keys without values past that: as many
                                                 // threads, this many keys each in that
                                                 // shared memory (0: none)
  int cluster_most_blocks = 0;     // a sort of 2 to this many ordinary tiles: one cluster of
                                   // that many blocks (sm_90; 0: never; more than 8: where the
                                   // GPU allows)
  bool clusters_of_one_block_tiles = false;  // before that, a sort of 2 to cluster_most_blocks
                                             // one-block tiles: one cluster of those (pairs
                                             // ahead of the larger one-block shape, keys
                                             // alone after it)
  bool clusters_of_one_block_tiles_8_byte_keys = false;  // the same for 8-byte keys
  int wide_tile_threads = 0;       // inputs of at least wide_tile_from_tiles such tiles: the
  int wide_tile_blocks_per_multiprocessor = 0;  // tile sort's block, its register budget
  int wide_tile_blocks_per_multiprocessor_with_values = 0;  // (keys only, pairs) and shared
  int wide_tile_exchange_bytes = 0;             // memory (0 threads: no wide tiles)
  int wide_tile_from_tiles = 0;
  int wide_tile_from_tiles_with_values = 0;  // the same for sorts with values of keys other
                                             // than 8 bytes (0: as without)
  int merge_threads = 0;           // a merge pass's block
  int merge_items_per_thread = 0;  // and merged keys per thread
  int merge_items_per_thread_with_values = 0;  // the same for sorts with values (0: as
                                               // without; 8-byte keys have their own)
  // The merge kernels' register budgets, each compiled: blocks per SM, or any_registers
  // (the compiler's choice), up to the first 0 (none: any_registers). A pass takes the first
  // that holds all its blocks at once, else the last. Keys of at most 4 bytes, keys of 8
  // bytes, and sorts with values of either (0 in the first: as without values); wider keys
  // take any_registers alone.
  static constexpr int any_registers = -1;
  static constexpr int most_merge_budgets = 4;
  int merge_blocks_per_multiprocessor[most_merge_budgets] = {};
  int merge_blocks_per_multiprocessor_8_byte_keys[most_merge_budgets] = {};
  int merge_blocks_per_multiprocessor_with_values[most_merge_budgets] = {};
  int items_per_thread_8_byte_keys = 0;  // both, for keys of 8 bytes (0: as for the others)
  int split_search_threads = 0;    // the split search's block (whole warps: both searches
                                   // use it)
  int lane_split_search_most_blocks = 0;  // passes of at most this many merge blocks search
                                          // each split by lanes of a warp, the others from
                                          // samples of their runs (0: never, except inputs
                                          // too small for wide tiles, which always do)
  int fused_split_search_most_blocks = 0;  // of those, passes of at most this many merge
                                           // blocks search in the merge kernel itself, one
                                           // launch a pass (0: never)
  int sample_split_search_lanes = 0;       // the other passes search from samples: those of
  int sample_lane_search_most_blocks = 0;  // at most this many merge blocks by this many
                                           // lanes a search (a power of two to 32), larger
                                           // ones by one thread (0 or 1 lanes: all by one)
  int exchange_bytes = 0;          // shared memory a tile may take
  // Keys without values of 9 to 16 bytes (8 bytes) from this many on: a sample sort
  // (backends/merge/sample_sort.cuh), where the tuning also names its scatter's radix tuning
  // as sample_sort_scatter_tuning (0, or no such name: never), up to sample_sort_max_keys
  // (0: any).
  long long sample_sort_min_keys = 0;
  long long sample_sort_min_keys_8_byte_keys = 0;
  long long sample_sort_max_keys = 0;
  int sample_sort_bucket_percent = 0;      // a bucket averages this share of a tile, in %
  int sample_sort_samples_per_bucket = 0;  // the sample: this many keys per bucket
  int sample_sort_classify_threads = 0;    // the classify's block
  int sample_sort_classify_items_per_thread = 0;  // and keys per thread
  int sample_sort_staged_tree_bytes = 0;  // the classify's shared memory for the splitter
                                          // tree's top levels (at most 48 KB), for trees
                                          // at most one level deeper than that holds;
  int sample_sort_deep_tree_staged_bytes = 0;  // and for deeper trees (whose last levels
                                               // are read through L1)
};

// The bucket + bitonic backend (backends/bucket_bitonic/). Every knob applies to keys only
// and to pairs alike (wide keys or values get fewer items per thread).
struct bucket_bitonic_knobs {
  int partition_threads = 0;           // min/max, histogram and scatter blocks
  int partition_items_per_thread = 0;  // and keys per thread
  int partition_exchange_bytes = 0;    // shared memory of a partition tile
  int scatter_blocks_per_multiprocessor = 0;  // register budget of the scatter
  int first_bucket_bits = 0;           // at most 2^this buckets per segment, any level
  int deeper_bucket_bits = 0;          // at least 2^this below it
  long long window_sample_min_keys = 0;  // sample for a window alone from this many keys
                                         // (0: never)
  int target_buckets_per_unit = 0;     // a bucket averages at most a unit / this many keys
  int small_buckets_per_unit = 0;      // a small bucket holds at most a unit / this many
  int unit_window_quarters = 0;        // small buckets pack into windows of this many quarters
  int sort_threads = 0;                // the bitonic sort unit's block
  int sort_items_per_thread = 0;       // and keys per thread
  int exchange_bytes = 0;              // shared memory of a sort unit
  int sort_blocks_per_multiprocessor = 0;  // register budget of the sort-unit kernel
  // That budget for integer keys of 8 bytes, whose units take prefix words (0: as above).
  int wide_integer_sort_blocks_per_multiprocessor = 0;
  // The same four for float and double keys (0: as for the others). A unit's size sets the
  // buckets' sizes, and with them at which n a level more is planned.
  int float_sort_threads = 0;
  int float_sort_items_per_thread = 0;
  int float_exchange_bytes = 0;
  int float_sort_blocks_per_multiprocessor = 0;
};

namespace detail {
template <class Tuning, class Knobs, class = void>
struct has_knobs : std::false_type {};
template <class Tuning, class Knobs>
struct has_knobs<Tuning, Knobs, std::void_t<decltype(Tuning::knobs)>>
    : std::is_same<std::remove_cv_t<decltype(Tuning::knobs)>, Knobs> {};
}  // namespace detail

// Whether Tuning is a tuning of the backend whose knobs are Knobs.
template <class Tuning, class Knobs>
inline constexpr bool is_tuning_v = detail::has_knobs<Tuning, Knobs>::value;

}  // namespace gpusort
