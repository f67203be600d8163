// Host side of the segmented sort: one temporary allocation sized from n and the segment count
// alone (the offsets stay on the device: no synchronisation, so the call can be captured into
// a CUDA graph), then the kernels of kernels.cuh. Every launch that the sizes known on the host
// rule out is left out: no class whose segments cannot fit in n keys (no multi-block
// machinery where n fits one tile). The multi-block segments' passes are one cooperative
// launch, sized for the most merge blocks the host can bound, that finds its work on the
// device.
#pragma once

#include <gpusort/detail/offsets_report.cuh>
#include <gpusort/error.cuh>
#include <gpusort/segmented_sort_request.cuh>
#include "../common/dependent_launch.cuh"
#include "../common/kernel_setup.cuh"
#include "../common/resident_grid.cuh"
#include "../merge/shapes.cuh"
#include "kernels.cuh"
#include "small_block_shape.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>

namespace gpusort::backends::segmented {

// The most keys a narrow block (small_block_shape.cuh) of NarrowShape takes: its tile, but
// never more than Tuning's block (a tuning whose block is no wider takes nothing in it).
template <class NarrowShape, class Tuning, class Key>
constexpr std::size_t narrow_block_most() {
  constexpr std::size_t narrow = NarrowShape::tile_items;
  constexpr std::size_t block = merge::merge_shape<Tuning, Key>::tile_items;
  return narrow < block ? narrow : block;
}

// Where sort keeps what it needs in its one block of temporary memory, for n keys in
// segment_count segments: sized from those two alone (the offsets stay on the device).
template <class Tuning, class Key, class Value>
struct segmented_layout {
  class_limits limits;
  std::size_t room[class_count];
  bool multi_block;
  int passes;
  std::size_t table_entries;
  std::size_t header_at, list_at[class_count], alternate_keys_at, alternate_values_at,
      first_tiles_at, first_merge_blocks_at, splits_at, disagreed_at;
  std::size_t total_bytes;

  segmented_layout(std::size_t n, std::size_t segment_count)
      : limits{narrow_block_most<small_block_shape<Tuning, Key>, Tuning, Key>(),
               narrow_block_most<half_block_shape<Tuning, Key>, Tuning, Key>(),
               std::size_t(merge::merge_shape<Tuning, Key>::tile_items), segment_count == 1} {
    using block_shape = merge::merge_shape<Tuning, Key>;
    constexpr int tile_items = block_shape::tile_items;
    constexpr bool has_values = has_values_v<Value>;
    for (int c = 0; c < class_count; ++c) room[c] = most_segments_of(c, n, segment_count, limits);
    multi_block = room[in_blocks] > 0;
    passes = multi_block ? merge::merge_pass_count(n, tile_items) : 0;
    storage_plan layout;
    header_at = layout.reserve<segment_plan_header>(1);
    for (int c = 0; c < class_count; ++c) list_at[c] = layout.reserve<unsigned>(room[c]);
    alternate_keys_at = layout.reserve<Key>(multi_block ? n : 0);
    alternate_values_at = layout.reserve<Value>(multi_block && has_values ? n : 0);
    table_entries = multi_block ? room[in_blocks] + 1 : 0;
    first_tiles_at = layout.reserve<std::size_t>(table_entries);
    first_merge_blocks_at = layout.reserve<std::size_t>(table_entries * std::size_t(passes));
    const std::size_t most_blocks =
        passes > 0 ? most_merge_blocks(n, tile_items, 0, block_shape::chunk_items) : 0;
    splits_at = layout.reserve<std::size_t>(most_blocks);
    disagreed_at = layout.reserve<unsigned>(multi_block ? 1 : 0);
    total_bytes = layout.total_bytes();
  }
};

// What sort does with a single segment that covers the whole input: nothing special here.
// A caller with a faster sort of the whole input passes a WholeInputSort with enabled = true
// and operator()(gate), which enqueues that sort to run only where *gate (device memory) is
// not 0 when it runs (radix::onesweep_sort's gate): a single segment's bounds are known only
// on the device.
struct no_whole_input_sort {
  static constexpr bool enabled = false;
  void operator()(const unsigned*) const {}
};

// Sorts every segment of the request by its comparator, stably (the group ranks, the tiles
// and the merges all keep equal keys in order). With a comparator that is no strict weak
// ordering each segment ends up a permutation of itself. Tuning: the comparison sort's knobs.
template <class Tuning, class Key, class Value, class Offset, class Compare, bool Stable,
          class WholeInputSort = no_whole_input_sort>
void sort(const segmented_sort_request<Key, Value, Offset, Compare, Stable>& request,
          const WholeInputSort& whole_input_sort = {}) {
  using block_shape = merge::merge_shape<Tuning, Key>;
  using small_shape = small_block_shape<Tuning, Key>;
  using half_shape = half_block_shape<Tuning, Key>;
  constexpr int tile_items = block_shape::tile_items;
  constexpr int chunk_items = block_shape::chunk_items;
  using buffers_t = segment_buffers<Key, Value>;
  constexpr bool has_values = has_values_v<Value>;

  const std::size_t n = request.count;
  const std::size_t segment_count = request.segment_count;
  const cudaStream_t stream = request.stream;
  // Everything is allocated before the input is touched.
  const segmented_layout<Tuning, Key, Value> layout(n, segment_count);
  const class_limits& limits = layout.limits;
  const std::size_t* room = layout.room;
  const bool multi_block = layout.multi_block;
  const int passes = layout.passes;
  const std::size_t table_entries = layout.table_entries;
  temporary_storage storage(request.allocator, layout.total_bytes, stream);

  auto* header = storage.at<segment_plan_header>(layout.header_at);
  class_lists lists{};
  for (int c = 0; c < class_count; ++c) {
    lists.list[c] = storage.at<unsigned>(layout.list_at[c]);
    lists.room[c] = room[c];
  }
  Key* const alternate_keys = multi_block ? storage.at<Key>(layout.alternate_keys_at) : nullptr;
  Value* const alternate_values =
      multi_block && has_values ? storage.at<Value>(layout.alternate_values_at) : nullptr;
  const buffers_t buffers{request.keys, alternate_keys, request.values, alternate_values};
  std::size_t* first_tiles =
      multi_block ? storage.at<std::size_t>(layout.first_tiles_at) : nullptr;
  std::size_t* first_merge_blocks = storage.at<std::size_t>(layout.first_merge_blocks_at);
  auto* splits = storage.at<std::size_t>(layout.splits_at);
  unsigned* disagreed = storage.at<unsigned>(layout.disagreed_at);
  unsigned long long* report = detail::offsets_report_of(detail::current_device()).device;
  const Offset* begins = request.begin_offsets;
  const Offset* ends = request.end_offsets;
  const Compare& comp = request.comp;

  const bool whole_input_to_radix = WholeInputSort::enabled && segment_count == 1;
  if (segment_count <= std::size_t(classify_round)) {
    classify_and_plan_segments<Offset><<<1, classify_threads, 0, stream>>>(
        begins, ends, segment_count, n, limits, lists, header, whole_input_to_radix,
        room[in_blocks], tile_items, passes, chunk_items, first_tiles, first_merge_blocks,
        report);
    detail::check_launch("segmented sort: classify_and_plan_segments");
  } else {
    detail::check_cuda(cudaMemsetAsync(header, 0, sizeof(segment_plan_header), stream),
                       "segmented sort: clearing the plan");
    classify_segments<Offset>
        <<<resident_grid<classify_segments<Offset>, classify_threads>(
               tile_count(segment_count, classify_round)),
           classify_threads, 0, stream>>>(begins, ends, segment_count, n, limits, lists, header,
                                          report);
    detail::check_launch("segmented sort: classify_segments");
    plan_multi_block<Offset><<<1, plan_threads, 0, stream>>>(
        begins, ends, n, header, whole_input_to_radix, lists.list[in_blocks], room[in_blocks],
        tile_items, passes, chunk_items, first_tiles, first_merge_blocks, report);
    detail::check_launch("segmented sort: plan_multi_block");
  }

  // The classes' kernels run at once (kernels.cuh): only the first one launched waits for
  // the plan: the group kernel wherever there are two segments and two keys (its class of
  // 2-4 keys then has room), sort_segment_tiles for a single segment.
  bool first_block_class = true;
  // Segments of at most 64 keys: one launch for the five group classes. Classes of at most 32
  // keys four keys per lane: more of the network's pairs within a lane, where a pair costs one
  // comparison and no shuffle (H100, 2^24 u32 in 1-32 key segments, the 17-32 key class: one
  // key per lane 228 us, two 225, four 183, eight 167, but 8-byte keys spilled, and the 5-8
  // and 9-16 key classes lost 7 and 5 us). 33-64 keys: those that go as 32-bit encodings
  // (key_bits_order) eight per lane on 8 lanes (this class 117 -> 109 us for 0-64 key
  // segments; eight per lane for the smaller classes lost 2-18 us each), others four on 16.
  {
    constexpr int lanes64 = key_bits_order<Key, Value, Compare>::applies ? 8 : 16;
    constexpr auto kernel = sort_segments_in_groups<lanes64, Key, Value, Offset, Compare>;
    const std::size_t resident = resident_grid<kernel, warp_sort_threads>(~std::size_t(0));
    group_class_blocks blocks{};
    for (int r = 0; r < group_class_count; ++r) {
      const int cls = in_group_of_64 - r;
      const std::size_t wanted = tile_count(
          room[cls], warp_sort_threads / 32 * group_batch_segments(group_lanes(cls, lanes64)));
      blocks.first[r + 1] = blocks.first[r] + unsigned(wanted < resident ? wanted : resident);
    }
    if (blocks.first[group_class_count] > 0) {
      launch_dependent(kernel, blocks.first[group_class_count], warp_sort_threads, 0, stream,
                       "segmented sort: sort_segments_in_groups", request.keys, request.values,
                       begins, ends, n, static_cast<const segment_plan_header*>(header), lists,
                       blocks, comp);
      first_block_class = false;
    }
  }
  const auto sort_in_blocks = [&](auto shape, int cls, const char* name) {
    using shape_t = decltype(shape);
    if (room[cls] == 0) return;
    constexpr auto kernel = sort_segments_in_blocks<shape_t, Key, Value, Offset, Compare>;
    const int shared_bytes =
        allowed_dynamic_shared_bytes<kernel, merge::tile_storage_t<shape_t, Key, Value>>(name);
    launch_dependent(kernel, unsigned(resident_grid<kernel, shape_t::tile_threads>(room[cls])),
                     shape_t::tile_threads, std::size_t(shared_bytes), stream, name,
                     request.keys, request.values, begins, ends, n,
                     static_cast<const segment_plan_header*>(header),
                     static_cast<const unsigned*>(lists.list[cls]), cls, first_block_class,
                     comp);
    first_block_class = false;
  };
  sort_in_blocks(small_shape{}, in_small_block, "segmented sort: sort_segments_in_blocks (small)");
  sort_in_blocks(half_shape{}, in_half_block, "segmented sort: sort_segments_in_blocks (half)");
  sort_in_blocks(block_shape{}, in_block, "segmented sort: sort_segments_in_blocks");
  const unsigned* multi_list = lists.list[in_blocks];
  if (multi_block) {
    constexpr auto kernel = sort_segment_tiles<block_shape, Key, Value, Offset, Compare>;
    const int shared_bytes =
        allowed_dynamic_shared_bytes<kernel, merge::tile_storage_t<block_shape, Key, Value>>(
            "segmented sort: allowing the tile its shared memory");
    launch_dependent(kernel,
                     resident_grid<kernel, block_shape::tile_threads>(
                         most_multi_block_tiles(n, tile_items)),
                     block_shape::tile_threads, std::size_t(shared_bytes), stream,
                     "segmented sort: sort_segment_tiles", buffers, begins, ends, n,
                     static_cast<const segment_plan_header*>(header), multi_list,
                     static_cast<const std::size_t*>(first_tiles), disagreed, first_block_class,
                     comp);
  }
  // While the plan (in this call's storage) is still allocated.
  if (whole_input_to_radix) whole_input_sort(&header->whole_input);
  if (!multi_block || passes == 0) return;
  // Cooperative: every block resident at once, for the barriers between the passes' steps.
  constexpr auto pass_kernel = merge_segment_passes<block_shape, Key, Value, Offset, Compare>;
  launch_cooperative(pass_kernel,
                     resident_grid<pass_kernel, block_shape::merge_threads>(
                         most_merge_blocks(n, tile_items, 0, chunk_items)),
                     block_shape::merge_threads, 0, stream,
                     "segmented sort: merge_segment_passes",
                     buffers, begins, ends, n, static_cast<const segment_plan_header*>(header),
                     multi_list, static_cast<const std::size_t*>(first_merge_blocks),
                     table_entries, tile_items, passes, splits, disagreed, comp);
}

}  // namespace gpusort::backends::segmented
