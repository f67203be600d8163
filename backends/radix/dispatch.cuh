// Host side of the radix backend: sizes, the one temporary allocation, and the kernel
// launches: upfront histograms (which also plan the passes), then one one-sweep launch per
// pass and portion. Keys-only sorts of narrow integer keys and 16-bit floats count instead
// (counting_sort.cuh).
#pragma once

#include <gpusort/detail/policies/comparator_traits.cuh>
#include <gpusort/error.cuh>
#include <gpusort/sort_request.cuh>
#include "../common/dependent_launch.cuh"
#include "../common/kernel_setup.cuh"
#include "../common/resident_grid.cuh"
#include "counting_sort.cuh"
#include "first_pass_count.cuh"
#include "kernels.cuh"
#include "large_input_tile.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpusort::backends::radix {

// What onesweep_sort does after its passes where it sorts by buckets (msd_buckets.cuh): no
// bucket may hold more than `capacity` keys for the plan to take buckets (0: never), and
// `sort` sorts the buckets that the one pass left in the alternate buffer. This one never.
struct no_buckets {
  static constexpr std::size_t capacity = 0;
  template <class... Arguments>
  void sort(const Arguments&...) const {}
};

// Where onesweep_sort keeps what it needs in its one block of temporary memory, for n keys.
template <class Tuning, class Key, class Value>
struct onesweep_layout {
  using shape = radix_shape<Tuning, Key, Value>;
  std::size_t portion, portions, status_words;
  std::size_t alternate_keys, alternate_values, plan, starts, histograms, counters, status;
  std::size_t cleared;  // the word of block 0's clearing mark (clearing_mark.cuh)
  std::size_t total_bytes;

  explicit onesweep_layout(std::size_t n) {
    constexpr int digits = shape::digits;
    portion = balanced_portion_items(n, shape::tile_items, shape::portion_items);
    portions = portion_count(n, portion);
    const std::size_t widest_portion = n < portion ? n : portion;
    status_words = tile_count(widest_portion, shape::tile_items) * digits;
    storage_plan layout;
    alternate_keys = layout.reserve<Key>(n);
    alternate_values = layout.reserve<Value>(has_values_v<Value> ? n : 0);
    plan = layout.reserve<pass_plan>(1);
    starts = layout.reserve<std::size_t>(portions * shape::passes * digits);
    // Counters that start at zero, next to each other so that one memset clears them all:
    // the histograms, the tile counters and the first of two look-back tables.
    histograms = layout.reserve<unsigned long long>(shape::passes * digits);
    // (tile counters: one per pass and portion, then count_all_digits' finished blocks and
    // its flag for keys with canonicalised sort bits)
    counters = layout.reserve<unsigned int>(portions * shape::passes + 2);
    status = layout.reserve<std::uint32_t>(2 * status_words);
    cleared = layout.reserve<unsigned long long>(1);
    total_bytes = layout.total_bytes();
  }
};

// Whether count_all_digits may count Key in lane columns (digit_counters.cuh): where Tuning
// asks for them, and not for keys whose sort bits may differ from their encoding (floats:
// -0.0, NaNs), whose count also encodes and checks every key: in the columns' blocks of 1024
// threads their sorts lost 0.2-2.8 % where integer keys gained (H200,
// bench/results/NOTES.md, 2026-11-30; why is not profiled yet).
template <class Tuning, class Key>
inline constexpr bool may_count_in_lane_columns =
    Tuning::knobs.histogram_lane_column_threads > 0 && !radix_key_canonicalises_v<Key>;

// Whether it does on the current device: where a block of the columns fits there (128 KB:
// sm_90 and sm_80, not sm_86/89 or sm_75). Asked once per device (the launch allows the
// kernel its shared memory: kernel_attributes.cuh).
template <class Tuning, class Key>
bool counts_in_lane_columns() {
  static_assert(may_count_in_lane_columns<Tuning, Key>);
  static detail::per_device<bool> fits;
  return fits.get(detail::current_device(), [](int device) {
    cudaFuncAttributes attributes{};
    detail::check_cuda(cudaFuncGetAttributes(&attributes, count_all_digits<Tuning, Key, true>),
                       "radix sort: querying the histogram kernel's attributes");
    const std::size_t block_bytes =
        std::size_t(dynamic_shared_bytes<histogram_counters_t<Tuning, Key, true>>) +
        attributes.sharedSizeBytes;
    return block_bytes <=
           std::size_t(detail::facts_of_device(device).shared_bytes_per_block_optin);
  });
}

// The LSD radix sort of the request: one-sweep passes over every digit. With buckets (a
// single portion only), the plan may instead run only the pass of the most significant digit
// that differs and leave the rest to buckets.sort (plan_msd_buckets). With a gate (device
// memory), the sort leaves the keys as they are where *gate is 0 when it runs.
template <class Tuning, class Key, class Value, class Compare, bool Stable,
          class Buckets = no_buckets>
void onesweep_sort(const sort_request<Key, Value, Compare, Stable>& request,
                   const Buckets& buckets = {}, const unsigned* gate = nullptr) {
  Key* const keys = request.keys;
  Value* const values = request.values;
  const std::size_t n = request.count;
  const cudaStream_t stream = request.stream;
  constexpr bool descending = comparator_order_v<Compare, Key> == key_order::descending;
  using shape = radix_shape<Tuning, Key, Value>;
  using bits_type = typename shape::bits_type;
  constexpr bool has_values = has_values_v<Value>;
  constexpr int digits = shape::digits;
  if (n < 2) return;

  const onesweep_layout<Tuning, Key, Value> at(n);
  const std::size_t portion = at.portion, portions = at.portions, status_words = at.status_words;

  // Everything is allocated before the input is touched.
  temporary_storage storage(request.allocator, at.total_bytes, stream);

  Key* alternate_keys = storage.at<Key>(at.alternate_keys);
  Value* alternate_values = has_values ? storage.at<Value>(at.alternate_values) : nullptr;
  auto* histograms = storage.at<unsigned long long>(at.histograms);
  auto* plan = storage.at<pass_plan>(at.plan);
  auto* digit_starts = storage.at<std::size_t>(at.starts);  // [portions][passes][digits]
  auto* tile_counters = storage.at<unsigned int>(at.counters);  // [portions][passes]
  auto* status = storage.at<std::uint32_t>(at.status);

  const bits_type flip = order_flip<Key>(descending);
  const int multiprocessors = multiprocessor_count();
  const int streaming_blocks = multiprocessors * Tuning::knobs.histogram_blocks_per_sm;

  const auto tiles_of_portion = [&](std::size_t p) {
    const std::size_t begin = p * portion;
    return tile_count(n - begin < portion ? n - begin : portion, shape::tile_items);
  };
  const std::size_t first_table_words = tiles_of_portion(0) * digits;
  const std::uint32_t* first_table_end = status + first_table_words;
  const std::size_t zeroed_bytes = std::size_t(reinterpret_cast<const char*>(first_table_end) -
                                               reinterpret_cast<const char*>(histograms));
  // Only as many blocks as are resident at once: the kernel loops over its share, and a
  // second wave of a few blocks per SM left it slower (H100: 49 registers, 3 of the 4 blocks
  // per SM resident; 2^26 f32 keys 275 -> 235 us).
  const bool small_histogram = Tuning::knobs.histogram_small_blocks_per_sm > 0 &&
                               n <= Tuning::knobs.histogram_small_max_keys;
  const int histogram_grid =
      small_histogram ? multiprocessors * Tuning::knobs.histogram_small_blocks_per_sm
                      : streaming_blocks;
  const unsigned long long bucket_capacity = portions == 1 ? buckets.capacity : 0;
  unsigned int* const blocks_done = tile_counters + portions * shape::passes;
  unsigned int* const canonical_keys = blocks_done + 1;
  // Launch 0, the first pass, may count every pass's digits itself where all its tiles are
  // resident at once (first_pass_count.cuh), clearing what the memset below clears; else
  // the up-front histogram kernel counts.
  bool first_pass_counted = false;
  if constexpr (may_count_in_first_pass<Tuning>)
    if (portions == 1 && bucket_capacity == 0 && gate == nullptr)
      first_pass_counted = launch_count_in_first_pass<Tuning>(
          keys, alternate_keys, values, alternate_values, n, flip, histograms, tile_counters,
          int(portions * shape::passes + 2), canonical_keys,
          storage.at<unsigned long long>(at.cleared), plan, digit_starts, status,
          status + status_words, shape::passes > 1 ? tiles_of_portion(0) : 0, stream);
  // The histogram kernel clears what it and the passes count into itself where the device
  // launches it cooperatively (its grid is resident at once: clearing_mark.cuh), saving the
  // memset's launch before it; else the memset clears.
  const bool count_clears = detail::current_device_facts().cooperative_launch;
  const auto count_all = [&](auto lane_columns) {
    constexpr bool columns = decltype(lane_columns)::value;
    constexpr auto kernel = count_all_digits<Tuning, Key, columns>;
    constexpr int threads = histogram_threads<Tuning, columns>;
    using counters_t = histogram_counters_t<Tuning, Key, columns>;
    // Allowed here, where this file's copy of the kernel is launched (kernel_attributes.cuh).
    const int shared_bytes = allowed_dynamic_shared_bytes<kernel, counters_t, columns>(
        "radix sort: allowing the histogram's lane columns their shared memory");
    const unsigned blocks = resident_grid<kernel, threads, dynamic_shared_bytes<counters_t>>(
        std::size_t(histogram_grid));
    const int counter_count = int(portions * shape::passes + 2);
    if (count_clears) {
      launch_cooperative(kernel, blocks, threads, std::size_t(shared_bytes), stream,
                         "radix sort: count_all_digits", keys, n, flip, histograms,
                         tile_counters, counter_count, blocks_done, canonical_keys, status,
                         first_table_words,
                         cleared_by_block_zero{storage.at<unsigned long long>(at.cleared),
                                               next_clearing_mark()},
                         bucket_capacity, plan, digit_starts, gate);
    } else {
      kernel<<<blocks, threads, shared_bytes, stream>>>(
          keys, n, flip, histograms, tile_counters, counter_count, blocks_done, canonical_keys,
          status, first_table_words, cleared_by_block_zero{nullptr, 0}, bucket_capacity, plan,
          digit_starts, gate);
    }
  };
  const auto count_up_front = [&] {
    if constexpr (may_count_in_lane_columns<Tuning, Key>) {
      // Not with the small grid: its two blocks of block_threads per SM were tuned for the
      // rows, and the columns' one block per SM measured within 1 % either way there (H200,
      // 2^22: u32 -0.8 %, u64 +0.7 %, pairs +0.5 to +0.7 %).
      if (!small_histogram && counts_in_lane_columns<Tuning, Key>())
        count_all(std::true_type{});
      else
        count_all(std::false_type{});
    } else {
      count_all(std::false_type{});
    }
    detail::check_launch("radix sort: count_all_digits");
  };
  if (!first_pass_counted) {
    if (!count_clears)
      detail::check_cuda(cudaMemsetAsync(histograms, 0, zeroed_bytes, stream),
                         "radix sort: clearing the histograms, tile counters and look-back table");
    count_up_front();
  }
  if (gate != nullptr) {
    close_plan_unless<<<1, 1, 0, stream>>>(plan, gate);
    detail::check_launch("radix sort: close_plan_unless");
  }

  const int onesweep_shared_bytes =
      allowed_dynamic_shared_bytes<onesweep_pass<Tuning, Key, Value>,
                                   typename onesweep_tile<Tuning, Key, Value>::storage_t,
                                   shared_bytes_checked_on_device<Tuning>>(
          "radix sort: allowing the one-sweep tile its shared memory");

  // Launch l (pass l / portions, portion l % portions) uses look-back table l % 2 and clears
  // the other for launch l + 1.
  const std::size_t launches = shape::passes * portions;
  for (std::size_t launch = first_pass_counted ? 1 : 0; launch < launches; ++launch) {
    const int pass = int(launch / portions);
    const std::size_t p = launch % portions;
    const std::size_t begin = p * portion;
    const std::size_t items = n - begin < portion ? n - begin : portion;
    const std::size_t tiles = tiles_of_portion(p);
    const std::size_t next_tiles =
        launch + 1 < launches ? tiles_of_portion((launch + 1) % portions) : 0;
    std::uint32_t* table = status + (launch % 2) * status_words;
    std::uint32_t* next_table = status + ((launch + 1) % 2) * status_words;
    std::size_t* starts = digit_starts + (p * shape::passes + pass) * digits;
    std::size_t* next_starts = p + 1 < portions ? starts + shape::passes * digits : nullptr;
    launch_dependent(onesweep_pass<Tuning, Key, Value>, unsigned(tiles), shape::block_threads,
                     std::size_t(onesweep_shared_bytes), stream, "radix sort: onesweep_pass",
                     keys, alternate_keys, values, alternate_values, begin, int(items), flip,
                     pass, plan, tile_counters + p * shape::passes + pass, table, next_table,
                     int(next_tiles), starts, next_starts);
  }
  if constexpr (may_end_in_alternate(shape::passes))
    launch_dependent(copy_back<Key, Value>, unsigned(streaming_blocks), shape::block_threads, 0,
                     stream, "radix sort: copy_back", keys, alternate_keys, values,
                     alternate_values, n, plan);
  if (bucket_capacity != 0)
    buckets.sort(keys, alternate_keys, values, alternate_values, n, flip, plan, digit_starts,
                 stream);
}

// The fewest keys the counting sort takes (keys only, is_counted_key_v keys): the knobs'
// counting.min_keys, or min_keys_per_bin per possible value, whichever is more.
// (The knobs may be 0, to count every size: compared through at_least, not in place, lest the
// compiler warn of an unsigned count compared with a constant 0.)
constexpr bool at_least(std::size_t count, std::size_t least) { return count >= least; }
template <class Tuning, class Key>
constexpr std::size_t counting_min_keys() {
  constexpr auto& knobs = Tuning::knobs.counting;
  constexpr std::size_t bins = std::size_t(1) << radix_key_traits<Key>::bits;
  return knobs.min_keys_per_bin * bins > knobs.min_keys ? knobs.min_keys_per_bin * bins
                                                        : knobs.min_keys;
}

// Narrow integer keys and 16-bit floats without values, from the knobs' counting.min_keys and
// min_keys_per_bin on: sorted by counting (counting_sort.cuh); true where it ran, false
// (nothing done) where not. Their equal keys are equal bit for bit (16-bit floats' zeros and
// NaNs but for their patterns, which the counting sort keeps in input order), so the
// counting sort's output is the stable sort's, for about 2 bytes of traffic per byte of keys.
template <class Tuning, class Key, class Value, class Compare, bool Stable>
bool sort_by_counting_if_narrow(const sort_request<Key, Value, Compare, Stable>& request) {
  if constexpr (is_counted_key_v<Key> && !has_values_v<Value>) {
    if (at_least(request.count, counting_min_keys<Tuning, Key>())) {
      counting_sort<Tuning>(request);
      return true;
    }
  }
  return false;
}

// Whether a sort of n keys (or pairs) takes the large-input tile here (large_input_tile.cuh).
template <class Tuning, class Key, class Value>
bool takes_large_input_tile(std::size_t n) {
  if constexpr (has_large_input_tile<Tuning, Key, Value>())
    return at_least(n, large_input_min_keys<Tuning, Key, Value>()) &&
           large_input_tiles_resident<Tuning, Key, Value>();
  else
    return false;
}

// Sorts the request's keys (and values alongside, unless Value is no_values) by the key's
// radix order, reversed for a descending comparator. Stable even where the request need not
// be. Enqueued on the request's stream, no synchronisation. Narrow integer keys without
// values are counted, not moved, from the knobs' thresholds on (sort_by_counting_if_narrow);
// other keys without values, and pairs of 4-byte integer keys with 4-byte values, take a tile
// of more keys per thread at large sizes where the device holds it (large_input_tile.cuh).
template <class Tuning, class Key, class Value, class Compare, bool Stable>
void sort(const sort_request<Key, Value, Compare, Stable>& request) {
  if (sort_by_counting_if_narrow<Tuning>(request)) return;
  if constexpr (has_large_input_tile<Tuning, Key, Value>())
    if (takes_large_input_tile<Tuning, Key, Value>(request.count))
      return onesweep_sort<large_input_tuning<Tuning, Key>>(request);
  onesweep_sort<Tuning>(request);
}

}  // namespace gpusort::backends::radix
