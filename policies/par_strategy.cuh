// The strategies gpusort::par chooses among at run time for radix keys.
#pragma once

namespace gpusort {

// The one-launch cluster sort in one of its three tilings (small, medium or large tiles per
// block; backends/radix/cluster_kernels.cuh), the comparison sort (integer keys only, where
// its order is the radix order), or the one-sweep radix sort.
enum class par_strategy { cluster_small, cluster_medium, cluster_large, merge, onesweep };

}  // namespace gpusort
