// A user-defined gpusort backend, written the way a user would: nothing in gpusort is
// edited. `my_project::thrust_sort` is a policy whose backend forwards to Thrust.
//
// How it plugs in: gpusort::sort(policy, ...) checks its arguments, unwraps the iterators
// to device pointers and calls `backend_sort(policy, request)` unqualified, so this
// overload, in the policy's own namespace, is found by argument-dependent lookup.
#pragma once

#include <gpusort/sort.cuh>

#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cstddef>

namespace my_project {

struct thrust_sort_policy : gpusort::execution_policy<thrust_sort_policy> {};
inline constexpr thrust_sort_policy thrust_sort{};

// Thrust allocates its temporary storage through this, so the allocator the user gave
// the policy (.with_allocator) is honoured here too.
struct thrust_temporary_allocator {
  using value_type = char;
  gpusort::allocator_ref allocator;
  cudaStream_t stream;
  char* allocate(std::ptrdiff_t bytes) {
    return static_cast<char*>(allocator.allocate(static_cast<std::size_t>(bytes), stream));
  }
  void deallocate(char* p, std::size_t bytes) { allocator.deallocate(p, bytes, stream); }
};

template <class Key, class Value, class Compare, bool Stable>
void backend_sort(const thrust_sort_policy&,
                  const gpusort::sort_request<Key, Value, Compare, Stable>& request) {
  thrust_temporary_allocator temporaries{request.allocator, request.stream};
  // par_nosync: stream-ordered, no synchronisation at the end, like gpusort's own backends.
  const auto on_stream = thrust::cuda::par_nosync(temporaries).on(request.stream);
  Key* first = request.keys;
  Key* last = request.keys + request.count;
  if constexpr (gpusort::has_values_v<Value>) {
    if constexpr (Stable) thrust::stable_sort_by_key(on_stream, first, last, request.values, request.comp);
    else thrust::sort_by_key(on_stream, first, last, request.values, request.comp);
  } else {
    if constexpr (Stable) thrust::stable_sort(on_stream, first, last, request.comp);
    else thrust::sort(on_stream, first, last, request.comp);
  }
}

}  // namespace my_project
