// The orders gpusort knows by name. gpusort::less<> is the default of every sort call.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>
#include <utility>

namespace gpusort {
namespace detail {

template <class T>
inline constexpr bool is_half_precision_v =
    std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <class T, class = void>
struct has_less_than : std::false_type {};
template <class T>
struct has_less_than<T, std::void_t<decltype(std::declval<const T&>() < std::declval<const T&>())>>
    : std::true_type {};

// What the transparent less<>/greater<> accept: types with operator<, and the half types.
template <class T>
using if_orderable_t = std::enable_if_t<has_less_than<T>::value || is_half_precision_v<T>>;

// The documented order of floating-point keys, the same in every backend: NaNs (of either
// sign) after +inf, -0.0 equal to +0.0, otherwise the usual order.
template <class T>
__host__ __device__ constexpr bool ordered_less(const T& a, const T& b) {
  if constexpr (is_half_precision_v<T>) {
    return ordered_less(static_cast<float>(a), static_cast<float>(b));
  } else if constexpr (std::is_floating_point_v<T>) {
    // A NaN a precedes nothing (a == a is false); otherwise a precedes b where a < b or b is
    // NaN, which is !(a >= b). Two compares, no branch: the comparison sort's inner loops
    // ran 5-8 % faster on doubles than with a test of b first (bench/results/NOTES.md).
    return !(a >= b) && a == a;
  } else {
    return a < b;
  }
}

}  // namespace detail

// Ascending order (NaNs last for floating-point keys).
template <class T = void>
struct less {
  __host__ __device__ constexpr bool operator()(const T& a, const T& b) const {
    return detail::ordered_less(a, b);
  }
};
template <>
struct less<void> {
  using is_transparent = void;
  template <class T, class = detail::if_orderable_t<T>>
  __host__ __device__ constexpr bool operator()(const T& a, const T& b) const {
    return detail::ordered_less(a, b);
  }
};

// Descending order (NaNs first for floating-point keys).
template <class T = void>
struct greater {
  __host__ __device__ constexpr bool operator()(const T& a, const T& b) const {
    return detail::ordered_less(b, a);
  }
};
template <>
struct greater<void> {
  using is_transparent = void;
  template <class T, class = detail::if_orderable_t<T>>
  __host__ __device__ constexpr bool operator()(const T& a, const T& b) const {
    return detail::ordered_less(b, a);
  }
};

}  // namespace gpusort
