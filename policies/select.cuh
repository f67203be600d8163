// Compile-time choice of a backend from (key type, comparator) traits.
#pragma once

#include "comparator_traits.cuh"
#include "key_traits.cuh"

#include <type_traits>

namespace gpusort {

// Backend strategies, as tags.
struct radix_backend {};
struct bucket_bitonic_backend {};
struct merge_backend {};

// Whether a backend can serve a (key, comparator) pair. The radix family needs radix key
// traits and a named order; the comparison backend needs a trivially copyable,
// default-constructible key and a comparator callable on two keys.
template <class Backend, class Key, class Compare>
struct backend_can_serve : std::false_type {};

template <class Key, class Compare>
struct backend_can_serve<radix_backend, Key, Compare>
    : std::bool_constant<has_radix_key_traits_v<Key> &&
                         comparator_order_v<Compare, Key> != key_order::custom> {};

template <class Key, class Compare>
struct backend_can_serve<bucket_bitonic_backend, Key, Compare>
    : backend_can_serve<radix_backend, Key, Compare> {};

namespace detail {
// For an extended __device__ lambda, nvcc gives the host compiler a placeholder closure type
// that std::is_invocable reports as not callable (it is callable on the device, which is all
// the comparison backend needs). Its parameter types cannot be checked on the host.
template <class Compare>
inline constexpr bool is_device_lambda_v =
#if defined(__CUDACC_EXTENDED_LAMBDA__)
    __nv_is_extended_device_lambda_closure_type(Compare);
#else
    false;
#endif
}  // namespace detail

template <class Key, class Compare>
struct backend_can_serve<merge_backend, Key, Compare>
    : std::bool_constant<std::is_trivially_copyable_v<Key> &&
                         std::is_default_constructible_v<Key> &&
                         (std::is_invocable_r_v<bool, const Compare&, const Key&, const Key&> ||
                          detail::is_device_lambda_v<Compare>)> {};

template <class Backend, class Key, class Compare>
inline constexpr bool backend_can_serve_v = backend_can_serve<Backend, Key, Compare>::value;

// gpusort::par's compile-time choice: the radix family where it can serve, else the
// comparison sort.
template <class Key, class Compare>
using automatic_backend_t =
    std::conditional_t<backend_can_serve_v<radix_backend, Key, Compare>, radix_backend,
                       merge_backend>;

namespace detail {
template <class...>
inline constexpr bool always_false_v = false;
}  // namespace detail

}  // namespace gpusort
