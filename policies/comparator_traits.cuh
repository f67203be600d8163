// Which order a comparator stands for. Radix backends never call the comparator: they need
// to know it is "ascending" or "descending" in the documented order of the key type.
#pragma once

#include <gpusort/functional.cuh>

#include <cuda/std/functional>

#include <functional>
#include <type_traits>

namespace gpusort {

enum class key_order { ascending, descending, custom };

namespace detail {

// A named comparator template counts if it is transparent or instantiated for Key itself
// (less<int> on long keys converts, so it is not taken for the order of long).
template <class Compare, class Key, template <class> class Order>
inline constexpr bool is_order_of_v =
    std::is_same_v<Compare, Order<void>> || std::is_same_v<Compare, Order<Key>>;

// thrust::less/greater are cuda::std::less/greater.
template <class Compare, class Key>
constexpr key_order named_order() {
  if constexpr (is_order_of_v<Compare, Key, gpusort::less> ||
                is_order_of_v<Compare, Key, ::cuda::std::less> ||
                is_order_of_v<Compare, Key, std::less>)
    return key_order::ascending;
  else if constexpr (is_order_of_v<Compare, Key, gpusort::greater> ||
                     is_order_of_v<Compare, Key, ::cuda::std::greater> ||
                     is_order_of_v<Compare, Key, std::greater>)
    return key_order::descending;
  else
    return key_order::custom;
}

}  // namespace detail

// Specialise for your own comparator if it is the documented ascending or descending order
// of Key; every other comparator is `custom` and goes to the comparison backend.
template <class Compare, class Key>
struct comparator_order
    : std::integral_constant<key_order, detail::named_order<Compare, Key>()> {};

template <class Compare, class Key>
inline constexpr key_order comparator_order_v =
    comparator_order<std::remove_cv_t<Compare>, std::remove_cv_t<Key>>::value;

}  // namespace gpusort
