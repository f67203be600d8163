// Radix key traits on the host: the encoding is a bijection, and sort_bits orders keys
// exactly as the documented order does (NaNs last whatever their sign, -0.0 == +0.0).
#include "../support/keys.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace gpusort::test {
namespace {

// After sorting `keys` by the reference order, neighbours must compare the same way by
// sort bits: reference-less <=> fewer bits, reference-equal <=> equal bits. Together with
// transitivity this makes the two orders identical on the set.
template <class Key>
void expect_sort_bits_follow_documented_order(std::vector<Key> keys) {
  using traits = radix_key_traits<Key>;
  std::stable_sort(keys.begin(), keys.end(), reference_less<Key>);
  for (std::size_t i = 1; i < keys.size(); ++i) {
    const Key a = keys[i - 1], b = keys[i];
    const bool less = reference_less(a, b);
    const auto bits_a = traits::sort_bits(a), bits_b = traits::sort_bits(b);
    if (less ? !(bits_a < bits_b) : bits_a != bits_b) {
      FAIL() << "keys " << to_double(a) << " (bits " << std::hex << +bits_of(a) << ") and "
             << to_double(b) << " (bits " << +bits_of(b) << ") are "
             << (less ? "ordered" : "equivalent") << " but their sort bits are " << +bits_a
             << " and " << +bits_b;
    }
  }
}

template <class Key>
void expect_encode_round_trips(const std::vector<Key>& keys) {
  using traits = radix_key_traits<Key>;
  for (Key k : keys)
    ASSERT_EQ(bits_of(traits::decode(traits::encode(k))), bits_of(k)) << to_double(k);
}

template <class Key>
void expect_traits_hold(const std::vector<Key>& keys) {
  expect_encode_round_trips(keys);
  expect_sort_bits_follow_documented_order(keys);
}

// canonicalised(k) must hold wherever sort_bits and the encoding differ (the radix sort then
// takes its digits from sort bits), and only for -0.0 and NaNs (else ordinary data would
// lose the fast way).
template <class Key>
void expect_canonicalised_marks_exactly_zeros_and_nans(const std::vector<Key>& keys) {
  using traits = radix_key_traits<Key>;
  for (Key k : keys) {
    const double value = to_double(k);
    const bool negative_zero_or_nan = value != value || (value == 0 && std::signbit(value));
    ASSERT_EQ(traits::canonicalised(k), negative_zero_or_nan) << std::hex << +bits_of(k);
    if (traits::sort_bits(k) != traits::encode(k))
      ASSERT_TRUE(traits::canonicalised(k)) << std::hex << +bits_of(k);
  }
}

template <class Key>
std::vector<Key> all_patterns() {
  std::vector<Key> keys;
  for (std::uint32_t b = 0; b < (1u << (8 * sizeof(Key))); ++b)
    keys.push_back(from_bits<Key>(same_size_bits_t<Key>(b)));
  return keys;
}

// Random patterns (all of them, NaNs included) plus every edge a float format has.
template <class Key>
std::vector<Key> random_and_edge_patterns() {
  std::mt19937_64 rng(2024);
  std::vector<Key> keys;
  for (int i = 0; i < 200000; ++i) keys.push_back(from_bits<Key>(same_size_bits_t<Key>(rng())));
  for (int i = 0; i < 20000; ++i) keys.push_back(special_float<Key>(rng));
  for (int i = 0; i < 20000; ++i) keys.push_back(random_key<Key>(rng));
  using limits = std::numeric_limits<Key>;
  for (Key k : {Key(0), -Key(0), limits::infinity(), -limits::infinity(), limits::quiet_NaN(),
                -limits::quiet_NaN(), limits::signaling_NaN(), limits::denorm_min(),
                -limits::denorm_min(), limits::min(), -limits::min(), limits::max(),
                limits::lowest(), Key(1), Key(-1)})
    keys.push_back(k);
  // The NaNs at either end of each sign's block: every bit set, and the smallest payloads.
  using bits_t = same_size_bits_t<Key>;
  const bits_t sign = bits_t(bits_t(1) << (8 * sizeof(Key) - 1));
  const bits_t infinity = bits_of(limits::infinity());
  for (bits_t b : {bits_t(~bits_t(0)), bits_t(~sign), bits_t(sign | infinity | 1),
                   bits_t(infinity | 1)})
    keys.push_back(from_bits<Key>(b));
  return keys;
}

template <class Key>
std::vector<Key> random_and_edge_integers() {
  std::mt19937_64 rng(7);
  std::vector<Key> keys;
  for (int i = 0; i < 200000; ++i) keys.push_back(from_bits<Key>(same_size_bits_t<Key>(rng())));
  using limits = std::numeric_limits<Key>;
  for (Key k : {limits::min(), limits::max(), Key(0), Key(1), Key(limits::max() - 1),
                Key(limits::min() + 1)})
    keys.push_back(k);
  return keys;
}

TEST(KeyTraits, SixteenBitTypesExhaustively) {
  expect_traits_hold(all_patterns<std::uint16_t>());
  expect_traits_hold(all_patterns<std::int16_t>());
  expect_traits_hold(all_patterns<__half>());
  expect_traits_hold(all_patterns<__nv_bfloat16>());
}

TEST(KeyTraits, EightBitTypesExhaustively) {
  expect_traits_hold(all_patterns<std::uint8_t>());
  expect_traits_hold(all_patterns<std::int8_t>());
  expect_sort_bits_follow_documented_order(all_patterns<char>());
}

TEST(KeyTraits, CanonicalisedMarksNegativeZeroAndNaNs) {
  expect_canonicalised_marks_exactly_zeros_and_nans(all_patterns<__half>());
  expect_canonicalised_marks_exactly_zeros_and_nans(all_patterns<__nv_bfloat16>());
  expect_canonicalised_marks_exactly_zeros_and_nans(random_and_edge_patterns<float>());
  expect_canonicalised_marks_exactly_zeros_and_nans(random_and_edge_patterns<double>());
}

TEST(KeyTraits, FloatsRandomAndEdgeValues) {
  expect_traits_hold(random_and_edge_patterns<float>());
  expect_traits_hold(random_and_edge_patterns<double>());
}

TEST(KeyTraits, WideIntegersRandomAndEdgeValues) {
  expect_traits_hold(random_and_edge_integers<std::uint32_t>());
  expect_traits_hold(random_and_edge_integers<std::int32_t>());
  expect_traits_hold(random_and_edge_integers<std::uint64_t>());
  expect_traits_hold(random_and_edge_integers<std::int64_t>());
}

// radix_order_less (par's merge strategy) orders every pair as the sort bits do, ascending
// and descending: pairs of neighbours in a shuffled list of random and edge keys.
template <class Key>
void expect_radix_order_less_follows_the_sort_bits(std::vector<Key> keys) {
  std::shuffle(keys.begin(), keys.end(), std::mt19937_64(11));
  using namespace gpusort::backends;
  for (bool descending : {false, true}) {
    const ordered_bits_less<Key> by_bits{order_flip<Key>(descending)};
    for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
      const Key a = keys[i], b = keys[i + 1];
      const bool less = descending ? radix_order_less<Key, true>{}(a, b)
                                   : radix_order_less<Key, false>{}(a, b);
      ASSERT_EQ(less, by_bits(a, b)) << "descending " << descending << " at " << i;
    }
  }
}

TEST(KeyTraits, RadixOrderLessFollowsTheSortBits) {
  expect_radix_order_less_follows_the_sort_bits(random_and_edge_patterns<float>());
  expect_radix_order_less_follows_the_sort_bits(random_and_edge_patterns<double>());
  expect_radix_order_less_follows_the_sort_bits(random_and_edge_integers<std::int64_t>());
  expect_radix_order_less_follows_the_sort_bits(random_and_edge_integers<std::uint64_t>());
  expect_radix_order_less_follows_the_sort_bits(all_patterns<std::int8_t>());
}

// refined_bits (the words that bucket_bitonic's networks sort and decode): sorted by them,
// keys never step down in ordered bits (so the order refines the ordered bits' and keeps
// equal ordered bits adjacent), and every key decodes back bit for bit; both orders.
template <class Key>
void expect_refined_bits_refine_the_ordered_bits(std::vector<Key> keys) {
  using namespace gpusort::backends;
  for (bool descending : {false, true}) {
    const auto flip = order_flip<Key>(descending);
    std::sort(keys.begin(), keys.end(),
              [&](Key a, Key b) { return refined_bits(a, flip) < refined_bits(b, flip); });
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(bits_of(key_of_refined_bits<Key>(refined_bits(keys[i], flip), flip)),
                bits_of(keys[i]))
          << i << (descending ? " descending" : "");
      if (i > 0)
        ASSERT_LE(ordered_bits(keys[i - 1], flip), ordered_bits(keys[i], flip))
            << i << (descending ? " descending" : "");
    }
  }
}

TEST(KeyTraits, RefinedBitsAreABijectionThatRefinesTheOrderedBits) {
  expect_refined_bits_refine_the_ordered_bits(random_and_edge_patterns<float>());
  expect_refined_bits_refine_the_ordered_bits(random_and_edge_patterns<double>());
  expect_refined_bits_refine_the_ordered_bits(random_and_edge_integers<std::int64_t>());
  expect_refined_bits_refine_the_ordered_bits(all_patterns<std::int8_t>());
}

// gpusort::less<> and greater<> on floats order as the radix sort does (NaNs of either sign
// after +inf, -0.0 equal to +0.0): every ordered pair of edge and random patterns.
template <class Key>
void expect_less_and_greater_follow_the_radix_order(const std::vector<Key>& keys) {
  using namespace gpusort::backends;
  // Each key against the edge values (the last ones) and a sample of the rest, both ways.
  std::vector<Key> partners(keys.end() - 40, keys.end());
  for (std::size_t j = 0; j < keys.size(); j += 4099) partners.push_back(keys[j]);
  for (std::size_t i = 0; i < keys.size(); ++i)
    for (const Key b : partners)
      for (const auto& [x, y] : {std::pair{keys[i], b}, std::pair{b, keys[i]}}) {
        ASSERT_EQ(gpusort::less<>{}(x, y), (radix_order_less<Key, false>{}(x, y))) << i;
        ASSERT_EQ(gpusort::greater<>{}(x, y), (radix_order_less<Key, true>{}(x, y))) << i;
      }
}

TEST(KeyTraits, LessAndGreaterOnFloatsFollowTheRadixOrder) {
  expect_less_and_greater_follow_the_radix_order(random_and_edge_patterns<float>());
  expect_less_and_greater_follow_the_radix_order(random_and_edge_patterns<double>());
}

TEST(KeyTraits, NaNsSortLastWhateverTheirSign) {
  using traits = radix_key_traits<float>;
  const float positive_nan = from_bits<float>(0x7fc00001u);
  const float negative_nan = from_bits<float>(0xffc00000u);
  const float infinity = std::numeric_limits<float>::infinity();
  EXPECT_GT(traits::sort_bits(positive_nan), traits::sort_bits(infinity));
  EXPECT_GT(traits::sort_bits(negative_nan), traits::sort_bits(infinity));
  EXPECT_EQ(traits::sort_bits(positive_nan), traits::sort_bits(negative_nan));
}

TEST(KeyTraits, SignedZerosAreEqualButKeepTheirBits) {
  using traits = radix_key_traits<double>;
  EXPECT_EQ(traits::sort_bits(-0.0), traits::sort_bits(0.0));
  EXPECT_NE(traits::encode(-0.0), traits::encode(0.0));  // encode itself is a bijection
  EXPECT_EQ(bits_of(traits::decode(traits::encode(-0.0))), bits_of(-0.0));
}

TEST(KeyTraits, BoolHasOneSignificantBit) {
  using traits = radix_key_traits<bool>;
  EXPECT_EQ(traits::bits, 1);
  EXPECT_LT(traits::sort_bits(false), traits::sort_bits(true));
  EXPECT_EQ(traits::decode(traits::encode(true)), true);
}

struct cell_depth {
  std::uint16_t cell;
  float depth;
  int not_part_of_the_key;
};

}  // namespace
}  // namespace gpusort::test

template <>
struct gpusort::radix_key_traits<gpusort::test::cell_depth>
    : gpusort::radix_members<&gpusort::test::cell_depth::cell, &gpusort::test::cell_depth::depth> {};

namespace gpusort::test {
namespace {

TEST(KeyTraits, MembersComposeMostSignificantFirst) {
  using traits = radix_key_traits<cell_depth>;
  static_assert(traits::bits == 48);
  static_assert(std::is_same_v<traits::bits_type, std::uint64_t>);
  const cell_depth low_cell_deep{1, 1e30f, 0}, high_cell_shallow{2, -1e30f, 0};
  EXPECT_LT(traits::sort_bits(low_cell_deep), traits::sort_bits(high_cell_shallow));
  const cell_depth a{5, -1.5f, 1}, b{5, 2.0f, 0};
  EXPECT_LT(traits::sort_bits(a), traits::sort_bits(b));
  const cell_depth same_key_other_payload{5, -1.5f, 99};
  EXPECT_EQ(traits::sort_bits(a), traits::sort_bits(same_key_other_payload));
  EXPECT_EQ(traits::sort_bits(cell_depth{3, -0.0f, 0}), traits::sort_bits(cell_depth{3, 0.0f, 0}));
}

}  // namespace
}  // namespace gpusort::test
