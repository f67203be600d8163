// One fuzz case, run: its keys (and values) made on the host, uploaded into the middle of
// guarded device buffers, sorted through gpusort's public API with the drawn policy, order,
// stability and values, downloaded, and checked against std::stable_sort. Included by the
// key types' translation units (fuzz_narrow.cu, fuzz_int32.cu, ...), which instantiate
// run_case<Key>.
#pragma once

#include "../support/keys.cuh"
#include "checks.cuh"
#include "device_buffer.cuh"
#include "fuzz_case.cuh"

#include <gpusort/sort.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace gpusort::fuzz {

// The Value of the keys-only calls (sort, stable_sort).
struct keys_only {};

namespace detail {

template <class Value>
inline constexpr bool has_values_v = !std::is_same_v<Value, keys_only>;

// One public call. A policy has the calls CanBeStable / CanBeUnstable: bucket_bitonic has
// no stable calls (they do not compile, by design), merge no unstable ones on the key types
// has_unstable_merge excludes; draw_case never asks for the missing ones.
template <bool CanBeStable, bool CanBeUnstable, class Policy, class Key, class Value,
          class Compare>
void call_sort(const Policy& policy, bool stable, Key* keys, Value* values, std::size_t n,
               Compare comp) {
  if (stable ? !CanBeStable : !CanBeUnstable)
    throw harness_error(std::string("drew a") + (stable ? " stable" : "n unstable") +
                        " call that the fuzz translation units do not instantiate");
  if constexpr (CanBeStable) {
    if (stable) {
      if constexpr (has_values_v<Value>)
        gpusort::stable_sort_by_key(policy, keys, keys + n, values, comp);
      else
        gpusort::stable_sort(policy, keys, keys + n, comp);
      return;
    }
  }
  if constexpr (CanBeUnstable) {
    if constexpr (has_values_v<Value>)
      gpusort::sort_by_key(policy, keys, keys + n, values, comp);
    else
      gpusort::sort(policy, keys, keys + n, comp);
  }
}

template <class Key, class Value, class Compare>
void call_with_policy(const fuzz_case& c, Key* keys, Value* values, Compare comp) {
  constexpr value_type value_kind = !has_values_v<Value>                   ? value_type::none
                                    : std::is_same_v<Value, std::uint32_t> ? value_type::u32
                                                                           : value_type::u64;
  constexpr bool unstable_merge = has_unstable_merge(key_type_of<Key>(), value_kind);
  switch (c.policy) {
    case policy_kind::par:
      return call_sort<true, true>(gpusort::par, c.stable, keys, values, c.n, comp);
    case policy_kind::radix:
      return call_sort<true, true>(gpusort::radix, c.stable, keys, values, c.n, comp);
    case policy_kind::bucket_bitonic:
      return call_sort<false, true>(gpusort::bucket_bitonic, c.stable, keys, values, c.n, comp);
    case policy_kind::merge:
      return call_sort<true, unstable_merge>(gpusort::merge, c.stable, keys, values, c.n, comp);
  }
}

// Guards are random bytes (any pattern a stray write could leave is unlikely to match).
template <class T>
void fill_random_bytes(std::vector<T>& buffer, std::mt19937_64& rng) {
  auto* bytes = reinterpret_cast<unsigned char*>(buffer.data());
  for (std::size_t i = 0; i < buffer.size() * sizeof(T); ++i)
    bytes[i] = static_cast<unsigned char>(rng());
}

// [offset, offset + range.size()) of a buffer with random guards around it.
template <class T>
std::vector<T> guarded(const std::vector<T>& range, std::size_t offset, std::size_t after,
                       std::mt19937_64& rng) {
  std::vector<T> buffer(offset + range.size() + after);
  fill_random_bytes(buffer, rng);
  std::copy(range.begin(), range.end(), buffer.begin() + std::ptrdiff_t(offset));
  return buffer;
}

template <class T>
std::vector<T> slice(const std::vector<T>& buffer, std::size_t offset, std::size_t n) {
  return {buffer.begin() + std::ptrdiff_t(offset), buffer.begin() + std::ptrdiff_t(offset + n)};
}

inline void add_failure(std::string& failures, const std::string& failure) {
  if (failure.empty()) return;
  if (!failures.empty()) failures += "; ";
  failures += failure;
}

// Uploads the guarded buffers, sorts, and downloads them into *_after: "" or what failed.
// Holds the device alone meanwhile (device_mutex).
template <class Key, class Value>
std::string sort_on_device(const fuzz_case& c, const std::vector<Key>& key_buffer,
                           const std::vector<Value>& value_buffer, std::vector<Key>& keys_after,
                           std::vector<Value>& values_after) {
  const std::lock_guard<std::mutex> lock(device_mutex());
  device_buffer<Key> device_keys(key_buffer);
  std::optional<device_buffer<Value>> device_values;
  if constexpr (has_values_v<Value>) device_values.emplace(value_buffer);
  Key* keys = device_keys.data() + c.key_offset;
  Value* values = device_values ? device_values->data() + c.value_offset : nullptr;
  try {
    if (c.descending)
      call_with_policy(c, keys, values, gpusort::greater<>{});
    else
      call_with_policy(c, keys, values, gpusort::less<>{});
  } catch (const gpusort::error& e) {
    return std::string("gpusort::error: ") + e.what();
  }
  // A launch error or a fault inside the sort belongs to the sort.
  if (const cudaError_t launch = cudaGetLastError(); launch != cudaSuccess)
    return std::string("CUDA error left pending by the sort: ") + cudaGetErrorName(launch) +
           " (" + cudaGetErrorString(launch) + ")";
  if (const cudaError_t run = cudaDeviceSynchronize(); run != cudaSuccess)
    return std::string("CUDA error while the sort ran: ") + cudaGetErrorName(run) + " (" +
           cudaGetErrorString(run) + ")";
  keys_after = device_keys.to_host();
  if (device_values) values_after = device_values->to_host();
  return "";
}

// What the sort left in the buffers, checked against std::stable_sort of the input.
template <class Key, class Value>
std::string check_sorted_buffers(const fuzz_case& c, const std::vector<Key>& input,
                                 const std::vector<Key>& key_buffer,
                                 const std::vector<Value>& value_buffer,
                                 const std::vector<Key>& keys_after,
                                 const std::vector<Value>& values_after) {
  const std::vector<Key> sorted = slice(keys_after, c.key_offset, c.n);
  const reference_order<Key> less{c.descending};
  const std::vector<std::uint32_t> order = stable_order(input, less);
  std::vector<Key> expected(c.n);
  for (std::size_t i = 0; i < c.n; ++i) expected[i] = input[order[i]];

  // The radix family (radix, and par on these radix keys) is documented stable even for
  // sort / sort_by_key.
  const bool stable_result =
      c.stable || c.policy == policy_kind::radix || c.policy == policy_kind::par;
  std::string failures;
  add_failure(failures, check_guards("key", keys_after, key_buffer, c.key_offset, c.n));
  if (stable_result) {
    add_failure(failures, check_same_key_bits(sorted, expected));
  } else {
    add_failure(failures, check_equivalent_keys(sorted, expected, less));
    // With values, check_values_name_their_keys below implies it.
    if constexpr (!has_values_v<Value>) add_failure(failures, check_same_key_bytes(sorted, input));
  }
  if constexpr (has_values_v<Value>) {
    const std::vector<Value> sorted_values = slice(values_after, c.value_offset, c.n);
    add_failure(failures,
                check_guards("value", values_after, value_buffer, c.value_offset, c.n));
    if (stable_result)
      add_failure(failures, check_stable_values(sorted_values, order));
    else
      add_failure(failures, check_values_name_their_keys(sorted, sorted_values, input));
  }
  return failures;
}

// The case's input: its keys (make_keys), and the buffers that hold them and their values
// (input positions) between random guards.
template <class Key, class Value>
struct case_input {
  std::vector<Key> keys;
  std::vector<Key> key_buffer;
  std::vector<Value> value_buffer;  // empty for keys_only
};

template <class Key, class Value>
case_input<Key, Value> make_case_input(const fuzz_case& c) {
  case_input<Key, Value> in;
  in.keys = test::make_keys<Key>(c.n, c.dist, c.data_seed);
  std::mt19937_64 guard_rng(c.data_seed ^ 0x5A5A5A5A5A5A5A5Aull);
  in.key_buffer = guarded(in.keys, c.key_offset, c.guard_after, guard_rng);
  if constexpr (has_values_v<Value>) {
    std::vector<Value> positions(c.n);
    for (std::size_t i = 0; i < c.n; ++i) positions[i] = value_of_position<Value>(i);
    in.value_buffer = guarded(positions, c.value_offset, c.guard_after, guard_rng);
  }
  return in;
}

template <class Key, class Value>
std::string run_typed(const fuzz_case& c) {
  const case_input<Key, Value> in = make_case_input<Key, Value>(c);
  std::vector<Key> keys_after;
  std::vector<Value> values_after;
  if (std::string failure =
          sort_on_device(c, in.key_buffer, in.value_buffer, keys_after, values_after);
      !failure.empty())
    return failure;
  return check_sorted_buffers(c, in.keys, in.key_buffer, in.value_buffer, keys_after,
                              values_after);
}

}  // namespace detail

// "" when the case passed, else what went wrong (a gpusort::error's message is a failure).
template <class Key>
std::string run_case(const fuzz_case& c) {
  try {
    switch (c.values) {
      case value_type::none: return detail::run_typed<Key, keys_only>(c);
      case value_type::u32: return detail::run_typed<Key, std::uint32_t>(c);
      case value_type::u64:
        if constexpr (has_u64_values(key_type_of<Key>()))
          return detail::run_typed<Key, std::uint64_t>(c);
        else
          return "harness: drew u64 values, which the fuzz translation units do not "
                 "instantiate for this key type";
    }
    return "unknown value type";
  } catch (const harness_error& e) {
    return std::string("harness: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

}  // namespace gpusort::fuzz
