#!/usr/bin/env python3
"""scripts/par_table.py: which sweep winners become table rows (Python standard library)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import par_table  # noqa: E402


def sizes(*picks):
    """[(n, winner, rates)] from (n, {strategy: keys/s}) pairs, n ascending."""
    return [(n, max(rates, key=rates.get), rates) for n, rates in picks]


def winners_of(smoothed):
    return [strategy for _, strategy, _ in smoothed]


class Smoothed(unittest.TestCase):
    def test_a_lone_narrow_win_between_two_sizes_of_one_other_strategy_is_noise(self):
        picks = sizes((1, {"merge": 10, "msd_buckets": 9}),
                      (2, {"merge": 10, "msd_buckets": 10.5}),
                      (3, {"merge": 10, "msd_buckets": 9}))
        self.assertEqual(winners_of(par_table.smoothed(picks)), ["merge"] * 3)

    def test_a_lone_win_by_the_noise_share_or_more_stays(self):
        picks = sizes((1, {"merge": 10, "msd_buckets": 9}),
                      (2, {"merge": 10, "msd_buckets": 11.3}),
                      (3, {"merge": 10, "msd_buckets": 9}))
        self.assertEqual(winners_of(par_table.smoothed(picks)),
                         ["merge", "msd_buckets", "merge"])

    def test_onesweep_at_the_largest_size_agrees_with_what_runs_past_the_table(self):
        picks = sizes((1, {"merge": 10, "onesweep": 9}),
                      (2, {"merge": 10, "onesweep": 9}),
                      (3, {"merge": 10, "onesweep": 10.2}))
        smoothed = par_table.smoothed(picks)
        self.assertEqual(winners_of(smoothed), ["merge", "merge", "onesweep"])
        self.assertEqual(par_table.rows(smoothed), [(2, "merge")])

    def test_a_lone_narrow_win_at_the_largest_size_before_onesweep_is_noise(self):
        picks = sizes((1, {"merge": 9, "onesweep": 10}),
                      (2, {"merge": 10.2, "onesweep": 10}))
        self.assertEqual(winners_of(par_table.smoothed(picks)), ["onesweep", "onesweep"])

    def test_a_lone_win_at_the_smallest_size_goes_whatever_its_margin(self):
        picks = sizes((1, {"merge": 20, "cluster_small": 10}),
                      (2, {"merge": 9, "cluster_small": 10}),
                      (3, {"merge": 9, "cluster_small": 10}))
        self.assertEqual(winners_of(par_table.smoothed(picks)), ["cluster_small"] * 3)


class Winners(unittest.TestCase):
    def rates(self, type_field, strategy, keys_per_s, n=4096):
        return {("sweep", strategy, type_field, "uniform", n): {"keys_per_s": keys_per_s}}

    def test_merge_is_never_a_candidate_for_4_byte_keys(self):
        results = {**self.rates("u32", "merge", 30), **self.rates("u32", "cluster_small", 10),
                   **self.rates("u64", "merge", 30), **self.rates("u64", "cluster_small", 10)}
        found = par_table.winners(results)
        self.assertEqual(found[(4, False)][0][1], "cluster_small")
        self.assertEqual(found[(8, False)][0][1], "merge")


class Resweep(unittest.TestCase):
    def test_a_resweep_replaces_every_strategy_at_its_sizes_and_no_other_size(self):
        def row(strategy, n, keys_per_s, type_field="u32"):
            return {("sweep", strategy, type_field, "uniform", n): {"keys_per_s": keys_per_s}}
        sweep = {**row("onesweep", 1024, 10), **row("merge", 1024, 20),
                 **row("onesweep", 2048, 10), **row("merge", 2048, 20),
                 **row("onesweep", 2048, 5, "u64")}
        later = {**row("onesweep", 2048, 30), **row("onesweep_mid_tiles", 2048, 40)}
        self.assertEqual(par_table.resweep(sweep, later),
                         {**row("onesweep", 1024, 10), **row("merge", 1024, 20),
                          **row("onesweep", 2048, 30), **row("onesweep_mid_tiles", 2048, 40),
                          **row("onesweep", 2048, 5, "u64")})

    def test_a_resweep_of_some_types_leaves_the_others_as_swept(self):
        def row(strategy, type_field, keys_per_s):
            return {("sweep", strategy, type_field, "uniform", 2048): {"keys_per_s": keys_per_s}}
        sweep = {**row("merge", "u64", 20), **row("onesweep", "u32", 10)}
        later = {**row("msd_buckets", "u64", 30), **row("onesweep_mid_tiles", "u32", 40)}
        self.assertEqual(par_table.resweep(sweep, later, {"u32"}),
                         {**row("merge", "u64", 20), **row("onesweep_mid_tiles", "u32", 40)})


if __name__ == "__main__":
    unittest.main()
