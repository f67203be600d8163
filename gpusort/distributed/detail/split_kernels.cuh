// Device side of the splitter search (splitter_search.cuh): pick up this rank's candidate
// keys, and count how many local elements precede each candidate of every rank in the
// total order (key, then rank, then position).
#pragma once

#include "splitter_search.cuh"

#include <cstddef>
#include <cstdint>

namespace gpusort::distributed::detail {

inline constexpr int split_kernel_threads = 128;

template <class Key>
__global__ void __launch_bounds__(split_kernel_threads)
    gather_candidates(const Key* keys, const std::uint64_t* positions, std::size_t count,
                      Key* candidates) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count && positions[i] != no_candidate) candidates[i] = keys[positions[i]];
}

// Candidate c = (candidates[c], rank c / per_rank, positions[c]). This rank's elements
// before it: those with a smaller key, and equal keys when this rank comes first (all of
// them), or is the candidate's own rank (those before its position).
template <class Key, class Compare>
__global__ void __launch_bounds__(split_kernel_threads)
    count_preceding(const Key* keys, std::size_t local_count, int self,
                    const Key* candidates, const std::uint64_t* positions, std::size_t count,
                    std::size_t per_rank, Compare comp, std::uint64_t* local_counts) {
  const std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= count) return;
  if (positions[c] == no_candidate) {
    local_counts[c] = 0;
    return;
  }
  const int owner = int(c / per_rank);
  if (owner == self) {
    local_counts[c] = positions[c];
    return;
  }
  const Key key = candidates[c];
  const bool equal_keys_precede = self < owner;  // upper bound, else lower bound
  std::size_t lo = 0, hi = local_count;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    const bool precedes = equal_keys_precede ? !comp(key, keys[mid]) : comp(keys[mid], key);
    if (precedes)
      lo = mid + 1;
    else
      hi = mid;
  }
  local_counts[c] = lo;
}

}  // namespace gpusort::distributed::detail
