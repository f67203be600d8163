// The distributed sort of u32 keys and u32+u32 pairs on 1, 2 and 4 ranks (those the machine
// has): every call, uneven counts with empty ranks, and the reliability issue's
// distributions, against std::stable_sort of everything in rank order.
#include "rank_fixture.cuh"

namespace gpusort::test {
namespace {

using DistributedSort = RankTest;

std::vector<distribution> every_distribution() {
  std::vector<distribution> all = distributions_for<std::uint32_t>();
  for (distribution d : skewed_distributions_for<std::uint32_t>()) all.push_back(d);
  return all;
}

TEST_P(DistributedSort, StableSortByKeyMatchesStdStableSortForEveryShapeAndDistribution) {
  std::uint64_t seed = 1;
  for (const auto& counts : rank_count_shapes(GetParam()))
    for (distribution d : every_distribution()) {
      SCOPED_TRACE(testing::Message() << name_of(d) << " counts[0]=" << counts[0]);
      expect_distributed_sort<call::stable_sort_by_key>(
          comms, rank_inputs<std::uint32_t>(counts, d, seed++), less<>{},
          reference_order<std::uint32_t>{false});
    }
}

TEST_P(DistributedSort, EveryCallSortsUniformAndDuplicateHeavyKeys) {
  std::uint64_t seed = 100;
  for (const auto& counts : rank_count_shapes(GetParam()))
    for (distribution d : {distribution::uniform, distribution::all_equal, distribution::few_distinct}) {
      SCOPED_TRACE(testing::Message() << name_of(d) << " counts[0]=" << counts[0]);
      const auto inputs = rank_inputs<std::uint32_t>(counts, d, seed++);
      const reference_order<std::uint32_t> ascending{false};
      expect_distributed_sort<call::sort>(comms, inputs, less<>{}, ascending);
      expect_distributed_sort<call::stable_sort>(comms, inputs, less<>{}, ascending);
      expect_distributed_sort<call::sort_by_key>(comms, inputs, less<>{}, ascending);
    }
}

TEST_P(DistributedSort, DescendingOrder) {
  const auto inputs = rank_inputs<std::uint32_t>(rank_count_shapes(GetParam())[1],
                                                 distribution::few_distinct, 7);
  expect_distributed_sort<call::stable_sort_by_key>(comms, inputs, greater<>{},
                                                    reference_order<std::uint32_t>{true});
}

TEST_P(DistributedSort, AllEqualKeysStayBalanced) {
  // Every rank keeps its count even when one key value is everywhere: ties are cut by
  // rank and position, not sent to one rank.
  std::vector<std::size_t> counts(GetParam(), 100000);
  expect_distributed_sort<call::stable_sort>(
      comms, rank_inputs<std::uint32_t>(counts, distribution::all_equal, 3), less<>{},
      reference_order<std::uint32_t>{false});
}

INSTANTIATE_TEST_SUITE_P(Ranks, DistributedSort, testing::Values(1, 2, 4), rank_count_name);

}  // namespace
}  // namespace gpusort::test
