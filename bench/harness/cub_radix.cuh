// The reference: cub::DeviceRadixSort with its temporary storage allocated once, up front,
// outside any timing (the usual CUB idiom: size with a null pointer, allocate, reuse).
#pragma once

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "keys_only.cuh"

#include <gpusort/functional.cuh>

#include <cub/device/device_radix_sort.cuh>

#include <cuda_runtime_api.h>

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <type_traits>

namespace gpusort_bench {

// Sorts n keys (and values, unless Value is keys_only) from the input buffers into the
// output buffers: SortKeys / SortPairs, out-of-place form, all key bits, ascending.
// CUB leaves the input untouched and allocates its ping-pong buffer in temp storage.
template <class Key, class Value = keys_only>
class cub_radix_sorter {
 public:
  static constexpr bool has_values = !std::is_same_v<Value, keys_only>;
  // What sort_case needs to know of a reference: the order it sorts in, as the comparator
  // gpusort is given (all key bits, ascending: gpusort::less<> for these keys); whether it
  // stands for a stable_ op (no: SortKeys / SortPairs are timed against gpusort's sort /
  // sort_by_key, although a radix sort's output is stable all the same); whether it sorts in
  // place (no: out of place, from the work buffers into its own); and whether it is a
  // comparison sort (no: beside it, thrust::sort is called without a comparator and sorts by
  // radix too).
  using compare_type = gpusort::less<>;
  using host_order_type = compare_type;
  static constexpr bool op_is_stable = false;
  static constexpr bool in_place = false;
  static constexpr bool comparison_sort = false;

  cub_radix_sorter(std::size_t n, cudaStream_t stream) : n_(checked_count(n)), stream_(stream) {
    std::size_t bytes = 0;
    check_cuda(enqueue(nullptr, bytes, nullptr, nullptr, nullptr, nullptr),
               "cub::DeviceRadixSort: sizing temp storage");
    temp_storage_ = device_buffer<unsigned char>(bytes);
  }

  void operator()(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out) {
    std::size_t bytes = temp_storage_.bytes();
    check_cuda(enqueue(temp_storage_.data(), bytes, keys_in, keys_out, values_in, values_out),
               has_values ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys");
  }

  std::size_t temp_storage_bytes() const noexcept { return temp_storage_.bytes(); }

 private:
  // An int item count, as most CUB users pass: CUB then uses 32-bit offsets.
  static int checked_count(std::size_t n) {
    if (n > static_cast<std::size_t>(INT_MAX))
      throw std::length_error("cub_radix_sorter: more than INT_MAX items");
    return static_cast<int>(n);
  }

  cudaError_t enqueue(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                      const Value* values_in, Value* values_out) {
    constexpr int end_bit = static_cast<int>(sizeof(Key) * 8);
    if constexpr (has_values)
      return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, values_in,
                                             values_out, n_, 0, end_bit, stream_);
    else
      return cub::DeviceRadixSort::SortKeys(temp, bytes, keys_in, keys_out, n_, 0, end_bit,
                                            stream_);
  }

  int n_;
  cudaStream_t stream_;
  device_buffer<unsigned char> temp_storage_;
};

}  // namespace gpusort_bench
