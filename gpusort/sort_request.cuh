// What a backend receives: the contract between the front door and any backend,
// built-in or user-defined.
#pragma once

#include "allocator.cuh"
#include "no_values.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>

namespace gpusort {

// One sort call after the front door's checks: raw device pointers (iterators unwrapped,
// pointers verified to be device memory, `count` elements from `keys`, and from `values`
// unless has_values is false), the comparator, and the policy's stream and allocator.
// A backend allocates temporary storage through `allocator` on `stream`, all of it before
// it writes to keys or values, and enqueues its work on `stream` without synchronising.
template <class Key, class Value, class Compare, bool Stable>
struct sort_request {
  using key_type = Key;
  using value_type = Value;
  using compare_type = Compare;
  static constexpr bool stable = Stable;
  static constexpr bool has_values = has_values_v<Value>;

  Key* keys;
  Value* values;  // null when !has_values
  std::size_t count;
  Compare comp;
  cudaStream_t stream;
  allocator_ref allocator;
};

}  // namespace gpusort
