#!/usr/bin/env python3
"""Plot gpusort::par against CUB over n, coloured by the strategy par's table picks.

Usage:
    scripts/par_plot.py results.json [policies/tuning/par_table_GPU.cuh] [out.png]

results.json: gpusort_bench with the par rows and their CUB partners (bench/par_bench.cu
says which filter). The table defaults to the one of the JSON's GPU (par_table_h100.cuh for
an H100, else par_table_h200.cuh). One panel per type: the plain par call's speed ÷ CUB's
(above 1: par is faster) against n on a log2 axis, each point in the colour of the strategy
the table chooses there (CUB's speed: the faster of its int-count and std::size_t-count
calls where both ran); in grey dashes the same call with cudaMallocAsync on the device's
default pool (par_mallocasync: the default path before gpusort's own pool); the goals drawn
in red (1.5x from 2^13 to 2^22, 1x everywhere). Needs Debian's python3-matplotlib
(installed with apt-get when missing, as scripts/bench_plot.py does).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_plot import import_pyplot  # noqa: E402
from bench_table import (collect, fastest_reference, key_value_bytes,  # noqa: E402
                         load_results)

COLOURS = {"network": "tab:cyan", "cluster_small": "tab:green", "cluster_medium": "tab:olive",
           "merge": "tab:purple",
           "onesweep_small_tiles": "tab:orange", "msd_buckets": "tab:red",
           "onesweep_mid_tiles": "tab:brown", "onesweep_pair_tiles": "tab:pink",
           "onesweep": "tab:blue"}
ROW = re.compile(r"\{(\d+), (true|false), (\d+), par_strategy::(\w+)\}")
# par's sorting network, ahead of the table: 32-bit keys only, up to one cluster of
# network_tiling_sm90 (policies/tuning/sm90.cuh: 8 blocks of 256 x 4 keys).
NETWORK_MAX_N = 8 * 256 * 4


def read_table(path):
    with open(path) as f:
        return [(int(k), w == "true", int(n), s) for k, w, n, s in ROW.findall(f.read())]


def chosen(table, key_bytes, with_values, n, floating=False):
    """choose_par_strategy (policies/select.cuh), in Python (par runs merge rows for every
    radix key, floats included; floating-point keys pass over msd_buckets rows), after
    the sorting network that par runs ahead of its table."""
    if key_bytes == 4 and not with_values and n <= NETWORK_MAX_N:
        return "network"
    widths = [k for k, _, _, _ in table]
    key_class = min(max(key_bytes, min(widths)), max(widths))
    for k, w, max_n, strategy in table:
        if (k, w) != (key_class, with_values) or n > max_n:
            continue
        if floating and strategy == "msd_buckets":
            continue
        return strategy
    return "onesweep"


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    here = os.path.dirname(os.path.abspath(__file__))
    data = load_results(argv[1])
    gpu_name = "h100" if "H100" in data.get("context", {}).get("gpu", "") else "h200"
    table_path = argv[2] if len(argv) > 2 else os.path.join(
        here, "..", "policies", "tuning", f"par_table_{gpu_name}.cuh")
    out = argv[3] if len(argv) > 3 else os.path.splitext(argv[1])[0] + ".png"
    results = collect(data.get("benchmarks", []))
    table = read_table(table_path)
    types = [t for t in ("u32", "f32", "u64", "f64", "u32+u32", "u64+u32")
             if any(b == "par" and ty == t and op != "host" for (op, b, ty, _, _) in results)]
    pyplot = import_pyplot()
    figure, axes = pyplot.subplots(1, len(types), figsize=(4.2 * len(types), 3.6), squeeze=False)
    for axis, type_field in zip(axes[0], types):
        key_bytes, value_bytes = key_value_bytes(type_field)
        points = []
        for (op, backend, t, dist, n), sample in results.items():
            if backend != "par" or t != type_field or "error" in sample:
                continue
            cub = fastest_reference(results, op, "cub_radix", t, dist, n)
            if cub:
                strategy = chosen(table, key_bytes, value_bytes > 0, n,
                                  floating=type_field.startswith("f"))
                points.append((n, sample["keys_per_s"] / cub["keys_per_s"], strategy))
        points.sort()
        before = sorted(
            (n, sample["keys_per_s"] / cub["keys_per_s"])
            for (op, backend, t, dist, n), sample in results.items()
            if backend == "par_mallocasync" and t == type_field and "error" not in sample
            for cub in [fastest_reference(results, op, "cub_radix", t, dist, n)] if cub)
        if before:
            axis.plot([p[0] for p in before], [p[1] for p in before], color="0.6",
                      linestyle="--", linewidth=0.8, zorder=1)
        axis.plot([p[0] for p in points], [p[1] for p in points], color="0.7", zorder=1)
        for strategy, colour in COLOURS.items():
            mine = [p for p in points if p[2] == strategy]
            if mine:
                axis.scatter([p[0] for p in mine], [p[1] for p in mine], color=colour,
                             zorder=2, s=18)
        axis.axhline(1.0, color="black", linewidth=0.8)
        axis.plot([2 ** 13, 2 ** 22], [1.5, 1.5], color="tab:red", linestyle="--", linewidth=0.8)
        axis.set_xscale("log", base=2)
        axis.set_title(f"{type_field}: par ÷ CUB")
        axis.set_xlabel("n (keys)")
        axis.grid(True, which="both", linewidth=0.3)
    axes[0][0].set_ylabel("speed-up over cub::DeviceRadixSort")
    for strategy, colour in COLOURS.items():  # one legend entry per strategy, in every figure
        axes[0][0].scatter([], [], color=colour, label=strategy, s=18)
    axes[0][0].legend(fontsize=7, loc="best")  # where it hides the fewest points
    context = data.get("context", {})
    figure.suptitle(f"gpusort::par vs CUB, {context.get('gpu', '')}, "
                    f"{context.get('date', '')[:10]} (red: goals; grey dashes: cudaMallocAsync, the old "
                    "default)", fontsize=9)
    figure.tight_layout()
    figure.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main(sys.argv)
