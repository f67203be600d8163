// A run of elements of an array, [begin, begin + count): a piece one rank sends another, or
// a sorted run the merge takes.
#pragma once

#include <cstddef>

namespace gpusort::distributed::detail {

struct run {
  std::size_t begin, count;
};

}  // namespace gpusort::distributed::detail
