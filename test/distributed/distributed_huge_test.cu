// 2^30 u32 keys per rank (and 2^28 u32+u32 pairs per rank), generated and checked on the
// GPUs: the union is a permutation of the inputs (multiset fingerprints summed over
// ranks), each rank's shard is in order, and each rank's last key is no greater than the
// next rank's first.
#include "../support/device_checks.cuh"
#include "rank_fixture.cuh"

namespace gpusort::test {
namespace {

using DistributedHuge = RankTest;

device_check_kernels::fingerprint_sums& operator+=(device_check_kernels::fingerprint_sums& a,
                                                   const device_check_kernels::fingerprint_sums& b) {
  for (int i = 0; i < 256; ++i) a.histogram[i] += b.histogram[i];
  a.sum += b.sum;
  a.hashed_sum += b.hashed_sum;
  return a;
}

template <bool Pairs>
void sort_huge(const std::vector<communicator>& comms, std::size_t per_rank) {
  if (capped({per_rank}).empty()) GTEST_SKIP() << "GPUSORT_TEST_MAX_N is below " << per_rank;
  const int ranks = int(comms.size());
  std::vector<multiset_fingerprint> before(ranks), after(ranks);
  std::vector<std::size_t> first_bad(ranks);
  std::vector<std::uint32_t> first_key(ranks), last_key(ranks);
  std::vector<char> skipped(ranks, 0);
  on_every_rank(comms, [&](int r) {
    const std::size_t bytes = per_rank * 4 * (Pairs ? 2 : 1);
    if (!device_has_free(bytes * 3 + (std::size_t(1) << 30))) {
      skipped[r] = 1;  // all ranks must still take part: they sort zero elements
    }
    const std::size_t n = skipped[r] ? 0 : per_rank;
    std::uint32_t* keys = nullptr;
    std::uint32_t* values = nullptr;
    if (n > 0) {
      EXPECT_EQ(cudaMalloc(&keys, n * 4), cudaSuccess);
      if (Pairs) EXPECT_EQ(cudaMalloc(&values, n * 4), cudaSuccess);
      fill_keys_on_device(keys, n, 1000 + r, 0);
      if (Pairs) fill_positions_on_device(values, n);
      before[r] = fingerprint_of(keys, n, values);
    }
    if constexpr (Pairs)
      distributed::sort_by_key(comms[r], keys, keys + n, values);
    else
      distributed::sort(comms[r], keys, keys + n);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    if (n > 0) {
      after[r] = fingerprint_of(keys, n, values);
      first_bad[r] = first_bad_position(keys, n, false);
      EXPECT_EQ(cudaMemcpy(&first_key[r], keys, 4, cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_EQ(cudaMemcpy(&last_key[r], keys + n - 1, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    }
    cudaFree(keys);
    cudaFree(values);
  });
  for (int r = 0; r < ranks; ++r)
    if (skipped[r]) GTEST_SKIP() << "rank " << r << "'s GPU lacks the memory";
  device_check_kernels::fingerprint_sums in{}, out{};
  for (int r = 0; r < ranks; ++r) {
    in += before[r].sums;
    out += after[r].sums;
    EXPECT_EQ(first_bad[r], per_rank) << "rank " << r << " out of order at this position";
    if (r > 0) EXPECT_LE(last_key[r - 1], first_key[r]) << "ranks " << r - 1 << " and " << r;
  }
  EXPECT_EQ(std::memcmp(&in, &out, sizeof(in)), 0) << "the union is not a permutation of the inputs";
}

TEST_P(DistributedHuge, TwoToTheThirtyKeysPerRank) { sort_huge<false>(comms, std::size_t(1) << 30); }

TEST_P(DistributedHuge, TwoToTheTwentyEightPairsPerRank) {
  sort_huge<true>(comms, std::size_t(1) << 28);
}

INSTANTIATE_TEST_SUITE_P(Ranks, DistributedHuge, every_rank_setup(), rank_setup_name);

}  // namespace
}  // namespace gpusort::test
