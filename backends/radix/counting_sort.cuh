// Host side of the counting sort of narrow keys (counting_kernels.cuh): keys only, integer,
// character and bool keys of at most 16 bits and 16-bit floats (is_counted_key_v). Equal keys
// are equal bit for bit (floats: but for zeros and NaNs, checked as they are counted), so the
// sorted output is each value, in order, as many times as it occurs: one read of the keys
// counts them, one write of the output fills them in, in place. The result is exactly what a
// stable sort gives. One memset and three launches (two for at most 256 bins), whatever n;
// 16-bit floats three more, which return at once unless a class is mixed.
#pragma once

#include <gpusort/detail/device_facts.cuh>
#include <gpusort/detail/per_device.cuh>
#include <gpusort/detail/policies/comparator_traits.cuh>
#include <gpusort/error.cuh>
#include <gpusort/sort_request.cuh>
#include "../common/kernel_attributes.cuh"
#include "counting_classes.cuh"
#include "counting_kernels.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpusort::backends::radix {

// The chunks that count_class_keys and save_class_keys cut 16-bit floats into (n > 0): two
// per multiprocessor, none smaller than a tile.
inline std::size_t class_chunk_count(std::size_t n, const detail::device_facts& facts) {
  const std::size_t tiles = (n + class_tile_keys - 1) / class_tile_keys;
  const std::size_t most = 2 * std::size_t(facts.multiprocessors);
  return tiles < most ? tiles : most;
}

// How count_values runs on a device: its histogram cut into 2^slice_bits slices so that one
// fits a block's shared memory there (u16 on sm_90: one slice of 128 KB; on GPUs that opt in
// to 99 KB, two; on sm_75, four), and how many of its blocks are resident at once per slice.
struct counting_launch {
  int slice_bits = 0;
  int shared_bytes = 0;
  std::size_t resident_blocks_per_slice = 1;
};

// Asked once per device (the launch grants the kernel its shared memory itself).
template <class Shape, int HistogramSharedBytes>
const counting_launch& counting_launch_on_current_device() {
  static detail::per_device<counting_launch> known;
  return known.get(detail::current_device(), [](int device) {
    constexpr auto kernel = count_values<Shape>;
    const detail::device_facts& facts = detail::facts_of_device(device);
    cudaFuncAttributes attributes{};
    detail::check_cuda(cudaFuncGetAttributes(&attributes, kernel),
                       "counting sort: querying the count kernel's attributes");
    const std::size_t device_limit =
        std::size_t(facts.shared_bytes_per_block_optin) > attributes.sharedSizeBytes
            ? std::size_t(facts.shared_bytes_per_block_optin) - attributes.sharedSizeBytes
            : 0;
    const std::size_t limit = device_limit < std::size_t(HistogramSharedBytes)
                                  ? device_limit
                                  : std::size_t(HistogramSharedBytes);
    counting_launch launch;
    launch.slice_bits = histogram_slice_bits(Shape::histogram_bytes, limit);
    // count_values adds lane-private counts without a slice test (add_one).
    if (Shape::lane_private && launch.slice_bits > 0)
      detail::throw_usage_error("counting sort: a lane-private histogram of " +
                                std::to_string(Shape::histogram_bytes) +
                                " bytes does not fit one block's shared memory (" +
                                std::to_string(limit) + " bytes)");
    if (launch.slice_bits < 0)
      detail::throw_usage_error("counting sort: no slice of the histogram fits " +
                                std::to_string(limit) + " bytes of shared memory");
    launch.shared_bytes = int(Shape::histogram_bytes >> launch.slice_bits);
    // (set here for the occupancy query below, on this file's copy of the kernel; the launch
    // sets it on its own: kernel_attributes.cuh)
    if (launch.shared_bytes > 48 * 1024)
      set_kernel_attribute(reinterpret_cast<const void*>(kernel),
                           cudaFuncAttributeMaxDynamicSharedMemorySize, launch.shared_bytes,
                           "counting sort: granting the count kernel its shared memory");
    int per_multiprocessor = 0;
    detail::check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                           &per_multiprocessor, kernel, Shape::count_threads,
                           std::size_t(launch.shared_bytes)),
                       "counting sort: querying the count kernel's occupancy");
    const std::size_t resident =
        std::size_t(per_multiprocessor > 0 ? per_multiprocessor : 1) * facts.multiprocessors;
    launch.resident_blocks_per_slice =
        (resident >> launch.slice_bits) > 0 ? (resident >> launch.slice_bits) : 1;
    return launch;
  });
}

// Sorts the request's keys by counting, ascending or (for a descending comparator) in
// reverse. Enqueued on the request's stream, no synchronisation. 16-bit floats whose zeros or
// NaNs come in two bit patterns keep those keys' input order (counting_classes.cuh).
template <class Tuning, class Key, class Value, class Compare, bool Stable>
void counting_sort(const sort_request<Key, Value, Compare, Stable>& request) {
  static_assert(is_counted_key_v<Key> && !has_values_v<Value>,
                "the counting sort sorts narrow integer keys and 16-bit floats without values");
  using shape = counting_shape_t<Tuning, Key>;
  using block_count_t = typename shape::block_count_t;
  Key* const keys = request.keys;
  const std::size_t n = request.count;
  const cudaStream_t stream = request.stream;
  if (n < 2) return;
  constexpr bool descending = comparator_order_v<Compare, Key> == key_order::descending;
  const auto flip = order_flip<Key>(descending);

  const counting_launch& launch =
      counting_launch_on_current_device<shape, Tuning::knobs.counting.histogram_shared_bytes>();
  const std::size_t slice_bins = shape::bins >> launch.slice_bits;
  std::size_t count_blocks = count_blocks_per_slice(
      n, std::size_t(Tuning::knobs.counting.count_keys_per_bin) * slice_bins,
      launch.resident_blocks_per_slice);
  // Lane-private 32-bit counters: no block counts 2^32 keys.
  if (shape::lane_private && (n >> 31) >= count_blocks) count_blocks = (n >> 31) + 1;
  const vector_split split =
      split_into_vectors(reinterpret_cast<std::uintptr_t>(keys), n, int(sizeof(Key)));

  // Everything is allocated before the input is touched. The global counts, the classes'
  // patterns (16-bit floats) and the groups' tickets start at zero, next to each other so
  // that one memset clears them.
  storage_plan layout;
  const std::size_t counts_at = layout.reserve<unsigned long long>(shape::bins);
  const std::size_t classes_at = layout.reserve<class_patterns>(shape::has_classes ? 1 : 0);
  const std::size_t done_at = layout.reserve<unsigned int>(1);
  // sum_bins' inputs and outputs (lane-private histograms need none: count_values adds into
  // the global counts, and fill_values scans them).
  const std::size_t summed_bins = shape::lane_private ? 0 : shape::bins;
  const std::size_t block_counts_at = layout.reserve<block_count_t>(count_blocks * summed_bins);
  const std::size_t offsets_at = layout.reserve<unsigned long long>(summed_bins);
  const std::size_t group_starts_at =
      layout.reserve<unsigned long long>(shape::lane_private ? 0 : shape::groups);
  // 16-bit floats: room to keep every key aside (where every key is a zero or a NaN) and the
  // class keys' counts per chunk, used only where a class is mixed.
  const std::size_t class_blocks =
      shape::has_classes ? class_chunk_count(n, detail::current_device_facts()) : 0;
  const std::size_t class_chunk_keys =
      class_blocks > 0 ? (n + class_blocks - 1) / class_blocks : 0;
  const std::size_t class_counts_at =
      layout.reserve<class_key_counts>(shape::has_classes ? class_blocks + 1 : 0);
  const std::size_t saved_at = layout.reserve<Key>(shape::has_classes ? n : 0);
  temporary_storage storage(request.allocator, layout.total_bytes(), stream);

  auto* global_counts = storage.at<unsigned long long>(counts_at);
  auto* groups_done = storage.at<unsigned int>(done_at);
  auto* block_counts = storage.at<block_count_t>(block_counts_at);
  auto* bin_offsets = storage.at<unsigned long long>(offsets_at);
  auto* group_starts = storage.at<unsigned long long>(group_starts_at);
  auto* classes = shape::has_classes ? storage.at<class_patterns>(classes_at) : nullptr;

  detail::check_cuda(cudaMemsetAsync(global_counts, 0, done_at + sizeof(unsigned int) - counts_at,
                                     stream),
                     "counting sort: clearing the counts");
  const dim3 count_grid(unsigned(count_blocks), 1u << launch.slice_bits);
  if (launch.shared_bytes > 48 * 1024)
    set_kernel_attribute(reinterpret_cast<const void*>(count_values<shape>),
                         cudaFuncAttributeMaxDynamicSharedMemorySize, launch.shared_bytes,
                         "counting sort: granting the count kernel its shared memory");
  count_values<shape><<<count_grid, shape::count_threads, launch.shared_bytes, stream>>>(
      keys, split, flip, launch.slice_bits, global_counts, block_counts, classes);
  detail::check_launch("counting sort: count_values");
  auto* chunk_counts = storage.at<class_key_counts>(class_counts_at);  // then the totals
  auto* saved = storage.at<Key>(saved_at);
  if constexpr (shape::has_classes) {
    count_class_keys<Key><<<unsigned(class_blocks), class_threads, 0, stream>>>(
        keys, n, class_chunk_keys, classes, chunk_counts);
    detail::check_launch("counting sort: count_class_keys");
    save_class_keys<Key><<<unsigned(class_blocks), class_threads, 0, stream>>>(
        keys, n, class_chunk_keys, classes, chunk_counts, saved, chunk_counts + class_blocks);
    detail::check_launch("counting sort: save_class_keys");
  }
  if constexpr (!shape::lane_private) {
    sum_bins<shape><<<unsigned(shape::groups), shape::sum_threads, 0, stream>>>(
        block_counts, count_blocks, global_counts, bin_offsets, group_starts, groups_done);
    detail::check_launch("counting sort: sum_bins");
  }
  const std::size_t fill_blocks = tile_count(split.vectors, shape::fill_tile_vectors);
  fill_values<shape><<<unsigned(fill_blocks > 0 ? fill_blocks : 1), shape::fill_threads, 0,
                       stream>>>(keys, n, split, flip, global_counts, bin_offsets, group_starts,
                                 classes);
  detail::check_launch("counting sort: fill_values");
  if constexpr (shape::has_classes) {
    restore_class_keys<shape><<<unsigned(class_blocks), class_threads, 0, stream>>>(
        keys, flip, classes, saved, chunk_counts + class_blocks, bin_offsets, group_starts);
    detail::check_launch("counting sort: restore_class_keys");
  }
}

}  // namespace gpusort::backends::radix
