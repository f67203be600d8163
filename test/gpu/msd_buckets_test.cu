// par's sort by buckets (par_strategy::msd_buckets, backends/radix/msd_buckets.cuh), pinned:
// uniform keys take the buckets; keys whose top digits are all equal take buckets of a lower
// digit; skewed keys overflow a bucket and take the LSD passes instead; and a bucket exactly as
// large as its cluster, and one key larger. Every output is std::stable_sort's, bit for bit.
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gpusort::test {
namespace {

class MsdBuckets : public GpuTest {};

constexpr auto buckets_policy = par_pinned<par_strategy::msd_buckets>;

// Mid sizes (one and several blocks per bucket), odd sizes, and sizes with buckets of 0 and 1
// keys.
std::vector<std::size_t> bucket_sizes() {
  return capped({2, 3, 300, 4099, (std::size_t(1) << 17) - 1, 300007, 1000003,
                 (std::size_t(1) << 22) + 5});
}

template <class Key>
void expect_buckets_sort_keys() {
  for (std::size_t n : bucket_sizes())
    for (distribution d : distributions_for<Key>())
      for (bool descending : {false, true})
        expect_sorts_keys<Key>(buckets_policy, n, d, descending, seed_for(n, d, sizeof(Key)));
  for (std::size_t n : capped({300007}))
    for (distribution d : skewed_distributions_for<Key>())
      expect_sorts_keys<Key>(buckets_policy, n, d, false, seed_for(n, d, sizeof(Key)) + 1);
}

template <class Key>
void expect_buckets_sort_pairs() {
  for (std::size_t n : bucket_sizes())
    for (distribution d : {distribution::uniform, distribution::few_distinct,
                           distribution::narrow_range})
      for (bool descending : {false, true})
        expect_sorts_pairs<Key>(buckets_policy, n, d, descending,
                                seed_for(n, d, sizeof(Key)) + 2);
}

TEST_F(MsdBuckets, SortsUnsignedKeys) { expect_buckets_sort_keys<std::uint32_t>(); }
TEST_F(MsdBuckets, SortsSignedKeys) { expect_buckets_sort_keys<std::int32_t>(); }
TEST_F(MsdBuckets, SortsFloatKeysWithSignedZerosAndNaNs) { expect_buckets_sort_keys<float>(); }
TEST_F(MsdBuckets, SortsEightByteKeys) { expect_buckets_sort_keys<std::uint64_t>(); }
TEST_F(MsdBuckets, SortsPairsStably) {
  expect_buckets_sort_pairs<std::uint32_t>();
  expect_buckets_sort_pairs<std::uint64_t>();
}

// 2^17 keys: one block of 256 x 16 per bucket (4096 keys; the even share is 512).
// `crowded` keys have top byte 0x80, the others spread over the other 255 top bytes: a bucket
// of exactly one cluster (taken) and one of a key more (the LSD passes).
std::vector<std::uint32_t> keys_with_one_crowded_bucket(std::size_t n, std::size_t crowded,
                                                        std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t low = std::uint32_t(rng()) & 0x00ffffffu;
    std::uint32_t top = 0x80;
    if (i >= crowded) {
      top = std::uint32_t(rng() % 255);
      top += top >= 0x80 ? 1 : 0;
    }
    keys[i] = top << 24 | low;
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

TEST_F(MsdBuckets, ABucketOfExactlyOneClusterAndOneKeyMore) {
  const std::size_t n = std::size_t(1) << 17;
  const std::size_t cluster_keys = std::size_t(cluster_tiling_buckets_sm90::knobs.block_threads) *
                                   cluster_tiling_buckets_sm90::knobs.items_per_thread;
  for (std::size_t crowded : {cluster_keys, cluster_keys + 1}) {
    SCOPED_TRACE("crowded bucket of " + std::to_string(crowded) + " keys");
    const std::vector<std::uint32_t> keys = keys_with_one_crowded_bucket(n, crowded, crowded);
    expect_sorts_keys_by<false>(buckets_policy, keys, gpusort::less<>{},
                                reference_order<std::uint32_t>{false}, guarantee::stable);
    expect_sorts_pairs_by<true>(buckets_policy, keys, gpusort::greater<>{},
                                reference_order<std::uint32_t>{true}, guarantee::stable);
  }
}

}  // namespace
}  // namespace gpusort::test
