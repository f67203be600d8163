// The merge of a rank's received runs (merge_received.cuh) on one GPU, with the four-way merge
// switched on from two runs and from three: two to four runs in one four-way pass, or two by
// CUB's merge, and more than four pairwise; keys of 4, 8 and 24 bytes, with values
// that record each key's input position, so that the stable order (ties in run order) is
// checked too; against std::stable_sort of the runs taken in order.
#include <gpusort/distributed/detail/merge_received.cuh>
#include <gpusort/functional.cuh>

#include "../support/device_vector.cuh"
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"
#include "../support/splitmix.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <vector>

namespace gpusort::test {
namespace {

namespace d = distributed::detail;

// 24 bytes: the four-way merge's tile for keys this wide is 512 keys, not 2048.
struct wide_key {
  std::uint64_t major;
  std::uint32_t minor;
  std::uint32_t padding[3];
  bool operator==(const wide_key& o) const { return major == o.major && minor == o.minor; }
};
std::ostream& operator<<(std::ostream& s, const wide_key& k) {
  return s << "{" << k.major << ", " << k.minor << "}";
}
struct by_major_then_minor {
  __host__ __device__ bool operator()(const wide_key& a, const wide_key& b) const {
    return a.major != b.major ? a.major < b.major : a.minor < b.minor;
  }
};

std::uint32_t key_from(std::uint64_t random, std::uint32_t) { return std::uint32_t(random); }
std::uint64_t key_from(std::uint64_t random, std::uint64_t) { return random; }
wide_key key_from(std::uint64_t random, wide_key) {
  return {random % 5, std::uint32_t(random >> 40) % 3, {0, 0, 0}};
}

class FourWayMerge : public GpuTest {
 protected:
  // Off by default for keys alone, from three runs for pairs (see four_way_merge.cuh); each
  // case (pairs: keys and their input positions) runs with it on from two runs and from
  // three.
  void TearDown() override {
    d::four_way_merge_fewest_runs() = d::four_way_merge_off;
    d::four_way_merge_fewest_runs_with_values() = d::four_way_merge_default_with_values;
  }

  // Runs of the given lengths, side by side, each sorted by comp; keys from a few distinct
  // values where `few_distinct` (ties between runs), values their input positions. Merged
  // by merge_received and compared with std::stable_sort of the whole input.
  template <class Key, class Compare>
  void expect_merged(const std::vector<std::size_t>& lengths, bool few_distinct,
                     const Compare& comp, std::uint64_t seed) {
    std::vector<Key> keys;
    std::vector<d::run> runs;
    splitmix64 random(seed);
    for (std::size_t length : lengths) {
      runs.push_back({keys.size(), length});
      for (std::size_t i = 0; i < length; ++i) {
        const std::uint64_t r = random.next();
        keys.push_back(key_from(few_distinct ? r % 7 : r, Key{}));
      }
      std::sort(keys.end() - length, keys.end(), comp);
    }
    const std::size_t count = keys.size();
    std::vector<std::uint32_t> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = std::uint32_t(i);

    std::vector<std::uint32_t> expected_order = values;
    std::stable_sort(expected_order.begin(), expected_order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return comp(keys[a], keys[b]); });

    device_array<Key> received_keys{keys};
    device_array<Key> out_keys{std::vector<Key>(count)};
    device_array<std::uint32_t> received_values{values};
    device_array<std::uint32_t> out_values{values};
    const std::size_t temp_bytes =
        d::merge_temp_bytes<true, Key, std::uint32_t>(runs, comp);
    device_array<char> temp{std::vector<char>(std::max<std::size_t>(temp_bytes, 1))};
    d::merge_received<true>(received_keys.begin(), received_values.begin(), out_keys.begin(),
                            out_values.begin(), count, runs, temp.begin(), temp_bytes, comp,
                            nullptr);
    GPUSORT_TEST_CUDA(cudaDeviceSynchronize());
    const std::vector<Key> got_keys = out_keys.to_host();
    const std::vector<std::uint32_t> got_order = out_values.to_host();
    for (std::size_t i = 0; i < count; ++i) {
      ASSERT_EQ(got_order[i], expected_order[i]) << "output " << i << " of " << count;
      ASSERT_EQ(got_keys[i], keys[expected_order[i]]) << "output " << i;
    }
  }

  // Every run count from 1 to 5 (2 to 4 merged four ways), with empty runs among them.
  template <class Key, class Compare>
  void expect_every_run_count(const Compare& comp) {
    std::uint64_t seed = 1;
    const std::vector<std::vector<std::size_t>> shapes = {
        {100003},
        {0, 70001, 2047},
        {2048, 0, 1, 65521},
        {1, 2, 3},
        {4097, 4096, 4095, 8193},
        {999983, 1009, 0, 1000003},
        {1000003, 0, 0, 0},
        {65537, 0, 131071},
        {300007, 255, 300007, 256, 257},
        {0, 0, 0, 0}};
    for (const auto& lengths : shapes) {
      std::size_t total = 0;
      for (std::size_t l : lengths) total += l;
      if (capped({total}).empty()) continue;
      for (int fewest : {2, 3})
        for (bool few_distinct : {true, false}) {
          SCOPED_TRACE(testing::Message() << lengths.size() << " runs, " << total << " keys"
                                          << (few_distinct ? ", few distinct" : "")
                                          << ", four ways from " << fewest << " runs");
          d::four_way_merge_fewest_runs() = fewest;
          d::four_way_merge_fewest_runs_with_values() = fewest;
          expect_merged<Key>(lengths, few_distinct, comp, seed++);
        }
    }
  }
};

TEST_F(FourWayMerge, U32KeysInRunOrderForEveryRunCount) {
  expect_every_run_count<std::uint32_t>(less<>{});
}

TEST_F(FourWayMerge, U32KeysDescending) { expect_every_run_count<std::uint32_t>(greater<>{}); }

TEST_F(FourWayMerge, U64Keys) { expect_every_run_count<std::uint64_t>(less<>{}); }

TEST_F(FourWayMerge, WideStructKeysWithTheirComparator) {
  expect_every_run_count<wide_key>(by_major_then_minor{});
}

}  // namespace
}  // namespace gpusort::test
