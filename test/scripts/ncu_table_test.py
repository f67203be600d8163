#!/usr/bin/env python3
"""scripts/ncu_table.py: ncu's two CSV layouts read alike, kernels selected by short name
(Python standard library)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import ncu_table  # noqa: E402

PASS = "void gpusort::onesweep_pass<large_input_tuning<radix_tuning_sm90, unsigned int>, unsigned int>(T2 *, int)"
CUB_PASS = "void cub::detail::radix_sort::DeviceRadixSortOnesweepKernel<Policy, (SortOrder)0>(T7 *, int)"

# --page details, as saved from stdout: the program's output first, metric rows of 16 fields,
# an advice row of 20 (empty metric name), one metric name in two sections with other units.
DETAILS = "\n".join([
    "==PROF== Connected to process 553",
    "sort_by_key/par/u32+u32/uniform/67108864/manual_time 2306 us",
    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
    '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value",'
    '"Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"',
    f'"0","1","b","h","{PASS}","1","13","(384, 1, 1)","(6722, 1, 1)","0","9.0","SOL","Duration","ns","524,352"',
    f'"0","1","b","h","{PASS}","1","13","(384, 1, 1)","(6722, 1, 1)","0","9.0","SOL","Memory Throughput","%","62.02"',
    f'"0","1","b","h","{PASS}","1","13","(384, 1, 1)","(6722, 1, 1)","0","9.0","Mem","Memory Throughput","byte/s","2,078,950,811,668.50"',
    f'"0","1","b","h","{PASS}","1","13","(384, 1, 1)","(6722, 1, 1)","0","9.0","SOL","","","","SOLBottleneck","OPT","advice","global","0"',
    f'"1","1","b","h","{PASS}","1","13","(384, 1, 1)","(6722, 1, 1)","0","9.0","SOL","Duration","ns","527,712"',
    f'"1","1","b","h","{PASS}","1","13","(384, 1, 1)","(6722, 1, 1)","0","9.0","SOL","Memory Throughput","%","61.68"',
    '"2","1","b","h","void gpusort::count_all_digits<T>(T *)","1","13","(1024, 1, 1)","(132, 1, 1)","0","9.0","SOL","Duration","ns","139,680"',
]) + "\n"

# --page raw: a column per metric, the units on the second line.
RAW = "\n".join([
    "==PROF== Connected to process 600",
    '"ID","Process ID","Kernel Name","gpu__time_duration.sum","lts__t_sector_hit_rate.pct"',
    '"","","","ns","%"',
    f'"0","600","{CUB_PASS}","534,688","59.72"',
    f'"1","600","{CUB_PASS}","520,768","59.37"',
]) + "\n"


class ShortKernelNames(unittest.TestCase):
    def test_namespace_template_arguments_and_parameters_go(self):
        self.assertEqual(ncu_table.short_kernel_name(PASS), "onesweep_pass")
        self.assertEqual(ncu_table.short_kernel_name(CUB_PASS), "DeviceRadixSortOnesweepKernel")
        self.assertEqual(ncu_table.short_kernel_name("plain_kernel(int)"), "plain_kernel")


class Layouts(unittest.TestCase):
    def test_details_rows_gather_by_launch_and_skip_advice(self):
        launches = ncu_table.read_launches(DETAILS)
        self.assertEqual([(i, k) for i, k, _ in launches],
                         [("0", "onesweep_pass"), ("1", "onesweep_pass"), ("2", "count_all_digits")])
        first = launches[0][2]
        self.assertEqual(first["Duration"], ("524,352", "ns"))
        self.assertNotIn("", first)
        # the second section's metric of the same name keeps its own value under its unit
        self.assertEqual(first["Memory Throughput"], ("62.02", "%"))
        self.assertEqual(first["Memory Throughput [byte/s]"][1], "byte/s")

    def test_raw_rows_take_their_units_from_the_second_line(self):
        launches = ncu_table.read_launches(RAW)
        self.assertEqual([k for _, k, _ in launches], ["DeviceRadixSortOnesweepKernel"] * 2)
        self.assertEqual(launches[1][2]["gpu__time_duration.sum"], ("520,768", "ns"))

    def test_raw_launch_columns_are_not_metrics(self):
        launches = ncu_table.read_launches(RAW)
        self.assertEqual(ncu_table.numeric_metrics(launches),
                         ["gpu__time_duration.sum", "lts__t_sector_hit_rate.pct"])

    def test_text_without_a_header_is_refused(self):
        with self.assertRaises(ValueError):
            ncu_table.read_launches("==PROF== nothing profiled\n")


class Tables(unittest.TestCase):
    def test_mean_and_range_over_the_selected_launches(self):
        passes = ncu_table.select(ncu_table.read_launches(DETAILS), "pass")
        self.assertEqual(len(passes), 2)  # count_all_digits left out
        self.assertEqual(ncu_table.summary(passes, "Duration"), "526,032 (524,352-527,712) ns")
        self.assertEqual(ncu_table.summary(passes, "Memory Throughput"), "61.85 (61.68-62.02) %")
        self.assertEqual(ncu_table.summary(passes, "no such metric"), "")

    def test_one_column_per_file_one_row_per_metric(self):
        ours = ncu_table.select(ncu_table.read_launches(DETAILS), "pass")
        cub = ncu_table.read_launches(RAW)
        table = ncu_table.side_by_side([("par", ours), ("cub", cub)],
                                       ["Duration", "gpu__time_duration.sum"]).splitlines()
        self.assertEqual(table[0], "| metric | par (2) | cub (2) |")
        self.assertEqual(table[2], "| Duration | 526,032 (524,352-527,712) ns |  |")
        self.assertEqual(table[3], "| gpu__time_duration.sum |  | 527,728 (520,768-534,688) ns |")

    def test_every_launch_a_row(self):
        launches = ncu_table.read_launches(DETAILS)
        rows = ncu_table.per_launch(launches, ["Duration"]).splitlines()
        self.assertEqual(rows[2:], ["| 0 | onesweep_pass | 524,352 |", "| 1 | onesweep_pass | 527,712 |",
                                    "| 2 | count_all_digits | 139,680 |"])


if __name__ == "__main__":
    unittest.main()
