// The merge passes' register budgets (backends/merge/merge_budgets.cuh): each pass runs the
// merge kernels compiled for the first budget whose resident blocks hold all its blocks, so
// which kernels sort an input depends on its size and the device. Sizes are chosen here on
// the device running the test so that the passes take every budget of u32 keys, f64 keys and
// u32 + u32 pairs, each at the most blocks it holds and one block past it.
#include "merge_sort_tests.cuh"

#include <gpusort/detail/backends/merge/merge_budgets.cuh>

#include <cstdint>
#include <set>
#include <vector>

namespace gpusort::test {

// Only sweep_case and the order cases of merge_sort_tests.cuh are used here.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(MergeSort);

namespace {

class MergeBudgets : public GpuTest {};

// Inputs whose passes (about n / chunk_items merge blocks each, the last one short) take
// each budget: as many blocks as it holds, and one more; and every budget reached.
template <class Key, class Value>
std::vector<std::size_t> sizes_at_every_budget() {
  using tuning =
      backends::merge::tuning_for_values<merge_tuning_sm90, Key, has_values_v<Value>>;
  using shape = backends::merge::merge_shape<tuning, Key>;
  const backends::merge::merge_residency<shape, Key, Value, gpusort::less<>> residency;
  const std::size_t chunk = shape::chunk_items;
  std::vector<std::size_t> sizes;
  std::set<int> budgets;
  for (std::size_t resident : residency.resident)
    for (std::size_t blocks : {resident, resident + 1}) {
      sizes.push_back(blocks * chunk - 3);
      budgets.insert(residency.budget_for(blocks));
    }
  EXPECT_EQ(budgets.size(), std::size_t(shape::merge_budget_count));
  return capped(sizes);
}

const std::vector<distribution> budget_distributions{distribution::uniform,
                                                      distribution::few_distinct};

TEST_F(MergeBudgets, EveryBudgetSortsAsStdStableSortDoes) {
  using u32_case = arithmetic_case<std::uint32_t, gpusort::less<>>;
  using f64_case = arithmetic_case<double, gpusort::less<>>;
  static_assert(backends::merge::merge_shape<merge_tuning_sm90, std::uint32_t>::
                    merge_budget_count > 1);
  sweep_case<u32_case, true, false>(gpusort::merge,
                                    sizes_at_every_budget<std::uint32_t, no_values>(),
                                    budget_distributions, 41);
  sweep_case<f64_case, true, false>(gpusort::merge, sizes_at_every_budget<double, no_values>(),
                                    budget_distributions, 42);
  sweep_case<u32_case, true, true>(gpusort::merge,
                                   sizes_at_every_budget<std::uint32_t, std::uint32_t>(),
                                   budget_distributions, 43);
}

}  // namespace
}  // namespace gpusort::test
