// The merge passes' split searches that start from samples of their input
// (backends/merge/split_samples.cuh). The backend takes them for passes of more than
// lane_split_search_most_blocks merge blocks, which merge_tuning_sm90 reaches only from about
// 9 M u32 keys; a tuning that takes them for every pass brings them to sizes the suite can
// check against the host at every tile and merge-block boundary: short last pairs, runs
// whose b is shorter than a step, all-equal and few distinct keys (ties across the samples).
#include "merge_sort_tests.cuh"

#include <cstdint>
#include <vector>

namespace gpusort::test {

// Only sweep_case and the order cases of merge_sort_tests.cuh are used here.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(MergeSort);

namespace {

// Every pass from samples, by the sm_90 tuning's groups of lanes (these sizes' passes are
// few merge blocks), or by one thread a search (as the largest passes).
struct samples_for_every_pass {
  static constexpr gpusort::merge_knobs knobs = [] {
    gpusort::merge_knobs k = merge_tuning_sm90::knobs;
    k.lane_split_search_most_blocks = 0;
    return k;
  }();
};
struct samples_by_one_thread_for_every_pass {
  static constexpr gpusort::merge_knobs knobs = [] {
    gpusort::merge_knobs k = samples_for_every_pass::knobs;
    k.sample_lane_search_most_blocks = 0;
    return k;
  }();
};

class MergeSplitSamples : public GpuTest {};

template <class Key>
std::vector<std::size_t> sampled_sizes() {
  using wide = backends::merge::wide_tile_shape<merge_tuning_sm90, Key>;
  const std::size_t four_wide_tiles =
      std::size_t(wide::tile_items) * std::size_t(merge_tuning_sm90::knobs.wide_tile_from_tiles);
  // Four wide tiles and one off them (below: ordinary tiles, whose passes search by lanes),
  // then primes up to many passes.
  return capped({four_wide_tiles - 1, four_wide_tiles, four_wide_tiles + 1, 100003, 262147,
                 999983, 4194319});
}

const std::vector<distribution> sampled_distributions{distribution::uniform,
                                                       distribution::few_distinct,
                                                       distribution::all_equal,
                                                       distribution::reversed};

TEST_F(MergeSplitSamples, KeysAndPairsSortAsStdStableSortDoes) {
  const gpusort::merge_policy<samples_for_every_pass> policy{};
  using u32_case = arithmetic_case<std::uint32_t, gpusort::less<>>;
  using f64_case = arithmetic_case<double, gpusort::greater<>>;
  sweep_case<u32_case, true, false>(policy, sampled_sizes<std::uint32_t>(), sampled_distributions,
                                    31);
  sweep_case<u32_case, true, true>(policy, sampled_sizes<std::uint32_t>(), sampled_distributions,
                                   32);
  sweep_case<f64_case, false, false>(policy, sampled_sizes<double>(), sampled_distributions, 33);
  sweep_case<f64_case, true, true>(policy, sampled_sizes<double>(), sampled_distributions, 34);
}

TEST_F(MergeSplitSamples, SearchesByOneThreadSortAsStdStableSortDoes) {
  const gpusort::merge_policy<samples_by_one_thread_for_every_pass> policy{};
  using u32_case = arithmetic_case<std::uint32_t, gpusort::less<>>;
  using f64_case = arithmetic_case<double, gpusort::greater<>>;
  sweep_case<u32_case, true, false>(policy, sampled_sizes<std::uint32_t>(), sampled_distributions,
                                    35);
  sweep_case<f64_case, true, true>(policy, sampled_sizes<double>(), sampled_distributions, 36);
}

}  // namespace
}  // namespace gpusort::test
