#!/usr/bin/env python3
"""gpusort::par as a user calls it, against CUB and Thrust: the markdown report of one run.

Usage:
    gpusort_bench --benchmark_filter='^(sort|sort_by_key)/(par|par_pool|par_mallocasync|cub_radix|cub_radix_size_t|thrust)/[^/]+/uniform/|^copy/|^host/' \\
        --benchmark_out=r.json --benchmark_out_format=json
    scripts/par_report.py r.json > report.md

For each type, one row per variant, one column per size, each cell the variant's speed ÷
cub::DeviceRadixSort's from the same run (above 1: faster than CUB; CUB's speed is the faster
of cub_radix, an int item count, and cub_radix_size_t, a std::size_t count, where both ran):
  par              the plain call, no allocator (the headline)
  par_pool         the same call with a pre-allocated block
  par_mallocasync  the same call taking cudaMallocAsync from the device's default pool
                   (what the plain call did before gpusort had its own pool)
  thrust           thrust::sort / thrust::sort_by_key with its own per-call allocation
then CUB's std::size_t call ÷ its int call, the plain call ÷ the pre-allocated one, and the plain call's G keys/s and floor
bandwidth (one read and one write of keys and values) against the device copy of the same
run; last, the host time of one call (host/ rows). Python 3 standard library only.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_table import (collect, fastest_reference, fmt_size,  # noqa: E402
                         key_value_bytes, load_results, markdown_table)

TYPES = ("u32", "f32", "u64", "f64", "u32+u32", "u64+u32", "u8", "u16")
VARIANTS = ("par", "par_pool", "par_mallocasync", "thrust")


def rate(results, op, backend, type_field, n):
    sample = results.get((op, backend, type_field, "uniform", n))
    if not sample or "error" in sample or not sample.get("keys_per_s"):
        return None
    return sample["keys_per_s"]


def cub_rate(results, op, type_field, n):
    """CUB's speed in one cell: the faster of its int-count and std::size_t-count calls."""
    sample = fastest_reference(results, op, "cub_radix", type_field, "uniform", n)
    return sample["keys_per_s"] if sample else None


def ratio_cell(a, b):
    return f"{a / b:.2f}" if a and b else "—"


def copy_ceiling(results):
    """(n, GB/s) of the largest device copy in the run, or None: a copy small enough to sit
    in L2 (--gpusort_max_log2 below 24) reads lower than the device's, so the report names it."""
    copies = sorted((n, s["gbps"]) for (op, _, _, _, n), s in results.items()
                    if op == "copy" and "error" not in s and s.get("gbps"))
    return copies[-1] if copies else None


def report(data):
    """The markdown report of one run's Google Benchmark JSON (already loaded)."""
    results = collect(data.get("benchmarks", []))
    context = data.get("context", {})
    sizes = sorted({n for (op, b, t, d, n) in results if b == "par" and op != "host"})
    copy = copy_ceiling(results)
    copy_gbps = copy[1] if copy else None

    out = [f"# gpusort::par as a user calls it, next to CUB and Thrust",
           "",
           f"GPU: {context.get('gpu', '?')} (sm_{context.get('gpu_compute_capability', '?')}, "
           f"{context.get('gpu_sms', '?')} SMs, peak memory bandwidth "
           f"{float(context.get('gpu_peak_memory_bandwidth_gbps', 0)) / 1e3:.2f} TB/s) · date: "
           f"{context.get('date', '?')} · CUDA {context.get('cuda_runtime', '?')} · CUB "
           f"{context.get('cub', '?')}",
           "",
           "Device-to-device copy in the same run (bytes read + written): "
           + (f"{copy_gbps:.0f} GB/s ({fmt_size(copy[0])} u32 keys)" if copy else "not measured"),
           "",
           "Each cell: the variant's speed ÷ `cub::DeviceRadixSort`'s (temp storage allocated "
           "once up front) on the same data in the same run; above 1 is faster than CUB. "
           "CUB's speed is the faster of its two calls where both ran: with an `int` item "
           "count and with a `std::size_t` one.",
           ""]
    header = ["type", "variant"] + [fmt_size(n) for n in sizes]
    rows = []
    for type_field in TYPES:
        op = "sort" if "+" not in type_field else "sort_by_key"
        if not any(rate(results, op, "par", type_field, n) for n in sizes):
            continue
        for variant in VARIANTS:
            if not any(rate(results, op, variant, type_field, n) for n in sizes):
                continue  # a variant this run left out
            rows.append([type_field, variant] + [
                ratio_cell(rate(results, op, variant, type_field, n),
                           cub_rate(results, op, type_field, n)) for n in sizes])
    out += ["## Speed ÷ CUB", "", markdown_table(header, rows), ""]

    rows = []
    for type_field in TYPES:
        op = "sort" if "+" not in type_field else "sort_by_key"
        if any(rate(results, op, "cub_radix_size_t", type_field, n) for n in sizes):
            rows.append([type_field, "size_t ÷ int"] + [
                ratio_cell(rate(results, op, "cub_radix_size_t", type_field, n),
                           rate(results, op, "cub_radix", type_field, n)) for n in sizes])
    if rows:
        out += ["## CUB with a `std::size_t` count ÷ CUB with an `int` count", "",
                "Above 1: the `std::size_t` call is the faster, and the one par is set against "
                "above.", "", markdown_table(header, rows), ""]

    rows = []
    for type_field in TYPES:
        op = "sort" if "+" not in type_field else "sort_by_key"
        if any(rate(results, op, "par", type_field, n) and
               rate(results, op, "par_pool", type_field, n) for n in sizes):
            rows.append([type_field, "par ÷ par_pool"] + [
                ratio_cell(rate(results, op, "par", type_field, n),
                           rate(results, op, "par_pool", type_field, n)) for n in sizes])
    if rows:  # a run without par_pool rows has nothing to say here
        out += ["## The plain call ÷ the same call with a pre-allocated block", "",
                "1.00 means the default temporary memory costs nothing.", "",
                markdown_table(header, rows), ""]

    rows = []
    for type_field in TYPES:
        op = "sort" if "+" not in type_field else "sort_by_key"
        key_bytes, value_bytes = key_value_bytes(type_field)
        cells = []
        for n in sizes:
            r = rate(results, op, "par", type_field, n)
            if not r:
                cells.append("—")
                continue
            gbps = r * (key_bytes + value_bytes) * 2 / 1e9
            share = f", {100 * gbps / copy_gbps:.0f} %" if copy_gbps else ""
            cells.append(f"{r / 1e9:.2f} ({gbps:.0f}{share})")
        if any(c != "—" for c in cells):
            rows.append([type_field, "par"] + cells)
    out += ["## The plain call: G keys/s (floor GB/s, % of the copy)", "",
            "Floor: one read and one write of keys and values; an LSD radix sort moves several "
            "times that (bench/results/NOTES.md).", "",
            markdown_table(header, rows), ""]

    # With --benchmark_repetitions, the median of the repetitions; else each run.
    entries = [e for e in data.get("benchmarks", [])
               if e["name"].startswith("host/") and e.get("time_unit") == "us"
               and not e.get("error_occurred")]
    medians = [e for e in entries if e.get("aggregate_name") == "median"]
    host = [(e["name"].split("/")[1], int(e["name"].split("/")[4]), e["real_time"])
            for e in (medians or [e for e in entries if e.get("run_type") != "aggregate"])]
    if host:
        rows = [[b, fmt_size(n), f"{us:.1f}"] for b, n, us in sorted(host, key=lambda h: (h[1], h[0]))]
        out += ["## Host time of one call (µs, the device idle before it)", "",
                markdown_table(["call", "n (u32)", "µs"], rows), ""]
    return "\n".join(out)


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    sys.stdout.write(report(load_results(argv[1])))


if __name__ == "__main__":
    main(sys.argv)
