// Host side of the bucket + bitonic sort: the capacities of the work lists, the one
// temporary allocation, and a fixed sequence of launches: no launch depends on the host
// knowing how the data split, so a sort never waits for the GPU.
#pragma once

#include <gpusort/detail/policies/comparator_traits.cuh>
#include <gpusort/error.cuh>
#include <gpusort/sort_request.cuh>
#include "../common/dependent_launch.cuh"
#include "../common/kernel_setup.cuh"
#include "../common/resident_grid.cuh"
#include "../common/ordered_bits.cuh"
#include "deeper_levels.cuh"
#include "kernels.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>

namespace gpusort::backends::bucket_bitonic {

// Upper bounds of the work lists for n keys, from the rules in buckets.cuh: a segment past
// level 0 is a bucket that is not small; a level adds at most one sort unit per window and
// per bucket that is not small (a run of small buckets ends at one), plus one all-equal unit
// per segment or bucket that is not small.
struct list_capacities {
  std::size_t segments;  // per level
  std::size_t units;     // all levels
  std::size_t counters;  // per level
};

template <class Shape>
constexpr list_capacities capacities_for(std::size_t n, int first_bits, int levels) {
  constexpr int unit_items = Shape::unit_items;
  const std::size_t windows = n / Shape::unit_window + 1;
  const std::size_t not_small = n / (Shape::small_bucket_limit + 1) + 1;
  // A segment of c keys past level 0 takes 2^min_deeper_bucket_bits counters, or more but
  // then fewer than 2 c / target_bucket_keys = 2 target_buckets_per_unit c / unit_items
  // (deeper_level_bucket_bits).
  const std::size_t deeper_counters = (not_small << Shape::min_deeper_bucket_bits) +
                                      2 * Shape::target_buckets_per_unit * (n / unit_items + 1);
  // Level 0's one segment keeps its counters a cache line apart (work_lists.cuh).
  const std::size_t first_counters = (std::size_t(1) << first_bits) * first_level_counter_stride;
  return {not_small, std::size_t(levels) * (windows + 4 * not_small) + 1,
          deeper_counters > first_counters ? deeper_counters : first_counters};
}

// How a sort of n keys runs, decided on the host before anything is allocated.
struct sort_plan {
  bool one_unit;                // n fits one sort unit: no partition levels
  int first_bits;               // the fewest bucket bits of the first level's segment
  bool samples_first_level;     // choose_first_level_bits may take more, up to
                                // max_bucket_bits (buckets.cuh)
  int levels;                   // partition levels
  list_capacities capacity;
  std::size_t most_tiles;       // partition tiles of one level, at most
  std::size_t most_unit_tiles;  // tiles of the unit list, at most
};

// Throws, before anything is allocated, where the lists' counters cannot hold the sort.
template <class Shape>
sort_plan plan_sort(std::size_t n) {
  sort_plan plan;
  plan.one_unit = n <= std::size_t(Shape::unit_items);
  // A sample only adds bits where n exceeds the heavy-bucket limit (below it, even all keys
  // in one bucket fit): with the default tuning above 2^19 integer keys of 4 bytes, 2^18 of
  // 8, and 2^20 floats, 2^19 doubles (their units are larger). For floats it also chooses
  // between buckets of bits and of value (value_buckets.cuh), past twice that limit: below,
  // both kinds of first level leave buckets that the next one cuts to size, and the sample
  // and the level that value buckets add cost more than they gain (f64 at 2^20 and f32 at
  // 2^21 took 10-20 % longer with them; H100, bench/results/NOTES.md).
  const std::size_t heavy_limit =
      heavy_bucket_limit(Shape::target_bucket_keys, Shape::max_bucket_bits);
  const bool past_heavy_limit = !plan.one_unit && n > heavy_limit;
  const bool may_take_values = Shape::value_space_first_level && n > 2 * heavy_limit;
  const int balanced_bits =
      balanced_first_level_bits(n, Shape::target_bucket_keys, Shape::max_bucket_bits);
  plan.first_bits =
      Shape::balanced_first_level || may_take_values
          ? balanced_bits
          : first_level_bucket_bits(n, Shape::target_bucket_keys, Shape::max_bucket_bits);
  // Where the even split already takes max_bucket_bits, the sample adds no bits, but it may
  // still cut a window of the range (buckets.cuh: cuts_sample_window): from as many keys as
  // the tuning says its cost is worth.
  const bool samples_for_window =
      Shape::window_sample_min_keys != 0 && n >= Shape::window_sample_min_keys;
  plan.samples_first_level =
      past_heavy_limit &&
      (plan.first_bits < Shape::max_bucket_bits || may_take_values || samples_for_window);
  // Buckets of value need not narrow the range of bits at all, nor need the end buckets of a
  // window that the sample may choose (buckets.cuh: cuts_sample_window): the levels after them
  // may have every bit left to remove. (Empty levels cost little: deeper_levels.cuh.)
  const bool first_level_may_not_narrow = may_take_values || plan.samples_first_level;
  plan.levels = plan.one_unit ? 0
                              : partition_levels(Shape::traits::bits,
                                                 first_level_may_not_narrow ? 0 : plan.first_bits,
                                                 Shape::min_deeper_bucket_bits);
  plan.capacity = capacities_for<Shape>(n, Shape::max_bucket_bits, plan.levels);
  plan.most_tiles = tile_count(n, Shape::partition_tile) + plan.capacity.segments;
  plan.most_unit_tiles = plan.capacity.units + tile_count(n, Shape::unit_items);
  // The lists' packed counters (buckets.cuh) hold 2^30 entries and 2^34 tiles: some 10^10
  // keys of 8 bytes.
  if (plan.capacity.units >= (std::size_t(1) << (64 - list_tile_bits)) ||
      plan.most_tiles >= (std::size_t(1) << list_tile_bits) ||
      plan.most_unit_tiles >= (std::size_t(1) << list_tile_bits))
    detail::throw_usage_error("bucket_bitonic sort: too many keys for its work lists");
  return plan;
}

// Where each part of the work space lies in the allocation.
template <class Key, class Value>
struct work_space_layout {
  static constexpr bool has_values = has_values_v<Value>;
  storage_plan bytes;
  std::size_t alternate_keys_at, alternate_values_at, segments_at, units_at,
      full_word_units_at, reservations_at, counters_at;

  work_space_layout(std::size_t n, const sort_plan& plan) {
    const bool one_unit = plan.one_unit;
    alternate_keys_at = bytes.reserve<Key>(one_unit ? 0 : n);
    alternate_values_at = bytes.reserve<Value>(!one_unit && has_values ? n : 0);
    segments_at = bytes.reserve<segment>(one_unit ? 0 : 2 * plan.capacity.segments);
    units_at = bytes.reserve<sort_unit>(plan.capacity.units);
    full_word_units_at = bytes.reserve<sort_unit>(full_word_unit_capacity(plan));
    reservations_at = bytes.reserve<unsigned long long>(6);  // one per list and pool
    counters_at = bytes.reserve<unsigned long long>(one_unit ? 0 : 2 * plan.capacity.counters);
  }

  // Units that sort_units may leave to sort_units_by_full_words: any, for 64-bit bits.
  static std::size_t full_word_unit_capacity(const sort_plan& plan) {
    return has_prefix_words_v<Key> ? plan.capacity.units : 0;
  }

  // The parts, in an allocation of bytes.total_bytes().
  work_space<Key, Value> carve(const temporary_storage& storage, const sort_plan& plan) const {
    const list_capacities& capacity = plan.capacity;
    const bool one_unit = plan.one_unit;
    auto* reservations = storage.at<unsigned long long>(reservations_at);
    segment* segments = storage.at<segment>(segments_at);
    auto* counters = storage.at<unsigned long long>(counters_at);
    const std::size_t segment_capacity = one_unit ? 0 : capacity.segments;
    const std::size_t counter_capacity = one_unit ? 0 : capacity.counters;
    return {storage.at<Key>(alternate_keys_at),
            has_values ? storage.at<Value>(alternate_values_at) : nullptr,
            {{segments, reservations + 0, segment_capacity},
             {segments + capacity.segments, reservations + 1, segment_capacity}},
            {storage.at<sort_unit>(units_at), reservations + 2, capacity.units},
            {storage.at<sort_unit>(full_word_units_at), reservations + 5,
             full_word_unit_capacity(plan)},
            {{counters, reservations + 3, counter_capacity},
             {counters + capacity.counters, reservations + 4, counter_capacity}}};
  }
};

// Persistent grids of the partition kernels, capped by the most tiles (or segments) a level
// can have.
struct partition_grids {
  unsigned min_max, histogram, windowed_histogram, narrow_plan, wide_plan, scatter;
  int scatter_shared_bytes;  // dynamic
};

template <class Shape, class Key, class Value>
partition_grids partition_grids_for(const sort_plan& plan) {
  constexpr int threads = Shape::partition_threads;
  const persistent_launch scatter =
      persistent_launch_for<bucket_scatter<Shape, Key, Value>, threads,
                            scatter_storage<Shape, Key, Value>>(
          plan.most_tiles, "bucket_bitonic sort: allowing the scatter its shared memory");
  return {resident_grid<segment_min_max<Shape, Key>, threads>(plan.most_tiles),
          resident_grid<bucket_histogram<Shape, Key>, threads>(plan.most_tiles),
          resident_grid<bucket_histogram<Shape, Key, true>, threads>(plan.most_tiles),
          resident_grid<plan_buckets<Shape, narrow_plan_buckets_per_thread>, threads>(
              plan.capacity.segments),
          resident_grid<plan_buckets<Shape, Shape::buckets_per_thread>, threads>(
              plan.capacity.segments),
          scatter.grid, scatter.shared_bytes};
}

// The launches of one sort, in stream order (kernels.cuh).
template <class Shape, class Key, class Value>
struct bucket_sorter {
  static constexpr int partition_threads = Shape::partition_threads;
  Key* keys;
  Value* values;
  std::size_t n;
  cudaStream_t stream;
  typename Shape::bits_type flip;
  const sort_plan& plan;
  const work_space<Key, Value>& work;

  // The first level's one segment (or the one unit) into the lists.
  void start() const {
    // Where the sample decides, 2^max_bucket_bits first-level counters until it has.
    start_lists<Shape><<<1, 1, 0, stream>>>(
        work.segment_lists[0], work.units, work.full_word_units, n,
        plan.samples_first_level ? Shape::max_bucket_bits : plan.first_bits, plan.one_unit);
    detail::check_launch("bucket_bitonic sort: start_lists");
  }

  // Every partition level; the launches do not depend on how the keys split.
  void partition() const {
    const partition_grids grids = partition_grids_for<Shape, Key, Value>(plan);
    const int apart = plan.levels < levels_launched_apart(n) ? plan.levels
                                                             : levels_launched_apart(n);
    for (int level = 0; level < apart; ++level) partition_level(level, grids);
    if (apart < plan.levels) partition_deeper_levels(apart);
  }

  // Levels first_level and after, in one cooperative launch (deeper_levels.cuh).
  void partition_deeper_levels(int first_level) const {
    constexpr auto kernel = deeper_partition_levels<Shape, Key, Value>;
    using storage_t = deeper_level_storage<Shape, Key, Value>;
    const persistent_launch deeper = persistent_launch_for<kernel, partition_threads, storage_t>(
        plan.most_tiles, "bucket_bitonic sort: allowing the deeper levels their shared memory");
    launch_cooperative(kernel, deeper.grid, partition_threads, deeper.shared_bytes, stream,
                       "bucket_bitonic sort: deeper_partition_levels", keys, values, work, flip,
                       first_level, plan.levels);
  }

  void partition_level(int level, const partition_grids& grids) const {
    const level_io<Key, Value> io = level_io_of(work, keys, values, level, plan.levels);
    count_buckets(level, io, grids);
    plan_level(level, io, grids);
    launch_dependent(bucket_scatter<Shape, Key, Value>, grids.scatter, partition_threads,
                     grids.scatter_shared_bytes, stream, "bucket_bitonic sort: bucket_scatter",
                     io.from_keys, io.to_keys, io.from_values, io.to_values, io.list, io.pool,
                     flip, sampled_level(level));
  }

  // The first level of a sampled sort: choose_first_level_bits gives its bits, and perhaps a
  // window of the range, which its histogram and scatter then cut.
  bool sampled_level(int level) const { return level == 0 && plan.samples_first_level; }

  // Each segment's min and max, then its keys counted per bucket.
  void count_buckets(int level, const level_io<Key, Value>& io,
                     const partition_grids& grids) const {
    launch_dependent(segment_min_max<Shape, Key>, grids.min_max, partition_threads, 0, stream,
                     "bucket_bitonic sort: segment_min_max", io.from_keys, io.list, io.pool,
                     flip, io.next.reservation, io.next_pool.used);
    if (sampled_level(level)) {
      launch_dependent(choose_first_level_bits<Shape, Key>, 1, partition_threads, 0, stream,
                       "bucket_bitonic sort: choose_first_level_bits", keys, io.list,
                       plan.first_bits, flip);
      launch_dependent(bucket_histogram<Shape, Key, true>, grids.windowed_histogram,
                       partition_threads, 0, stream, "bucket_bitonic sort: bucket_histogram",
                       io.from_keys, io.list, io.pool, flip);
    } else {
      launch_dependent(bucket_histogram<Shape, Key>, grids.histogram, partition_threads, 0,
                       stream, "bucket_bitonic sort: bucket_histogram", io.from_keys, io.list,
                       io.pool, flip);
    }
  }

  // Bucket starts and fates of every segment (level 0 is one segment: one block plans it).
  void plan_level(int level, const level_io<Key, Value>& io,
                  const partition_grids& grids) const {
    launch_dependent(plan_buckets<Shape, narrow_plan_buckets_per_thread>,
                     level == 0 ? 1u : grids.narrow_plan, partition_threads, 0, stream,
                     "bucket_bitonic sort: plan_buckets", io.list, io.next, io.pool,
                     io.next_pool, work.units, io.in_alternate);
    if constexpr (Shape::buckets_per_thread > 1)
      launch_dependent(plan_buckets<Shape, Shape::buckets_per_thread>,
                       level == 0 ? 1u : grids.wide_plan, partition_threads, 0, stream,
                       "bucket_bitonic sort: plan_buckets (wide)", io.list, io.next, io.pool,
                       io.next_pool, work.units, io.in_alternate);
  }

  // Every unit of every level, in one launch; for 64-bit bits one more, for the units whose
  // prefix words left keys out of order (few or none: the launch costs a few us).
  void sort_all_units() const {
    const unsigned grid =
        resident_grid<sort_units<Shape, Key, Value>, Shape::sort_threads>(plan.most_unit_tiles);
    launch_dependent(sort_units<Shape, Key, Value>, grid, Shape::sort_threads, 0, stream,
                     "bucket_bitonic sort: sort_units", keys, work.alternate_keys, values,
                     work.alternate_values, work.units, work.full_word_units, flip);
    if constexpr (has_prefix_words_v<Key>) {
      const unsigned full_word_grid =
          resident_grid<sort_units_by_full_words<Shape, Key, Value>, Shape::sort_threads>(
              plan.most_unit_tiles);
      launch_dependent(sort_units_by_full_words<Shape, Key, Value>, full_word_grid,
                       Shape::sort_threads, 0, stream,
                       "bucket_bitonic sort: sort_units_by_full_words", keys,
                       work.alternate_keys, values, work.alternate_values,
                       work.full_word_units, flip);
    }
  }
};

// Sorts the request's keys (and values alongside, unless Value is no_values) by the key's
// radix order, reversed for a descending comparator. Not stable. Enqueued on the request's
// stream, no synchronisation.
template <class Tuning, class Key, class Value, class Compare>
void sort(const sort_request<Key, Value, Compare, false>& request) {
  using shape = bucket_shape<Tuning, Key, Value>;
  constexpr bool descending = comparator_order_v<Compare, Key> == key_order::descending;
  const std::size_t n = request.count;
  if (n < 2) return;

  const sort_plan plan = plan_sort<shape>(n);
  // Everything is allocated before the input is touched.
  const work_space_layout<Key, Value> layout(n, plan);
  temporary_storage storage(request.allocator, layout.bytes.total_bytes(), request.stream);
  const work_space<Key, Value> work = layout.carve(storage, plan);

  const bucket_sorter<shape, Key, Value> sorter{
      request.keys, request.values, n, request.stream, order_flip<Key>(descending), plan, work};
  sorter.start();
  sorter.partition();
  sorter.sort_all_units();
}

}  // namespace gpusort::backends::bucket_bitonic
