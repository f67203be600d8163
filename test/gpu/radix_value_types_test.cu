// Values of every width ride with their keys through the radix passes: each value is written
// at its key's place in the values' buffer, whether the values are staged beside the keys
// (pairs of narrow integer keys and small values) or take the keys' place in the exchange
// (the rest: their digits kept in registers, or in shared memory for float keys).
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace gpusort::test {

// A 16-byte value whose every field tells where it came from.
struct tagged_value {
  std::uint64_t index;
  std::uint32_t check;
  std::uint16_t low;
  std::uint16_t high;
  bool operator==(const tagged_value& other) const {
    return index == other.index && check == other.check && low == other.low &&
           high == other.high;
  }
};

// The value of input position i: distinct for every i the value type can tell apart.
template <class Value>
Value value_of(std::size_t i) {
  if constexpr (std::is_same_v<Value, tagged_value>)
    return {i, std::uint32_t(i * 2654435761u), std::uint16_t(i), std::uint16_t(i >> 16)};
  else if constexpr (std::is_floating_point_v<Value>)
    return Value(i) + Value(0.5);
  else
    return Value(i * 0x9e3779b97f4a7c15ull >> 7);
}

template <class Key, class Value, class Policy>
void expect_values_follow_keys(const Policy& policy, std::size_t n, bool descending) {
  SCOPED_TRACE(describe<Key>(n, distribution::uniform, descending, n));
  const std::vector<Key> keys = make_keys<Key>(n, distribution::uniform, n + 5);
  std::vector<Value> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = value_of<Value>(i);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return descending ? keys[b] < keys[a] : keys[a] < keys[b];
  });
  device_array<Key> device_keys(keys);
  device_array<Value> device_values(values);
  if (descending)
    gpusort::stable_sort_by_key(policy, device_keys.begin(), device_keys.end(),
                                device_values.begin(), gpusort::greater<>{});
  else
    gpusort::stable_sort_by_key(policy, device_keys.begin(), device_keys.end(),
                                device_values.begin());
  const std::vector<Key> sorted_keys = device_keys.to_host();
  const std::vector<Value> sorted_values = device_values.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(sorted_keys[i], keys[order[i]]) << "key at " << i;
    ASSERT_TRUE(sorted_values[i] == values[order[i]]) << "value at " << i;
  }
}

// Sizes across the one-sweep tile of every shape (partial last tiles, several tiles, more
// tiles than the resident blocks); par's sizes reach its mid tiles for 8-byte pairs.
inline std::vector<std::size_t> value_sizes() {
  return capped({1, 2, 4095, 4097, 6529, 7297, 65521, 300007, 1000003});
}

template <class Key, class Value>
void expect_radix_and_par_keep_values(std::vector<std::size_t> par_sizes = {}) {
  for (std::size_t n : value_sizes())
    for (bool descending : {false, true}) {
      expect_values_follow_keys<Key, Value>(gpusort::radix, n, descending);
      if (::testing::Test::HasFailure()) return;
    }
  for (std::size_t n : capped(par_sizes)) {
    expect_values_follow_keys<Key, Value>(gpusort::par, n, false);
    if (::testing::Test::HasFailure()) return;
  }
}

class RadixValueTypes : public GpuTest {};

// Values in the keys' place, digits in registers.
TEST_F(RadixValueTypes, EightByteKeysWithEightByteValues) {
  expect_radix_and_par_keep_values<std::uint64_t, std::uint64_t>({2097153, 3000001});
}

TEST_F(RadixValueTypes, FourByteKeysWithEightByteValues) {
  expect_radix_and_par_keep_values<std::int32_t, double>();
}

TEST_F(RadixValueTypes, EightByteKeysWithOneByteValues) {
  expect_radix_and_par_keep_values<std::int64_t, std::uint8_t>({2097153});
}

TEST_F(RadixValueTypes, TwoByteKeysWithSixteenByteValues) {
  expect_radix_and_par_keep_values<std::uint16_t, tagged_value>();
}

// Float keys: digits from sort bits, kept in shared memory for the keys' scatter.
TEST_F(RadixValueTypes, FloatKeysWithTwoByteValues) {
  expect_radix_and_par_keep_values<float, std::uint16_t>();
}

// Values beside the keys, written at their keys' offsets.
TEST_F(RadixValueTypes, FourByteKeysWithOneByteValuesBesideThem) {
  expect_radix_and_par_keep_values<std::uint32_t, std::uint8_t>({3000001});
}

}  // namespace gpusort::test
