// Host side of the bucket + bitonic sort: the capacities of the work lists, the one
// temporary allocation, and a fixed sequence of launches: no launch depends on the host
// knowing how the data split, so a sort never waits for the GPU.
#pragma once

#include <gpusort/detail/policies/comparator_traits.cuh>
#include <gpusort/error.cuh>
#include <gpusort/sort_request.cuh>
#include "../common/resident_grid.cuh"
#include "../common/ordered_bits.cuh"
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
  const std::size_t windows = n / unit_window(unit_items) + 1;
  const std::size_t not_small = n / (small_bucket_limit(unit_items) + 1) + 1;
  // A segment of c keys past level 0 takes 2^min_deeper_bucket_bits counters, or more but
  // then fewer than 16 c / unit_items (deeper_level_bucket_bits).
  const std::size_t deeper_counters =
      (not_small << Shape::min_deeper_bucket_bits) + 16 * (n / unit_items + 1);
  const std::size_t first_counters = std::size_t(1) << first_bits;
  return {not_small, std::size_t(levels) * (windows + 4 * not_small) + 1,
          deeper_counters > first_counters ? deeper_counters : first_counters};
}

// Sorts the request's keys (and values alongside, unless Value is no_values) by the key's
// radix order, reversed for a descending comparator. Not stable. Enqueued on the request's
// stream, no synchronisation.
template <class Tuning, class Key, class Value, class Compare>
void sort(const sort_request<Key, Value, Compare, false>& request) {
  Key* const keys = request.keys;
  Value* const values = request.values;
  const std::size_t n = request.count;
  const cudaStream_t stream = request.stream;
  constexpr bool descending = comparator_order_v<Compare, Key> == key_order::descending;
  using shape = bucket_shape<Tuning, Key, Value>;
  using bits_type = typename shape::bits_type;
  constexpr bool has_values = has_values_v<Value>;
  if (n < 2) return;

  const bool one_unit = n <= std::size_t(shape::unit_items);
  // As many first-level buckets as fit (up to 2^first_bucket_bits) even when a second level
  // is needed anyway: splitting 2^24 u32 keys 2^8 ways first is 20 % faster, but skewed
  // keys and floats (crowded in few buckets of the bit space) lose up to 1.7x.
  const int first_bits =
      first_level_bucket_bits(n, shape::unit_items, Tuning::first_bucket_bits);
  const int levels =
      one_unit ? 0 : partition_levels(shape::traits::bits, first_bits, Tuning::deeper_bucket_bits);
  const list_capacities capacity = capacities_for<shape>(n, first_bits, levels);
  // The lists' packed counters (buckets.cuh) hold 2^30 entries and 2^34 tiles: some 10^10
  // keys of 8 bytes.
  const std::size_t most_tiles = tile_count(n, shape::partition_tile) + capacity.segments;
  const std::size_t most_unit_tiles = capacity.units + tile_count(n, shape::unit_items);
  if (capacity.units >= (std::size_t(1) << (64 - list_tile_bits)) ||
      most_tiles >= (std::size_t(1) << list_tile_bits) ||
      most_unit_tiles >= (std::size_t(1) << list_tile_bits))
    detail::throw_usage_error("bucket_bitonic sort: too many keys for its work lists");

  // Everything is allocated before the input is touched.
  storage_plan layout;
  const std::size_t alternate_keys_at = layout.reserve<Key>(one_unit ? 0 : n);
  const std::size_t alternate_values_at = layout.reserve<Value>(!one_unit && has_values ? n : 0);
  const std::size_t segments_at = layout.reserve<segment>(one_unit ? 0 : 2 * capacity.segments);
  const std::size_t units_at = layout.reserve<sort_unit>(capacity.units);
  const std::size_t reservations_at = layout.reserve<unsigned long long>(5);
  const std::size_t counters_at = layout.reserve<unsigned long long>(one_unit ? 0 : 2 * capacity.counters);
  temporary_storage storage(request.allocator, layout.total_bytes(), stream);

  Key* alternate_keys = storage.at<Key>(alternate_keys_at);
  Value* alternate_values = has_values ? storage.at<Value>(alternate_values_at) : nullptr;
  auto* reservations = storage.at<unsigned long long>(reservations_at);
  // Level L reads segment list L % 2 and appends to the other.
  const work_list<segment> segment_lists[2] = {
      {storage.at<segment>(segments_at), reservations + 0, one_unit ? 0 : capacity.segments},
      {storage.at<segment>(segments_at) + capacity.segments, reservations + 1,
       one_unit ? 0 : capacity.segments}};
  const work_list<sort_unit> units{storage.at<sort_unit>(units_at), reservations + 2,
                                   capacity.units};
  // Level L's segments count into counter pool L % 2; plan_buckets reserves the next level's
  // counters in the other.
  auto* counters = storage.at<unsigned long long>(counters_at);
  const counter_pool counter_pools[2] = {
      {counters, reservations + 3, one_unit ? 0 : capacity.counters},
      {counters + capacity.counters, reservations + 4, one_unit ? 0 : capacity.counters}};
  const bits_type flip = order_flip<Key>(descending);

  start_lists<shape><<<1, 1, 0, stream>>>(segment_lists[0], units, n, first_bits, one_unit);
  detail::check_launch("bucket_bitonic sort: start_lists");

  // Persistent grids, capped by the most tiles (or segments) a level can have.
  const unsigned min_max_grid =
      resident_grid<segment_min_max<shape, Key>, shape::partition_threads>(most_tiles);
  const unsigned histogram_grid =
      resident_grid<bucket_histogram<shape, Key>, shape::partition_threads>(most_tiles);
  constexpr int narrow_per_thread = 1;  // segments of at most partition_threads buckets
  const unsigned narrow_plan_grid =
      resident_grid<plan_buckets<shape, narrow_per_thread>, shape::partition_threads>(
          capacity.segments);
  const unsigned wide_plan_grid =
      resident_grid<plan_buckets<shape, shape::buckets_per_thread>, shape::partition_threads>(
          capacity.segments);
  const unsigned scatter_grid =
      resident_grid<bucket_scatter<shape, Key, Value>, shape::partition_threads>(most_tiles);
  for (int level = 0; level < levels; ++level) {
    const work_list<segment>& list = segment_lists[level % 2];
    const work_list<segment>& next_level = segment_lists[(level + 1) % 2];
    // The last level leaves no segments (buckets.cuh: partition_levels): a list of capacity
    // 0 makes a broken promise trap instead of writing past the end.
    work_list<segment> next = next_level;
    if (level + 1 == levels) next.capacity = 0;
    const bool in_alternate = level % 2 == 1;
    const Key* from_keys = in_alternate ? alternate_keys : keys;
    Key* to_keys = in_alternate ? keys : alternate_keys;
    const Value* from_values = in_alternate ? alternate_values : values;
    Value* to_values = in_alternate ? values : alternate_values;
    const counter_pool& pool = counter_pools[level % 2];
    const counter_pool& next_pool = counter_pools[(level + 1) % 2];

    // The next level's list and counter pool start empty.
    detail::check_cuda(cudaMemsetAsync(next.reservation, 0, sizeof(unsigned long long), stream),
                       "bucket_bitonic sort: clearing a work list");
    detail::check_cuda(cudaMemsetAsync(next_pool.used, 0, sizeof(unsigned long long), stream),
                       "bucket_bitonic sort: clearing a counter pool");
    segment_min_max<shape><<<min_max_grid, shape::partition_threads, 0, stream>>>(
        from_keys, list, pool, flip);
    detail::check_launch("bucket_bitonic sort: segment_min_max");
    bucket_histogram<shape><<<histogram_grid, shape::partition_threads, 0, stream>>>(
        from_keys, list, pool, flip);
    detail::check_launch("bucket_bitonic sort: bucket_histogram");
    plan_buckets<shape, narrow_per_thread>
        <<<level == 0 ? 1 : narrow_plan_grid, shape::partition_threads, 0, stream>>>(
            list, next, pool, next_pool, units, in_alternate ? 1 : 0);
    detail::check_launch("bucket_bitonic sort: plan_buckets");
    if constexpr (shape::buckets_per_thread > 1) {
      plan_buckets<shape, shape::buckets_per_thread>
          <<<level == 0 ? 1 : wide_plan_grid, shape::partition_threads, 0, stream>>>(
              list, next, pool, next_pool, units, in_alternate ? 1 : 0);
      detail::check_launch("bucket_bitonic sort: plan_buckets (wide)");
    }
    bucket_scatter<shape><<<scatter_grid, shape::partition_threads, 0, stream>>>(
        from_keys, to_keys, from_values, to_values, list, pool, flip);
    detail::check_launch("bucket_bitonic sort: bucket_scatter");
  }

  const unsigned sort_grid =
      resident_grid<sort_units<shape, Key, Value>, shape::sort_threads>(most_unit_tiles);
  sort_units<shape><<<sort_grid, shape::sort_threads, 0, stream>>>(
      keys, alternate_keys, values, alternate_values, units, flip);
  detail::check_launch("bucket_bitonic sort: sort_units");
}

}  // namespace gpusort::backends::bucket_bitonic
