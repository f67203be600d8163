#!/usr/bin/env python3
"""scripts/bench_table.py, par_report.py: gpusort is set against CUB's faster call in each cell
(Python standard library)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import bench_table  # noqa: E402
import par_report  # noqa: E402


def entry(backend, n, keys_per_s, op="sort", key_type="u32"):
    """One Google Benchmark run of <op>/<backend>/<key_type>/uniform/<n>."""
    return {"name": f"{op}/{backend}/{key_type}/uniform/{n}/manual_time",
            "run_type": "iteration", "items_per_second": keys_per_s, "GBps": 1.0}


class FastestReference(unittest.TestCase):
    def test_the_faster_call_in_each_cell(self):
        results = bench_table.collect([entry("cub_radix", 1024, 3e9),
                                       entry("cub_radix_size_t", 1024, 2e9),
                                       entry("cub_radix", 2048, 3e9),
                                       entry("cub_radix_size_t", 2048, 4e9)])
        pick = [bench_table.fastest_reference(results, "sort", "cub_radix", "u32", "uniform", n)
                ["keys_per_s"] for n in (1024, 2048)]
        self.assertEqual(pick, [3e9, 4e9])

    def test_an_alternative_that_errs_or_did_not_run_is_passed_over(self):
        failed = dict(entry("cub_radix_size_t", 1024, 9e9), error_occurred=True,
                      error_message="out of memory")
        results = bench_table.collect([entry("cub_radix", 1024, 3e9), failed,
                                       entry("cub_radix", 2048, 5e9)])
        for n, expected in ((1024, 3e9), (2048, 5e9)):
            self.assertEqual(bench_table.fastest_reference(
                results, "sort", "cub_radix", "u32", "uniform", n)["keys_per_s"], expected)

    def test_no_reference_ran(self):
        results = bench_table.collect([entry("par", 1024, 3e9)])
        self.assertIsNone(
            bench_table.fastest_reference(results, "sort", "cub_radix", "u32", "uniform", 1024))

    def test_an_alternative_is_not_a_reference_of_its_own(self):
        results = bench_table.collect([entry("radix", 1024, 6e9), entry("cub_radix", 1024, 3e9),
                                       entry("cub_radix_size_t", 1024, 4e9)])
        self.assertEqual(
            bench_table.reference_backend(results, "sort", "radix", "u32", "uniform"), "cub_radix")
        tables = bench_table.build_tables({"benchmarks": [
            entry("radix", 1024, 6e9), entry("cub_radix", 1024, 3e9),
            entry("cub_radix_size_t", 1024, 4e9)]})
        self.assertIn("6.00 / 4.00 (1.50×)", tables)


class ParReport(unittest.TestCase):
    def test_par_is_divided_by_the_faster_cub_call(self):
        results = bench_table.collect([entry("cub_radix", 1024, 2e9),
                                       entry("cub_radix_size_t", 1024, 4e9)])
        self.assertEqual(par_report.cub_rate(results, "sort", "u32", 1024), 4e9)
        results = bench_table.collect([entry("cub_radix", 1024, 2e9)])
        self.assertEqual(par_report.cub_rate(results, "sort", "u32", 1024), 2e9)

    def test_the_copy_is_the_largest_one_in_the_run(self):
        results = bench_table.collect([
            dict(entry("cuda_memcpy", 1 << 22, 1e9, op="copy"), GBps=3100.0),
            dict(entry("cuda_memcpy", 1 << 28, 1e9, op="copy"), GBps=4100.0)])
        self.assertEqual(par_report.copy_ceiling(results), (1 << 28, 4100.0))
        self.assertIsNone(par_report.copy_ceiling(bench_table.collect([entry("par", 1024, 3e9)])))

    def test_the_pool_section_only_where_the_run_has_par_pool_rows(self):
        pool_title = "## The plain call ÷ the same call with a pre-allocated block"
        without = par_report.report({"benchmarks": [entry("par", 1024, 6e9),
                                                    entry("cub_radix", 1024, 3e9)]})
        self.assertIn("| u32 | par | 2.00 |", without)
        self.assertNotIn(pool_title, without)
        with_pool = par_report.report({"benchmarks": [entry("par", 1024, 6e9),
                                                      entry("par_pool", 1024, 5e9),
                                                      entry("cub_radix", 1024, 3e9)]})
        self.assertIn(pool_title, with_pool)
        self.assertIn("| u32 | par ÷ par_pool | 1.20 |", with_pool)


if __name__ == "__main__":
    unittest.main()
