// gpusort::par's run-time dispatch table for GPUs without a measured one (anything but
// sm_90): the cluster sort's medium tiles for small inputs where the GPU has clusters
// (sm_90 and newer), the one-sweep sort above. Measure yours with the sweep (README,
// "Tuning par for your GPU").
#pragma once

#include "../select.cuh"

namespace gpusort {

inline constexpr par_dispatch_row par_table_default[] = {
    {4, false, 32768, par_strategy::cluster_medium},
    {4, true, 32768, par_strategy::cluster_medium},
    {8, false, 32768, par_strategy::cluster_medium},
    {8, true, 32768, par_strategy::cluster_medium},
};

}  // namespace gpusort
