// Kernels of the LSD radix sort: Satish, Harris and Garland's per-tile local sort and
// coalesced scatter, run as Adinets and Merrill's one-sweep passes. In launch order:
//   count_all_digits  one read of the keys counts the digits of every pass (upfront histograms);
//                     its last block to finish plans the passes: each pass's digit starts
//                     (exclusive scan of its histogram), and which passes are skipped because
//                     their digit is the same for every key
//   per pass and portion:
//     onesweep_pass   each tile ranks its keys by digit in shared memory, learns where its
//                     digits go from its predecessors through the look-back (lookback.cuh),
//                     and writes each digit's run to consecutive addresses (coalesced)
//   copy_back         only for keys with an odd pass count that skip nothing: the result is
//                     in the alternate buffer
#pragma once

#include <gpusort/detail/policies/key_traits.cuh>
#include "../common/block_shared.cuh"
#include "../common/dependent_launch.cuh"
#include "../common/launch_bounds.cuh"
#include "../common/ordered_bits.cuh"
#include "../common/striped_tile.cuh"
#include "clearing_mark.cuh"
#include "digit_counters.cuh"
#include "digits.cuh"
#include "lookback.cuh"

#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpusort::backends::radix {

// The tile shape for one (key, value) pair of types: every kernel of a sort uses the same.
template <class Tuning, class Key, class Value = no_values>
struct radix_shape {
  using key_type = Key;
  using traits = radix_key_traits<Key>;
  using bits_type = typename traits::bits_type;
  static constexpr int block_threads = Tuning::knobs.block_threads;
  static constexpr int widest_element =
      int(sizeof(Key) > sizeof(Value) ? sizeof(Key) : sizeof(Value));
  static constexpr int digit_bits = Tuning::knobs.digit_bits;
  static constexpr int exchange_bytes = !has_values_v<Value>
                                           ? Tuning::knobs.exchange_bytes
                                           : Tuning::knobs.exchange_bytes_with_values;
  // Pairs have their own item count and register budget: a tile of values rides in registers
  // next to the keys' ranks.
  static constexpr int wanted_items = !has_values_v<Value>
                                          ? Tuning::knobs.items_per_thread
                                          : Tuning::knobs.items_per_thread_with_values;
  // Pairs of integer keys whose whole tile of keys and values fits exchange_bytes side by side
  // stage their values beside the keys rather than in the keys' place: the values need not
  // wait for the keys to leave, and one scatter writes a key and its value together, the
  // digit recomputed from the key.
  static constexpr bool values_beside_keys =
      Tuning::knobs.values_beside_keys && has_values_v<Value> && std::is_integral_v<Key> &&
      int(sizeof(Key) + sizeof(Value)) * block_threads * wanted_items <= exchange_bytes;
  // onesweep_pass keeps each sorted key's digit in shared memory where a tile may take its
  // digits from sort bits (onesweep_tile: user types, and floats with -0.0 or NaNs); pairs
  // carry each item's digit in registers from the keys' scatter to the values'.
  static constexpr bool keeps_digits = !std::is_integral_v<Key>;
  static constexpr int digit_bytes = digit_bits <= 8 ? 1 : 2;
  // Pairs whose values take the keys' place are sized with a digit an item too, as when they
  // kept their digits in shared memory: the tile shapes measured then.
  static constexpr bool sized_with_digits =
      keeps_digits || (has_values_v<Value> && !values_beside_keys);
  static constexpr int item_bytes = values_beside_keys
                                        ? int(sizeof(Key) + sizeof(Value))
                                        : widest_element + (sized_with_digits ? digit_bytes : 0);
  static constexpr int fitting_items = exchange_bytes / (item_bytes * block_threads);
  static_assert(fitting_items >= 1,
                "gpusort::radix: the key or value type is too large for a tile in shared memory; "
                "sort an index payload and gather the values afterwards");
  static constexpr int items_per_thread =
      wanted_items < fitting_items ? wanted_items : fitting_items;
  static constexpr bool rank_match_by_atomic_or = Tuning::knobs.rank_match_by_atomic_or;
  static constexpr int look_back_width = !has_values_v<Value>
                                             ? Tuning::knobs.look_back_width
                                             : Tuning::knobs.look_back_width_with_values;
  static_assert(look_back_width >= 1, "gpusort::radix: look_back_width must be at least 1");
  // Register budget of onesweep_pass: at least this many blocks resident per SM.
  static constexpr int onesweep_blocks =
      !has_values_v<Value> ? Tuning::knobs.onesweep_blocks_per_multiprocessor
                           : Tuning::knobs.onesweep_blocks_per_multiprocessor_with_values;
  static constexpr int tile_items = block_threads * items_per_thread;
  static constexpr int digits = 1 << digit_bits;
  static constexpr int passes = pass_count(traits::bits, digit_bits);
  static_assert(passes <= max_passes, "key too wide for the pass plan");
  static constexpr std::size_t portion_items =
      radix::portion_items(tile_items, Tuning::knobs.max_portion_keys);
  static_assert(portion_items <= max_portion_items, "portion too large for the look-back counts");
};

// Each pass's exclusive scan of its histogram: where the keys of each digit start in the
// output (portion 0's starts; later portions' are carried by onesweep_pass); then the pass
// plan from which passes have a single digit (plan_passes), or, with a bucket_capacity, from
// the most keys of one digit as well (plan_msd_buckets). Run by the one block that finishes
// counting last, with the block's Threads threads, while every other SM
// waits: one warp per pass, each lane scanning consecutive digits, so that the passes' scans
// run side by side with no block barrier between them (H100, u32 2^19: a block scan per pass
// after another made this tail 3.9 us of the kernel's 14.6).
template <class Tuning, class Key, int Threads>
__device__ __forceinline__ void scan_digit_starts_and_plan(const unsigned long long* histograms,
                                                           std::size_t n,
                                                           const unsigned int* canonical_keys,
                                                           unsigned long long bucket_capacity,
                                                           pass_plan* plan,
                                                           std::size_t* digit_starts) {
  using shape = radix_shape<Tuning, Key>;
  constexpr int warps = Threads / 32;
  constexpr int digits_per_lane = (shape::digits + 31) / 32;
  using warp_scan_t = cub::WarpScan<unsigned long long>;
  __shared__ typename warp_scan_t::TempStorage scan_storage[warps];
  __shared__ bool single_digit[shape::passes];
  __shared__ unsigned long long widest_bucket[shape::passes];
  // Loaded first, so that its wait on L2 overlaps the scans'. __ldcg, here and below: the
  // other blocks' atomics are in L2, not in this SM's L1.
  const bool canonical_digits = threadIdx.x == 0 && __ldcg(canonical_keys) != 0;
  const int warp = int(threadIdx.x) / 32;
  const int lane = int(threadIdx.x) % 32;
  for (int p = warp; p < shape::passes; p += warps) {
    unsigned long long counts[digits_per_lane];
#pragma unroll
    for (int i = 0; i < digits_per_lane; ++i) {
      const int d = lane * digits_per_lane + i;
      counts[i] = d < shape::digits ? __ldcg(&histograms[p * shape::digits + d]) : 0;
    }
    bool holds_all = false;
    unsigned long long widest = 0;
    unsigned long long lane_total = 0;
#pragma unroll
    for (int i = 0; i < digits_per_lane; ++i) {
      holds_all |= counts[i] == n;
      widest = counts[i] > widest ? counts[i] : widest;
      lane_total += counts[i];
    }
    unsigned long long start = 0;
    warp_scan_t(scan_storage[warp]).ExclusiveSum(lane_total, start);
#pragma unroll
    for (int i = 0; i < digits_per_lane; ++i) {
      const int d = lane * digits_per_lane + i;
      if (d < shape::digits) digit_starts[p * shape::digits + d] = start;
      start += counts[i];
    }
#pragma unroll
    for (int lanes = 16; lanes > 0; lanes /= 2) {
      const unsigned long long other = __shfl_xor_sync(0xffffffffu, widest, lanes);
      widest = other > widest ? other : widest;
    }
    holds_all = __any_sync(0xffffffffu, holds_all);
    if (lane == 0) {
      single_digit[p] = holds_all;
      widest_bucket[p] = widest;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    pass_plan planned =
        bucket_capacity != 0
            ? radix::plan_msd_buckets(single_digit, widest_bucket, shape::passes, bucket_capacity)
            : radix::plan_passes(single_digit, shape::passes);
    planned.canonical_digits = canonical_digits;
    *plan = planned;
  }
}

// The block's counters of count_all_digits (digit_counters.cuh), and its threads: a column
// per warp lane in blocks of histogram_lane_column_threads where LaneColumns, else a row per
// pass in blocks of the passes' size.
template <class Tuning, class Key, bool LaneColumns>
using histogram_counters_t =
    std::conditional_t<LaneColumns,
                       digit_lane_columns<radix_shape<Tuning, Key>::passes,
                                          radix_shape<Tuning, Key>::digits>,
                       digit_rows<radix_shape<Tuning, Key>::passes,
                                  radix_shape<Tuning, Key>::digits>>;
template <class Tuning, bool LaneColumns>
inline constexpr int histogram_threads =
    LaneColumns ? Tuning::knobs.histogram_lane_column_threads : Tuning::knobs.block_threads;

// Grid-stride over chunks of histogram_items_per_thread keys per thread (independent loads
// in flight); shared counters per block (histogram_counters_t), one global atomic per
// (pass, digit) per block and time they are added out.
// Also finds whether any key's sort bits differ from its encoding (pass_plan::canonical_digits).
// With a clearing mark (a cooperative launch), the kernel clears what the passes and it count
// into (block 0: the histograms and counters; every block: a share of the first look-back
// table) instead of a memset before it; with mark 0, the memset has cleared them.
template <class Tuning, class Key, bool LaneColumns>
__global__ void __launch_bounds__(histogram_threads<Tuning, LaneColumns>)
    count_all_digits(const Key* keys, std::size_t n,
                     typename radix_shape<Tuning, Key>::bits_type flip,
                     unsigned long long* histograms /* [passes][digits], zeroed */,
                     unsigned int* tile_counters /* [counter_count], zeroed */,
                     int counter_count,
                     unsigned int* blocks_done /* among tile_counters */,
                     unsigned int* canonical_keys /* among tile_counters */,
                     std::uint32_t* status /* the first pass's look-back table */,
                     std::size_t first_table_words, cleared_by_block_zero clearing,
                     unsigned long long bucket_capacity /* 0: no sort by buckets */,
                     pass_plan* plan, std::size_t* digit_starts /* [passes][digits] */,
                     const unsigned* gate /* null, or 0: no pass runs (close_plan_unless) */) {
  using shape = radix_shape<Tuning, Key>;
  using counters_t = histogram_counters_t<Tuning, Key, LaneColumns>;
  constexpr int threads = histogram_threads<Tuning, LaneColumns>;
  constexpr int items = Tuning::knobs.histogram_items_per_thread;
  constexpr int chunks_before_full = counters_t::chunks_before_full(threads / 32, items);
  let_next_kernel_start();  // the first pass may be placed now; it waits for this kernel
  if (gate != nullptr && *gate == 0) return;  // nothing to count: close_plan_unless skips all
  const bool clears = clearing.mark != 0;
  if (clears) {
    // The look-back table is read by the passes only, after this kernel: no order needed.
    for (std::size_t i = std::size_t(blockIdx.x) * threads + threadIdx.x; i < first_table_words;
         i += std::size_t(gridDim.x) * threads)
      status[i] = 0;
    if (blockIdx.x == 0)
      clearing.clear_then_mark(histograms, shape::passes * shape::digits, tile_counters,
                               counter_count);
  }
  bool cleared = !clears;  // the same in every thread
  const auto add_out = [&](counters_t& block_counters) {
    if (!cleared) {
      clearing.wait();
      cleared = true;
    }
    block_counters.add_to(histograms);
  };
  counters_t& counters = block_shared<counters_t>();
  counters.clear();
  __syncthreads();
  const std::size_t chunk = std::size_t(threads) * items;
  const std::size_t stride = std::size_t(gridDim.x) * chunk;
  bool canonicalised = false;
  const auto load = [&](std::size_t begin, Key (&into)[items]) {
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const std::size_t i = begin + std::size_t(j) * threads + threadIdx.x;
      if (i < n) into[j] = keys[i];
    }
  };
  // The next chunk's keys are loaded before this chunk's are counted, so that the loads stay
  // in flight through the shared-memory atomics (H100, 2^26 f32 keys: 275 -> 183 us).
  Key current[items];
  std::size_t begin = blockIdx.x * chunk;
  if (begin < n) load(begin, current);
  int chunks = 0;  // counted since the counters were last added out (the same in every thread)
  for (; begin < n; begin += stride) {
    Key next[items];
    if (begin + stride < n) load(begin + stride, next);
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const std::size_t i = begin + std::size_t(j) * threads + threadIdx.x;
      if (i >= n) continue;
      const typename shape::bits_type bits = ordered_bits(current[j], flip);
      // (comparing the sort bits with the encoding instead doubled this kernel's time for
      // f32 keys on the H100)
      if constexpr (radix_key_canonicalises_v<Key>)
        canonicalised |= radix_key_traits<Key>::canonicalised(current[j]);
#pragma unroll
      for (int p = 0; p < shape::passes; ++p)
        counters.add(p, digit_of(bits, p, shape::digit_bits));
    }
#pragma unroll
    for (int j = 0; j < items; ++j) current[j] = next[j];
    if (++chunks == chunks_before_full) {
      __syncthreads();
      add_out(counters);
      __syncthreads();
      counters.clear();
      __syncthreads();
      chunks = 0;
    }
  }
  __syncthreads();
  add_out(counters);
  if constexpr (radix_key_canonicalises_v<Key>)
    if (__syncthreads_or(canonicalised) && threadIdx.x == 0) atomicOr(canonical_keys, 1u);

  // The last block to finish plans the passes, saving a launch: its ticket says every other
  // block's counts are in (each block fences its atomics before it takes a ticket).
  __shared__ bool last_block;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last_block = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last_block) return;
  if (clears && threadIdx.x == 0) clearing.forget();  // every block has waited
  __threadfence();
  scan_digit_starts_and_plan<Tuning, Key, threads>(histograms, n, canonical_keys,
                                                   bucket_capacity, plan, digit_starts);
}

// The look-back side of the rank's early counts: as soon as the tile's digit counts are known
// (before the keys are ranked), publish them, so that later tiles wait as little as possible.
struct publish_tile_count {
  std::uint32_t* tile_status;  // this tile's row of the look-back table
  bool first_tile;

  __device__ __forceinline__ void operator()(int digit, int count) const {
    publish_digit_status(tile_status + digit, std::uint32_t(count),
                         first_tile ? digit_status::prefix_count : digit_status::tile_count);
  }
};

// Shared memory of onesweep_pass: the rank's per-warp digit counters, overlaid by the tile's
// keys (then its values, unless they have their own exchange beside the keys) in digit order;
// each sorted key's digit where the shape keeps them; and each digit's global base for this
// tile.
template <class Shape, class Value>
struct onesweep_storage {
  using rank_t = cub::BlockRadixRankMatchEarlyCounts<
      Shape::block_threads, Shape::digit_bits, false, cub::BLOCK_SCAN_WARP_SCANS,
      Shape::rank_match_by_atomic_or ? cub::WARP_MATCH_ATOMIC_OR : cub::WARP_MATCH_ANY>;
  using digit_t = std::conditional_t<(Shape::digit_bits <= 8), std::uint8_t, std::uint16_t>;
  static_assert(Shape::digit_bits <= 16, "digits are kept in 16 bits");
  static constexpr bool keeps_digits = Shape::keeps_digits;
  static constexpr bool values_beside_keys = Shape::values_beside_keys;
  union {
    typename rank_t::TempStorage rank;
    typename Shape::key_type keys[Shape::tile_items];
    Value values[values_beside_keys ? 1 : Shape::tile_items];
  } exchange;
  Value values_beside[values_beside_keys ? Shape::tile_items : 1];
  digit_t digits[keeps_digits ? Shape::tile_items : 1];
  // Where staged key i of each digit goes: key_base[digit] + i; values that take the keys'
  // place go to value_base[digit] + i (values beside their keys: to their key's offset).
  // Pointers rather than offsets, so that the scatter adds one 32-bit index to one loaded
  // pointer.
  typename Shape::key_type* key_base[Shape::digits];
  Value* value_base[has_values_v<Value> && !values_beside_keys ? Shape::digits : 1];
  int tile_number;
};

// One tile of one pass. The steps run in the order of the paper; the look-back's waiting
// is overlapped with writing the tile into shared memory in digit order.
//
// How a tile carries its keys from the load to the scatter, two choices:
//   holds_keys each key stays in registers through the rank, next to its bits; else it is
//              read again from global memory (a cache hit) when the tile is staged: for keys
//              wider than the knobs' held_key_bytes (u64 keys and their bits spilled 136
//              bytes), user key types, pairs of floats, and floats taking sort bits (f32
//              keys held beside sort bits spilled 192 bytes).
//   SortBits   the digits come from the keys' sort bits and are kept in shared memory for
//              the scatter; else from their encoding (encoded_bits), recomputed by the
//              scatter. The encoding is right for every key whose sort bits it is: all
//              integers, and floats without -0.0 or NaNs; floats switch to sort bits when the
//              histogram pass saw such a key (pass_plan::canonical_digits). User key types
//              (no encoding) and pairs of floats always take sort bits.
template <class Tuning, class Key, class Value>
struct onesweep_tile {
  using shape = radix_shape<Tuning, Key, Value>;
  using bits_type = typename shape::bits_type;
  using storage_t = onesweep_storage<shape, Value>;
  using rank_t = typename storage_t::rank_t;
  static constexpr int threads = shape::block_threads;
  static constexpr int items = shape::items_per_thread;
  static constexpr int digits = shape::digits;
  static constexpr int bins_per_thread = rank_t::BINS_PER_THREAD;
  static constexpr bool has_values = has_values_v<Value>;
  // Pairs of floats take sort bits only: with both ways in one kernel, f32+u32 spilled 280
  // bytes (ptxas -v) against 52.
  static constexpr bool pairs_of_floats = has_values && !std::is_integral_v<Key>;
  // Pairs staged beside each other in a large-input tile (large_input_tile.cuh) hold neither
  // keys nor values through the rank: both are read again when staged.
  static constexpr bool reads_pairs_when_staged =
      shape::values_beside_keys && Tuning::knobs.pairs_read_when_staged;
  template <bool SortBits>
  static constexpr bool holds_keys =
      has_values ? std::is_integral_v<Key> && !reads_pairs_when_staged
                 : has_radix_encoding_v<Key> && !SortBits &&
                       int(sizeof(Key)) <= Tuning::knobs.held_key_bytes;
  static constexpr bool holds_values = has_values && !reads_pairs_when_staged;
  static constexpr bool always_sort_bits = !has_radix_encoding_v<Key> || pairs_of_floats;
  static constexpr bool may_need_sort_bits =
      !always_sort_bits && radix_key_canonicalises_v<Key>;

  storage_t& shared;
  const Key* key_source;      // this portion's keys
  Key* key_destination;       // the whole output buffer
  const Value* value_source;
  Value* value_destination;
  bits_type flip;
  int pass;
  int tile_number;
  int tiles;
  tile_bounds tile;           // relative to the portion
  std::uint32_t* status;
  const std::size_t* digit_starts;
  std::size_t* next_digit_starts;

  __device__ __forceinline__ unsigned int digit(bits_type bits) const {
    return digit_of(bits, pass, shape::digit_bits);
  }

  // This tile's row of the look-back table.
  __device__ __forceinline__ std::uint32_t* tile_status() const {
    return status + std::size_t(tile_number) * digits;
  }

  // The tile, its digits from sort bits where the key type always needs them or
  // `canonical_digits` says so.
  template <bool FullTile>
  __device__ __forceinline__ void run(bool canonical_digits) {
    if constexpr (always_sort_bits)
      run_carrying<FullTile, true>();
    else if (may_need_sort_bits && canonical_digits)
      run_carrying<FullTile, true>();
    else
      run_carrying<FullTile, false>();
  }

  template <bool FullTile, bool SortBits>
  __device__ __forceinline__ void run_carrying() {
    Key tile_keys[holds_keys<SortBits> ? items : 1];
    bits_type tile_bits[items];
    load_tile<FullTile, SortBits>(tile_keys, tile_bits);
    rank_and_scatter<FullTile, SortBits>(tile_keys, tile_bits);
  }

  // The tile's steps after its load (the first pass that counts runs its own load and count
  // before them: first_pass_count.cuh).
  template <bool FullTile, bool SortBits>
  __device__ __forceinline__ void rank_and_scatter(
      const Key (&tile_keys)[holds_keys<SortBits> ? items : 1], bits_type (&tile_bits)[items]) {
    int counts[bins_per_thread];
    int ranks[items];
    int digit_prefix[bins_per_thread];
    rank_digits(tile_bits, counts, ranks, digit_prefix);
    stage_keys<FullTile, SortBits>(tile_keys, tile_bits, ranks);
    Value tile_values[holds_values ? items : 1];
    if constexpr (shape::values_beside_keys) {
      // The values are read before the look-back, whose waiting hides the reads: into
      // registers where held (after it: 2-3 % slower at 2^24-2^26 on the H200), else straight
      // into their exchange (after it: 3-7 % slower, bench/results/NOTES.md).
      if constexpr (holds_values)
        load_values<FullTile>(tile_values);
      else
        stage_values_beside<FullTile>(ranks, tile_values);
      find_digit_bases(counts, digit_prefix);
      if constexpr (holds_values) stage_values_beside<FullTile>(ranks, tile_values);
      __syncthreads();
      scatter_pairs<FullTile>();
    } else {
      find_digit_bases(counts, digit_prefix);
      __syncthreads();
      // The values are loaded before the keys go out, so that their latency overlaps the
      // keys' scatter.
      if constexpr (has_values) load_values<FullTile>(tile_values);
      unsigned int item_digits[has_values ? items : 1];
      scatter_keys<FullTile, SortBits>(item_digits);
      if constexpr (has_values) scatter_values<FullTile>(ranks, tile_values, item_digits);
    }
  }

  // The tile's keys (where held) and the bits their digits come from, in the rank's order
  // (warp_striped_index, which keeps the sort stable). Padding past a short tile's end ranks
  // after every real key (largest digit, last in order): it never moves.
  template <bool FullTile, bool SortBits>
  __device__ __forceinline__ void load_tile(Key (&tile_keys)[holds_keys<SortBits> ? items : 1],
                                            bits_type (&tile_bits)[items]) const {
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int i = warp_striped_index<items>(j);
      if (FullTile || i < tile.count) {
        const Key key = key_source[tile.begin + i];
        if constexpr (holds_keys<SortBits>) tile_keys[j] = key;
        if constexpr (SortBits)
          tile_bits[j] = ordered_bits(key, flip);
        else
          tile_bits[j] = encoded_bits(key, flip);
      } else {
        tile_bits[j] = bits_type(~bits_type(0));
      }
    }
  }

  // Each key's place in the tile sorted by digit (ranks), and this thread's digits' counts in
  // the tile and starts within it. The counts are published to later tiles as soon as they
  // are known, before the keys are ranked, so that those wait as little as possible.
  __device__ __forceinline__ void rank_digits(bits_type (&tile_bits)[items],
                                              int (&counts)[bins_per_thread], int (&ranks)[items],
                                              int (&digit_prefix)[bins_per_thread]) {
    rank_t(shared.exchange.rank)
        .RankKeys(tile_bits, ranks, pass_digit<bits_type>{pass, shape::digit_bits}, digit_prefix,
                  tile_digit_counts<bins_per_thread, publish_tile_count>{
                      digits, shape::tile_items - tile.count, counts,
                      publish_tile_count{tile_status(), tile_number == 0}});
    __syncthreads();  // the rank is done with its counters: the exchange takes the sorted tile
  }

  // The keys and, where they come from sort bits, their digits into the exchange in digit
  // order: the scatter reads those digits rather than recomputing them from the keys (sort
  // bits take several instructions).
  template <bool FullTile, bool SortBits>
  __device__ __forceinline__ void stage_keys(
      const Key (&tile_keys)[holds_keys<SortBits> ? items : 1],
      const bits_type (&tile_bits)[items], const int (&ranks)[items]) {
    for_each_warp_striped<items, FullTile>(tile.count, [&](int j, int i) {
      if constexpr (holds_keys<SortBits>)
        shared.exchange.keys[ranks[j]] = tile_keys[j];
      else
        shared.exchange.keys[ranks[j]] = key_source[tile.begin + i];
      if constexpr (SortBits)
        shared.digits[ranks[j]] = typename storage_t::digit_t(digit(tile_bits[j]));
    });
  }

  // Where this tile's keys of each digit go: the digit's start in this portion, plus the keys
  // of that digit in earlier tiles (the look-back), minus where the digit starts inside the
  // tile. The last tile of a portion hands the next portion its digit starts. The bases are
  // read by other threads after the caller's barrier.
  __device__ __forceinline__ void find_digit_bases(const int (&counts)[bins_per_thread],
                                                   const int (&digit_prefix)[bins_per_thread]) {
    std::size_t starts[bins_per_thread];  // loaded ahead: their latency overlaps the look-back
#pragma unroll
    for (int b = 0; b < bins_per_thread; ++b) {
      const int d = int(threadIdx.x) * bins_per_thread + b;
      if (d < digits) starts[b] = digit_starts[d];
    }
#pragma unroll
    for (int b = 0; b < bins_per_thread; ++b) {
      const int d = int(threadIdx.x) * bins_per_thread + b;
      if (d >= digits) continue;
      std::uint32_t before = 0;
      if (tile_number > 0) {
        before = look_back<shape::look_back_width>(status, tile_number, digits, d);
        publish_digit_status(tile_status() + d, before + std::uint32_t(counts[b]),
                             digit_status::prefix_count);
      }
      // At least 0: the digit's start counts every key of a smaller digit, this tile's too.
      const std::size_t base = starts[b] + before - std::size_t(digit_prefix[b]);
      shared.key_base[d] = key_destination + base;
      if constexpr (has_values && !shape::values_beside_keys)
        shared.value_base[d] = value_destination + base;
      if (next_digit_starts != nullptr && tile_number == tiles - 1)
        next_digit_starts[d] = starts[b] + before + std::size_t(counts[b]);
    }
  }

  // The tile's values, in the rank's order.
  template <bool FullTile>
  __device__ __forceinline__ void load_values(
      Value (&tile_values)[holds_values ? items : 1]) const {
    for_each_warp_striped<items, FullTile>(
        tile.count, [&](int j, int i) { tile_values[j] = value_source[tile.begin + i]; });
  }

  // Striped reads of the sorted tile: consecutive threads write consecutive addresses within
  // each digit's run. Pairs keep each item's digit for its value (item_digits) in registers:
  // two shared-memory accesses an item fewer than keeping the digits in shared memory (H200,
  // u64+u32 passes at 2^22 -6 %: bench/results/NOTES.md).
  template <bool FullTile, bool SortBits>
  __device__ __forceinline__ void scatter_keys(unsigned int (&item_digits)[has_values ? items
                                                                                   : 1]) {
    for_each_striped<threads, items, FullTile>(tile.count, [&](int j, int i) {
      const Key key = shared.exchange.keys[i];
      unsigned int d;
      if constexpr (SortBits)
        d = shared.digits[i];
      else
        d = digit(encoded_bits(key, flip));
      if constexpr (has_values) item_digits[j] = d;
      shared.key_base[d][i] = key;
    });
  }

  // Where the values have an exchange of their own: into it by rank, next to the keys (from
  // global memory where they are not held).
  template <bool FullTile>
  __device__ __forceinline__ void stage_values_beside(
      const int (&ranks)[items], const Value (&tile_values)[holds_values ? items : 1]) {
    for_each_warp_striped<items, FullTile>(tile.count, [&](int j, int i) {
      if constexpr (holds_values)
        shared.values_beside[ranks[j]] = tile_values[j];
      else
        shared.values_beside[ranks[j]] = value_source[tile.begin + i];
    });
  }

  // Striped reads of the sorted keys and the values beside them, each pair written out by its
  // key's digit, the value at its key's offset (arithmetic, not a second table of pointers).
  template <bool FullTile>
  __device__ __forceinline__ void scatter_pairs() {
    for_each_striped<threads, items, FullTile>(tile.count, [&](int, int i) {
      const Key key = shared.exchange.keys[i];
      const unsigned int d = digit(encoded_bits(key, flip));
      Key* const key_place = shared.key_base[d] + i;
      *key_place = key;
      value_destination[key_place - key_destination] = shared.values_beside[i];
    });
  }

  // The values take the keys' way: into the exchange by rank, out by the digits the keys'
  // scatter kept, each through its digit's value pointer (the pointer loaded rather than the
  // place computed from its key's: 16-byte values behind u16 keys 9-14 % faster, u64+u32 on
  // the default tiles 2-4 %; H200, bench/results/2026-12-03-h200-radix-value-table-ab.txt).
  template <bool FullTile>
  __device__ __forceinline__ void scatter_values(
      const int (&ranks)[items], const Value (&tile_values)[holds_values ? items : 1],
      const unsigned int (&item_digits)[items]) {
    __syncthreads();  // every thread has read its keys out of the exchange
    for_each_warp_striped<items, FullTile>(
        tile.count, [&](int j, int) { shared.exchange.values[ranks[j]] = tile_values[j]; });
    __syncthreads();
    for_each_striped<threads, items, FullTile>(tile.count, [&](int j, int i) {
      shared.value_base[item_digits[j]][i] = shared.exchange.values[i];
    });
  }
};

// The register budget of a kernel that runs one-sweep tiles: at least the shape's
// onesweep_blocks resident per SM.
template <class Tuning, class Key, class Value>
inline constexpr int onesweep_min_blocks = min_blocks_per_multiprocessor(
    radix_shape<Tuning, Key, Value>::onesweep_blocks, Tuning::knobs.block_threads);

// Zeroes the next launch's look-back table (`rows` tiles of `digits`), the blocks of this
// launch sharing the rows: the table was the previous launch's, and clearing it here saves a
// memset between the launches.
__device__ __forceinline__ void clear_next_look_back_table(std::uint32_t* next_status, int rows,
                                                           int digits) {
  for (int row = blockIdx.x; row < rows; row += gridDim.x)
    for (int d = threadIdx.x; d < digits; d += blockDim.x)
      next_status[std::size_t(row) * digits + d] = 0;
}

// One pass over one portion, one tile per block. Tiles are numbered in the order blocks start
// (a counter, not blockIdx), which the look-back's progress guarantee needs.
template <class Tuning, class Key, class Value>
__global__ void __launch_bounds__(Tuning::knobs.block_threads,
                                  onesweep_min_blocks<Tuning, Key, Value>)
    onesweep_pass(Key* keys, Key* alternate_keys, Value* values, Value* alternate_values,
                  std::size_t portion_begin, int portion_items,
                  typename radix_shape<Tuning, Key>::bits_type flip, int pass,
                  const pass_plan* plan, unsigned int* tile_counter,
                  std::uint32_t* status /* [tiles][digits], zeroed */,
                  std::uint32_t* next_status /* the next launch's, zeroed here */, int next_tiles,
                  const std::size_t* digit_starts /* this portion's [digits] */,
                  std::size_t* next_digit_starts /* the next portion's, or null */) {
  using tile_t = onesweep_tile<Tuning, Key, Value>;
  using shape = typename tile_t::shape;
  auto& shared = block_shared<typename tile_t::storage_t>();
  // Launched to overlap the previous kernel's end (launch_dependent): wait for its results.
  // In a sort by buckets, let the next launch be placed as soon as every block of this one
  // is; the LSD passes let it start only as their blocks end (with the next pass placed
  // early, LSD sorts of about one wave of tiles per pass ran slower: H100, u32+u32 2^20
  // 88 -> 101 us).
  wait_for_previous_kernel();
  // The plan's entries for this pass and the tile's ticket are read at once: one round trip
  // to L2 before the keys are loaded, where reading them one after another took three (H100
  // ncu, u32+u32 2^24: this prologue held 4 % of the pass's stall samples, CUB's 1 %). A
  // skipped pass's tickets go unused.
  unsigned int ticket = 0;
  if (threadIdx.x == 0) ticket = atomicAdd(tile_counter, 1u);
  const bool skip = plan->skip[pass];
  const bool from_alternate = plan->source[pass];
  const bool canonical_digits = plan->canonical_digits;
  const bool in_buckets = plan->msd_pass != 0;

  clear_next_look_back_table(next_status, next_tiles, shape::digits);  // (skipped pass too)
  if (in_buckets) let_next_kernel_start();

  if (skip) return;
  if (threadIdx.x == 0) shared.tile_number = int(ticket);
  __syncthreads();
  const int tile_number = shared.tile_number;
  tile_t tile{shared,
              (from_alternate ? alternate_keys : keys) + portion_begin,
              from_alternate ? keys : alternate_keys,
              tile_t::has_values ? (from_alternate ? alternate_values : values) + portion_begin
                                 : nullptr,
              from_alternate ? values : alternate_values,
              flip,
              pass,
              tile_number,
              int(tile_count(std::size_t(portion_items), shape::tile_items)),
              tile_of(std::size_t(tile_number), shape::tile_items, std::size_t(portion_items)),
              status,
              digit_starts,
              next_digit_starts};
  if (tile.tile.count == shape::tile_items)
    tile.template run<true>(canonical_digits);
  else
    tile.template run<false>(canonical_digits);
}

// After an odd number of executed passes the sorted data sits in the alternate buffers.
template <class Key, class Value>
__global__ void copy_back(Key* keys, const Key* alternate_keys, Value* values,
                          const Value* alternate_values, std::size_t n, const pass_plan* plan) {
  wait_for_previous_kernel();  // launched to overlap the last pass's end
  let_next_kernel_start();
  if (!plan->result_in_alternate) return;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = alternate_keys[i];
    if constexpr (has_values_v<Value>) values[i] = alternate_values[i];
  }
}

// A sort that runs only where the device says so (a segmented sort whose one segment is the
// whole input, segmented/dispatch.cuh): where *gate is 0, the plan skips every pass, so that
// the passes and copy_back leave the keys as they are. One thread, after count_all_digits.
template <class Plan>
__global__ void close_plan_unless(Plan* plan, const unsigned* gate) {
  if (*gate != 0) return;
  // count_all_digits returned early (it wrote no plan): every entry a skipped pass reads.
  for (std::uint8_t& skip : plan->skip) skip = 1;
  plan->result_in_alternate = 0;
  plan->msd_pass = 0;
}

}  // namespace gpusort::backends::radix
