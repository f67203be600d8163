// The strategies gpusort::par chooses among at run time for radix keys.
#pragma once

namespace gpusort {

// The one-launch cluster sort in one of its two tilings (small or medium tiles per block;
// backends/radix/cluster_kernels.cuh), the comparison sort (integer keys only, where
// its order is the radix order), or the one-sweep radix sort with small tiles (mid sizes),
// mid tiles (about 2^19.5-2^22), pair tiles (pairs of 4-byte keys at about 2^21-2^22, and
// f32 pairs at 2^19-2^19.5 in the H200's table) or its own (large sizes), or one one-sweep
// pass into buckets that clusters then sort (backends/radix/msd_buckets.cuh; mid sizes).
enum class par_strategy {
  cluster_small,
  cluster_medium,
  merge,
  onesweep_small_tiles,
  msd_buckets,
  onesweep_mid_tiles,
  onesweep_pair_tiles,
  onesweep
};

}  // namespace gpusort
