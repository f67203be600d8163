// The merge passes' register budgets. A pass is one launch of a grid of merge blocks, each
// a chain of dependent steps (split search, pieces, merge, store): where all of a pass's
// blocks are resident at once, it takes about as long as the slowest chain, which more
// registers shorten; where they are not, the more blocks resident, the sooner the last ones
// start. So the merge kernels are compiled for each of the shape's budgets (shapes.cuh:
// merge_budget), and a pass takes the first in the tuning's list whose resident blocks hold
// all of its blocks, or the list's last.
#pragma once

#include "../common/resident_grid.cuh"
#include "kernels.cuh"

#include <cstddef>
#include <type_traits>
#include <utility>

namespace gpusort::backends::merge {

// The first of `count` budgets whose resident blocks hold `blocks`, else the last.
constexpr int first_budget_holding(std::size_t blocks, const std::size_t* resident, int count) {
  for (int budget = 0; budget + 1 < count; ++budget)
    if (blocks <= resident[budget]) return budget;
  return count - 1;
}

// Blocks of the merge kernels resident at once on the current device, per budget of
// PassShape (asked of search_and_merge_runs once per device; merge_runs has the same launch
// bound and shared memory to within 16 bytes).
template <class PassShape, class Key, class Value, class Compare>
struct merge_residency {
  std::size_t resident[PassShape::merge_budget_count];

  merge_residency() { ask(std::make_integer_sequence<int, PassShape::merge_budget_count>{}); }

  // The budget for a pass of `blocks` merge blocks.
  int budget_for(std::size_t blocks) const {
    return first_budget_holding(blocks, resident, PassShape::merge_budget_count);
  }

 private:
  template <int... Budgets>
  void ask(std::integer_sequence<int, Budgets...>) {
    ((resident[Budgets] = resident_blocks<
          search_and_merge_runs<PassShape, Budgets, Key, Value, Compare>,
          PassShape::merge_threads>()),
     ...);
  }
};

template <class Launch, int... Budgets>
void with_budget_of(int budget, const Launch& launch, std::integer_sequence<int, Budgets...>) {
  ((budget == Budgets ? (launch(std::integral_constant<int, Budgets>{}), 0) : 0), ...);
}

// launch(std::integral_constant<int, budget>{}): the launch of the kernels compiled for it.
template <class PassShape, class Launch>
void with_merge_budget(int budget, const Launch& launch) {
  with_budget_of(budget, launch, std::make_integer_sequence<int, PassShape::merge_budget_count>{});
}

}  // namespace gpusort::backends::merge
