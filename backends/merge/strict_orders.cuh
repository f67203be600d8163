// Comparators that cannot make a merge's split searches disagree. Merge-path searches on
// neighbouring diagonals always agree under a strict weak ordering; with any other comparator
// they may not, and the merges check that they do before merging by them (merge_path.cuh:
// splits_agree), a check and often a barrier or a launch that these comparators go without.
#pragma once

#include <gpusort/functional.cuh>
#include "../common/ordered_bits.cuh"

#include <type_traits>

namespace gpusort::backends::merge {

// Comparators that are strict weak orderings by construction, so that a pass's merge-path
// searches always agree: gpusort's own orders of arithmetic keys, and the radix order (par's
// comparison strategies).
template <class Key, class Compare>
inline constexpr bool splits_always_agree =
    radix_order_of<Compare>::is_radix_order ||
    (std::is_arithmetic_v<Key> &&
     (std::is_same_v<Compare, gpusort::less<>> || std::is_same_v<Compare, gpusort::less<Key>> ||
      std::is_same_v<Compare, gpusort::greater<>> ||
      std::is_same_v<Compare, gpusort::greater<Key>>));

}  // namespace gpusort::backends::merge
