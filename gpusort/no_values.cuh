// The value type of a keys-only sort, for the front door and every backend alike.
#pragma once

#include <type_traits>

namespace gpusort {

struct no_values {};

// Whether a sort with values of type Value moves values along with its keys.
template <class Value>
inline constexpr bool has_values_v = !std::is_same_v<Value, no_values>;

}  // namespace gpusort
