// gpusort::par's choice of a backend: at compile time from (key type, comparator) traits,
// at run time from the size through a measured dispatch table (tuning/par_table_*.cuh).
#pragma once

#include "comparator_traits.cuh"
#include "par_strategy.cuh"
#include "key_traits.cuh"

#include <cstddef>
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

// One row of a dispatch table: for keys of `key_bytes` bytes, keys only or with values,
// `strategy` is the fastest up to `max_n` keys (rows of a class in increasing max_n).
struct par_dispatch_row {
  int key_bytes;
  bool with_values;
  std::size_t max_n;
  par_strategy strategy;
};

// The first row of the key's class that covers n; beyond the last, the one-sweep sort.
// Keys narrower than the table's narrowest class use that class (fewer passes only make
// the small-input strategies better), wider ones the widest. Rows the caller cannot run
// (`merge_allowed` false) are passed over.
template <std::size_t Rows>
constexpr par_strategy choose_par_strategy(const par_dispatch_row (&table)[Rows], int key_bytes,
                                           bool with_values, std::size_t n, bool merge_allowed) {
  int narrowest = 0, widest = 0;
  for (const par_dispatch_row& row : table) {
    if (narrowest == 0 || row.key_bytes < narrowest) narrowest = row.key_bytes;
    if (row.key_bytes > widest) widest = row.key_bytes;
  }
  const int key_class = key_bytes < narrowest ? narrowest : key_bytes > widest ? widest : key_bytes;
  for (const par_dispatch_row& row : table) {
    if (row.key_bytes != key_class || row.with_values != with_values || n > row.max_n) continue;
    if (row.strategy == par_strategy::merge && !merge_allowed) continue;
    return row.strategy;
  }
  return par_strategy::onesweep;
}

// Whether any row of a table names `strategy`: a strategy no table names is never chosen,
// so gpusort::par need not compile it.
template <std::size_t Rows>
constexpr bool table_names(const par_dispatch_row (&table)[Rows], par_strategy strategy) {
  for (const par_dispatch_row& row : table)
    if (row.strategy == strategy) return true;
  return false;
}

namespace detail {
template <class...>
inline constexpr bool always_false_v = false;
}  // namespace detail

}  // namespace gpusort
