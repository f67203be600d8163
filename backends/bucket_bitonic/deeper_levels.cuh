// The partition levels past the first few, in one cooperative launch. The host launches a
// level's kernels without knowing whether the level has any segment, and most inputs leave
// the deeper levels empty: uniform keys fill two levels at every size, while 64-bit keys may
// need eight (partition_levels). Launched one kernel at a time, each empty level cost some
// 16-20 us (five launches): the six empty levels of a sort of 2^20 u64 keys took two fifths
// of its time (H100, bench/results/NOTES.md). Here every block checks the level's list after
// the barrier that ended the level before, so all of them see the same count and stop
// together at the first empty level; a level with segments runs the same block-level steps
// as the separate kernels (kernels.cuh), with a grid-wide barrier where a kernel boundary
// was.
#pragma once

#include "../common/block_shared.cuh"
#include "../common/launch_bounds.cuh"
#include "kernels.cuh"
#include "work_lists.cuh"

#include <cooperative_groups.h>

#include <cstddef>

namespace gpusort::backends::bucket_bitonic {

// Levels launched kernel by kernel before the cooperative rest, each step at its own
// occupancy (the cooperative kernel runs every step at the scatter's, 3 blocks of 256 threads
// per multiprocessor on sm_90): the two that uniform keys fill, and from 2^23 keys a third.
// There skewed keys' third level is large enough to lose more in the cooperative kernel than
// an empty level's launches cost (outlier and zipf keys at 2^24-2^26: 8-15 %); below, the
// empty third level costs more (2^20-2^22: 8-40 % of a sort; H100, bench/results/NOTES.md).
__host__ __device__ constexpr int levels_launched_apart(std::size_t n) {
  return n < (std::size_t(1) << 23) ? 2 : 3;
}

// One step's shared memory at a time.
template <class Shape, class Key, class Value>
union deeper_level_storage {
  min_max_storage<Shape> min_max;
  histogram_storage<Shape> histogram;
  typename bucket_planner<Shape, narrow_plan_buckets_per_thread>::storage_t narrow_plan;
  typename bucket_planner<Shape, Shape::buckets_per_thread>::storage_t wide_plan;
  scatter_storage<Shape, Key, Value> scatter;
};

// Levels first_level to levels - 1; every block resident (a cooperative launch).
template <class Shape, class Key, class Value>
__global__ void __launch_bounds__(Shape::partition_threads,
                                  min_blocks_per_multiprocessor(
                                      Shape::scatter_blocks_per_multiprocessor,
                                      Shape::partition_threads))
    deeper_partition_levels(Key* keys, Value* values, work_space<Key, Value> work,
                            typename Shape::bits_type flip, int first_level, int levels) {
  auto& shared = block_shared<deeper_level_storage<Shape, Key, Value>>();
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (int level = first_level; level < levels; ++level) {
    const level_io<Key, Value> io = level_io_of(work, keys, values, level, levels);
    // An empty level leaves the levels after it empty too.
    if (entries_of(*io.list.reservation) == 0) return;
    find_segment_min_max<Shape>(shared.min_max, io.from_keys, io.list, io.pool, flip,
                                io.next.reservation, io.next_pool.used);
    grid.sync();
    count_segment_buckets<Shape>(shared.histogram, io.from_keys, io.list, io.pool, flip);
    grid.sync();
    plan_segments<Shape, narrow_plan_buckets_per_thread>(shared.narrow_plan, io.list, io.next,
                                                         io.pool, io.next_pool, work.units,
                                                         io.in_alternate);
    if constexpr (Shape::buckets_per_thread > 1) {
      __syncthreads();  // the shared memory changes hands
      plan_segments<Shape, Shape::buckets_per_thread>(shared.wide_plan, io.list, io.next,
                                                      io.pool, io.next_pool, work.units,
                                                      io.in_alternate);
    }
    grid.sync();
    scatter_segment_tiles<Shape>(shared.scatter, io.from_keys, io.to_keys, io.from_values,
                                 io.to_values, io.list, io.pool, flip);
    grid.sync();  // the next level reads what this one wrote
  }
}

}  // namespace gpusort::backends::bucket_bitonic
