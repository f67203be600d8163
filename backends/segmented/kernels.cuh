// Kernels of the segmented sort, in the order they run (dispatch.cuh launches them):
//   classify_segments   four segments per thread: checks their offsets and appends each to
//                       the list of its class (classes.cuh), one atomic per block and class
//   plan_multi_block    one block: checks that the segments fit in the keys, leaves a single
//                       segment that is the whole input to the radix sort where the caller
//                       has one, then, for the segments that need several blocks, numbers
//                       their tiles and each pass's merge blocks (prefix sums: a virtual
//                       block finds its segment by binary search)
//   (classify_and_plan_segments: both in one block, which also clears the plan's header,
//   where one block classifies every segment anyway: at most 1024 segments)
//   sort_segments_in_groups   a group of 1 to 16 lanes per segment of at most 64 keys, four
//                             or eight keys per lane, sorted in registers by a bitonic
//                             network (group_sort.cuh): one launch, a range of blocks per
//                             class
//   sort_segments_in_blocks   a block per segment of at most one tile: the comparison sort's
//                             tile sort (merge/tile_sort.cuh), in place (4-byte floats over
//                             their encodings where the segment allows:
//                             merge/tile_key_codecs.cuh)
//   sort_segment_tiles, then merge_segment_passes (one cooperative launch for every pass):
//   the comparison sort's tiles and merge passes (merge/kernels.cuh), over virtual blocks
//   that each belong to one segment.
// The group kernel, the block kernels and sort_segment_tiles run at once (their segments are
// disjoint): see sort_segments_in_blocks.
// Every sorting kernel first checks the plan: bad offsets (or segments whose sizes add up to
// more than the keys, which overlap) leave keys and values as they were.
#pragma once

#include <gpusort/detail/offsets_report.cuh>
#include "../common/block_shared.cuh"
#include "../common/dependent_launch.cuh"
#include "../merge/kernels.cuh"
#include "classes.cuh"
#include "group_sort.cuh"

#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <type_traits>

namespace gpusort::backends::segmented {

// A counter that every block of a kernel adds to, alone on a 128-byte line: L2 takes the
// atomics on one line one at a time, so counters that share a line queue behind each other
// (H100, 2^24 u32 in 786 K segments of 0-64 keys: classify_segments 30 -> 26 us apart).
template <class T>
struct alignas(128) own_line {
  T value;
};

// The segmented sort's state on the device, cleared by one memset per call.
struct segment_plan_header {
  own_line<unsigned long long> total_size;  // the segments' sizes, added up
  own_line<unsigned> count[class_count];    // each class list's length
  unsigned bad;                             // some segment's offsets are bad
  unsigned whole_input;  // the one segment is the whole input: the radix sort takes it
};

// The class lists: segment indices (unsigned: at most 2^32 - 1 segments per call).
struct class_lists {
  unsigned* list[class_count];
  std::size_t room[class_count];
};

// A segment's keys: [begin, begin + size), or bad.
struct segment_span {
  std::size_t begin;
  std::size_t size;
  bool bad;
};

template <class Offset>
__device__ __forceinline__ segment_span span_of(const Offset* begins, const Offset* ends,
                                                std::size_t segment, std::size_t n) {
  const Offset begin = begins[segment];
  const Offset end = ends[segment];
  bool bad = false;
  if constexpr (std::is_signed_v<Offset>) bad = begin < 0 || end < 0;
  const auto first = static_cast<unsigned long long>(begin);
  const auto last = static_cast<unsigned long long>(end);
  bad = bad || last < first || last > n;
  return {std::size_t(first), bad ? 0 : std::size_t(last - first), bad};
}

// Whether the plan forbids sorting here: bad offsets, segments that overlap, or a whole input
// that the radix sort takes.
__device__ __forceinline__ bool plan_refused(const segment_plan_header& header, std::size_t n) {
  return header.bad != 0 || header.total_size.value > n || header.whole_input != 0;
}

__device__ __forceinline__ void report_bad_segment(unsigned long long* report,
                                                   unsigned long long segment) {
  *reinterpret_cast<volatile unsigned long long*>(report) = segment;
}

inline constexpr int classify_threads = 256;
inline constexpr int classify_items = 4;  // segments per thread and round
inline constexpr int classify_round = classify_threads * classify_items;

// Block `block` of `blocks` of the classify (classify_threads each), looping over the
// segments, classify_round at a time. Appends are counted per warp (the lanes of one class
// found by one match), then per block: one global atomic per block and class each round (per
// warp, the lists' counters, all in one L2 sector, were a queue: 150 us for 10^6 segments).
// A ballot per class instead of the match, one segment per thread: 26 us rather than 18 for
// 786 K segments.
template <class Offset>
__device__ __forceinline__ void classify_in_block(const Offset* begins, const Offset* ends,
                                                  std::size_t segment_count, std::size_t n,
                                                  const class_limits& limits,
                                                  const class_lists& lists,
                                                  segment_plan_header* header,
                                                  unsigned long long* report, unsigned block,
                                                  unsigned blocks) {
  __shared__ unsigned block_count[class_count];
  __shared__ unsigned block_at[class_count];
  const unsigned lane = threadIdx.x % 32;
  const unsigned lanes_before = (1u << lane) - 1;
  const std::size_t stride = std::size_t(blocks) * classify_round;
  unsigned long long total_size = 0;  // this thread's segments' sizes
  // The same trip count for the whole block: every lane takes part in the matches.
  for (std::size_t first = std::size_t(block) * classify_round; first < segment_count;
       first += stride) {
    if (threadIdx.x < class_count) block_count[threadIdx.x] = 0;
    // Item i of this thread: segment first + i * classify_threads + threadIdx.x (coalesced).
    const auto segment_of = [&](int i) {
      return first + std::size_t(i) * classify_threads + threadIdx.x;
    };
    int cls[classify_items];
#pragma unroll
    for (int i = 0; i < classify_items; ++i) {
      const std::size_t segment = segment_of(i);
      const bool active = segment < segment_count;
      const segment_span span =
          active ? span_of(begins, ends, segment, n) : segment_span{0, 0, false};
      if (span.bad) {
        header->bad = 1;
        report_bad_segment(report, segment);
      }
      cls[i] = active && !span.bad ? class_of(span.size, limits) : no_class;
      total_size += span.size;
    }
    __syncthreads();  // block_count cleared
    // Each segment's place among the block's segments of its class.
    unsigned at[classify_items];
#pragma unroll
    for (int i = 0; i < classify_items; ++i) {
      const unsigned peers = __match_any_sync(~0u, cls[i]);
      const int leader = __ffs(peers) - 1;
      unsigned warp_at = 0;
      if (int(lane) == leader && cls[i] != no_class)
        warp_at = atomicAdd(&block_count[cls[i]], unsigned(__popc(peers)));
      at[i] = __shfl_sync(~0u, warp_at, leader) + unsigned(__popc(peers & lanes_before));
    }
    __syncthreads();
    if (threadIdx.x < class_count && block_count[threadIdx.x] > 0)
      block_at[threadIdx.x] =
          atomicAdd(&header->count[threadIdx.x].value, block_count[threadIdx.x]);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < classify_items; ++i) {
      if (cls[i] == no_class) continue;
      const unsigned place = at[i] + block_at[cls[i]];
      // Past the room only where segments overlap (sizes add up to more than n): the plan
      // then refuses, and nothing reads the list.
      if (place < lists.room[cls[i]]) lists.list[cls[i]][place] = unsigned(segment_of(i));
    }
    __syncthreads();  // block_at read before the next round writes it
  }
  // One atomic per block for the sizes.
  __shared__ unsigned long long block_total_size;
  if (threadIdx.x == 0) block_total_size = 0;
  __syncthreads();
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    total_size += __shfl_down_sync(~0u, total_size, offset);
  if (lane == 0 && total_size > 0) atomicAdd(&block_total_size, total_size);
  __syncthreads();
  if (threadIdx.x == 0 && block_total_size > 0)
    atomicAdd(&header->total_size.value, block_total_size);
}

// Grid: any number of blocks of classify_threads.
template <class Offset>
__global__ void __launch_bounds__(classify_threads)
    classify_segments(const Offset* begins, const Offset* ends, std::size_t segment_count,
                      std::size_t n, class_limits limits, class_lists lists,
                      segment_plan_header* header, unsigned long long* report) {
  classify_in_block(begins, ends, segment_count, n, limits, lists, header, report, blockIdx.x,
                    gridDim.x);
}

inline constexpr int plan_threads = 512;

// One block of Threads, after the classify: refuses segments that overlap; where
// whole_input_to_radix and the one segment is the whole input, leaves it to the radix sort;
// numbers the tiles of the multi-block segments (first_tiles, room + 1 entries) and each
// pass's merge blocks (first_merge_blocks + pass * (room + 1)); entry [count] of each is the
// total.
template <int Threads, class Offset>
__device__ __forceinline__ void plan_in_block(const Offset* begins, const Offset* ends,
                                              std::size_t n, segment_plan_header* header,
                                              bool whole_input_to_radix,
                                              const unsigned* multi_block_list,
                                              std::size_t room, int tile_items, int passes,
                                              int chunk, std::size_t* first_tiles,
                                              std::size_t* first_merge_blocks,
                                              unsigned long long* report) {
  using scan_t = cub::BlockScan<std::size_t, Threads>;
  __shared__ typename scan_t::TempStorage scan_storage;
  if (header->bad != 0) return;
  if (header->total_size.value > n) {
    if (threadIdx.x == 0) report_bad_segment(report, detail::overlapping_segments);
    return;
  }
  if (whole_input_to_radix) {
    const segment_span span = span_of(begins, ends, 0, n);
    if (span.begin == 0 && span.size == n) {
      if (threadIdx.x == 0) header->whole_input = 1;
      return;
    }
  }
  if (first_tiles == nullptr) return;  // no segment can need several blocks
  const std::size_t segments = header->count[in_blocks].value;
  // Table -1: tiles; table p >= 0: pass p's merge blocks.
  for (int table = -1; table < passes; ++table) {
    std::size_t* first = table < 0 ? first_tiles : first_merge_blocks + table * (room + 1);
    std::size_t running = 0;
    for (std::size_t chunk_begin = 0; chunk_begin < segments; chunk_begin += Threads) {
      const std::size_t j = chunk_begin + threadIdx.x;
      std::size_t blocks = 0;
      if (j < segments) {
        const std::size_t size = span_of(begins, ends, multi_block_list[j], n).size;
        blocks = table < 0 ? tile_count(size, tile_items)
                           : merge_blocks_of_segment(size, tile_items, table, chunk);
      }
      std::size_t before = 0;
      std::size_t chunk_total = 0;
      scan_t(scan_storage).ExclusiveSum(blocks, before, chunk_total);
      if (j < segments) first[j] = running + before;
      running += chunk_total;
      __syncthreads();  // scan_storage is reused
    }
    if (threadIdx.x == 0) first[segments] = running;
  }
}

// Grid: one block of plan_threads.
template <class Offset>
__global__ void __launch_bounds__(plan_threads)
    plan_multi_block(const Offset* begins, const Offset* ends, std::size_t n,
                     segment_plan_header* header, bool whole_input_to_radix,
                     const unsigned* multi_block_list, std::size_t room, int tile_items,
                     int passes, int chunk, std::size_t* first_tiles,
                     std::size_t* first_merge_blocks, unsigned long long* report) {
  plan_in_block<plan_threads>(begins, ends, n, header, whole_input_to_radix, multi_block_list,
                              room, tile_items, passes, chunk, first_tiles, first_merge_blocks,
                              report);
}

// Grid: one block of classify_threads, for segments that one round of classify_segments
// takes (a grid of one block there): the header's clearing, the classify and the plan in one
// launch instead of a memset and two kernels. At 2^20 keys the call is bound by the host,
// whose enqueue of each costs about as much as the kernel runs (H200: ~4 us).
template <class Offset>
__global__ void __launch_bounds__(classify_threads)
    classify_and_plan_segments(const Offset* begins, const Offset* ends,
                               std::size_t segment_count, std::size_t n, class_limits limits,
                               class_lists lists, segment_plan_header* header,
                               bool whole_input_to_radix, std::size_t room, int tile_items,
                               int passes, int chunk, std::size_t* first_tiles,
                               std::size_t* first_merge_blocks, unsigned long long* report) {
  static_assert(sizeof(segment_plan_header) % sizeof(unsigned) == 0);
  auto* words = reinterpret_cast<unsigned*>(header);
  for (unsigned i = threadIdx.x; i < sizeof(segment_plan_header) / sizeof(unsigned);
       i += classify_threads)
    words[i] = 0;
  __syncthreads();  // cleared before any thread's atomics
  let_next_kernel_start();  // the first class kernel may be placed; it waits for this one
  classify_in_block(begins, ends, segment_count, n, limits, lists, header, report, 0, 1);
  __syncthreads();  // the counts and sizes complete
  plan_in_block<classify_threads>(begins, ends, n, header, whole_input_to_radix,
                                  lists.list[in_blocks], room, tile_items, passes, chunk,
                                  first_tiles, first_merge_blocks, report);
}

inline constexpr int warp_sort_threads = 256;

// The segments a warp of groups of `lanes` lanes takes per batch: four per group, at most one
// per lane (with 32 for every class, a warp's batches were so few and long that warps idled
// at the end: H100, 2^24 u32, segments of 0-64 keys 0.47 -> 0.41 ms; of 1-32 keys unchanged).
__host__ __device__ constexpr int group_batch_segments(int lanes) {
  return 32 / lanes * 4 < 32 ? 32 / lanes * 4 : 32;
}

// One segment of `size` keys (at most Lanes x Slots) sorted by the group of lanes whose
// member this lane is, in `order` (group_sort.cuh), Slots consecutive keys per lane.
template <int Lanes, int Slots, class Order, class Key, class Value>
__device__ __forceinline__ void sort_in_group(const Order& order, Key* segment,
                                              Value* segment_values, int size, int member) {
  typename Order::element e[Slots];
#pragma unroll
  for (int s = 0; s < Slots; ++s) e[s] = order.make(segment, member * Slots + s);
  group_sorter<Lanes, Slots, Order>{order}.sort(e, member);
  // Element i now holds the key that belongs at position i (padding last): the key itself,
  // or its position, from which its key and value are read, all before any is written.
  Key moved_keys[Slots];
  Value moved_values[Slots];
#pragma unroll
  for (int s = 0; s < Slots; ++s) {
    if (member * Slots + s < size) {
      if constexpr (Order::carries_keys) {
        moved_keys[s] = order.key_of(e[s]);
      } else {
        const int from = order.position_of(e[s]);
        moved_keys[s] = segment[from];
        if constexpr (has_values_v<Value>) moved_values[s] = segment_values[from];
      }
    }
  }
  __syncwarp();
#pragma unroll
  for (int s = 0; s < Slots; ++s) {
    if (member * Slots + s < size) {
      segment[member * Slots + s] = moved_keys[s];
      if constexpr (has_values_v<Value>) segment_values[member * Slots + s] = moved_values[s];
    }
  }
  __syncwarp();  // written before the next segment's reads (segments may share lines)
}

// One class of segments of at most Lanes x Slots keys, on `blocks` blocks of
// warp_sort_threads of which this is `block`: groups of Lanes lanes, each sorting one segment
// in registers (sort_in_group). Each warp takes the class's segments in batches of 4 per
// group: one load per lane finds the batch's offsets, a round trip per batch and not per
// segment. (Loading the next segment's keys while sorting the current one gained nothing: 409
// us either way for the 17-32 key class, H100, 2^24 u32 in 1-32 key segments.) Keys alone in
// the radix order go as their own 32-bit encodings (key_bits_order) unless some segment of
// the warp's round holds keys that need their positions.
template <int Lanes, int Slots, class Key, class Value, class Offset, class Compare>
__device__ __forceinline__ void sort_class_in_groups(Key* keys, Value* values,
                                                     const Offset* begins, const Offset* ends,
                                                     std::size_t n, std::size_t count,
                                                     const unsigned* list, unsigned block,
                                                     unsigned blocks, const Compare& comp) {
  constexpr int warps = warp_sort_threads / 32;
  constexpr int groups = 32 / Lanes;
  constexpr int batch_segments = group_batch_segments(Lanes);
  using order_t = group_order_t<Key, Compare>;
  using bits_order_t = key_bits_order<Key, Value, Compare>;
  const int warp = int(threadIdx.x) / 32;
  const int lane = int(threadIdx.x) % 32;
  const int group = lane / Lanes;
  const int member = lane % Lanes;
  for (std::size_t batch = (std::size_t(block) * warps + warp) * batch_segments; batch < count;
       batch += std::size_t(blocks) * warps * batch_segments) {
    const int batch_size = count - batch < batch_segments ? int(count - batch) : batch_segments;
    const segment_span lane_span =
        lane < batch_size ? span_of(begins, ends, list[batch + lane], n) : segment_span{};
    // The group's segments of the batch, one after another.
    for (int first = 0; first < batch_size; first += groups) {
      const int mine = first + group;  // this group's segment in the batch (< 32)
      const std::size_t begin = __shfl_sync(~0u, lane_span.begin, mine);
      const int shuffled_size = __shfl_sync(~0u, int(lane_span.size), mine);
      const int size = mine < batch_size ? shuffled_size : 0;
      Key* segment = keys + begin;
      Value* segment_values = has_values_v<Value> ? values + begin : values;
      if constexpr (bits_order_t::applies) {
        const bits_order_t bits_order{size};
        bool needs_positions = false;
        if constexpr (bits_order_t::may_need_positions) {
#pragma unroll
          for (int s = 0; s < Slots; ++s)
            needs_positions |= bits_order.needs_position(segment, member * Slots + s);
          // The whole warp one way: the networks shuffle across the warp's groups.
          needs_positions = __any_sync(~0u, needs_positions);
        }
        if (!needs_positions) {
          sort_in_group<Lanes, Slots>(bits_order, segment, segment_values, size, member);
          continue;
        }
      }
      if constexpr (std::is_same_v<order_t, positioned_order<Key, Compare>>)
        sort_in_group<Lanes, Slots>(order_t{comp, size}, segment, segment_values, size, member);
      else
        sort_in_group<Lanes, Slots>(order_t{size}, segment, segment_values, size, member);
    }
  }
}

// The lanes per segment of group class `cls`: four keys per lane, but lanes64 for 33-64 keys.
__host__ __device__ constexpr int group_lanes(int cls, int lanes64) {
  return cls == in_group_of_64 ? lanes64 : group_most_keys(cls) / 4;
}

// Which blocks of sort_segments_in_groups take which group class: range r, the blocks
// [first[r], first[r + 1]), takes class in_group_of_64 - r (the largest first).
inline constexpr int group_class_count = in_group_of_64 - in_group_of_4 + 1;
struct group_class_blocks {
  unsigned first[group_class_count + 1];
};

// Grid: group_class_blocks' last entry, blocks of warp_sort_threads: every class of segments
// of at most 64 keys in one launch, each on its own range of blocks, the 33-64 key class (the
// longest) on the first, each segment on group_lanes lanes (Lanes64 for 33-64 keys), its
// keys spread evenly over them. (One launch rather than one per class: with 2^20 keys the
// call was bound by the host's launches, 61 us of host time for a 60 us call on the H100.)
// Launched to overlap the plan's end, and the first of the classes' kernels that run at once
// (sort_segments_in_blocks): it lets the block classes start as soon as it has waited.
template <int Lanes64, class Key, class Value, class Offset, class Compare>
__global__ void __launch_bounds__(warp_sort_threads)
    sort_segments_in_groups(Key* keys, Value* values, const Offset* begins, const Offset* ends,
                            std::size_t n, const segment_plan_header* header, class_lists lists,
                            group_class_blocks blocks, Compare comp) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (plan_refused(*header, n)) return;
  const unsigned block = blockIdx.x;
  const auto sort_class = [&](auto cls_constant) {
    constexpr int cls = decltype(cls_constant)::value;
    constexpr int lanes = group_lanes(cls, Lanes64);
    constexpr int r = in_group_of_64 - cls;
    sort_class_in_groups<lanes, group_most_keys(cls) / lanes>(
        keys, values, begins, ends, n, header->count[cls].value, lists.list[cls],
        block - blocks.first[r], blocks.first[r + 1] - blocks.first[r], comp);
  };
  if (block < blocks.first[1])
    sort_class(std::integral_constant<int, in_group_of_64>{});
  else if (block < blocks.first[2])
    sort_class(std::integral_constant<int, in_group_of_32>{});
  else if (block < blocks.first[3])
    sort_class(std::integral_constant<int, in_group_of_16>{});
  else if (block < blocks.first[4])
    sort_class(std::integral_constant<int, in_group_of_8>{});
  else
    sort_class(std::integral_constant<int, in_group_of_4>{});
}

// Grid: any number of blocks of Shape::tile_threads, looping over class `cls`'s segments;
// each is sorted in place as one tile of Shape. The block classes' kernels are launched one
// after the other to overlap (launch_dependent), and run at once: their segments are
// disjoint, and each alone is too few blocks to fill the GPU at mid sizes. The first one
// launched (`first_class`; sort_segments_in_groups where it is launched) waits for the
// kernel before it, which covers the plan; it and every later one let the next class's
// blocks be placed once they have waited or loaded their first segment (sort_tile), so a
// later class reads the plan only after the first class's wait. A later class waits for its
// predecessor at its end instead, so that each class kernel ends after the one before it,
// and whatever waits for the last one (the next launch) waits for all.
template <class Shape, class Key, class Value, class Offset, class Compare>
__global__ void __launch_bounds__(Shape::tile_threads, Shape::tile_blocks_per_multiprocessor)
    sort_segments_in_blocks(Key* keys, Value* values, const Offset* begins, const Offset* ends,
                            std::size_t n, const segment_plan_header* header,
                            const unsigned* list, int cls, bool first_class, Compare comp) {
  auto& shared = block_shared<merge::tile_storage_t<Shape, Key, Value>>();
  begin_running_at_once(first_class);
  const std::size_t count = plan_refused(*header, n) ? 0 : header->count[cls].value;
  for (std::size_t i = blockIdx.x; i < count; i += gridDim.x) {
    const segment_span span = span_of(begins, ends, list[i], n);
    const std::size_t value_offset = has_values_v<Value> ? span.begin : 0;
    const tile_bounds tile{0, int(span.size)};
    Key* const segment_keys = keys + span.begin;
    Value* const segment_values = values + value_offset;
    // 4-byte floats as their encodings where the segment allows (tile_key_codecs.cuh).
    bool sorted = false;
    if constexpr (merge::floats_as_encodings_apply<Key, Compare>)
      sorted = merge::sort_tile_coded<Shape>(
          shared, tile, segment_keys, segment_keys, segment_values, segment_values,
          merge::floats_as_encodings<Key, radix_order_of<Compare>::descending>{});
    if (!sorted)
      merge::sort_tile<Shape>(shared, tile, segment_keys, segment_keys, segment_values,
                              segment_values, comp);
    __syncthreads();  // shared memory is reused
  }
  end_running_at_once(first_class);
}

// The buffers a multi-block segment ping-pongs between.
template <class Key, class Value>
struct segment_buffers {
  Key* keys;
  Key* alternate_keys;
  Value* values;
  Value* alternate_values;

  __device__ __forceinline__ Key* keys_of(bool alternate) const {
    return alternate ? alternate_keys : keys;
  }
  __device__ __forceinline__ Value* values_of(bool alternate) const {
    return alternate ? alternate_values : values;
  }
};

// A virtual block's segment: its keys and the passes it needs.
struct owned_segment {
  std::size_t index;  // into the class list
  segment_span span;
  int passes;
};

template <class Offset>
__device__ __forceinline__ owned_segment segment_of_block(
    const Offset* begins, const Offset* ends, std::size_t n, const unsigned* list,
    std::size_t segments, const std::size_t* first_blocks, std::size_t block, int tile_items) {
  const std::size_t j = owner_of(first_blocks, segments, block);
  const segment_span span = span_of(begins, ends, list[j], n);
  return {j, span, merge::merge_pass_count(span.size, std::size_t(tile_items))};
}

// Grid: any number of blocks of Shape::tile_threads, looping over the multi-block segments'
// tiles. Each tile goes to the buffer its segment's passes start from. Clears the passes'
// disagreement flag. The last of the classes' kernels that run at once
// (sort_segments_in_blocks: its segments are disjoint from theirs), and as they do, it waits
// for the kernel before it at its top where it is the first one launched, else at its end.
template <class Shape, class Key, class Value, class Offset, class Compare>
__global__ void __launch_bounds__(Shape::tile_threads, Shape::tile_blocks_per_multiprocessor)
    sort_segment_tiles(segment_buffers<Key, Value> buffers, const Offset* begins,
                       const Offset* ends, std::size_t n, const segment_plan_header* header,
                       const unsigned* list, const std::size_t* first_tiles,
                       unsigned* splits_disagreed, bool first_class, Compare comp) {
  auto& shared = block_shared<merge::tile_storage_t<Shape, Key, Value>>();
  begin_running_at_once(first_class);
  const bool refused = plan_refused(*header, n);
  if (!refused && blockIdx.x == 0 && threadIdx.x == 0) *splits_disagreed = 0;
  const std::size_t segments = refused ? 0 : header->count[in_blocks].value;
  const std::size_t tiles = refused ? 0 : first_tiles[segments];
  for (std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const owned_segment owned = segment_of_block(begins, ends, n, list, segments, first_tiles,
                                                 tile, Shape::tile_items);
    const bool to_alternate = tiles_go_to_alternate(owned.passes);
    const std::size_t begin = owned.span.begin;
    const std::size_t value_offset = has_values_v<Value> ? begin : 0;
    merge::sort_tile<Shape>(
        shared, tile_of(tile - first_tiles[owned.index], Shape::tile_items, owned.span.size),
        buffers.keys + begin, buffers.keys_of(to_alternate) + begin,
        buffers.values + value_offset, buffers.values_of(to_alternate) + value_offset, comp);
    __syncthreads();  // shared memory is reused
  }
  end_running_at_once(first_class);
}

// Merge block `block` of a pass over runs of `run_width` keys (block < first_blocks[segments]):
// its segment and its range of the segment's pair of runs.
struct segment_merge_block {
  owned_segment owned;
  merge::merge_block_range range;
};

template <class Shape, class Offset>
__device__ __forceinline__ segment_merge_block merge_block_in_segment(
    const Offset* begins, const Offset* ends, std::size_t n, const unsigned* list,
    std::size_t segments, const std::size_t* first_blocks, std::size_t block, int tile_items,
    std::size_t run_width) {
  const owned_segment owned =
      segment_of_block(begins, ends, n, list, segments, first_blocks, block, tile_items);
  return {owned, merge::merge_block_of(block - first_blocks[owned.index], run_width,
                                       Shape::chunk_items, owned.span.size)};
}

// Grid: a cooperative launch of blocks of Shape::merge_threads, at most as many as are resident
// at once. Every merge pass of the multi-block segments, each in steps with a grid-wide
// barrier after each (one launch instead of two per pass: the host launches as many passes
// as n could need, and each launch that found nothing to do still cost 2-3 us):
//   1. each thread takes merge blocks in turn and finds where each starts on its pair's merge
//      path (as merge::find_splits); then whether it agrees with where the next one starts
//      (a comparator that is no strict weak ordering can make them disagree: then every
//      merge block copies its range through unmerged and the output stays a permutation);
//   2. each block takes merge blocks in turn and merges them (merge::merge_block).
// The passes end where a pass has no merge block: the same for every block, so all of them
// leave together.
template <class Shape, class Key, class Value, class Offset, class Compare>
__global__ void __launch_bounds__(Shape::merge_threads)
    merge_segment_passes(segment_buffers<Key, Value> buffers, const Offset* begins,
                         const Offset* ends, std::size_t n, const segment_plan_header* header,
                         const unsigned* list, const std::size_t* first_merge_blocks,
                         std::size_t table_entries, int tile_items, int passes,
                         std::size_t* splits, unsigned* disagreed, Compare comp) {
  using storage_t = typename merge::merge_block<Shape, Key, Value, Compare, true>::storage_t;
  __shared__ storage_t shared;
  if (plan_refused(*header, n)) return;
  const std::size_t segments = header->count[in_blocks].value;
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  for (int pass = 0; pass < passes; ++pass) {
    const std::size_t* first_blocks = first_merge_blocks + std::size_t(pass) * table_entries;
    const std::size_t blocks = first_blocks[segments];
    if (blocks == 0) return;  // and no later pass has any either
    for (std::size_t block = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; block < blocks;
         block += threads) {
      const segment_merge_block at =
          merge_block_in_segment<Shape>(begins, ends, n, list, segments, first_blocks, block,
                                        tile_items, std::size_t(tile_items) << pass);
      const merge::merge_block_range& range = at.range;
      const Key* a = buffers.keys_of(pass_reads_alternate(at.owned.passes, pass)) +
                     at.owned.span.begin + range.begin;
      splits[block] = merge::merge_path_split(a, range.a_count, a + range.a_count,
                                              range.b_count, range.diagonal_begin, comp);
    }
    grid.sync();
    // Neighbouring splits of one pair must agree (checked apart from the searches: a thread
    // that searched its block's next split too made the passes 10 % slower), unless the
    // comparator cannot make them disagree (merge::splits_always_agree): then the check and
    // its barrier are left out.
    if constexpr (!merge::splits_always_agree<Key, Compare>) {
      for (std::size_t block = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
           block + 1 < blocks; block += threads) {
        const owned_segment owned =
            segment_of_block(begins, ends, n, list, segments, first_blocks, block, tile_items);
        if (block + 1 >= first_blocks[owned.index + 1]) continue;  // the segment's last block
        const std::size_t run_width = std::size_t(tile_items) << pass;
        const std::size_t local = block - first_blocks[owned.index];
        const merge::merge_block_range range =
            merge::merge_block_of(local, run_width, Shape::chunk_items, owned.span.size);
        const merge::merge_block_range next =
            merge::merge_block_of(local + 1, run_width, Shape::chunk_items, owned.span.size);
        if (next.begin == range.begin &&
            !merge::splits_agree(range.diagonal_begin, splits[block], next.diagonal_begin,
                                 splits[block + 1]))
          *disagreed = 1;
      }
      grid.sync();
    }
    const std::size_t run_width = std::size_t(tile_items) << pass;
    for (std::size_t block = blockIdx.x; block < blocks; block += gridDim.x) {
      const segment_merge_block at = merge_block_in_segment<Shape>(
          begins, ends, n, list, segments, first_blocks, block, tile_items, run_width);
      const merge::merge_pieces pieces = merge::find_pieces(at.range, block, splits, disagreed);
      const bool from_alternate = pass_reads_alternate(at.owned.passes, pass);
      const std::size_t begin = at.owned.span.begin;
      const std::size_t value_offset = has_values_v<Value> ? begin : 0;
      const Key* in_keys = buffers.keys_of(from_alternate) + begin;
      Key* out_keys = buffers.keys_of(!from_alternate) + begin;
      const Value* in_values = buffers.values_of(from_alternate) + value_offset;
      Value* out_values = buffers.values_of(!from_alternate) + value_offset;
      if (pieces.count == Shape::chunk_items)
        merge::merge_block<Shape, Key, Value, Compare, true>{shared, pieces, comp}.run(
            in_keys, out_keys, in_values, out_values);
      else
        merge::merge_block<Shape, Key, Value, Compare, false>{shared, pieces, comp}.run(
            in_keys, out_keys, in_values, out_values);
      __syncthreads();  // shared memory is reused
    }
    grid.sync();  // this pass's output is the next one's input
  }
}

}  // namespace gpusort::backends::segmented
