// The segmented reference: cub::DeviceSegmentedSort with its temporary storage sized and
// allocated once, up front, outside any timing (as cub_radix.cuh: size with a null pointer,
// allocate, reuse). The begin/end-offsets form, given d_offsets and d_offsets + 1, as CUB's
// own documentation calls it for segments that tile the keys.
#pragma once

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "keys_only.cuh"

#include <cub/device/device_segmented_sort.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpusort_bench {

// Sorts the n keys (and values, unless Value is keys_only) of `segment_count` segments,
// segment i being [offsets[i], offsets[i + 1]), from the input buffers into the output
// buffers: SortKeys / SortPairs, out-of-place form, ascending (CUB's radix order: for these
// keys, gpusort::less<>'s). Not guaranteed stable (the Stable* forms are), as gpusort's
// segmented_sort / segmented_sort_by_key it is timed against. CUB leaves the input untouched
// and keeps its ping-pong buffer in temp storage. `offsets` (device memory, segment_count + 1
// entries) must outlive the sorter.
template <class Key, class Value = keys_only, class Offset = int>
class cub_segmented_sorter {
 public:
  static constexpr bool has_values = !std::is_same_v<Value, keys_only>;

  cub_segmented_sorter(std::size_t n, std::size_t segment_count, const Offset* offsets,
                       cudaStream_t stream)
      : n_(static_cast<std::int64_t>(n)),
        segment_count_(static_cast<std::int64_t>(segment_count)),
        offsets_(offsets),
        stream_(stream) {
    std::size_t bytes = 0;
    check_cuda(enqueue(nullptr, bytes, nullptr, nullptr, nullptr, nullptr),
               "cub::DeviceSegmentedSort: sizing temp storage");
    temp_storage_ = device_buffer<unsigned char>(bytes);
  }

  void operator()(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out) {
    std::size_t bytes = temp_storage_.bytes();
    check_cuda(enqueue(temp_storage_.data(), bytes, keys_in, keys_out, values_in, values_out),
               has_values ? "cub::DeviceSegmentedSort::SortPairs"
                          : "cub::DeviceSegmentedSort::SortKeys");
  }

  std::size_t temp_storage_bytes() const noexcept { return temp_storage_.bytes(); }

 private:
  cudaError_t enqueue(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                      const Value* values_in, Value* values_out) {
    if constexpr (has_values)
      return cub::DeviceSegmentedSort::SortPairs(temp, bytes, keys_in, keys_out, values_in,
                                                 values_out, n_, segment_count_, offsets_,
                                                 offsets_ + 1, stream_);
    else
      return cub::DeviceSegmentedSort::SortKeys(temp, bytes, keys_in, keys_out, n_,
                                                segment_count_, offsets_, offsets_ + 1, stream_);
  }

  std::int64_t n_;
  std::int64_t segment_count_;
  const Offset* offsets_;
  cudaStream_t stream_;
  device_buffer<unsigned char> temp_storage_;
};

}  // namespace gpusort_bench
