// What a sort call must give, checked on the host against std::stable_sort. Each check
// returns "" when it holds, else a short description of the first difference (index,
// expected and actual), so that a standalone program can count failures: the fuzzer's
// counterparts of test/support/sort_checks.cuh's gtest assertions.
#pragma once

#include "../support/keys.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace gpusort::fuzz {

// ---- Keys: the order, bytes, and how a failure shows them ----------------------------

// gpusort's documented order (keys.cuh's reference_less: NaNs last, -0.0 == +0.0), or its
// reverse for a descending sort (NaNs first), as test/support's reference_order.
template <class Key>
struct reference_order {
  bool descending;
  bool operator()(const Key& a, const Key& b) const {
    return descending ? test::reference_less(b, a) : test::reference_less(a, b);
  }
};

template <class T>
bool same_bytes(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// A key as a number and its bits ("nan (bits 7fc00001)", "-0 (bits 8000)").
template <class Key>
std::string key_text(const Key& key) {
  std::ostringstream s;
  s << std::setprecision(std::numeric_limits<double>::max_digits10) << test::to_double(key)
    << " (bits " << std::hex << +test::bits_of(key) << ")";
  return s.str();
}

// ---- Values: input positions, recognisably -------------------------------------------

// A u32 value is its key's input position. A u64 value is the position in both halves
// (position * 0x100000001): a backend that moves 4 of its 8 bytes, or halves of two
// values, leaves halves that disagree.
template <class Value>
Value value_of_position(std::size_t position) {
  if constexpr (sizeof(Value) == 8) return Value(std::uint64_t(position) * 0x100000001ull);
  else return Value(position);
}

// The position a value names; false where it names none (halves that disagree).
template <class Value>
bool position_of_value(Value value, std::uint64_t& position) {
  if constexpr (sizeof(Value) == 8) {
    position = std::uint64_t(value) & 0xFFFFFFFFull;
    return (std::uint64_t(value) >> 32) == position;
  } else {
    position = std::uint64_t(value);
    return true;
  }
}

template <class Value>
std::string value_text(Value value) {
  std::ostringstream s;
  std::uint64_t position = 0;
  if (position_of_value(value, position)) s << "position " << position;
  else s << "no position";
  if constexpr (sizeof(Value) == 8) s << " (0x" << std::hex << std::uint64_t(value) << ")";
  return s.str();
}

// ---- The reference -------------------------------------------------------------------

// Input positions in std::stable_sort's order. Sorts (key, position) pairs rather than
// positions that look their keys up: the same order, several times faster at 2^22 keys.
// Floating-point keys are compared as doubles, as reference_less does anyway.
template <class Key>
std::vector<std::uint32_t> stable_order(const std::vector<Key>& keys, reference_order<Key> less) {
  using compared_t = std::conditional_t<test::is_float_like_v<Key>, double, Key>;
  struct keyed {
    compared_t key;
    std::uint32_t position;
  };
  std::vector<keyed> pairs(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if constexpr (test::is_float_like_v<Key>)
      pairs[i] = {test::to_double(keys[i]), std::uint32_t(i)};
    else
      pairs[i] = {keys[i], std::uint32_t(i)};
  }
  const reference_order<compared_t> compared_less{less.descending};
  std::stable_sort(pairs.begin(), pairs.end(),
                   [&](const keyed& a, const keyed& b) { return compared_less(a.key, b.key); });
  std::vector<std::uint32_t> order(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) order[i] = pairs[i].position;
  return order;
}

// ---- Checks --------------------------------------------------------------------------

// Guard elements around [offset, offset + n) of a buffer: untouched, byte for byte.
template <class T>
std::string check_guards(const char* what, const std::vector<T>& after_sort,
                         const std::vector<T>& before_sort, std::size_t offset, std::size_t n) {
  for (std::size_t i = 0; i < after_sort.size(); ++i) {
    if (i >= offset && i < offset + n) continue;
    if (!same_bytes(after_sort[i], before_sort[i])) {
      std::ostringstream s;
      s << what << " guard " << (i < offset ? "before" : "after") << " the range changed at "
        << "buffer index " << i << " (range [" << offset << ", " << offset + n << ")): bytes 0x"
        << std::hex << +test::bits_of(after_sort[i]) << ", were 0x"
        << +test::bits_of(before_sort[i]);
      return s.str();
    }
  }
  return "";
}

// Bit for bit std::stable_sort's keys: what stable calls and the radix family must give.
template <class Key>
std::string check_same_key_bits(const std::vector<Key>& actual, const std::vector<Key>& expected) {
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!same_bytes(actual[i], expected[i]))
      return "keys differ from std::stable_sort's first at index " + std::to_string(i) +
             ": got " + key_text(actual[i]) + ", expected " + key_text(expected[i]);
  return "";
}

// In order: each key equivalent (neither precedes the other) to std::stable_sort's key at
// the same index.
template <class Key>
std::string check_equivalent_keys(const std::vector<Key>& actual, const std::vector<Key>& expected,
                                  reference_order<Key> less) {
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (less(actual[i], expected[i]) || less(expected[i], actual[i]))
      return "keys out of order first at index " + std::to_string(i) + ": got " +
             key_text(actual[i]) + ", expected a key equivalent to " + key_text(expected[i]);
  return "";
}

// The output keys are the input keys, as bytes, in any order (an unstable sort may reorder
// -0.0 and +0.0, or NaNs of different payloads, but must not change one). Compared as
// sorted bit patterns.
template <class Key>
std::string check_same_key_bytes(const std::vector<Key>& actual, const std::vector<Key>& input) {
  using bits_t = test::same_size_bits_t<Key>;
  std::vector<bits_t> got(actual.size()), want(input.size());
  std::transform(actual.begin(), actual.end(), got.begin(), test::bits_of<Key>);
  std::transform(input.begin(), input.end(), want.begin(), test::bits_of<Key>);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i])
      return "the output keys are not the input's keys: in bit-pattern order, the output has " +
             key_text(test::from_bits<Key>(got[i])) + " where the input has " +
             key_text(test::from_bits<Key>(want[i])) + " (sorted index " + std::to_string(i) +
             ")";
  return "";
}

// Exactly std::stable_sort's order of positions.
template <class Value>
std::string check_stable_values(const std::vector<Value>& values,
                                const std::vector<std::uint32_t>& expected_order) {
  for (std::size_t i = 0; i < expected_order.size(); ++i) {
    std::uint64_t position = 0;
    if (!position_of_value(values[i], position) || position != expected_order[i])
      return "values differ from std::stable_sort's order first at index " + std::to_string(i) +
             ": got " + value_text(values[i]) + ", expected position " +
             std::to_string(expected_order[i]);
  }
  return "";
}

// Each position once, and each value next to the key it came with (bit for bit).
template <class Key, class Value>
std::string check_values_name_their_keys(const std::vector<Key>& sorted_keys,
                                         const std::vector<Value>& values,
                                         const std::vector<Key>& input_keys) {
  std::vector<bool> seen(input_keys.size(), false);
  for (std::size_t i = 0; i < input_keys.size(); ++i) {
    std::uint64_t position = 0;
    const std::string at = "value at index " + std::to_string(i);
    if (!position_of_value(values[i], position) || position >= input_keys.size())
      return at + " is no input position: " + value_text(values[i]);
    if (seen[position])
      return at + " is " + value_text(values[i]) + ", which an earlier value also names";
    seen[position] = true;
    if (!same_bytes(sorted_keys[i], input_keys[position]))
      return at + " is " + value_text(values[i]) + ", whose key is " +
             key_text(input_keys[position]) + ", but the key at index " + std::to_string(i) +
             " is " + key_text(sorted_keys[i]);
  }
  return "";
}

}  // namespace gpusort::fuzz
