// The comparison-sort reference: cub::DeviceMergeSort with a comparator, its temporary storage
// sized and allocated once, up front, as for cub_radix.cuh (size with a null pointer, allocate,
// reuse).
#pragma once

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "device_comparator.cuh"
#include "keys_only.cuh"

#include <cub/device/device_merge_sort.cuh>

#include <cuda_runtime_api.h>

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <type_traits>

namespace gpusort_bench {

// Sorts n keys (and values, unless Value is keys_only) in place in the order of Compare:
// SortKeys / SortPairs, or with Stable StableSortKeys / StableSortPairs. In place because
// gpusort sorts in place too: both then read and write the same work buffers, and CUB's temp
// storage holds its ping-pong copy, as gpusort's pool holds its own. HostOrder is the same
// order for the host's checks: Compare itself, unless that runs on the device only (a
// __device__ lambda).
template <class Key, class Value, class Compare, bool Stable, class HostOrder = Compare>
class cub_merge_sorter {
 public:
  static constexpr bool has_values = !std::is_same_v<Value, keys_only>;
  // What sort_case needs to know of a reference (see cub_radix_sorter). A comparison sort:
  // beside it, Thrust gets the same comparator (and runs its merge sort).
  using compare_type = Compare;
  using host_order_type = HostOrder;
  static constexpr bool op_is_stable = Stable;
  static constexpr bool in_place = true;
  static constexpr bool comparison_sort = true;
  // Whether a sort can be asked for with either count type (cub_count.cuh): no, an int only.
  static constexpr bool takes_count_type = false;

  cub_merge_sorter(std::size_t n, cudaStream_t stream,
                   Compare comp = device_comparator<Compare>())
      : n_(checked_count(n)), stream_(stream), comp_(comp) {
    std::size_t bytes = 0;
    check_cuda(enqueue(nullptr, bytes, nullptr, nullptr), "cub::DeviceMergeSort: sizing temp storage");
    temp_storage_ = device_buffer<unsigned char>(bytes);
  }

  void operator()(Key* keys, Value* values) {
    std::size_t bytes = temp_storage_.bytes();
    check_cuda(enqueue(temp_storage_.data(), bytes, keys, values), operation_name());
  }

  std::size_t temp_storage_bytes() const noexcept { return temp_storage_.bytes(); }

 private:
  static constexpr const char* operation_name() {
    if constexpr (has_values)
      return Stable ? "cub::DeviceMergeSort::StableSortPairs" : "cub::DeviceMergeSort::SortPairs";
    else
      return Stable ? "cub::DeviceMergeSort::StableSortKeys" : "cub::DeviceMergeSort::SortKeys";
  }

  // An int item count, as most CUB users pass (and as cub_radix_sorter does).
  static int checked_count(std::size_t n) {
    if (n > static_cast<std::size_t>(INT_MAX))
      throw std::length_error("cub_merge_sorter: more than INT_MAX items");
    return static_cast<int>(n);
  }

  cudaError_t enqueue(void* temp, std::size_t& bytes, Key* keys, Value* values) {
    if constexpr (has_values && Stable)
      return cub::DeviceMergeSort::StableSortPairs(temp, bytes, keys, values, n_, comp_, stream_);
    else if constexpr (has_values)
      return cub::DeviceMergeSort::SortPairs(temp, bytes, keys, values, n_, comp_, stream_);
    else if constexpr (Stable)
      return cub::DeviceMergeSort::StableSortKeys(temp, bytes, keys, n_, comp_, stream_);
    else
      return cub::DeviceMergeSort::SortKeys(temp, bytes, keys, n_, comp_, stream_);
  }

  int n_;
  cudaStream_t stream_;
  Compare comp_;
  device_buffer<unsigned char> temp_storage_;
};

}  // namespace gpusort_bench
