// Every measured dispatch table of gpusort::par, one per GPU its sweep ran on
// (scripts/par_table.py writes them). choose_par_table (select.cuh) gives a device the table of
// its compute capability whose GPU's memory bandwidth is nearest its own; a device of a compute
// capability no table was measured on gets par_table_default. A new table is one more
// #include and one more entry here.
#pragma once

#include "../select.cuh"
#include "par_table_default.cuh"
#include "par_table_h100.cuh"
#include "par_table_h200.cuh"

namespace gpusort {

inline constexpr par_tuned_table par_tuned_tables[] = {par_table_h100, par_table_h200};

// What a device of any other compute capability gets.
inline constexpr par_tuned_table par_table_other_gpus{
    "any other GPU", 0, 0, 0, par_table_default,
    sizeof(par_table_default) / sizeof(par_table_default[0])};

}  // namespace gpusort
