// Host side of the Satish radix backend: sizes, the one temporary allocation, and the
// kernel launches of each pass in the order of the paper.
#pragma once

#include "../../gpusort/allocator.cuh"
#include "../../gpusort/error.cuh"
#include "../common/resident_grid.cuh"
#include "kernels.cuh"

#include <cub/device/device_scan.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpusort::backends::radix {

// Sorts keys[0, n) (and values alongside, unless Value is no_values_tag) by the key's radix
// order, reversed when `descending`. Stable. Enqueued on `stream`, no synchronisation.
template <class Tuning, class Key, class Value = no_values_tag>
void sort(Key* keys, Value* values, std::size_t n, bool descending, cudaStream_t stream,
          allocator_ref allocator) {
  using shape = radix_shape<Tuning, Key, Value>;
  using bits_type = typename shape::bits_type;
  constexpr bool has_values = !std::is_same_v<Value, no_values_tag>;
  if (n < 2) return;

  const std::size_t tiles = tile_count(n, shape::tile_items);
  const std::size_t table_entries = tiles * shape::digits;
  std::size_t scan_bytes = 0;
  detail::check_cuda(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes,
                                                   static_cast<std::size_t*>(nullptr),
                                                   table_entries, stream),
                     "radix sort: sizing the digit-table scan");

  // Everything is allocated before the input is touched.
  storage_plan layout;
  const std::size_t alternate_keys_at = layout.reserve<Key>(n);
  const std::size_t alternate_values_at = layout.reserve<Value>(has_values ? n : 0);
  const std::size_t histograms_at = layout.reserve<unsigned long long>(shape::passes * shape::digits);
  const std::size_t plan_at = layout.reserve<pass_plan>(1);
  const std::size_t table_at = layout.reserve<std::size_t>(table_entries);
  const std::size_t scan_at = layout.reserve_bytes(scan_bytes);
  temporary_storage storage(allocator, layout.total_bytes(), stream);

  Key* alternate_keys = storage.at<Key>(alternate_keys_at);
  Value* alternate_values = has_values ? storage.at<Value>(alternate_values_at) : nullptr;
  auto* histograms = storage.at<unsigned long long>(histograms_at);
  auto* plan = storage.at<pass_plan>(plan_at);
  auto* digit_table = storage.at<std::size_t>(table_at);
  void* scan_scratch = storage.at<void>(scan_at);

  const bits_type flip = descending ? descending_mask<bits_type>(shape::traits::bits) : bits_type(0);
  const int streaming_blocks = multiprocessor_count() * Tuning::histogram_blocks_per_sm;

  detail::check_cuda(cudaMemsetAsync(histograms, 0,
                                     sizeof(unsigned long long) * shape::passes * shape::digits,
                                     stream),
                     "radix sort: clearing the digit histograms");
  count_all_digits<Tuning, Key><<<streaming_blocks, shape::block_threads, 0, stream>>>(
      keys, n, flip, histograms);
  detail::check_launch("radix sort: count_all_digits");
  plan_passes_kernel<Tuning, Key><<<1, shape::digits < 1024 ? shape::digits : 1024, 0, stream>>>(
      histograms, n, plan);
  detail::check_launch("radix sort: plan_passes");

  const auto grid = static_cast<unsigned int>(tiles);
  for (int pass = 0; pass < shape::passes; ++pass) {
    tile_histogram<Tuning, Key, Value><<<grid, shape::block_threads, 0, stream>>>(
        keys, alternate_keys, n, flip, pass, plan, digit_table);
    detail::check_launch("radix sort: tile_histogram");
    detail::check_cuda(cub::DeviceScan::ExclusiveSum(scan_scratch, scan_bytes, digit_table,
                                                     table_entries, stream),
                       "radix sort: scanning the digit table");
    scatter<Tuning, Key, Value><<<grid, shape::block_threads, 0, stream>>>(
        keys, alternate_keys, values, alternate_values, n, flip, pass, plan, digit_table);
    detail::check_launch("radix sort: scatter");
  }
  copy_back<<<streaming_blocks, shape::block_threads, 0, stream>>>(
      keys, alternate_keys, values, alternate_values, n, plan);
  detail::check_launch("radix sort: copy_back");
}

}  // namespace gpusort::backends::radix
