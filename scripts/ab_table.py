#!/usr/bin/env python3
"""Compare two builds of gpusort_bench run side by side (scripts/device-check.sh ab=OLD_SOURCE).

Usage:
    scripts/ab_table.py ab-old-1.json ab-new-1.json ab-old-2.json ab-new-2.json ... > ab.md
    scripts/ab_table.py --old=ab-main ab-main-1.json ab-step1-1.json ... > ab.md

Files named ab-old-* (or, with --old=PREFIX, PREFIX*) are the build before a change, every
other file the build after it. For each op,
type, distribution and size where both a gpusort backend and cub_radix ran, writes gpusort ÷ CUB (CUB's time,
the faster of cub_radix and cub_radix_size_t where both ran,
÷ gpusort's, each pair from the same run), the mean over each side's runs, the change from
old to new, and each side's spread (max - min of its ratios); and the new build's bytes moved ÷ time (one
read and one write of keys and values, the floor of any sort) against the device copy of the
same runs (copy/cuda_memcpy rows, when they ran: the copy of the same size, else of the
largest size that ran; a small copy runs far below the GPU's rate). A file that is not whole
JSON (a run cut off by the device call's time limit) is left out, with a line on stderr.
Python 3 standard library and bench_table.py beside it (benchmark names, type sizes).
"""

import json
import os
import statistics
import sys

from bench_table import REFERENCE_ALTERNATIVES, key_value_bytes, load_results, parse_name


# Google Benchmark's time units, in microseconds.
MICROSECONDS_PER_UNIT = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def rows_of(path):
    """{(op, backend, type, distribution, n): microseconds} and the GPU name of one Google
    Benchmark JSON: the median aggregate where repetitions ran (its run_name is the
    benchmark's own name, without the aggregate's suffix), else the one run."""
    data = load_results(path)
    times = {}
    for bench in data.get("benchmarks", []):
        if bench.get("run_type") == "aggregate" and bench.get("aggregate_name") != "median":
            continue
        parsed = parse_name(bench.get("run_name", bench["name"]))
        if parsed is None:
            continue
        unit = MICROSECONDS_PER_UNIT[bench.get("time_unit", "ns")]
        times[parsed] = bench["real_time"] * unit
    return times, data.get("context", {}).get("gpu", "unknown GPU")


def size_name(n):
    exponent = n.bit_length() - 1
    return f"2^{exponent}" if n == 1 << exponent else str(n)


def floor_bandwidth(key, new_times, copies):
    """One read and one write of the elements ÷ the new build's mean time, and its share of
    the device copy's mean GB/s ({n: [GB/s, ...]}) at the same n, else at the largest n."""
    op, backend, key_type, distribution, n = key
    microseconds = statistics.mean(new_times[key])
    copy = statistics.mean(copies[n if n in copies else max(copies)]) if copies else None
    gbps = 2 * n * sum(key_value_bytes(key_type)) / (microseconds * 1e-6) / 1e9
    return f"{gbps:.0f}" + (f" ({100 * gbps / copy:.0f} %)" if copy else " (no copy row)")


def main(paths, old_prefix="ab-old"):
    sides = {"old": [], "new": []}
    gpu = "unknown GPU"
    for path in paths:
        side = "old" if os.path.basename(path).startswith(old_prefix) else "new"
        try:
            times, gpu = rows_of(path)
        except json.JSONDecodeError as error:
            # A run cut off by the device call's time limit leaves its JSON unfinished.
            print(f"(left out {path}: not whole JSON, {error})", file=sys.stderr)
            continue
        sides[side].append(times)
    ratios = {"old": {}, "new": {}}
    new_times = {}
    copies = {"old": {}, "new": {}}  # n -> GB/s of each run
    for side, runs in sides.items():
        for times in runs:
            for key, microseconds in times.items():
                op, backend, key_type, distribution, n = key
                if backend == "cuda_memcpy":
                    bytes_moved = 2 * n * sum(key_value_bytes(key_type))  # a read and a write
                    copies[side].setdefault(n, []).append(bytes_moved / (microseconds * 1e-6) / 1e9)
                    continue
                if backend.startswith(("cub_", "thrust")):  # thrust, thrust_merge: not gpusort
                    continue
                if side == "new":
                    new_times.setdefault(key, []).append(microseconds)
                # CUB's faster call in this run (the least time of its int and size_t counts).
                cub_times = [times.get((op, call, key_type, distribution, n))
                             for call in ("cub_radix",) + REFERENCE_ALTERNATIVES["cub_radix"]]
                cub = min((t for t in cub_times if t is not None), default=None)
                if cub is not None:
                    ratios[side].setdefault(key, []).append(cub / microseconds)
    print(f"# gpusort ÷ cub::DeviceRadixSort, two builds side by side — {gpu}\n")
    print(f"Runs: {len(sides['old'])} of the old build, {len(sides['new'])} of the new, "
          "alternating. Ratio: CUB's time ÷ gpusort's in the same run (above 1: faster).\n")
    print("| op | backend | keys | distribution | n | old | new | change | old spread "
          "| new spread | new GB/s (of copy) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(set(ratios["old"]) & set(ratios["new"])):
        old, new = ratios["old"][key], ratios["new"][key]
        old_mean, new_mean = statistics.mean(old), statistics.mean(new)
        op, backend, key_type, distribution, n = key
        print(f"| {op} | {backend} | {key_type} | {distribution} | {size_name(n)} | "
              f"{old_mean:.3f} | "
              f"{new_mean:.3f} | {100 * (new_mean / old_mean - 1):+.1f} % | "
              f"{max(old) - min(old):.3f} | {max(new) - min(new):.3f} | "
              f"{floor_bandwidth(key, new_times, copies['new'])} |")
    for side in ("old", "new"):
        for n, rates in sorted(copies[side].items()):
            print(f"\nDevice copy of {size_name(n)} words, {side} runs: "
                  + ", ".join(f"{gbps:.0f}" for gbps in rates) + " GB/s (read + write)")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    old_prefix = "ab-old"
    if arguments and arguments[0].startswith("--old="):
        old_prefix = arguments.pop(0)[len("--old="):]
    if len(arguments) < 2:
        sys.exit(__doc__)
    main(arguments, old_prefix)
