#!/usr/bin/env python3
"""Plot gpusort_bench's Google Benchmark JSON: G keys/s against n, gpusort next to CUB.

Usage:
    scripts/bench_plot.py results.json [out.png]     (default: results.png next to the JSON)

One small panel per gpusort backend, op, key type and distribution it ran, with the gpusort
line, its companions' (bench_table.py's COMPANIONS: merge_pool and thrust_merge beside merge;
thrust_merge_lambda beside merge_lambda; par_pool, par_mallocasync and thrust beside par) and
their CUB reference from the same run (paired as scripts/bench_table.py pairs them; where
CUB was called two ways, its faster call at each size), n on a log2 axis. Needs matplotlib: Debian's
python3-matplotlib, which the script installs with apt-get when it runs as root and the
module is missing (no PyPI).
"""

import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_table import (REFERENCE_ALTERNATIVES, REFERENCE_PREFIX, collect,  # noqa: E402
                         fastest_reference, leader, load_results, member_order,
                         reference_backend)


SYSTEM_PYTHON = "/usr/bin/python3"  # where Debian's python3-matplotlib goes


def install_matplotlib():
    if os.geteuid() != 0:
        sys.exit("bench_plot.py: needs matplotlib: apt-get install python3-matplotlib")
    subprocess.run(["apt-get", "install", "-y", "-q", "python3-matplotlib"], check=True,
                   stdout=subprocess.DEVNULL)


def import_pyplot():
    try:
        import matplotlib
    except ImportError:
        # Another interpreter first on PATH (pyenv, a venv): rerun under the system one.
        if (os.path.exists(SYSTEM_PYTHON) and
                os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)):
            if subprocess.run([SYSTEM_PYTHON, "-c", "import matplotlib"],
                              stderr=subprocess.DEVNULL).returncode != 0:
                install_matplotlib()
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
        install_matplotlib()
        import matplotlib
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as pyplot
    return pyplot


def panels(results):
    """[(leader, op, reference, type, dist, [(backend, [(n, G keys/s)])], [(n, CUB G keys/s)])]:
    one per gpusort backend (with its companions), op, type and distribution."""
    rows = sorted({(leader(backend), op, key_type, dist, backend)
                   for (op, backend, key_type, dist, _) in results
                   if not backend.startswith(REFERENCE_PREFIX)},
                  key=lambda row: row[:4] + (member_order(row[4]),))
    out = []
    for lead, op, key_type, dist in dict.fromkeys(row[:4] for row in rows):
        backends = [row[4] for row in rows if row[:4] == (lead, op, key_type, dist)]
        reference = reference_backend(results, op, backends[0], key_type, dist)
        lines, sizes = [], set()
        for backend in backends:
            points = sorted((n, sample["keys_per_s"] / 1e9)
                            for (o, b, t, d, n), sample in results.items()
                            if (o, b, t, d) == (op, backend, key_type, dist)
                            and "error" not in sample and sample.get("keys_per_s"))
            if points:
                lines.append((backend, points))
                sizes.update(n for n, _ in points)
        # CUB's faster call at each size, where it was called more than one way.
        cub_samples = [(n, fastest_reference(results, op, reference, key_type, dist, n))
                       for n in sorted(sizes)] if reference else []
        cub = [(n, sample["keys_per_s"] / 1e9) for n, sample in cub_samples if sample]
        if lines:
            out.append((lead, op, reference, key_type, dist, lines, cub))
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    source = sys.argv[1]
    target = sys.argv[2] if len(sys.argv) == 3 else os.path.splitext(source)[0] + ".png"
    data = load_results(source)
    results = collect(data.get("benchmarks", []))
    found = panels(results)
    if not found:
        sys.exit(f"bench_plot.py: no gpusort rows in {source}")

    pyplot = import_pyplot()
    columns = min(5, len(found))
    rows = math.ceil(len(found) / columns)
    figure, axes = pyplot.subplots(rows, columns, figsize=(3.2 * columns, 2.6 * rows),
                                   squeeze=False)
    shown_legend = set()
    for axis, (lead, op, reference, key_type, dist, lines, cub) in zip(axes.flat, found):
        for backend, points in lines:
            style, label = ("o-", f"gpusort::{backend}") if backend == lead else (".-", backend)
            axis.plot([n for n, _ in points], [g for _, g in points], style, label=label)
        if cub:
            alternatives = [call for call in REFERENCE_ALTERNATIVES.get(reference, ())
                            if any(key[1] == call for key in results)]
            axis.plot([n for n, _ in cub], [c for _, c in cub], "s--",
                      label=f"{reference} (faster call)" if alternatives else reference)
        axis.set_xscale("log", base=2)
        axis.set_title(f"{lead}: {op} {key_type} {dist}", fontsize=9)
        axis.set_ylim(bottom=0)
        axis.tick_params(labelsize=7)
        axis.grid(alpha=0.3)
        # A legend on the first panel of each set of lines.
        lines_shown = (tuple(backend for backend, _ in lines), reference)
        if lines_shown not in shown_legend:
            shown_legend.add(lines_shown)
            axis.legend(fontsize=7)
    for axis in list(axes.flat)[len(found):]:
        axis.set_visible(False)
    axes.flat[0].set_ylabel("G keys/s", fontsize=8)
    context = data.get("context", {})
    figure.suptitle(f"gpusort vs CUB: {context.get('gpu', 'GPU?')}, "
                    f"{str(context.get('date', ''))[:10]}, n keys (log2)", fontsize=10)
    # tight_layout packs the panels without the suptitle: leave it half an inch at the top.
    figure.tight_layout(rect=(0, 0, 1, 1 - 0.5 / figure.get_figheight()))
    figure.savefig(target, dpi=110)
    print(target)


if __name__ == "__main__":
    main()
