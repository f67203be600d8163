// The radix backend's sorting network for the smallest inputs of 32-bit keys, with values or
// without (backends/radix/network_*.cuh), checked bit for bit against std::stable_sort in the
// radix order: through a policy that hands every request to the network (a test fails where
// the network declines one), in the shipped tilings and in narrow ones whose clusters exchange
// through shared memory and across blocks from a few hundred positions; and through
// gpusort::par, which takes the network up to 8192 keys (pairs: 2048, 4096 on the H200).
#include "../support/device_vector.cuh"
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/detail/backends/radix/network_dispatch.cuh>
#include <gpusort/detail/device_facts.cuh>
#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace gpusort::test {

// A policy whose backend is the network alone.
template <class NetworkTiling>
struct network_only_policy : gpusort::execution_policy<network_only_policy<NetworkTiling>> {};

template <class NetworkTiling, class K, class V, class C, bool S>
void backend_sort(const network_only_policy<NetworkTiling>&,
                  const gpusort::sort_request<K, V, C, S>& request) {
  if (!gpusort::backends::radix::sort_by_network_if_small<NetworkTiling>(request))
    ADD_FAILURE() << "the network declined " << request.count << " keys";
}

namespace {

// 64 x 4 keys per block, up to 8 blocks: steps by shuffles below 128, through shared memory
// at 128, across the cluster's blocks from 256, n up to 2048.
struct narrow_network_tiling {
  static constexpr gpusort::network_knobs knobs{64, 4, 8};
};

// Pairs: 64 x 2 keys per block, up to 8 blocks: through shared memory at 64, across the
// cluster's blocks from 128, n up to 1024.
struct narrow_pairs_network_tiling {
  static constexpr gpusort::network_knobs knobs{64, 2, 8};
};

template <class Tiling>
constexpr std::size_t block_keys_of() {
  return std::size_t(Tiling::knobs.block_threads) * Tiling::knobs.items_per_thread;
}

// The most keys the tiling's network takes on this GPU: one block's before sm_90.
template <class Tiling>
std::size_t network_capacity_here() {
  const bool clusters = gpusort::detail::current_device_facts().compute_major >= 9;
  return block_keys_of<Tiling>() * (clusters ? Tiling::knobs.max_cluster_blocks : 1);
}

static_assert(gpusort::backends::radix::network_sorts_v<std::uint32_t, gpusort::no_values>);
static_assert(gpusort::backends::radix::network_sorts_v<std::int32_t, gpusort::no_values>);
static_assert(gpusort::backends::radix::network_sorts_v<float, gpusort::no_values>);
static_assert(gpusort::backends::radix::network_sorts_v<std::uint32_t, std::uint32_t>);
static_assert(gpusort::backends::radix::network_sorts_v<float, std::uint64_t>);
static_assert(!gpusort::backends::radix::network_sorts_v<std::uint64_t, std::uint32_t>);
static_assert(!gpusort::backends::radix::network_sorts_v<std::uint64_t, gpusort::no_values>);
static_assert(!gpusort::backends::radix::network_sorts_v<double, gpusort::no_values>);
static_assert(!gpusort::backends::radix::network_sorts_v<std::uint16_t, gpusort::no_values>);

template <class Key>
class RadixNetwork : public GpuTest {};
using NetworkKeys = ::testing::Types<std::uint32_t, std::int32_t, float>;
TYPED_TEST_SUITE(RadixNetwork, NetworkKeys);

template <class Key, class Policy>
void sweep(const Policy& policy, const std::vector<std::size_t>& sizes, std::size_t capacity,
           bool with_values = false) {
  for (std::size_t n : capped(sizes)) {
    if (n > capacity) continue;
    for (distribution d : distributions_for<Key>())
      for (bool descending : {false, true}) {
        const std::uint64_t seed = seed_for(n, d, sizeof(Key)) + with_values;
        if (with_values)
          expect_sorts_pairs<Key>(policy, n, d, descending, seed);
        else
          expect_sorts_keys<Key>(policy, n, d, descending, seed);
        if (::testing::Test::HasFailure()) return;
      }
  }
}

TYPED_TEST(RadixNetwork, NarrowTilingMatchesStdStableSortAcrossItsSteps) {
  sweep<TypeParam>(network_only_policy<narrow_network_tiling>{},
                   {2, 3, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1000, 1023,
                    1024, 1025, 1500, 2047, 2048},
                   network_capacity_here<narrow_network_tiling>());
}

TYPED_TEST(RadixNetwork, ShippedTilingAtEachClusterSize) {
  sweep<TypeParam>(network_only_policy<gpusort::network_tiling_sm90>{},
                   {2, 1000, 1024, 1025, 2048, 2049, 3000, 4096, 4097, 6007, 8191, 8192},
                   network_capacity_here<gpusort::network_tiling_sm90>());
}

// Pairs: values are input positions, so equal keys must come out in input order (the
// network orders words of equal keys by position) and every key with its own value.
TYPED_TEST(RadixNetwork, PairsInANarrowTilingMatchStdStableSortAcrossItsSteps) {
  sweep<TypeParam>(network_only_policy<narrow_pairs_network_tiling>{},
                   {2, 3, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 700, 1023,
                    1024},
                   network_capacity_here<narrow_pairs_network_tiling>(), /*with_values=*/true);
}

TYPED_TEST(RadixNetwork, PairsInTheShippedTilingAtEachClusterSize) {
  sweep<TypeParam>(network_only_policy<gpusort::network_tiling_with_values_sm90>{},
                   {2, 300, 512, 513, 1000, 1024, 1025, 1500, 2047, 2048, 2049, 3000, 4095,
                    4096},
                   network_capacity_here<gpusort::network_tiling_with_values_sm90>(),
                   /*with_values=*/true);
}

// par takes the network up to its capacity (pairs: to its table's limit, 2048 or 4096) and
// its tables' strategies past it.
TYPED_TEST(RadixNetwork, ParSortsTheSameAcrossTheNetworksCapacity) {
  for (std::size_t n : capped({1023, 1024, 1025, 4096, 8191, 8192, 8193, 9000}))
    for (bool descending : {false, true})
      for (distribution d : {distribution::uniform, distribution::few_distinct})
        expect_sorts_keys<TypeParam>(gpusort::par, n, d, descending, 40 + n);
  for (std::size_t n : capped({511, 512, 513, 2047, 2048, 2049, 3000, 4095, 4096, 4097}))
    for (bool descending : {false, true})
      for (distribution d : {distribution::uniform, distribution::few_distinct})
        expect_sorts_pairs<TypeParam>(gpusort::par, n, d, descending, 50 + n);
}

// Values wider than the words' positions, moved whole with their keys (gathered from the
// input position each word names), through sort_by_key as well as the stable call.
TEST(RadixNetworkPairs, EightByteValuesMoveWithTheirKeys) {
  if (!gpu_present()) GTEST_SKIP() << "no CUDA GPU here";
  const std::size_t capacity = network_capacity_here<gpusort::network_tiling_with_values_sm90>();
  for (std::size_t n : capped({1, 77, 1024, 1999, 2048})) {
    if (n > capacity) continue;
    const std::vector<std::int32_t> keys =
        make_keys<std::int32_t>(n, distribution::few_distinct, n + 5);
    std::vector<std::uint64_t> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = (std::uint64_t(i) << 40) | (i * 2654435761u);
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
    for (bool stable_call : {false, true}) {
      SCOPED_TRACE("n=" + std::to_string(n) +
                   (stable_call ? " stable_sort_by_key" : " sort_by_key"));
      device_array<std::int32_t> device_keys(keys);
      device_array<std::uint64_t> device_values(values);
      const network_only_policy<gpusort::network_tiling_with_values_sm90> network;
      if (stable_call)
        gpusort::stable_sort_by_key(network, device_keys.begin(), device_keys.end(),
                                    device_values.begin());
      else
        gpusort::sort_by_key(network, device_keys.begin(), device_keys.end(),
                             device_values.begin());
      const std::vector<std::int32_t> sorted_keys = device_keys.to_host();
      const std::vector<std::uint64_t> sorted_values = device_values.to_host();
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(sorted_keys[i], keys[order[i]]) << "key at index " << i;
        ASSERT_EQ(sorted_values[i], values[order[i]]) << "value at index " << i;
      }
    }
  }
}

// Zeros of both signs and NaNs of several payloads, among ordinary keys and as the whole
// input, spread over every block of the cluster: each class keeps its input order.
TEST(RadixNetworkFloats, ZerosAndNaNsKeepTheirInputOrderInEveryBlock) {
  if (!gpu_present()) GTEST_SKIP() << "no CUDA GPU here";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float specials[] = {-0.0f, 0.0f, nan, -nan, std::nanf("7"), -std::nanf("9")};
  const std::size_t capacity = network_capacity_here<narrow_network_tiling>();
  for (std::size_t n : capped({5, 300, 1000, 2048}))
    for (int every : {1, 3, 37}) {
      if (n > capacity) continue;
      std::mt19937 random(unsigned(n * 131 + every));
      std::vector<float> keys(n);
      for (std::size_t i = 0; i < n; ++i)
        keys[i] = i % every == 0 ? specials[random() % 6]
                                 : float(int(random() % 2001) - 1000) * 0.25f;
      for (bool descending : {false, true}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " every " + std::to_string(every) +
                     (descending ? " descending" : " ascending"));
        const network_only_policy<narrow_network_tiling> network;
        const network_only_policy<narrow_pairs_network_tiling> pairs_network;
        if (descending) {
          expect_sorts_keys_by<true>(network, keys, gpusort::greater<>{},
                                     reference_order<float>{true}, guarantee::stable);
          if (n <= network_capacity_here<narrow_pairs_network_tiling>())
            expect_sorts_pairs_by<false>(pairs_network, keys, gpusort::greater<>{},
                                         reference_order<float>{true}, guarantee::stable);
        } else {
          expect_sorts_keys_by<true>(network, keys, gpusort::less<>{},
                                     reference_order<float>{false}, guarantee::stable);
          if (n <= network_capacity_here<narrow_pairs_network_tiling>())
            expect_sorts_pairs_by<false>(pairs_network, keys, gpusort::less<>{},
                                         reference_order<float>{false}, guarantee::stable);
        }
      }
    }
}

// One zero or NaN loaded by one block of the cluster whose sorted place lies in another
// block's part of the output: every block must learn that the cluster holds a class key,
// or the writing block puts the class's canonical word (+0.0, the canonical NaN) there.
TEST(RadixNetworkFloats, AClassKeyOfOneBlockIsPlacedWhereAnotherBlockWrites) {
  if (!gpu_present()) GTEST_SKIP() << "no CUDA GPU here";
  const float specials[] = {-0.0f, -std::nanf("5"), std::nanf("3")};
  const std::size_t capacity = network_capacity_here<narrow_network_tiling>();
  for (std::size_t n : capped({600, 1024, 2048})) {
    if (n > capacity) continue;
    for (std::size_t at : {std::size_t(0), n / 2, n - 1})
      for (float special : specials) {
        std::vector<float> keys(n);
        for (std::size_t i = 0; i < n; ++i) keys[i] = 1.0f + float((i * 7919) % 1000);
        keys[at] = special;
        SCOPED_TRACE("n=" + std::to_string(n) + " special at " + std::to_string(at));
        expect_sorts_keys_by<true>(network_only_policy<narrow_network_tiling>{}, keys,
                                   gpusort::less<>{}, reference_order<float>{false},
                                   guarantee::stable);
        expect_sorts_keys_by<true>(network_only_policy<narrow_network_tiling>{}, keys,
                                   gpusort::greater<>{}, reference_order<float>{true},
                                   guarantee::stable);
      }
  }
}

// A limit below the cluster's capacity declines what lies past it, untouched (par's pairs
// past their table's network_pairs_max_keys).
TEST(RadixNetworkRequests, RequestsPastTheGivenLimitAreDeclined) {
  if (!gpu_present()) GTEST_SKIP() << "no CUDA GPU here";
  const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(3000, distribution::uniform, 4);
  device_array<std::uint32_t> device(keys);
  device_array<std::uint32_t> values(keys);
  const gpusort::sort_request<std::uint32_t, std::uint32_t, gpusort::less<>, false> pairs{
      device.begin(), values.begin(), keys.size(), {}, nullptr, {}};
  using pairs_tiling = gpusort::network_tiling_with_values_sm90;
  EXPECT_FALSE(gpusort::backends::radix::sort_by_network_if_small<pairs_tiling>(pairs, 2048));
  expect_same_bits(device.to_host(), keys, "keys");
  expect_same_bits(values.to_host(), keys, "values");
}

// What the network does not take it leaves alone: more keys or pairs than a cluster holds.
TEST(RadixNetworkRequests, DeclinedRequestsLeaveTheKeysAsTheyWere) {
  if (!gpu_present()) GTEST_SKIP() << "no CUDA GPU here";
  const std::size_t n = block_keys_of<gpusort::network_tiling_sm90>() *
                            gpusort::network_tiling_sm90::knobs.max_cluster_blocks + 1;
  const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, distribution::uniform, 3);
  device_array<std::uint32_t> device(keys);
  const gpusort::sort_request<std::uint32_t, gpusort::no_values, gpusort::less<>, false> too_many{
      device.begin(), nullptr, n, {}, nullptr, {}};
  EXPECT_FALSE(
      gpusort::backends::radix::sort_by_network_if_small<gpusort::network_tiling_sm90>(too_many));
  using pairs_tiling = gpusort::network_tiling_with_values_sm90;
  const std::size_t too_many_pairs =
      block_keys_of<pairs_tiling>() * pairs_tiling::knobs.max_cluster_blocks + 1;
  device_array<std::uint32_t> values(keys);
  const gpusort::sort_request<std::uint32_t, std::uint32_t, gpusort::less<>, false> pairs{
      device.begin(), values.begin(), too_many_pairs, {}, nullptr, {}};
  EXPECT_FALSE(gpusort::backends::radix::sort_by_network_if_small<pairs_tiling>(pairs));
  expect_same_bits(device.to_host(), keys, "keys");
  expect_same_bits(values.to_host(), keys, "values");
}

}  // namespace
}  // namespace gpusort::test
