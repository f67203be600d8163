// gpusort::distributed::shard: what a distributed sort (sort.cuh) returns to each rank.
#pragma once

#include <cstdint>

namespace gpusort::distributed {

// Where a rank's share of the sorted union lives after a distributed sort: the rank's own
// range, which now holds global ranks [global_begin, global_begin + count).
struct shard {
  int rank;
  std::uint64_t global_begin;
  std::uint64_t count;
  std::uint64_t global_count;
};

}  // namespace gpusort::distributed
