// The reference: cub::DeviceRadixSort with its temporary storage allocated once, up front,
// outside any timing (the usual CUB idiom: size with a null pointer, allocate, reuse), called
// with an int or a std::size_t item count (cub_count.cuh).
#pragma once

#include "cub_count.cuh"
#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "keys_only.cuh"

#include <gpusort/functional.cuh>

#include <cub/device/device_radix_sort.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
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
  // Whether a sort can be asked for with either count type (cub_count.cuh): yes.
  static constexpr bool takes_count_type = true;

  // Temp storage for either count type (the larger of the two sizes; beyond INT_MAX items,
  // for the std::size_t count only).
  cub_radix_sorter(std::size_t n, cudaStream_t stream) : n_(n), stream_(stream) {
    for (cub_count count : {cub_count::int_count, cub_count::size_t_count}) {
      if (count == cub_count::int_count && n > static_cast<std::size_t>(INT_MAX)) continue;
      std::size_t bytes = 0;
      check_cuda(enqueue(count, nullptr, bytes, nullptr, nullptr, nullptr, nullptr),
                 "cub::DeviceRadixSort: sizing temp storage");
      bytes_[index_of(count)] = bytes;
    }
    temp_storage_ = device_buffer<unsigned char>(std::max(bytes_[0], bytes_[1]));
  }

  void operator()(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                  cub_count count) {
    std::size_t bytes = temp_storage_bytes(count);
    check_cuda(enqueue(count, temp_storage_.data(), bytes, keys_in, keys_out, values_in, values_out),
               has_values ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys");
  }

  // What CUB asks for with this count type.
  std::size_t temp_storage_bytes(cub_count count) const noexcept {
    return bytes_[index_of(count)];
  }

 private:
  static constexpr std::size_t index_of(cub_count count) noexcept {
    return count == cub_count::int_count ? 0 : 1;
  }

  // n as an int: more than INT_MAX items take the std::size_t count only.
  int int_count() const {
    if (n_ > static_cast<std::size_t>(INT_MAX))
      throw std::length_error("cub_radix_sorter: an int count of more than INT_MAX items");
    return static_cast<int>(n_);
  }

  cudaError_t enqueue(cub_count count, void* temp, std::size_t& bytes, const Key* keys_in,
                      Key* keys_out, const Value* values_in, Value* values_out) {
    if (count == cub_count::int_count)
      return enqueue_with(int_count(), temp, bytes, keys_in, keys_out, values_in, values_out);
    return enqueue_with(n_, temp, bytes, keys_in, keys_out, values_in, values_out);
  }

  template <class Count>
  cudaError_t enqueue_with(Count n, void* temp, std::size_t& bytes, const Key* keys_in,
                           Key* keys_out, const Value* values_in, Value* values_out) {
    constexpr int end_bit = static_cast<int>(sizeof(Key) * 8);
    if constexpr (has_values)
      return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, values_in,
                                             values_out, n, 0, end_bit, stream_);
    else
      return cub::DeviceRadixSort::SortKeys(temp, bytes, keys_in, keys_out, n, 0, end_bit,
                                            stream_);
  }

  std::size_t n_;
  cudaStream_t stream_;
  std::size_t bytes_[2] = {0, 0};  // what CUB asks for with each count type (index_of)
  device_buffer<unsigned char> temp_storage_;
};

}  // namespace gpusort_bench
