// gpusort::par's run-time dispatch table for every GPU without a measured one: from a
// sweep (bench/par_bench.cu, sweep/...) on the NVIDIA H100 80GB HBM3 on 2026-11-24, by
// scripts/par_table.py, among every strategy but merge (par compiles merge only where a
// table names it). Where a GPU has no clusters, or a cluster holds fewer keys, the
// cluster rows run the small one-sweep tiles, the fastest strategy without clusters at
// those sizes. Each row is the fastest up to max_n keys. Regenerate:
// scripts/device-check.sh sweep=h100,default. Do not edit by hand.
#pragma once

#include "../select.cuh"

namespace gpusort {

inline constexpr par_dispatch_row par_table_default[] = {
    {4, false, 2048, par_strategy::cluster_small},
    {4, false, 4096, par_strategy::cluster_medium},
    {4, false, 23170, par_strategy::cluster_small},
    {4, false, 46341, par_strategy::cluster_medium},
    {4, false, 92682, par_strategy::onesweep_small_tiles},
    {4, false, 741455, par_strategy::msd_buckets},
    {4, false, 262144, par_strategy::onesweep_small_tiles},
    {4, false, 741455, par_strategy::onesweep},
    {4, true, 2048, par_strategy::cluster_small},
    {4, true, 4096, par_strategy::cluster_medium},
    {4, true, 32768, par_strategy::cluster_small},
    {4, true, 65536, par_strategy::cluster_medium},
    {4, true, 741455, par_strategy::msd_buckets},
    {4, true, 370728, par_strategy::onesweep_small_tiles},
    {4, true, 741455, par_strategy::onesweep},
    {8, false, 2048, par_strategy::cluster_small},
    {8, false, 4096, par_strategy::cluster_medium},
    {8, false, 32768, par_strategy::cluster_small},
    {8, false, 65536, par_strategy::cluster_medium},
    {8, false, 92682, par_strategy::onesweep_small_tiles},
    {8, false, 741455, par_strategy::msd_buckets},
    {8, false, 262144, par_strategy::onesweep_small_tiles},
    {8, false, 741455, par_strategy::onesweep},
    {8, true, 2048, par_strategy::cluster_small},
    {8, true, 4096, par_strategy::cluster_medium},
    {8, true, 32768, par_strategy::cluster_small},
    {8, true, 46341, par_strategy::cluster_medium},
    {8, true, 1482910, par_strategy::msd_buckets},
    {8, true, 370728, par_strategy::onesweep_small_tiles},
    {8, true, 1482910, par_strategy::onesweep},
};

}  // namespace gpusort
