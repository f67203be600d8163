// The comparison sort's sample sort (backends/merge/sample_sort.cuh) through the public API:
// tunings that take it from a few thousand keys, with small buckets (trees deeper than a
// block stages in shared memory, so the classify reads its last levels from global memory)
// or few samples per bucket (buckets past a tile, sorted by the segmented sort's multi-block
// path), on 8- and 16-byte keys, against std::stable_sort, with frequent keys (buckets of
// equal keys, left unsorted); comparators that are no strict weak ordering still give a
// permutation. The default tuning's sample sort runs here at its threshold for 16-byte keys
// and in merge_struct_test (its 2^25 + 1 inputs).
#include "merge_sort_tests.cuh"

#include "../support/device_vector.cuh"

#include <gpusort/detail/backends/merge/sample_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace gpusort::test {
namespace {

// Sample sorts from 3000 keys of 8 bytes and more, buckets of a tenth of a tile, small tree
// tops (1 KB: 16-byte keys 6 levels, 8-byte 7; deeper trees 256 bytes: 4 and 5 levels), so
// that rows below the top are read at sizes a compute-sanitizer run takes (20011 16-byte keys:
// 7 levels).
struct small_buckets_tuning {
  static constexpr merge_knobs knobs = [] {
    merge_knobs k = merge_tuning_sm90::knobs;
    k.sample_sort_min_keys = 3000;
    k.sample_sort_min_keys_8_byte_keys = 3000;
    k.sample_sort_bucket_percent = 10;
    k.sample_sort_staged_tree_bytes = 1024;
    k.sample_sort_deep_tree_staged_bytes = 256;
    return k;
  }();
  using sample_sort_scatter_tuning = radix_tuning_sm90;
};

// Buckets of 1.5 tiles on average from 2 samples each: many past their tile.
struct large_buckets_tuning {
  static constexpr merge_knobs knobs = [] {
    merge_knobs k = merge_tuning_sm90::knobs;
    k.sample_sort_min_keys = 3000;
    k.sample_sort_min_keys_8_byte_keys = 3000;
    k.sample_sort_bucket_percent = 150;
    k.sample_sort_samples_per_bucket = 2;
    return k;
  }();
  using sample_sort_scatter_tuning = radix_tuning_sm90;
};

// The benchmark's 16-byte key: ordered by (major, minor); id (the input position) is payload.
struct two_field_key {
  std::uint32_t major;
  float minor;
  std::uint64_t id;
};
std::ostream& operator<<(std::ostream& s, const two_field_key& k) {
  return s << "{" << k.major << ", " << k.minor << ", id " << k.id << "}";
}
struct by_major_then_minor {
  __host__ __device__ bool operator()(const two_field_key& a, const two_field_key& b) const {
    return a.major < b.major || (a.major == b.major && a.minor < b.minor);
  }
};
struct two_field_case : merge_case_defaults {
  using key = two_field_key;
  using compare = by_major_then_minor;
  static std::string name() { return "two_field_key16"; }
  static bool reference(const key& a, const key& b) {
    return std::tie(a.major, a.minor) < std::tie(b.major, b.minor);
  }
  // 3000 majors, minors of 100 values: equal keys common, so stability shows in the ids.
  static key random_key(std::mt19937_64& rng) {
    return {std::uint32_t(rng() % 3000), float(rng() % 100) * 0.5f, 0};
  }
  static std::vector<key> make_keys(std::size_t n, distribution d, std::uint64_t seed) {
    std::vector<key> keys = make_keys_from<key>(n, d, seed, random_key, reference);
    for (std::size_t i = 0; i < n; ++i) keys[i].id = i;
    return keys;
  }
};

using f64_case = arithmetic_case<double, gpusort::less<>>;
using u64_descending_case = arithmetic_case<std::uint64_t, gpusort::greater<>>;

template <class Tuning, class Case>
void expect_sample_sorts(const std::vector<std::size_t>& sizes) {
  using Key = typename Case::key;
  const merge_policy<Tuning> policy{};
  for (std::size_t n : sizes) {
    const bool sampled = backends::merge::takes_sample_sort<Tuning, Key>(n);
    ASSERT_TRUE(sampled) << "n=" << n;
  }
  sweep_case<Case, true, false>(policy, sizes, Case::distributions(), 11);
  sweep_case<Case, false, false>(policy, sizes, Case::distributions(), 12);
}

// (merge_sort_tests.cuh's typed suite is instantiated elsewhere.)
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(MergeSort);

class MergeSampleSort : public GpuTest {};

// 3001 keys; 999983 keys of 16 bytes: a tree of 13 levels; 3000017: 15 levels.
TEST_F(MergeSampleSort, SmallBucketsMatchStdStableSort) {
  expect_sample_sorts<small_buckets_tuning, two_field_case>(
      capped({3001, 4099, 20011, 65521, 200003, 999983}));
  expect_sample_sorts<small_buckets_tuning, f64_case>(capped({3001, 20011, 65521, 999983}));
  expect_sample_sorts<small_buckets_tuning, u64_descending_case>(capped({5003, 300007}));
}

TEST_F(MergeSampleSort, SmallBucketsInADeepTreeMatchStdStableSort) {
  const std::vector<std::size_t> sizes = capped({3000017});
  const merge_policy<small_buckets_tuning> policy{};
  sweep_case<two_field_case, true, false>(policy, sizes, {distribution::uniform}, 13);
  sweep_case<f64_case, true, false>(policy, sizes, {distribution::uniform}, 14);
}

// sm_90's tuning samples 16-byte keys from 2^21 (buckets of half a tile: most in the segmented
// sort's 128-thread blocks, the rest in 256-thread ones): one key below and at the threshold.
TEST_F(MergeSampleSort, TheDefaultTuningSamplesWideKeysFromItsThreshold) {
  constexpr std::size_t threshold = std::size_t(1) << 21;
  using key = two_field_case::key;
  EXPECT_FALSE((backends::merge::takes_sample_sort<merge_tuning_sm90, key>(threshold - 1)));
  EXPECT_TRUE((backends::merge::takes_sample_sort<merge_tuning_sm90, key>(threshold)));
  const std::vector<std::size_t> sizes = capped({threshold - 1, threshold});
  const merge_policy<merge_tuning_sm90> policy{};
  sweep_case<two_field_case, true, false>(
      policy, sizes, {distribution::uniform, distribution::few_distinct}, 15);
}

TEST_F(MergeSampleSort, BucketsPastTheirTileMatchStdStableSort) {
  expect_sample_sorts<large_buckets_tuning, two_field_case>(capped({3001, 65521, 500009}));
  expect_sample_sorts<large_buckets_tuning, f64_case>(capped({70001, 500009}));
}

// Half the keys one value (ids apart: stability shows), the rest spread: that value repeats
// splitters and its keys take a bucket of equal keys, left unsorted, next to sorted buckets;
// and every key one value.
TEST_F(MergeSampleSort, FrequentKeysMatchStdStableSort) {
  for (std::size_t n : capped({3001, 20011, 200003, 999983})) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::mt19937_64 rng(n);
    std::vector<two_field_key> keys(n);
    for (std::size_t i = 0; i < n; ++i)
      keys[i] = i % 2 == 0 ? two_field_key{7, 1.0f, i} : two_field_key{
                                 std::uint32_t(rng() % 3000), float(rng() % 100), i};
    expect_sorts_keys_by<true>(merge_policy<small_buckets_tuning>{}, keys, by_major_then_minor{},
                               two_field_case::reference, guarantee::stable);
    expect_sorts_keys_by<true>(merge_policy<large_buckets_tuning>{}, keys, by_major_then_minor{},
                               two_field_case::reference, guarantee::stable);
    for (std::size_t i = 0; i < n; ++i) keys[i] = {5, -2.0f, i};
    expect_sorts_keys_by<true>(merge_policy<small_buckets_tuning>{}, keys, by_major_then_minor{},
                               two_field_case::reference, guarantee::stable);
  }
}

// One allocation per sort, whatever the sample sort calls inside (the sample's sort, the
// scatter, the buckets' sort): an allocator that serves one block at a time serves it.
struct one_at_a_time_allocator {
  int calls = 0;
  int outstanding = 0;
  int most_outstanding = 0;
  void* allocate(std::size_t bytes, cudaStream_t stream) {
    ++calls;
    most_outstanding = std::max(most_outstanding, ++outstanding);
    void* p = nullptr;
    return cudaMallocAsync(&p, bytes, stream) == cudaSuccess ? p : nullptr;
  }
  void deallocate(void* p, std::size_t, cudaStream_t stream) noexcept {
    --outstanding;
    cudaFreeAsync(p, stream);
  }
};

TEST_F(MergeSampleSort, TakesOneAllocationPerSort) {
  for (std::size_t n : capped({20011, 999983})) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const std::vector<two_field_key> keys = two_field_case::make_keys(n, distribution::uniform, n);
    one_at_a_time_allocator allocator;
    expect_sorts_keys_by<true>(merge_policy<small_buckets_tuning>{}.with_allocator(allocator),
                               keys, by_major_then_minor{}, two_field_case::reference,
                               guarantee::stable);
    EXPECT_EQ(allocator.calls, 1);
    EXPECT_EQ(allocator.most_outstanding, 1);
    EXPECT_EQ(allocator.outstanding, 0);
  }
}

// ---- Comparators that are no strict weak ordering: a permutation of the input ----------

struct coin_flip {  // a hash of the pair: neither asymmetric nor transitive
  __host__ __device__ bool operator()(std::uint64_t a, std::uint64_t b) const {
    std::uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b + 0x632BE59BD9B4E019ull);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return ((h >> 32) & 1) != 0;
  }
};
struct less_or_equal {
  __host__ __device__ bool operator()(std::uint64_t a, std::uint64_t b) const { return a <= b; }
};

template <class Compare>
void expect_permutation(Compare comp, std::size_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> keys = make_keys<std::uint64_t>(n, distribution::few_distinct, seed);
  for (std::size_t i = 0; i < n; i += 3) keys[i] = i;  // many distinct keys too
  device_array<std::uint64_t> device_keys(keys);
  gpusort::sort(merge_policy<small_buckets_tuning>{}, device_keys.begin(), device_keys.end(),
                comp);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "n=" << n;
  std::vector<std::uint64_t> out = device_keys.to_host();
  std::sort(out.begin(), out.end());
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(out, keys) << "n=" << n << ": keys lost or duplicated";
}

TEST_F(MergeSampleSort, ComparatorsThatAreNoStrictWeakOrderingGiveAPermutation) {
  for (std::size_t n : capped({3001, 100003, 1000003})) {
    expect_permutation(coin_flip{}, n, n + 1);
    expect_permutation(less_or_equal{}, n, n + 2);
  }
}

}  // namespace
}  // namespace gpusort::test
