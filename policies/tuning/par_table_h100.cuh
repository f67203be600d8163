// gpusort::par's run-time dispatch table for the H100: a placeholder holding the H200's rows
// until scripts/par_table.py writes the H100 sweep's.
#pragma once

#include "../select.cuh"

namespace gpusort {

inline constexpr par_dispatch_row par_table_h100_rows[] = {
    {4, false, 2048, par_strategy::cluster_small},
    {4, false, 4096, par_strategy::cluster_medium},
    {4, false, 32768, par_strategy::cluster_small},
    {4, false, 65536, par_strategy::cluster_medium},
    {4, false, 262144, par_strategy::onesweep_small_tiles},
    {4, true, 2048, par_strategy::cluster_small},
    {4, true, 4096, par_strategy::cluster_medium},
    {4, true, 32768, par_strategy::cluster_small},
    {4, true, 65536, par_strategy::cluster_medium},
    {4, true, 370728, par_strategy::onesweep_small_tiles},
    {8, false, 2048, par_strategy::cluster_small},
    {8, false, 4096, par_strategy::cluster_medium},
    {8, false, 32768, par_strategy::cluster_small},
    {8, false, 65536, par_strategy::cluster_medium},
    {8, false, 262144, par_strategy::onesweep_small_tiles},
    {8, true, 2048, par_strategy::cluster_small},
    {8, true, 4096, par_strategy::cluster_medium},
    {8, true, 32768, par_strategy::cluster_small},
    {8, true, 46341, par_strategy::cluster_medium},
    {8, true, 262144, par_strategy::onesweep_small_tiles},
};

inline constexpr par_tuned_table par_table_h100{
    "NVIDIA H100 80GB HBM3", 9, 0, 3.352e+12, par_table_h100_rows,
    sizeof(par_table_h100_rows) / sizeof(par_table_h100_rows[0])};

}  // namespace gpusort
