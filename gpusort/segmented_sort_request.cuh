// What a backend receives for a segmented sort: the contract between the segmented front
// door and any backend, built-in or user-defined.
#pragma once

#include "allocator.cuh"
#include "no_values.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>

namespace gpusort {

// One segmented sort call after the front door's checks. `count` elements from `keys` (and
// from `values` unless has_values is false); segment i is [begin_offsets[i], end_offsets[i])
// of them, for i < segment_count. The offsets live in device memory and are not yet checked:
// a backend must not trust them before it has (end < begin, begin < 0 or end > count are bad;
// overlapping segments are the caller's error and need not be caught). Elements outside
// every segment are left as they are. Temporary storage comes from `allocator` on `stream`,
// all of it before anything is written; no synchronisation, so that the call can be captured
// into a CUDA graph.
template <class Key, class Value, class Offset, class Compare, bool Stable>
struct segmented_sort_request {
  using key_type = Key;
  using value_type = Value;
  using offset_type = Offset;
  using compare_type = Compare;
  static constexpr bool stable = Stable;
  static constexpr bool has_values = has_values_v<Value>;

  Key* keys;
  Value* values;  // null when !has_values
  std::size_t count;
  const Offset* begin_offsets;
  const Offset* end_offsets;
  std::size_t segment_count;
  Compare comp;
  cudaStream_t stream;
  allocator_ref allocator;
};

}  // namespace gpusort
