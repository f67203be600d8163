#include "radix_sort_tests.cuh"

#include <cstdint>
#include <random>
#include <vector>

namespace gpusort::test {

using CharacterKeys = ::testing::Types<char, wchar_t, char16_t>;
INSTANTIATE_TYPED_TEST_SUITE_P(Character, RadixSort, CharacterKeys);

// bool keys live in bytes here: std::vector<bool> has no contiguous storage.
class BoolKeys : public GpuTest {};

TEST_F(BoolKeys, FalseBeforeTrueStablyInBothOrders) {
  for (std::size_t n : edge_sizes()) {
    std::mt19937_64 rng(n);
    std::vector<std::uint8_t> bytes(n);
    for (auto& b : bytes) b = std::uint8_t(rng() & 1);
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    for (bool descending : {false, true}) {
      SCOPED_TRACE(describe<bool>(n, distribution::uniform, descending, n));
      device_array<std::uint8_t> keys(bytes);
      device_array<std::uint32_t> values(order);
      bool* first = reinterpret_cast<bool*>(keys.begin());
      if (descending)
        gpusort::stable_sort_by_key(gpusort::radix, first, first + n, values.begin(), gpusort::greater<>{});
      else
        gpusort::stable_sort_by_key(gpusort::par, first, first + n, values.begin());
      std::vector<std::uint32_t> expected = order;
      std::stable_sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) {
        return descending ? bytes[a] > bytes[b] : bytes[a] < bytes[b];
      });
      EXPECT_EQ(values.to_host(), expected);
      const auto sorted = keys.to_host();
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], bytes[expected[i]]) << "at " << i;
    }
  }
}

}  // namespace gpusort::test
