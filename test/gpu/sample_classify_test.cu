// The sample sort's split on the GPU (backends/merge/sample_classify.cuh): each key's bucket
// (a byte or two) is the count of splitters not greater than it (std::upper_bound on the
// host), for u32, f64 and a two-field struct, with duplicate splitters, at sizes that end
// mid-tile, with trees that fit shared memory and trees whose last levels are rows in global
// memory; and a key equal to a repeated splitter goes to the bucket between the repeats.
#include "../support/device_vector.cuh"
#include "../support/gpu.cuh"

#include <gpusort/detail/backends/merge/sample_classify.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

namespace gpusort::test {
namespace {

using backends::merge::classify_keys;
using backends::merge::node_of_slot;
using backends::merge::splitter_of_node;
using backends::merge::stored_tree_slots;
using backends::merge::staged_tree_bytes;
using backends::merge::staged_tree_levels;

struct two_fields {
  std::uint32_t major;
  float minor;
};
struct major_minor_less {
  __host__ __device__ bool operator()(const two_fields& a, const two_fields& b) const {
    return a.major < b.major || (a.major == b.major && a.minor < b.minor);
  }
};
struct plain_less {
  template <class T>
  __host__ __device__ bool operator()(const T& a, const T& b) const { return a < b; }
};

template <class Key>
Key random_key(std::mt19937_64& random);
template <>
std::uint32_t random_key(std::mt19937_64& random) { return std::uint32_t(random() % 5000); }
template <>
double random_key(std::mt19937_64& random) { return double(random() % 5000) * 0.25 - 300.0; }
template <>
two_fields random_key(std::mt19937_64& random) {
  return {std::uint32_t(random() % 40), float(random() % 50)};
}

// With equal_buckets, the buckets between equal splitters are flagged, and a key equal to the
// splitter before its bucket, where the bucket before is flagged, goes there instead.
template <int LogBuckets, class Key, int StagedBytes = 48 * 1024, class Less>
void expect_buckets_match_upper_bound(std::size_t n, std::uint64_t seed, Less less,
                                      bool equal_buckets = true) {
  using bucket_t = std::conditional_t<(LogBuckets <= 8), std::uint8_t, std::uint16_t>;
  std::mt19937_64 random(seed);
  std::vector<Key> keys(n);
  for (Key& key : keys) key = random_key<Key>(random);
  std::vector<Key> sorted((1 << LogBuckets) - 1);
  for (Key& s : sorted) s = random_key<Key>(random);
  std::sort(sorted.begin(), sorted.end(), less);
  constexpr int top_levels = staged_tree_levels<Key, StagedBytes>();
  std::vector<Key> tree(stored_tree_slots(LogBuckets, top_levels), sorted.back());
  for (int slot = 0; slot < int(tree.size()); ++slot) {
    const int node = node_of_slot(slot, LogBuckets, top_levels);
    if (node >= 0) tree[slot] = sorted[splitter_of_node(node, LogBuckets)];
  }
  std::vector<std::uint8_t> equal_keys(std::size_t(1) << LogBuckets, 0);
  for (std::size_t b = 1; b + 1 < equal_keys.size(); ++b)
    equal_keys[b] = !less(sorted[b - 1], sorted[b]) ? 1 : 0;
  device_array<Key> device_keys(keys);
  device_array<Key> device_tree(tree);
  device_array<std::uint8_t> device_equal_keys(equal_keys);
  device_array<unsigned> any_equal(std::vector<unsigned>{1u});
  device_array<bucket_t> device_buckets(std::vector<bucket_t>(n, bucket_t(0xEEEE)));
  const int shared_bytes = staged_tree_bytes<Key, StagedBytes>(LogBuckets);
  classify_keys<128, 7, StagedBytes><<<5, 128, shared_bytes>>>(
      device_keys.begin(), n, device_tree.begin(), LogBuckets, device_equal_keys.begin(),
      equal_buckets ? any_equal.begin() : nullptr, device_buckets.begin(), less);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<bucket_t> buckets = device_buckets.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    int expected =
        int(std::upper_bound(sorted.begin(), sorted.end(), keys[i], less) - sorted.begin());
    if (equal_buckets && expected > 0 && equal_keys[expected - 1] != 0 &&
        !less(sorted[expected - 1], keys[i]))
      --expected;
    ASSERT_EQ(int(buckets[i]), expected) << "key " << i << " of " << n << ", "
                                         << (1 << LogBuckets) << " buckets";
  }
}

class SampleClassify : public GpuTest {};

TEST_F(SampleClassify, EveryKeysBucketIsItsUpperBoundAmongTheSplitters) {
  for (std::size_t n : {std::size_t(1), std::size_t(895), std::size_t(896), std::size_t(100003)}) {
    expect_buckets_match_upper_bound<1, std::uint32_t>(n, 1 + n, plain_less{});
    expect_buckets_match_upper_bound<7, std::uint32_t>(n, 2 + n, plain_less{});
    expect_buckets_match_upper_bound<8, std::uint32_t>(n, 3 + n, plain_less{});
    expect_buckets_match_upper_bound<8, double>(n, 4 + n, plain_less{});
    expect_buckets_match_upper_bound<6, two_fields>(n, 5 + n, major_minor_less{});
    // Two bytes a bucket; trees past what a block stages (f64: 12 levels, 8 bytes: 12).
    static_assert(staged_tree_levels<double, 48 * 1024>() == 12 &&
                  staged_tree_levels<two_fields, 48 * 1024>() == 12);
    expect_buckets_match_upper_bound<9, std::uint32_t>(n, 6 + n, plain_less{});
    expect_buckets_match_upper_bound<14, double>(n, 7 + n, plain_less{});
    expect_buckets_match_upper_bound<13, two_fields>(n, 8 + n, major_minor_less{});
    // Small tops: 6 levels of u32 in 256 bytes, 7 of 8-byte keys in 1 KB; rows of 2^3-2^7.
    expect_buckets_match_upper_bound<9, std::uint32_t, 256>(n, 9 + n, plain_less{});
    expect_buckets_match_upper_bound<14, two_fields, 1024>(n, 10 + n, major_minor_less{});
    // No buckets of equal keys: the upper bound alone.
    expect_buckets_match_upper_bound<10, double>(n, 11 + n, plain_less{}, false);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace gpusort::test
