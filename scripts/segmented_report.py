#!/usr/bin/env python3
"""gpusort::segmented_sort against cub::DeviceSegmentedSort: the markdown report of one run.

Usage:
    gpusort_bench --benchmark_filter='^segmented/|^copy/' \\
        --benchmark_out=r.json --benchmark_out_format=json [--benchmark_repetitions=5]
    scripts/segmented_report.py r.json [--plot=out.png] > report.md

Rows segmented/<backend>/<type>/<distribution>/<n> (bench/segmented_bench.cu says what each
backend and distribution is). For each size, one table row per type and distribution:
  - the time of one call of par (gpusort::segmented_sort with gpusort::par, no allocator: the
    headline), merge (the same call with gpusort::merge), cub (cub::DeviceSegmentedSort, temp
    storage allocated up front) and, for the single segment, sort (gpusort::sort of the same
    keys);
  - cub ÷ par and cub ÷ merge: CUB's time ÷ gpusort's (above 1: gpusort is faster);
  - sort ÷ par (single segment only): gpusort::sort's time ÷ par's; the goal is par within
    10 % of sort, i.e. at least 0.91 (marked ✓ when met);
  - par's G keys/s, and its floor bandwidth (one read and one write of keys and values) as a
    share of the device copy of the same run (copy/cuda_memcpy/u32/uniform/<n>: the one of the
    same n where it ran, else the largest).
then per size and type the geometric mean of cub ÷ par over the distributions. With
--benchmark_repetitions, the median aggregates; otherwise the median of the runs of each
benchmark (scripts/bench_table.py's collect). The GPU and software come from the JSON's context.

--plot=out.png also draws cub ÷ par as grouped bars (one group per distribution, one bar per
type, one panel per size) where matplotlib can be imported; without it the plot is skipped with
a message on stderr and the report is written all the same. Python 3 standard library only
(matplotlib optional).
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_table import (collect, fmt_size, key_value_bytes, load_results,  # noqa: E402
                         markdown_table, parse_name)

OP = "segmented"
TYPES = ("u32", "f32", "u32+u32")
DISTRIBUTIONS = ("tiny", "uniform1k", "uniform4k", "powerlaw", "huge8", "single", "empties")
BACKENDS = ("par", "merge", "cub", "sort")
SORT_GOAL = 1 / 1.10  # sort's time ÷ par's at least this: par within 10 % of gpusort::sort
PLOT_FLAG = "--plot="


def ordered(found, preferred):
    """The preferred names that were found, in their order, then any others in run order."""
    return [x for x in preferred if x in found] + [x for x in found if x not in preferred]


def case_counters(benchmarks):
    """(type, distribution, n) -> {'segments', 'largest_segment'} from any row of that case."""
    counters = {}
    for entry in benchmarks:
        key = parse_name(entry.get("run_name", entry.get("name", "")))
        if key is None or key[0] != OP or entry.get("error_occurred"):
            continue
        if entry.get("run_type") == "aggregate" and entry.get("aggregate_name") not in ("mean", "median"):
            continue  # stddev, cv: not the counters' values
        if "segments" in entry:
            counters.setdefault(key[2:], {"segments": entry["segments"],
                                          "largest_segment": entry.get("largest_segment")})
    return counters


def seconds(results, backend, type_field, distribution, n):
    """Time of one call (n keys ÷ keys per second), or None; 'error' where the row failed."""
    sample = results.get((OP, backend, type_field, distribution, n))
    if sample is None:
        return None
    if "error" in sample:
        return "error"
    return n / sample["keys_per_s"] if sample.get("keys_per_s") else None


def fmt_time(t):
    if t is None:
        return "—"
    if t == "error":
        return "error"
    us = t * 1e6
    return f"{us:.0f}" if us >= 100 else f"{us:.1f}"


def ratio(numerator, denominator):
    """numerator ÷ denominator for two times, or None where either is missing or failed."""
    if not isinstance(numerator, float) or not isinstance(denominator, float):
        return None
    return numerator / denominator


def fmt_ratio(r, goal=None):
    if r is None:
        return "—"
    return f"{r:.2f}" + (" ✓" if goal is not None and r >= goal else "")


def fmt_count(value):
    if value is None:
        return "—"
    value = int(value)
    return f"{value / 1e6:.2f} M" if value >= 10**6 else f"{value:,}".replace(",", " ")


def copy_rows(results):
    """n -> the copy's GB/s (read + written), from the copy/cuda_memcpy rows that ran."""
    return {n: s["gbps"] for (op, backend, _, _, n), s in results.items()
            if op == "copy" and "error" not in s and s.get("gbps")}


def copy_for(copies, n):
    """(n of the copy row, its GB/s) set against n keys: the same n, else the largest."""
    if not copies:
        return None, None
    at = n if n in copies else max(copies)
    return at, copies[at]


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def build_report(data):
    context = data.get("context", {})
    benchmarks = data.get("benchmarks", [])
    results = collect(benchmarks)
    counters = case_counters(benchmarks)
    mine = [key for key in results if key[0] == OP]
    sizes = sorted({key[4] for key in mine})
    types = ordered(list(dict.fromkeys(key[2] for key in mine)), TYPES)
    distributions = ordered(list(dict.fromkeys(key[3] for key in mine)), DISTRIBUTIONS)
    copies = copy_rows(results)

    peak = context.get("gpu_peak_memory_bandwidth_gbps")
    peak_text = f", peak memory bandwidth {float(peak) / 1e3:.2f} TB/s" if peak else ""
    out = ["# gpusort::segmented_sort next to cub::DeviceSegmentedSort",
           "",
           f"GPU: {context.get('gpu', '?')} (sm_{str(context.get('gpu_compute_capability', '?')).replace('.', '')}, "
           f"{context.get('gpu_sms', '?')} SMs{peak_text}) · date: {context.get('date', '?')} · "
           f"CUDA {context.get('cuda_runtime', '?')} · CUB {context.get('cub', '?')}",
           "",
           "Device-to-device copy in the same run (bytes read + written): "
           + (", ".join(f"{copies[n]:.0f} GB/s ({fmt_size(n)} u32)" for n in sorted(copies))
              if copies else "not measured"),
           "",
           "Times in µs per call (median). cub ÷ par, cub ÷ merge: CUB's time ÷ gpusort's on "
           "the same keys and segments in the same run; above 1 is faster than CUB. sort ÷ par "
           "(one segment): gpusort::sort's time ÷ the segmented call's; ✓ where par is within "
           "10 % of it (≥ 0.91). par GB/s: one read and one write of keys and values per call.",
           ""]
    if not mine:
        out += ["No segmented/ rows in this file (run with --benchmark_filter='^segmented/|^copy/').",
                ""]

    summary_rows = []
    for n in sizes:
        copy_n, copy_gbps = copy_for(copies, n)
        copy_label = (f"% of the {fmt_size(copy_n)} copy" if copy_gbps else "no copy row")
        header = ["type", "distribution", "segments", "largest", "par µs", "merge µs", "cub µs",
                  "sort µs", "cub ÷ par", "cub ÷ merge", "sort ÷ par", "par G keys/s",
                  f"par GB/s ({copy_label})"]
        rows = []
        for type_field in types:
            sizes_of_type = key_value_bytes(type_field)
            cub_over_par = []
            for distribution in distributions:
                times = {b: seconds(results, b, type_field, distribution, n) for b in BACKENDS}
                if all(t is None for t in times.values()):
                    continue
                case = counters.get((type_field, distribution, n), {})
                par = times["par"]
                r = ratio(times["cub"], par)
                cub_over_par.append(r)
                if isinstance(par, float) and sizes_of_type:
                    gbps = n * sum(sizes_of_type) * 2 / par / 1e9
                    share = f" ({100 * gbps / copy_gbps:.0f} %)" if copy_gbps else ""
                    rate_cell, bandwidth_cell = f"{n / par / 1e9:.2f}", f"{gbps:.0f}{share}"
                else:
                    rate_cell = bandwidth_cell = "—"
                rows.append([type_field, distribution,
                             fmt_count(case.get("segments")),
                             fmt_count(case.get("largest_segment"))]
                            + [fmt_time(times[b]) for b in BACKENDS]
                            + [fmt_ratio(r), fmt_ratio(ratio(times["cub"], times["merge"])),
                               fmt_ratio(ratio(times["sort"], par), SORT_GOAL),
                               rate_cell, bandwidth_cell])
            mean = geomean(cub_over_par)
            if mean:
                summary_rows.append([fmt_size(n), type_field, f"{mean:.2f}",
                                     f"{sum(1 for r in cub_over_par if r)} of "
                                     f"{len(cub_over_par)}"])
        out += [f"## {fmt_size(n)} keys", "", markdown_table(header, rows), ""]

    if summary_rows:
        out += ["## cub ÷ par, geometric mean over the distributions", "",
                markdown_table(["n", "type", "cub ÷ par", "distributions"], summary_rows), ""]

    errors = [(key, r["error"]) for key, r in results.items() if key[0] == OP and "error" in r]
    if errors:
        out += ["## Errors", ""]
        out += [f"- `{'/'.join(map(str, key))}`: {message}" for key, message in errors]
        out.append("")
    return "\n".join(out), results, sizes, types, distributions


def plot(path, context, results, sizes, types, distributions):
    """Grouped bars of cub ÷ par; returns False (with a message) where matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only, no display
        import matplotlib.pyplot as pyplot
    except ImportError:
        print("segmented_report.py: matplotlib cannot be imported; skipping the plot "
              f"({path}). Debian: apt-get install python3-matplotlib", file=sys.stderr)
        return False
    if not sizes:
        print("segmented_report.py: no segmented/ rows; skipping the plot", file=sys.stderr)
        return False
    figure, axes = pyplot.subplots(1, len(sizes), figsize=(6.5 * len(sizes), 4.2),
                                   squeeze=False, sharey=True)
    width = 0.8 / max(len(types), 1)
    for panel, n in zip(axes[0], sizes):
        for t, type_field in enumerate(types):
            xs, heights = [], []
            for d, distribution in enumerate(distributions):
                r = ratio(seconds(results, "cub", type_field, distribution, n),
                          seconds(results, "par", type_field, distribution, n))
                if r:
                    xs.append(d - 0.4 + width * (t + 0.5))
                    heights.append(r)
            panel.bar(xs, heights, width, label=type_field)
            for x, h in zip(xs, heights):
                panel.annotate(f"{h:.2f}" if h < 10 else f"{h:.0f}", (x, h), ha="center",
                               va="bottom", fontsize=6, rotation=90)
        # Log scale: ratios run from about 0.5 (tiny segments) to 170 (one segment, where CUB
        # sorts with a single block); 1 is the line to beat.
        panel.set_yscale("log")
        panel.axhline(1.0, color="black", linewidth=0.8)
        panel.set_xticks(range(len(distributions)))
        panel.set_xticklabels(distributions)
        panel.set_title(f"{fmt_size(n)} keys")
        panel.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("CUB time ÷ gpusort::par time (above 1: faster)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=max(len(types), 1), frameon=False)
    figure.suptitle(f"gpusort::segmented_sort vs cub::DeviceSegmentedSort, "
                    f"{context.get('gpu', '?')}, {context.get('date', '?')}")
    figure.tight_layout(rect=(0, 0.07, 1, 1))
    figure.savefig(path, dpi=120)
    print(f"segmented_report.py: wrote {path}", file=sys.stderr)
    return True


def main(argv):
    args = argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    plot_path = None
    paths = []
    for arg in args:
        if arg.startswith(PLOT_FLAG):
            plot_path = arg[len(PLOT_FLAG):]
            if not plot_path:
                print(f"segmented_report.py: {PLOT_FLAG} wants a file name", file=sys.stderr)
                return 2
        elif arg.startswith("-") and arg != "-":
            print(f"segmented_report.py: unknown flag '{arg}' (the only flag is {PLOT_FLAG}FILE)",
                  file=sys.stderr)
            return 2
        else:
            paths.append(arg)
    if len(paths) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    data = load_results(paths[0])
    report, results, sizes, types, distributions = build_report(data)
    sys.stdout.write(report)
    if plot_path:
        plot(plot_path, data.get("context", {}), results, sizes, types, distributions)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
