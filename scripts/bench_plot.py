#!/usr/bin/env python3
"""Plot gpusort_bench's Google Benchmark JSON: G keys/s against n, gpusort next to CUB.

Usage:
    scripts/bench_plot.py results.json [out.png]     (default: results.png next to the JSON)

One small panel per op, key type and distribution that a gpusort backend ran, with the gpusort
line and its CUB reference from the same run (paired as scripts/bench_table.py pairs them), n on
a log2 axis. Needs matplotlib: Debian's python3-matplotlib, which the script installs with
apt-get when it runs as root and the module is missing (no PyPI).
"""

import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_table import REFERENCE_PREFIX, collect, reference_backend  # noqa: E402


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
    """[(op, backend, reference, type, dist, [(n, gpusort G keys/s, CUB G keys/s)])]."""
    gpusort_rows = sorted({(op, backend, key_type, dist)
                           for (op, backend, key_type, dist, _) in results
                           if not backend.startswith(REFERENCE_PREFIX)})
    out = []
    for op, backend, key_type, dist in gpusort_rows:
        reference = reference_backend(results, op, backend, key_type, dist)
        points = []
        for (o, b, t, d, n), sample in sorted(results.items(), key=lambda item: item[0][4]):
            if (o, b, t, d) != (op, backend, key_type, dist) or "error" in sample:
                continue
            cub = results.get((op, reference, key_type, dist, n), {}) if reference else {}
            points.append((n, sample["keys_per_s"] / 1e9,
                           cub["keys_per_s"] / 1e9 if cub.get("keys_per_s") else None))
        if points:
            out.append((op, backend, reference, key_type, dist, points))
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    source = sys.argv[1]
    target = sys.argv[2] if len(sys.argv) == 3 else os.path.splitext(source)[0] + ".png"
    with open(source) as f:
        data = json.load(f)
    results = collect(data.get("benchmarks", []))
    found = panels(results)
    if not found:
        sys.exit(f"bench_plot.py: no gpusort rows in {source}")

    pyplot = import_pyplot()
    columns = min(5, len(found))
    rows = math.ceil(len(found) / columns)
    figure, axes = pyplot.subplots(rows, columns, figsize=(3.2 * columns, 2.6 * rows),
                                   squeeze=False)
    for axis, (op, backend, reference, key_type, dist, points) in zip(axes.flat, found):
        sizes = [n for n, _, _ in points]
        axis.plot(sizes, [g for _, g, _ in points], "o-", label=f"gpusort::{backend}")
        cub = [(n, c) for n, _, c in points if c is not None]
        if cub:
            axis.plot([n for n, _ in cub], [c for _, c in cub], "s--", label=reference)
        axis.set_xscale("log", base=2)
        axis.set_title(f"{op} {key_type} {dist}", fontsize=9)
        axis.set_ylim(bottom=0)
        axis.tick_params(labelsize=7)
        axis.grid(alpha=0.3)
    for axis in list(axes.flat)[len(found):]:
        axis.set_visible(False)
    axes.flat[0].set_ylabel("G keys/s", fontsize=8)
    axes.flat[0].legend(fontsize=7)
    context = data.get("context", {})
    figure.suptitle(f"gpusort vs CUB: {context.get('gpu', 'GPU?')}, "
                    f"{str(context.get('date', ''))[:10]}, n keys (log2)", fontsize=10)
    figure.tight_layout()
    figure.savefig(target, dpi=110)
    print(target)


if __name__ == "__main__":
    main()
