// Sorting on the GPU through the public API and comparing with std::stable_sort on the host.
//
// The checks are generic over the key type and the order: a device comparator for the sort
// call, and the same order written for the host (`less`) for the reference. What a call
// must give is its `guarantee`: `stable` is std::stable_sort's result bit for bit (stable
// calls, and every call of the radix family), `unstable` is a sorted permutation of the
// input (equivalent keys in any order, each value still with its own key).
#pragma once

#include "device_vector.cuh"
#include "keys.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <limits>
#include <numeric>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpusort::test {

// GPUSORT_TEST_MAX_N caps every test size (for compute-sanitizer runs, where big sizes are
// slow).
inline std::vector<std::size_t> capped(std::vector<std::size_t> sizes) {
  if (const char* cap = std::getenv("GPUSORT_TEST_MAX_N")) {
    const std::size_t max_n = std::strtoull(cap, nullptr, 10);
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::size_t n) { return n > max_n; }),
                sizes.end());
  }
  return sizes;
}

// Tiny sizes, around the radix tile (4096 keys) and its multiples, primes, and a size
// that is neither; big sizes are added by the tests that want them.
inline std::vector<std::size_t> edge_sizes() {
  return capped({0, 1, 2, 3, 255, 256, 257, 4095, 4096, 4097, 8191, 8193, 1009, 65521, 999983,
                 1000003});
}

inline std::string describe(std::size_t n, distribution d, const std::string& order,
                            std::uint64_t seed, std::size_t key_bytes) {
  std::ostringstream s;
  s << "n=" << n << " distribution=" << name_of(d) << " " << order << " seed=" << seed
    << " key_bytes=" << key_bytes;
  return s.str();
}

template <class Key>
std::string describe(std::size_t n, distribution d, bool descending, std::uint64_t seed) {
  return describe(n, d, descending ? "descending" : "ascending", seed, sizeof(Key));
}

// ---- Keys as bytes: what "the same key" means for a permutation ----------------------

template <class Key>
bool same_bytes(const Key& a, const Key& b) {
  return std::memcmp(&a, &b, sizeof(Key)) == 0;
}
template <class Key>
bool bytes_less(const Key& a, const Key& b) {
  return std::memcmp(&a, &b, sizeof(Key)) < 0;
}

template <class T, class = void>
struct is_streamable : std::false_type {};
template <class T>
struct is_streamable<
    T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<const T&>())>>
    : std::true_type {};

// A key for a failure message: arithmetic keys as a number and their bits; other keys
// through their operator<< where they have one, and their bytes.
template <class Key>
std::string key_text(const Key& key) {
  std::ostringstream s;
  if constexpr (std::is_arithmetic_v<Key> || is_float_like_v<Key>) {
    s << std::setprecision(std::numeric_limits<double>::max_digits10) << to_double(key)
      << " (bits " << std::hex << +bits_of(key) << ")";
  } else {
    if constexpr (is_streamable<Key>::value) s << key << " ";
    s << "(bytes" << std::hex << std::setfill('0');
    const auto* bytes = reinterpret_cast<const unsigned char*>(&key);
    for (std::size_t i = 0; i < sizeof(Key); ++i) s << ' ' << std::setw(2) << int(bytes[i]);
    s << ")";
  }
  return s.str();
}

// ---- The host reference ------------------------------------------------------------

// gpusort's documented order of arithmetic keys (keys.cuh's reference_less), either way.
template <class Key>
struct reference_order {
  bool descending;
  bool operator()(const Key& a, const Key& b) const {
    return descending ? reference_less(b, a) : reference_less(a, b);
  }
};

// The input positions in std::stable_sort's order.
template <class Key, class Less>
std::vector<std::uint32_t> stable_order(const std::vector<Key>& keys, Less less) {
  EXPECT_LE(keys.size(), std::size_t(std::numeric_limits<std::uint32_t>::max()));
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return less(keys[a], keys[b]); });
  return order;
}

template <class Key>
std::vector<Key> gather(const std::vector<Key>& keys, const std::vector<std::uint32_t>& order) {
  std::vector<Key> gathered(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) gathered[i] = keys[order[i]];
  return gathered;
}

template <class Key, class Less>
std::vector<Key> reference_sorted_by(std::vector<Key> keys, Less less) {
  std::stable_sort(keys.begin(), keys.end(), less);
  return keys;
}

template <class Key>
std::vector<Key> reference_sorted(std::vector<Key> keys, bool descending) {
  return reference_sorted_by(std::move(keys), reference_order<Key>{descending});
}

// ---- Checks -------------------------------------------------------------------------

// Bit for bit (what a stable sort must give).
template <class Key>
void expect_same_bits(const std::vector<Key>& actual, const std::vector<Key>& expected,
                      const char* what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (!same_bytes(actual[i], expected[i])) {
      ADD_FAILURE() << what << " differ first at index " << i << ": got " << key_text(actual[i])
                    << ", expected " << key_text(expected[i]);
      return;
    }
  }
}

// In order: every key is equivalent (neither precedes the other) to std::stable_sort's key
// at the same index. Says whether it is.
template <class Key, class Less>
bool expect_equivalent_at_each_index(const std::vector<Key>& actual,
                                     const std::vector<Key>& expected, Less less,
                                     const char* what) {
  if (actual.size() != expected.size()) {
    ADD_FAILURE() << what << ": " << actual.size() << " of them, expected " << expected.size();
    return false;
  }
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (less(actual[i], expected[i]) || less(expected[i], actual[i])) {
      ADD_FAILURE() << what << " out of order first at index " << i << ": got "
                    << key_text(actual[i]) << ", expected a key equivalent to "
                    << key_text(expected[i]);
      return false;
    }
  }
  return true;
}

// A sorted permutation (what an unstable sort must give): in order, and each run of
// equivalent keys holds exactly the input's keys of that run, bit for bit, in any order.
template <class Key, class Less>
void expect_sorted_permutation(const std::vector<Key>& actual, const std::vector<Key>& expected,
                               Less less, const char* what) {
  if (!expect_equivalent_at_each_index(actual, expected, less, what)) return;
  std::size_t begin = 0;
  while (begin < expected.size()) {
    std::size_t end = begin + 1;  // expected is sorted: the run ends at the first greater key
    while (end < expected.size() && !less(expected[begin], expected[end])) ++end;
    if (end - begin == 1) {
      if (!same_bytes(actual[begin], expected[begin])) {
        ADD_FAILURE() << what << " differ first at index " << begin << ": got "
                      << key_text(actual[begin]) << ", expected " << key_text(expected[begin])
                      << " (the only key of its equivalence class)";
        return;
      }
      begin = end;
      continue;
    }
    std::vector<Key> got(actual.begin() + begin, actual.begin() + end);
    std::vector<Key> want(expected.begin() + begin, expected.begin() + end);
    std::sort(got.begin(), got.end(), bytes_less<Key>);
    std::sort(want.begin(), want.end(), bytes_less<Key>);
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (!same_bytes(got[i], want[i])) {
        ADD_FAILURE() << what << " [" << begin << ", " << end
                      << ") are equivalent but not the input's keys of that run: "
                      << key_text(got[i]) << " where the input has " << key_text(want[i])
                      << " (compared in byte order)";
        return;
      }
    }
    begin = end;
  }
}

// Values that were input positions: each appears once, and each still names its key
// (sorted_keys[i] is input_keys[values[i]], bit for bit).
template <class Key>
void expect_values_name_their_keys(const std::vector<Key>& sorted_keys,
                                   const std::vector<std::uint32_t>& values,
                                   const std::vector<Key>& input_keys) {
  ASSERT_EQ(values.size(), sorted_keys.size());
  ASSERT_EQ(values.size(), input_keys.size());
  std::vector<bool> seen(values.size(), false);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint32_t v = values[i];
    ASSERT_LT(v, values.size()) << "value at index " << i << " is no input position";
    ASSERT_FALSE(seen[v]) << "value " << v << " appears twice, the second time at index " << i;
    seen[v] = true;
    ASSERT_TRUE(same_bytes(sorted_keys[i], input_keys[v]))
        << "value at index " << i << " is " << v << ", whose key is " << key_text(input_keys[v])
        << ", but the key at index " << i << " is " << key_text(sorted_keys[i]);
  }
}

inline void expect_same_values(const std::vector<std::uint32_t>& actual,
                               const std::vector<std::uint32_t>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  const auto mismatch = std::mismatch(actual.begin(), actual.end(), expected.begin());
  EXPECT_TRUE(mismatch.first == actual.end())
      << "values differ first at index " << (mismatch.first - actual.begin()) << ": got "
      << *mismatch.first << ", expected " << *mismatch.second;
}

// ---- One sort call, checked ---------------------------------------------------------

enum class guarantee { stable, unstable };

// std::stable_sort's result for one input, computed once however many calls it checks.
template <class Key>
struct stable_reference {
  std::vector<std::uint32_t> order;  // input positions in sorted order
  std::vector<Key> keys;             // the input's keys in that order
};

template <class Key, class Less>
stable_reference<Key> stable_reference_of(const std::vector<Key>& keys, Less less) {
  std::vector<std::uint32_t> order = stable_order(keys, less);
  std::vector<Key> sorted = gather(keys, order);
  return {std::move(order), std::move(sorted)};
}

// Keys only, through gpusort::stable_sort (StableCall) or gpusort::sort; `expected` is
// std::stable_sort's result.
template <bool StableCall, class Policy, class Key, class Compare, class Less>
void expect_sorts_keys_by(const Policy& policy, const std::vector<Key>& keys,
                          const std::vector<Key>& expected, Compare comp, Less less,
                          guarantee promised) {
  device_array<Key> device(keys);
  if constexpr (StableCall)
    gpusort::stable_sort(policy, device.begin(), device.end(), comp);
  else
    gpusort::sort(policy, device.begin(), device.end(), comp);
  if (promised == guarantee::stable)
    expect_same_bits(device.to_host(), expected, "keys");
  else
    expect_sorted_permutation(device.to_host(), expected, less, "keys");
}

template <bool StableCall, class Policy, class Key, class Compare, class Less>
void expect_sorts_keys_by(const Policy& policy, const std::vector<Key>& keys, Compare comp,
                          Less less, guarantee promised) {
  expect_sorts_keys_by<StableCall>(policy, keys, reference_sorted_by(keys, less), comp, less,
                                   promised);
}

// Pairs with index payloads (value = input position), through gpusort::stable_sort_by_key
// (StableCall) or gpusort::sort_by_key: the values prove stability and that every key
// moved with its own value.
template <bool StableCall, class Policy, class Key, class Compare, class Less>
void expect_sorts_pairs_by(const Policy& policy, const std::vector<Key>& keys,
                           const stable_reference<Key>& expected, Compare comp, Less less,
                           guarantee promised) {
  std::vector<std::uint32_t> positions(keys.size());
  std::iota(positions.begin(), positions.end(), 0u);
  device_array<Key> device_keys(keys);
  device_array<std::uint32_t> device_values(positions);
  if constexpr (StableCall)
    gpusort::stable_sort_by_key(policy, device_keys.begin(), device_keys.end(),
                                device_values.begin(), comp);
  else
    gpusort::sort_by_key(policy, device_keys.begin(), device_keys.end(), device_values.begin(),
                         comp);
  const std::vector<Key> sorted_keys = device_keys.to_host();
  const std::vector<std::uint32_t> values = device_values.to_host();
  if (promised == guarantee::stable) {
    expect_same_bits(sorted_keys, expected.keys, "keys");
    expect_same_values(values, expected.order);
  } else {
    expect_equivalent_at_each_index(sorted_keys, expected.keys, less, "keys");
    expect_values_name_their_keys(sorted_keys, values, keys);
  }
}

template <bool StableCall, class Policy, class Key, class Compare, class Less>
void expect_sorts_pairs_by(const Policy& policy, const std::vector<Key>& keys, Compare comp,
                           Less less, guarantee promised) {
  expect_sorts_pairs_by<StableCall>(policy, keys, stable_reference_of(keys, less), comp, less,
                                    promised);
}

// ---- The radix family's sweeps (arithmetic keys, gpusort::less<> / greater<>) -------

// Keys only. The radix family is stable, so even gpusort::sort must give the exact bits
// of std::stable_sort (-0.0 and +0.0 in input order, NaN payloads kept).
template <class Key, class Policy>
void expect_sorts_keys(const Policy& policy, std::size_t n, distribution d, bool descending,
                       std::uint64_t seed) {
  SCOPED_TRACE(describe<Key>(n, d, descending, seed));
  const std::vector<Key> keys = make_keys<Key>(n, d, seed);
  if (descending)
    expect_sorts_keys_by<false>(policy, keys, gpusort::greater<>{}, reference_order<Key>{true},
                                guarantee::stable);
  else
    expect_sorts_keys_by<false>(policy, keys, gpusort::less<>{}, reference_order<Key>{false},
                                guarantee::stable);
}

template <class Key, class Policy>
void expect_sorts_pairs(const Policy& policy, std::size_t n, distribution d, bool descending,
                        std::uint64_t seed) {
  SCOPED_TRACE(describe<Key>(n, d, descending, seed));
  const std::vector<Key> keys = make_keys<Key>(n, d, seed);
  if (descending)
    expect_sorts_pairs_by<true>(policy, keys, gpusort::greater<>{}, reference_order<Key>{true},
                                guarantee::stable);
  else
    expect_sorts_pairs_by<true>(policy, keys, gpusort::less<>{}, reference_order<Key>{false},
                                guarantee::stable);
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
