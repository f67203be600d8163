// Sorting on the GPU through the public API and comparing with std::stable_sort on the host.
#pragma once

#include "device_vector.cuh"
#include "keys.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <sstream>
#include <vector>

namespace gpusort::test {

// Tiny sizes, around the radix tile (4096 keys) and its multiples, primes, and a size
// that is neither; big sizes are added by the tests that want them.
// GPUSORT_TEST_MAX_N caps them (for compute-sanitizer runs, where big sizes are slow).
inline std::vector<std::size_t> edge_sizes() {
  std::vector<std::size_t> sizes{0,    1,    2,    3,    255,   256,    257,   4095,
                                 4096, 4097, 8191, 8193, 1009, 65521, 999983, 1000003};
  if (const char* cap = std::getenv("GPUSORT_TEST_MAX_N")) {
    const std::size_t max_n = std::strtoull(cap, nullptr, 10);
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::size_t n) { return n > max_n; }),
                sizes.end());
  }
  return sizes;
}

template <class Key>
std::string describe(std::size_t n, distribution d, bool descending, std::uint64_t seed) {
  std::ostringstream s;
  s << "n=" << n << " distribution=" << name_of(d) << (descending ? " descending" : " ascending")
    << " seed=" << seed << " key_bytes=" << sizeof(Key);
  return s.str();
}

template <class Key>
void expect_same_bits(const std::vector<Key>& actual, const std::vector<Key>& expected,
                      const char* what) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (bits_of(actual[i]) != bits_of(expected[i])) {
      ADD_FAILURE() << what << " differ first at index " << i << ": got "
                    << to_double(actual[i]) << " (bits " << std::hex << +bits_of(actual[i])
                    << "), expected " << std::dec << to_double(expected[i]) << " (bits "
                    << std::hex << +bits_of(expected[i]) << ")";
      return;
    }
  }
}

template <class Key>
std::vector<Key> reference_sorted(std::vector<Key> keys, bool descending) {
  if (descending)
    std::stable_sort(keys.begin(), keys.end(), [](Key a, Key b) { return reference_less(b, a); });
  else
    std::stable_sort(keys.begin(), keys.end(), reference_less<Key>);
  return keys;
}

// Keys only. The radix family is stable, so even gpusort::sort must give the exact bits
// of std::stable_sort (-0.0 and +0.0 in input order, NaN payloads kept).
template <class Key, class Policy>
void expect_sorts_keys(const Policy& policy, std::size_t n, distribution d, bool descending,
                       std::uint64_t seed) {
  SCOPED_TRACE(describe<Key>(n, d, descending, seed));
  const std::vector<Key> keys = make_keys<Key>(n, d, seed);
  device_array<Key> device(keys);
  if (descending)
    gpusort::sort(policy, device.begin(), device.end(), gpusort::greater<>{});
  else
    gpusort::sort(policy, device.begin(), device.end());
  expect_same_bits(device.to_host(), reference_sorted(keys, descending), "keys");
}

// Pairs with index payloads: the values prove stability and that every key moved with
// its own value.
template <class Key, class Policy>
void expect_sorts_pairs(const Policy& policy, std::size_t n, distribution d, bool descending,
                        std::uint64_t seed) {
  SCOPED_TRACE(describe<Key>(n, d, descending, seed));
  const std::vector<Key> keys = make_keys<Key>(n, d, seed);
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  device_array<Key> device_keys(keys);
  device_array<std::uint32_t> device_values(order);
  if (descending)
    gpusort::stable_sort_by_key(policy, device_keys.begin(), device_keys.end(),
                                device_values.begin(), gpusort::greater<>{});
  else
    gpusort::stable_sort_by_key(policy, device_keys.begin(), device_keys.end(),
                                device_values.begin());

  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return descending ? reference_less(keys[b], keys[a]) : reference_less(keys[a], keys[b]);
  });
  std::vector<Key> expected_keys(n);
  for (std::size_t i = 0; i < n; ++i) expected_keys[i] = keys[order[i]];
  expect_same_bits(device_keys.to_host(), expected_keys, "keys");
  const std::vector<std::uint32_t> values = device_values.to_host();
  const auto mismatch = std::mismatch(values.begin(), values.end(), order.begin());
  EXPECT_TRUE(mismatch.first == values.end())
      << "values differ first at index " << (mismatch.first - values.begin()) << ": got "
      << *mismatch.first << ", expected " << *mismatch.second;
}

inline std::uint64_t seed_for(std::size_t n, distribution d, std::size_t key_bytes) {
  return 0x9E3779B97F4A7C15ull ^ (n * 1000003ull) ^ (std::uint64_t(d) << 56) ^ (key_bytes << 48);
}

// Every edge size x every distribution x both orders; `big` adds a uniform input above
// 2^24 (and the other distributions at 10^6+3 are already in edge_sizes).
template <class Key, class Policy>
void sweep_keys(const Policy& policy) {
  for (std::size_t n : edge_sizes())
    for (distribution d : distributions_for<Key>())
      for (bool descending : {false, true}) {
        expect_sorts_keys<Key>(policy, n, d, descending, seed_for(n, d, sizeof(Key)));
        if (::testing::Test::HasFailure()) return;
      }
}

template <class Key, class Policy>
void sweep_pairs(const Policy& policy) {
  for (std::size_t n : edge_sizes())
    for (distribution d : distributions_for<Key>())
      for (bool descending : {false, true}) {
        expect_sorts_pairs<Key>(policy, n, d, descending, seed_for(n, d, sizeof(Key)) + 1);
        if (::testing::Test::HasFailure()) return;
      }
}

inline constexpr std::size_t big_size = (std::size_t(1) << 24) + 1;

}  // namespace gpusort::test
