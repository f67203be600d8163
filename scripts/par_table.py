#!/usr/bin/env python3
"""Turn the sweep of gpusort::par's strategies into its dispatch table.

Usage:
    gpusort_bench --benchmark_filter=sweep/ --benchmark_out=sweep.json --benchmark_out_format=json
    scripts/par_table.py sweep.json[,resweep.json...] NAME [--network-pairs-max-keys=N] \
        [--resweep-types=T1,T2] > policies/tuning/par_table_NAME.cuh

A re-sweep of some sizes (every strategy at them, in one run on the same GPU) follows the sweep
after a comma: its sizes replace the sweep's rows at the same type and size (resweep()), so no
size compares strategies timed in different runs. --resweep-types=T1,T2 takes only those
swept types (u32, u32+u32, u64, u64+u32) from the re-sweeps.

NAME names the GPU (h100, h200): the header defines par_table_NAME, which
policies/tuning/par_tables.cuh lists. The table records the GPU's compute capability and
peak memory bandwidth from the JSON's context; gpusort::par gives each device the table of its
compute capability whose bandwidth is nearest its own.

--network-pairs-max-keys=N: par sorts pairs of 32-bit keys with the sorting network, ahead of
the table's rows, up to N keys (2048 without it; at most what one cluster of the network's
pairs tiling holds, 4096). The sweep does not measure the network: N comes from comparing par
with it and without it at 2048-4096 pairs on the GPU (bench/results/NOTES.md).

NAME `default` writes par_table_default.cuh, the table of every GPU no sweep ran on (run it
on the H100's sweep: of the GPUs measured, its memory is nearer most others'). Every strategy
but merge (par compiles merge only where a table names it); on a GPU without clusters, or
where a cluster holds fewer keys, the cluster rows run the small one-sweep tiles, the fastest
strategy without clusters at those sizes.

For each swept type (u32 and u64 keys, u32+u32 and u64+u32 pairs: key bytes 4 or 8, keys
only or with values) and size, the fastest strategy wins (merge only for 8-byte keys:
MERGE_MIN_KEY_BYTES). After each msd_buckets row come the rows of the fastest other
strategies over its sizes, for floating-point keys (with_runners_up). A lone win between two
sizes won by one other strategy, by less than NOISE, is taken as noise (smoothed()).
Consecutive sizes with the same winner become one row whose max_n is the largest of them.
Sizes past the last row go to the one-sweep sort (choose_par_strategy in
policies/select.cuh). The GPU name and date come from the JSON's context.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_table import collect, key_value_bytes, load_results  # noqa: E402

STRATEGIES = ("cluster_small", "cluster_medium", "merge",
              "onesweep_small_tiles", "msd_buckets", "onesweep_mid_tiles", "onesweep_pair_tiles",
              "onesweep")


# A lone win by at least this share is not noise (smoothed()): on the H200 on 2026-11-28,
# msd_buckets sorted 741455 u64 keys 13 % faster than merge on either side of it, as it had
# in the sweep of 2026-11-24 (a merge pass more from there; bench/results/NOTES.md).
NOISE = 0.10

# 4-byte keys never take merge: on the H200 on 2026-11-28 it won only at 2896-5793 keys
# without values, which the sorting network sorts ahead of the table on every GPU the swept
# tables serve, while a table naming it compiles the merge kernels into every 4-byte key
# type's par (the CI build once doubled, 620 -> 1245 s).
MERGE_MIN_KEY_BYTES = 8

DEFAULT_STRATEGIES = ("cluster_small", "cluster_medium", "onesweep_small_tiles", "msd_buckets",
                      "onesweep_mid_tiles", "onesweep_pair_tiles", "onesweep")


def winners(results, strategies=STRATEGIES):
    """{(key_bytes, with_values): [(n, strategy, {strategy: keys/s})]} in increasing n."""
    by_case = {}
    for (op, strategy, type_field, _dist, n), sample in results.items():
        if op != "sweep" or strategy not in strategies or "error" in sample:
            continue
        key_bytes, value_bytes = key_value_bytes(type_field)
        if strategy == "merge" and key_bytes < MERGE_MIN_KEY_BYTES:
            continue
        by_case.setdefault((key_bytes, value_bytes > 0), {}).setdefault(n, {})[strategy] = \
            sample["keys_per_s"]
    out = {}
    for case, sizes in by_case.items():
        out[case] = [(n, max(rates, key=rates.get), rates) for n, rates in sorted(sizes.items())]
    return out


def resweep(results, later, types=None):
    """results with every row at a (type, size) that `later` measured (of `types`, if given)
    replaced by later's: strategies are compared only within one run."""
    if types is not None:
        later = {key: sample for key, sample in later.items() if key[2] in types}
    def size_of(key):
        op, _strategy, type_field, dist, n = key
        return op, type_field, dist, n
    remeasured = {size_of(key) for key in later}
    kept = {key: sample for key, sample in results.items() if size_of(key) not in remeasured}
    return {**kept, **later}


def smoothed(case_winners, noise=NOISE):
    """The winners, where one size won by a strategy between two sizes won by one other
    strategy goes to that other if it wins by less than `noise` (a share of the other's
    time there): sizes are 2^(1/2) apart, and such a lone flip is the noise of one timing (seen
    on the H100: onesweep_small_tiles at 2^20 between onesweep at 2^19.5 and 2^20.5), not a
    range where the strategy is better. Past the largest size the one-sweep sort runs (rows()
    leaves it out), so the largest size's next neighbour is onesweep; at the smallest size a
    lone win is one where the next two sizes agree."""
    out = list(case_winners)
    end = len(out) - 1

    def winner_at(i):
        return "onesweep" if i > end else out[i][1]

    def wins_by_little(i, other):
        _, here, rates = out[i]
        return other in rates and rates[here] < rates[other] * (1 + noise)

    for i in range(1, end + 1):
        before, here, after = winner_at(i - 1), out[i][1], winner_at(i + 1)
        if before == after != here and wins_by_little(i, before):
            out[i] = (out[i][0], before, out[i][2])
    # (It matters most for merge, which gpusort::par compiles only where a table names it: a
    # lone merge win at 2^10 on the H100 doubled the clean build of the tests, 617 -> 1245 s
    # on the 2-core CI machine; so at the smallest size a lone win goes whatever its margin.)
    if len(out) > 2 and out[0][1] != out[1][1] and out[1][1] == out[2][1]:
        out[0] = (out[0][0], out[1][1], out[0][2])
    return out


def rows(case_winners):
    """[(max_n, strategy)]: runs of one winner (smoothed), without a trailing one-sweep run."""
    out = []
    for n, strategy, _ in smoothed(case_winners):
        if out and out[-1][1] == strategy:
            out[-1] = (n, strategy)
        else:
            out.append((n, strategy))
    while out and out[-1][1] == "onesweep":
        out.pop()
    return out


def with_runners_up(case_rows, other_rows):
    """case_rows with, after each msd_buckets row, the rows of the fastest other strategies
    over its sizes (other_rows: the winners without msd_buckets), the last cut at its max_n.
    Floating-point keys pass over msd_buckets rows (their top digits crowd one bucket;
    choose_par_strategy) and take these; integer keys never reach them."""
    out = []
    start = 0
    for max_n, strategy in case_rows:
        out.append((max_n, strategy))
        if strategy == "msd_buckets":
            for other_max, other in other_rows:
                if other_max <= start:
                    continue
                out.append((min(other_max, max_n), other))
                if other_max >= max_n:
                    break
            else:
                out.append((max_n, "onesweep"))
        start = max_n
    return out


def default_header(context, table):
    gpu = context.get("gpu", "an unnamed GPU")
    date = context.get("date", "")[:10]
    lines = [
        "// gpusort::par's run-time dispatch table for every GPU without a measured one: from a",
        f"// sweep (bench/par_bench.cu, sweep/...) on the {gpu} on {date}, by",
        "// scripts/par_table.py, among every strategy but merge (par compiles merge only where a",
        "// table names it). Where a GPU has no clusters, or a cluster holds fewer keys, the",
        "// cluster rows run the small one-sweep tiles, the fastest strategy without clusters at",
        "// those sizes. Each row is the fastest up to max_n keys. Regenerate:",
        "// scripts/device-check.sh sweep=h100,default. Do not edit by hand.",
    ]
    lines += rows_array("par_table_default", table)
    lines += ["", "}  // namespace gpusort", ""]
    return "\n".join(lines)


def rows_array(array_name, table):
    """The header's body up to the end of the rows array `array_name`."""
    lines = ["#pragma once", "", '#include "../select.cuh"', "", "namespace gpusort {", "",
             f"inline constexpr par_dispatch_row {array_name}[] = {{"]
    for (key_bytes, with_values), case_rows in sorted(table.items()):
        for max_n, strategy in case_rows:
            flag = "true" if with_values else "false"
            lines.append(f"    {{{key_bytes}, {flag}, {max_n}, par_strategy::{strategy}}},")
    return lines + ["};"]


def header(context, table, name, network_pairs_max_keys=None):
    gpu = context.get("gpu", "an unnamed GPU")
    date = context.get("date", "")[:10]
    major, minor = context.get("gpu_compute_capability", "0.0").split(".")
    bandwidth = float(context.get("gpu_peak_memory_bandwidth_gbps", "0")) * 1e9
    rows_name = f"par_table_{name}_rows"
    lines = [
        f"// gpusort::par's run-time dispatch table for the {gpu}",
        f"// (sm_{major}{minor}, peak memory bandwidth {bandwidth / 1e12:.2f} TB/s: select.cuh's choose_par_table",
        "// gives it to the GPUs nearest that). Generated by scripts/par_table.py from a sweep",
        f"// (bench/par_bench.cu, sweep/...) on {date}: each row is the fastest strategy up to max_n",
        "// keys. Rerun the sweep to regenerate it (README, \"Tuning par for your GPU\"); do not",
        "// edit by hand.",
    ]
    if network_pairs_max_keys:
        lines += [
            f"// Pairs of 32-bit keys take the sorting network up to {network_pairs_max_keys} keys",
            f"// ({NETWORK_PAIRS_FLAG}{network_pairs_max_keys}, measured apart from the sweep:"
            " bench/results/NOTES.md).",
        ]
    lines += rows_array(rows_name, table)
    lines += ["",
              f"inline constexpr par_tuned_table par_table_{name}{{",
              f'    "{gpu}", {major}, {minor}, {bandwidth:.4g}, {rows_name},',
              f"    sizeof({rows_name}) / sizeof({rows_name}[0])"
              + (f", {network_pairs_max_keys}" if network_pairs_max_keys else "") + "};",
              "", "}  // namespace gpusort", ""]
    return "\n".join(lines)


RESWEEP_TYPES_FLAG = "--resweep-types="
NETWORK_PAIRS_FLAG = "--network-pairs-max-keys="
NETWORK_PAIRS_MOST_KEYS = 4096  # one cluster of 8 blocks of 256 x 2 (tuning/sm90.cuh)


def load(path):
    """(the JSON's context, its rows by parsed name) of one benchmark run."""
    data = load_results(path)
    return data.get("context", {}), collect(data.get("benchmarks", []))


def main(argv):
    network_pairs_max_keys = None
    resweep_types = None
    flags = [a for a in argv[1:] if a.startswith("--")]
    argv = [argv[0]] + [a for a in argv[1:] if not a.startswith("--")]
    for flag in flags:
        if flag.startswith(RESWEEP_TYPES_FLAG):
            resweep_types = set(flag[len(RESWEEP_TYPES_FLAG):].split(","))
            continue
        value = flag[len(NETWORK_PAIRS_FLAG):] if flag.startswith(NETWORK_PAIRS_FLAG) else ""
        if not value.isdigit() or not 0 < int(value) <= NETWORK_PAIRS_MOST_KEYS:
            sys.exit(f"par_table.py: {flag}: expected {NETWORK_PAIRS_FLAG}N with 0 < N <= "
                     f"{NETWORK_PAIRS_MOST_KEYS}\n\n{__doc__}")
        network_pairs_max_keys = int(value)
    if len(argv) != 3 or not argv[2].isidentifier():
        sys.exit(__doc__)
    if network_pairs_max_keys and argv[2] == "default":
        sys.exit("par_table.py: the default table keeps the default network limit")
    sweep, *resweeps = argv[1].split(",")
    context, results = load(sweep)
    for path in resweeps:
        later_context, later = load(path)
        if later_context.get("gpu") != context.get("gpu"):
            sys.exit(f"par_table.py: {path} was measured on {later_context.get('gpu')}, "
                     f"not {context.get('gpu')}")
        results = resweep(results, later, resweep_types)
    default = argv[2] == "default"
    found = winners(results, DEFAULT_STRATEGIES if default else STRATEGIES)
    if not found:
        sys.exit("par_table.py: no sweep/... rows in " + argv[1])
    for (key_bytes, with_values), case_winners in sorted(found.items()):
        label = f"{key_bytes}-byte keys" + (" + values" if with_values else "")
        picks = ", ".join(f"{n}:{s}" for n, s, _ in case_winners)
        print(f"par_table.py: {label}: {picks}", file=sys.stderr)
    strategies = DEFAULT_STRATEGIES if default else STRATEGIES
    others = winners(results, tuple(s for s in strategies if s != "msd_buckets"))
    table = {case: with_runners_up(rows(w), rows(others.get(case, [])))
             for case, w in found.items()}
    sys.stdout.write(default_header(context, table) if default
                     else header(context, table, argv[2], network_pairs_max_keys))


if __name__ == "__main__":
    main(sys.argv)
