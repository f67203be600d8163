// What each built-in policy's backend can sort, said once for whole and segmented sorts: each
// check fails to compile with the message a user needs, and returns whether the backend
// serves, so that the call it guards (`if constexpr (...)`) is not a second error.
#pragma once

#include "select.cuh"

namespace gpusort::detail {

template <class Key, class Compare>
constexpr bool radix_policy_serves() {
  static_assert(backend_can_serve_v<radix_backend, Key, Compare>,
                "gpusort::radix sorts keys that have gpusort::radix_key_traits (arithmetic "
                "types, __half, __nv_bfloat16, or your type via radix_members) ordered by "
                "gpusort::less/greater (or thrust::/cuda::std:: less/greater). For any other "
                "comparator use the comparison backend, gpusort::merge.");
  return backend_can_serve_v<radix_backend, Key, Compare>;
}

template <class Key, class Compare, bool Stable>
constexpr bool bucket_bitonic_policy_serves() {
  static_assert(backend_can_serve_v<bucket_bitonic_backend, Key, Compare>,
                "gpusort::bucket_bitonic sorts keys that have gpusort::radix_key_traits "
                "(arithmetic types, __half, __nv_bfloat16, or your type via radix_members) "
                "ordered by gpusort::less/greater (or thrust::/cuda::std:: less/greater). For "
                "any other comparator use the comparison backend, gpusort::merge.");
  static_assert(!Stable,
                "gpusort::bucket_bitonic is not stable (bitonic networks reorder equal keys): "
                "for the stable_ sorts use gpusort::radix (radix keys) or gpusort::merge.");
  return backend_can_serve_v<bucket_bitonic_backend, Key, Compare> && !Stable;
}

template <class Key, class Compare>
constexpr bool merge_policy_serves() {
  static_assert(backend_can_serve_v<merge_backend, Key, Compare>,
                "gpusort::merge sorts trivially copyable, default-constructible keys with a "
                "comparator callable on the device as bool(const Key&, const Key&) that is a "
                "strict weak ordering.");
  return backend_can_serve_v<merge_backend, Key, Compare>;
}

// par's comparison sort, for keys and comparators the radix family cannot take.
template <class Key, class Compare>
constexpr bool par_comparison_serves() {
  static_assert(backend_can_serve_v<merge_backend, Key, Compare>,
                "gpusort::par: no backend can sort this key type with this comparator. The "
                "comparison backend needs a trivially copyable, default-constructible key and "
                "a comparator callable on the device as bool(const Key&, const Key&).");
  return backend_can_serve_v<merge_backend, Key, Compare>;
}

}  // namespace gpusort::detail
