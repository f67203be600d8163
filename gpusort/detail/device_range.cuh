// Turning user iterators into raw device pointers, and checking that they are.
#pragma once

#include "../error.cuh"
#include "../no_values.cuh"
#include "per_device.cuh"
#include "stream_capture.cuh"

#include <thrust/type_traits/is_contiguous_iterator.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>

namespace gpusort::detail {

// T*, thrust::device_ptr<T>, thrust::device_vector<T>::iterator, or any iterator Thrust
// knows to be contiguous.
template <class Iterator>
auto to_raw_pointer(Iterator it) {
  static_assert(thrust::is_contiguous_iterator_v<Iterator>,
                "gpusort sorts contiguous ranges: pass T*, thrust::device_ptr<T> or "
                "thrust::device_vector<T> iterators (fancy iterators cannot be sorted in place)");
  if constexpr (thrust::is_contiguous_iterator_v<Iterator>)
    return thrust::unwrap_contiguous_iterator(it);
  else  // only after the assertion failed: a pointer type, so that it is the only error
    return static_cast<typename std::iterator_traits<Iterator>::value_type*>(nullptr);
}

template <class Iterator>
using pointee_t = std::remove_pointer_t<decltype(to_raw_pointer(std::declval<Iterator>()))>;

// Device memory of the current device, or managed memory (which any device can reach).
inline void require_device_memory(const void* p, const char* range_name, int device) {
  cudaPointerAttributes attributes{};
  // The message is built only on failure: every sort call comes here, and at a few thousand
  // keys a call's host time before its first launch is a measurable part of the whole.
  const cudaError_t status = cudaPointerGetAttributes(&attributes, p);
  if (status != cudaSuccess)
    throw_cuda_error(status, (std::string("checking where ") + range_name + " lives").c_str());
  if (attributes.type == cudaMemoryTypeManaged) return;
  if (attributes.type == cudaMemoryTypeDevice) {
    if (attributes.device == device) return;
    throw_usage_error(std::string(range_name) + " is on device " +
                      std::to_string(attributes.device) + ", but the current device is " +
                      std::to_string(device) + ": call cudaSetDevice(" +
                      std::to_string(attributes.device) + ") before sorting it");
  }
  throw_usage_error(std::string(range_name) + " is in host memory (" +
                    (attributes.type == cudaMemoryTypeHost ? "pinned" : "pageable") +
                    "), but gpusort's policies sort device memory: copy it to a "
                    "thrust::device_vector or a cudaMalloc'd buffer first");
}

// The policy's stream must belong to the current device: work enqueued on another device's
// stream would fail at launch, after the checks that could have said why. (A stream being
// captured into a graph cannot be asked for its device; the graph's instantiation checks.)
inline void require_stream_of_device(cudaStream_t stream, int device) {
  if (stream_is_capturing(stream)) return;
  // The default streams, legacy and per-thread, are the current device's by definition. (They
  // are asked whether they capture all the same: the legacy stream answers with an error while
  // another stream of the device captures, before anything of the sort is enqueued.)
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return;
  int stream_device = 0;
  check_cuda(cudaStreamGetDevice(stream, &stream_device), "checking the policy's stream");
  if (stream_device != device)
    throw_usage_error("the policy's stream belongs to device " + std::to_string(stream_device) +
                      ", but the current device is " + std::to_string(device) +
                      ": call cudaSetDevice(" + std::to_string(stream_device) +
                      ") before sorting on it");
}

// Reports an error left by earlier CUDA work instead of letting it look like ours. The
// first runtime call of a process without a usable device or driver fails here too: that
// is said as such (throw_cuda_error), not blamed on earlier work.
inline void require_no_pending_error() {
  const cudaError_t pending = cudaGetLastError();
  if (pending != cudaSuccess)
    throw_cuda_error(pending, means_no_usable_device(pending)
                                  ? "starting the sort"
                                  : "a CUDA error was pending before the sort call (earlier "
                                    "work failed)");
}

inline bool byte_ranges_overlap(const void* a, std::size_t a_bytes, const void* b,
                                std::size_t b_bytes) {
  const auto a_begin = reinterpret_cast<std::uintptr_t>(a);
  const auto b_begin = reinterpret_cast<std::uintptr_t>(b);
  return a_begin < b_begin + b_bytes && b_begin < a_begin + a_bytes;
}

// The ranges of a sort call, whole or segmented: `count` keys (and as many values, unless
// Value is no_values) in memory the current device reaches, not overlapping, and the
// policy's stream on the same device.
template <class Key, class Value>
void require_sortable_ranges(Key* keys, Value* values, std::size_t count, cudaStream_t stream,
                             int device) {
  static_assert(!std::is_const_v<Key> && !std::is_const_v<Value>,
                "gpusort sorts in place: the ranges must not be const");
  static_assert(std::is_trivially_copyable_v<Key> && std::is_trivially_copyable_v<Value>,
                "gpusort moves keys and values as bytes: their types must be trivially copyable");
  require_device_memory(keys, "the key range", device);
  if constexpr (has_values_v<Value>) {
    require_device_memory(values, "the value range", device);
    if (byte_ranges_overlap(keys, count * sizeof(Key), values, count * sizeof(Value)))
      throw_usage_error("the key and value ranges overlap");
  }
  require_stream_of_device(stream, device);
}

}  // namespace gpusort::detail
