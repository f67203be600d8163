#!/usr/bin/env python3
"""Set kernels profiled by ncu side by side: one column per CSV file, one row per metric.

Usage:
    scripts/ncu_table.py [--kernel=REGEX] [--metric=NAME ...] par.csv cub.csv ... > table.md
    scripts/ncu_table.py --launches [--kernel=REGEX] [--metric=NAME ...] run.csv > launches.md

Reads what `ncu --csv` writes to stdout in either layout: `--page details` (the default, and
what `--metrics a,b` gives: one line per launch and metric) and `--page raw` (one line per
launch, a column per metric, the units on the second line). Lines before ncu's header (the
profiled program's own output, ==PROF== lines) are skipped, so stdout may be saved whole.
Kernel names are shortened to their unqualified name without template arguments
(`void gpusort::onesweep_pass<...>(...)` -> `onesweep_pass`).

Columns: each file's launches whose short kernel name matches --kernel (a regular expression,
searched; every launch without it), each metric as the mean over them, with min-max where
they differ. The column header names the file and the number of launches. Without --metric,
every metric that each file has for its launches, in the first file's order. With --launches,
one row per launch of a single file instead (its ID, kernel and metrics).
Python 3 standard library and bench_table.py beside it (markdown tables).
"""

import csv
import io
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_table import markdown_table  # noqa: E402

# The columns both pages start with, which say which launch a row is, not what it measured.
LAUNCH_COLUMNS = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                  "Stream", "Block Size", "Grid Size", "Device", "CC"}


def short_kernel_name(name):
    """'void ns::kernel<T, (int)3>(T *, int)' -> 'kernel'."""
    name = re.sub(r"^void\s+", "", name.strip())
    return re.split(r"[<(]", name, maxsplit=1)[0].split("::")[-1]  # ends at the first < or (


def number(text):
    """ncu's value text ('1,234.5', 'n/a', '') -> float, or None where it is not a number."""
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def read_launches(text):
    """ncu CSV text -> list of (id, short kernel name, {metric: (value, unit)}), in launch order."""
    start = text.find('"ID"')
    if start < 0:
        raise ValueError("no ncu CSV header (a line starting with \"ID\") in the input")
    rows = list(csv.reader(io.StringIO(text[start:])))
    header = rows[0]
    launches = {}
    if "Metric Name" in header:  # --page details: one row per launch and metric
        at = {column: header.index(column) for column in
              ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value")}
        for row in rows[1:]:
            # Metric rows end at the value; rule rows (advice, empty metric name) run longer.
            if len(row) <= max(at.values()) or not row[at["Metric Name"]]:
                continue
            launch = launches.setdefault(row[at["ID"]], (short_kernel_name(row[at["Kernel Name"]]), {}))
            name, unit = row[at["Metric Name"]], row[at["Metric Unit"]]
            if name in launch[1] and launch[1][name][1] != unit:
                name = f"{name} [{unit}]"  # two sections' metrics of one name, in other units
            launch[1][name] = (row[at["Metric Value"]], unit)
    else:  # --page raw: a column per metric, units on the second line
        units = rows[1] if len(rows) > 1 else []
        id_column, kernel_column = header.index("ID"), header.index("Kernel Name")
        for row in rows[2:]:
            if len(row) < len(header):
                continue
            metrics = {name: (row[i], units[i] if i < len(units) else "")
                       for i, name in enumerate(header) if name not in LAUNCH_COLUMNS}
            launches[row[id_column]] = (short_kernel_name(row[kernel_column]), metrics)
    return [(launch_id, kernel, metrics) for launch_id, (kernel, metrics) in launches.items()]


def select(launches, kernel_pattern):
    if not kernel_pattern:
        return launches
    return [launch for launch in launches if re.search(kernel_pattern, launch[1])]


def summary(launches, metric):
    """'mean (min-max) unit' of a metric over launches, or '' where none has it as a number."""
    values = [number(metrics[metric][0]) for _, _, metrics in launches if metric in metrics]
    values = [v for v in values if v is not None]
    if not values:
        return ""
    unit = next(metrics[metric][1] for _, _, metrics in launches if metric in metrics)
    text, low, high = (readable(v) for v in (statistics.fmean(values), min(values), max(values)))
    if low != high:
        text += f" ({low}-{high})"
    return f"{text} {unit}".strip()


def readable(value):
    """Large values with thousands separators (ncu's own style), small ones to 4 digits."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def numeric_metrics(launches):
    """The metrics with a number in some launch, in first-seen order."""
    names = {}
    for _, _, metrics in launches:
        for name, (value, _) in metrics.items():
            if number(value) is not None:
                names.setdefault(name, None)
    return list(names)


def side_by_side(columns, metrics):
    """columns: [(title, launches)] -> markdown, a row per metric and a column per title."""
    header = ["metric"] + [f"{title} ({len(launches)})" for title, launches in columns]
    return markdown_table(header, [[metric] + [summary(launches, metric) for _, launches in columns]
                                   for metric in metrics])


def per_launch(launches, metrics):
    return markdown_table(["ID", "kernel"] + metrics,
                          [[launch_id, kernel] + [values[m][0] if m in values else "" for m in metrics]
                           for launch_id, kernel, values in launches])


def main(argv):
    kernel_pattern, wanted, files, launches_mode = None, [], [], False
    for arg in argv[1:]:
        if arg.startswith("--kernel="):
            kernel_pattern = arg[len("--kernel="):]
        elif arg.startswith("--metric="):
            wanted.append(arg[len("--metric="):])
        elif arg == "--launches":
            launches_mode = True
        elif arg.startswith("--"):
            sys.exit(f"ncu_table.py: unknown option {arg}\n{__doc__}")
        else:
            files.append(arg)
    if not files or (launches_mode and len(files) != 1):
        sys.exit(__doc__)
    columns = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            launches = select(read_launches(f.read()), kernel_pattern)
        if not launches:
            sys.exit(f"ncu_table.py: {path}: no launch matches --kernel={kernel_pattern}")
        columns.append((os.path.basename(path), launches))
    if launches_mode:
        launches = columns[0][1]
        print(per_launch(launches, wanted or numeric_metrics(launches)))
        return
    if not wanted:  # what every file has, in the first file's order
        common = set.intersection(*(set(numeric_metrics(launches)) for _, launches in columns))
        wanted = [m for m in numeric_metrics(columns[0][1]) if m in common]
    print(side_by_side(columns, wanted))


if __name__ == "__main__":
    main(sys.argv)
