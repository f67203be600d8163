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
// Whether Compare orders two Keys. For an extended __device__ lambda, nvcc gives the host
// compiler a placeholder closure type that std::is_invocable reports as not callable; the
// device compilation sees the lambda itself, so that is where its parameters are checked
// (a lambda that cannot take the key fails there, with the backend's static_assert).
template <class Compare, class Key>
inline constexpr bool comparator_orders_v =
#if defined(__CUDACC_EXTENDED_LAMBDA__) && !defined(__CUDA_ARCH__)
    __nv_is_extended_device_lambda_closure_type(Compare) ||
#endif
    std::is_invocable_r_v<bool, const Compare&, const Key&, const Key&>;
}  // namespace detail

template <class Key, class Compare>
struct backend_can_serve<merge_backend, Key, Compare>
    : std::bool_constant<std::is_trivially_copyable_v<Key> &&
                         std::is_default_constructible_v<Key> &&
                         detail::comparator_orders_v<Compare, Key>> {};

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

// The class of rows that keys of key_bytes take: keys narrower than the table's narrowest
// class use that class (fewer passes only make the small-input strategies better), wider
// ones the widest.
constexpr int key_class_of(const par_dispatch_row* rows, std::size_t row_count, int key_bytes) {
  int narrowest = 0, widest = 0;
  for (std::size_t i = 0; i < row_count; ++i) {
    if (narrowest == 0 || rows[i].key_bytes < narrowest) narrowest = rows[i].key_bytes;
    if (rows[i].key_bytes > widest) widest = rows[i].key_bytes;
  }
  return key_bytes < narrowest ? narrowest : key_bytes > widest ? widest : key_bytes;
}

// The first row of the key's class that covers n; beyond the last, the one-sweep sort.
// Rows the caller cannot run (`merge_allowed` false) or should not (`buckets_allowed` false:
// floating-point keys, whose top digits hold the sign and exponent, so that one bucket takes
// most keys and the sort by buckets falls back to its LSD passes) are passed over. A table
// follows each msd_buckets row with the rows of the fastest other strategies over its sizes
// (scripts/par_table.py), which only keys passed over it reach.
constexpr par_strategy choose_par_strategy(const par_dispatch_row* rows, std::size_t row_count,
                                           int key_bytes, bool with_values, std::size_t n,
                                           bool merge_allowed, bool buckets_allowed = true) {
  const int key_class = key_class_of(rows, row_count, key_bytes);
  for (std::size_t i = 0; i < row_count; ++i) {
    const par_dispatch_row& row = rows[i];
    if (row.key_bytes != key_class || row.with_values != with_values || n > row.max_n) continue;
    if (row.strategy == par_strategy::merge && !merge_allowed) continue;
    if (row.strategy == par_strategy::msd_buckets && !buckets_allowed) continue;
    return row.strategy;
  }
  return par_strategy::onesweep;
}

template <std::size_t Rows>
constexpr par_strategy choose_par_strategy(const par_dispatch_row (&table)[Rows], int key_bytes,
                                           bool with_values, std::size_t n, bool merge_allowed,
                                           bool buckets_allowed = true) {
  return choose_par_strategy(table, Rows, key_bytes, with_values, n, merge_allowed,
                             buckets_allowed);
}

// Whether any row of a table names `strategy`: a strategy no table names is never chosen,
// so gpusort::par need not compile it.
constexpr bool table_names(const par_dispatch_row* rows, std::size_t row_count,
                           par_strategy strategy) {
  for (std::size_t i = 0; i < row_count; ++i)
    if (rows[i].strategy == strategy) return true;
  return false;
}

template <std::size_t Rows>
constexpr bool table_names(const par_dispatch_row (&table)[Rows], par_strategy strategy) {
  return table_names(table, Rows, strategy);
}

// Whether a row of the class of keys of key_bytes, alone (with_values false) or with values
// (true), names `strategy`: par compiles the mid and pair tiles only for the keys and values
// some table gives them.
constexpr bool table_names_for(const par_dispatch_row* rows, std::size_t row_count,
                               int key_bytes, bool with_values, par_strategy strategy) {
  const int key_class = key_class_of(rows, row_count, key_bytes);
  for (std::size_t i = 0; i < row_count; ++i)
    if (rows[i].key_bytes == key_class && rows[i].with_values == with_values &&
        rows[i].strategy == strategy)
      return true;
  return false;
}

// How many pairs of 32-bit keys par sorts with the sorting network where a table does not say:
// up to 2048, four blocks of 256 x 2, where it beat the tables' strategies on both GPUs
// measured; in clusters of eight (to 4096) it gained 20 % on the H200 but lost 5 % on the
// H100 (bench/results/NOTES.md).
inline constexpr std::size_t default_network_pairs_max_keys = 2048;

// A dispatch table and the GPU its sweep ran on. GPUs of one compute capability can still
// want different tables: the H100 and the H200 are both sm_90 with 132 SMs, but the H200's
// memory is 1.4x faster, which moves the sizes where launch latency stops mattering and
// bandwidth starts to. So a table also records the peak memory bandwidth of its GPU.
struct par_tuned_table {
  const char* gpu;  // the GPU the sweep ran on, as the driver names it
  int compute_major;
  int compute_minor;
  double peak_memory_bandwidth;  // bytes per second (bus width x memory clock x 2)
  const par_dispatch_row* rows;
  std::size_t row_count;
  // Pairs of 32-bit keys take the sorting network, ahead of the rows, up to this many keys
  // (at most what one cluster of network_tiling_with_values_sm90 holds): measured apart from
  // the sweep (scripts/par_table.py --network-pairs-max-keys; bench/results/NOTES.md).
  std::size_t network_pairs_max_keys = default_network_pairs_max_keys;
};

// The table for a device: among those measured on its compute capability, the one whose GPU's
// peak memory bandwidth is nearest the device's (by ratio); nullptr when none was measured on
// its compute capability. An unknown bandwidth (0) takes the first of them.
template <std::size_t Tables>
constexpr const par_tuned_table* choose_par_table(const par_tuned_table (&tables)[Tables],
                                                  int compute_major, int compute_minor,
                                                  double peak_memory_bandwidth) {
  const par_tuned_table* best = nullptr;
  double best_distance = 0;
  for (const par_tuned_table& table : tables) {
    if (table.compute_major != compute_major || table.compute_minor != compute_minor) continue;
    const double ratio = peak_memory_bandwidth > 0 && table.peak_memory_bandwidth > 0
                             ? peak_memory_bandwidth / table.peak_memory_bandwidth
                             : 1.0;
    const double distance = ratio >= 1 ? ratio : 1 / ratio;
    if (best == nullptr || distance < best_distance) {
      best = &table;
      best_distance = distance;
    }
  }
  return best;
}

namespace detail {
template <class...>
inline constexpr bool always_false_v = false;
}  // namespace detail

}  // namespace gpusort
