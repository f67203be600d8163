#!/usr/bin/env python3
"""Tables (markdown, stdout) and a scaling plot from gpusort_distributed_bench's JSON.

Usage:
    scripts/distributed_table.py results.json [more.json ...] [--plot plot.png]

Several JSON files are read in order; a row in a later file replaces the same row of an
earlier one (e.g. the pinned-host rows of a run of their own).

Rows (bench/distributed_bench.cu names them): <op>/cub_radix/<type>/ranks:1/total:<n>,
<op>/distributed[_sort_first|_sort_first_nccl|_partition_first]/<type>/ranks:<G>/total:<n>, all_to_all/ranks:<G>/bytes_per_rank:<B>,
host_sort/u32/ranks:<G>/total:<n>, partition_kernels/u32/ranks:<G>/n:<n>. Every ratio is against CUB's row of the same run. The plot
(Debian's python3-matplotlib, installed with apt-get when missing) draws G keys/s against the
total size, one line per configuration, one panel per op.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_plot import import_pyplot  # noqa: E402
from bench_table import load_results  # noqa: E402

SORT_ROW = re.compile(
    r"^(sort|sort_by_key)/(cub_radix|distributed|distributed_sort_first|distributed_sort_first_nccl|distributed_partition_first)/([^/]+)/ranks:(\d+)/total:(\d+)/")
ALL_TO_ALL_ROW = re.compile(r"^all_to_all/ranks:(\d+)/bytes_per_rank:(\d+)/")
HOST_ROW = re.compile(r"^host_sort/([^/]+)/ranks:(\d+)/total:(\d+)/")
PARTITION_ROW = re.compile(r"^partition_kernels/([^/]+)/ranks:(\d+)/n:(\d+)/")


def log2_text(n):
    k = n.bit_length() - 1
    return f"2^{k}" if n == 1 << k else str(n)


def read(paths):
    sorts, all_to_all, hosts = {}, {}, {}
    for path in paths:
        data = load_results(path)
        rows(data, sorts, all_to_all, hosts)
    return data["context"], sorts, all_to_all, hosts


def rows(data, sorts, all_to_all, hosts):
    for row in data["benchmarks"]:
        name = row["name"]
        if m := SORT_ROW.match(name):
            op, backend, key_type, ranks, n = m.groups()
            sorts[(op, key_type, backend, int(ranks), int(n))] = row
        elif m := ALL_TO_ALL_ROW.match(name):
            all_to_all[(int(m.group(1)), int(m.group(2)))] = row
        elif m := HOST_ROW.match(name):
            hosts[(m.group(1), int(m.group(2)), int(m.group(3)))] = row
        elif m := PARTITION_ROW.match(name):
            hosts[("partition", m.group(1), int(m.group(2)), int(m.group(3)))] = row


def label(backend, ranks):
    if backend == "cub_radix":
        return "CUB, 1 GPU"
    if ranks == 1:
        return "gpusort::par, 1 GPU"
    way = {"distributed_sort_first": ", sorting first",
           "distributed_sort_first_nccl": ", sorting first, exchange through NCCL",
           "distributed_partition_first": ", partitioning first"}.get(backend, " (library's choice)")
    return f"distributed, {ranks} GPUs{way}"


def throughput_table(sorts):
    lines = []
    for op, key_type in sorted({(k[0], k[1]) for k in sorts}, reverse=True):
        sizes = sorted({k[4] for k in sorts if k[:2] == (op, key_type)})
        configs = sorted({(k[2], k[3]) for k in sorts if k[:2] == (op, key_type)},
                         key=lambda c: (c[0] != "cub_radix", c[1], c[0]))  # by name last: stable
        lines.append(f"### {op}, {key_type}: G keys/s (÷ CUB, ÷ gpusort::par, both on one GPU at "
                     "the same total)\n")
        lines.append("| configuration | " + " | ".join(log2_text(n) for n in sizes) + " |")
        lines.append("|---|" + "---|" * len(sizes))
        for backend, ranks in configs:
            cells = []
            for n in sizes:
                row = sorts.get((op, key_type, backend, ranks, n))
                cub = sorts.get((op, key_type, "cub_radix", 1, n))
                if row is None or "error_message" in row:
                    cells.append("—")
                    continue
                par = sorts.get((op, key_type, "distributed", 1, n))
                text = f"{row['Gkeys_per_s']:.1f}"
                ratios = [f"{row['Gkeys_per_s'] / base['Gkeys_per_s']:.2f}×"
                          for base in (cub, par) if base is not None and "error_message" not in base]
                if backend != "cub_radix" and ratios:
                    text += f" ({', '.join(ratios) if ranks > 1 else ratios[0]})"
                cells.append(text)
            lines.append(f"| {label(backend, ranks)} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def steps_table(sorts, all_to_all):
    lines = ["### Where the time goes (distributed rows; ms, slowest rank, mean of the timed runs)\n",
             "Sorting first the steps are the local sort, the cut search (split), the exchange and "
             "the merge; partitioning first they are the partition with the sorts inside the "
             "brackets, the cut search, the exchange with the own piece's sort beside it, and "
             "the received pieces' sorts with the merge.\n",
             "| op | type | way | GPUs | total | per GPU | sort time | local sort / partition | split "
             "| exchange | merge | exchange GB/s | all-to-all GB/s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (op, key_type, backend, ranks, n), row in sorted(sorts.items()):
        if backend == "cub_radix" or ranks < 2 or "error_message" in row:
            continue
        if backend == "distributed":
            continue  # the same as one of the two ways
        way = {"distributed_sort_first": "sort first",
               "distributed_sort_first_nccl": "sort first, NCCL exchange"}.get(backend,
                                                                            "partition first")
        bytes_per_rank = n // ranks * (8 if "+" in key_type else 4)
        link = [r for (g, b), r in all_to_all.items() if g == ranks and b <= bytes_per_rank]
        link_text = f"{max(link, key=lambda r: r['GBps'])['GBps']:.0f}" if link else "—"
        lines.append(
            f"| {op} | {key_type} | {way} | {ranks} | {log2_text(n)} | {log2_text(n // ranks)} | "
            f"{row['real_time']:.1f} | {row['local_sort_ms']:.1f} | {row['split_ms']:.2f} | "
            f"{row['exchange_ms']:.1f} | {row['merge_ms']:.1f} | {row['exchange_GBps']:.0f} | "
            f"{link_text} |")
    lines.append("")
    return lines


def link_table(all_to_all):
    if not all_to_all:  # a run filtered to the sort rows
        return []
    lines = ["### The link: NCCL all-to-all alone (grouped send/recv, equal pieces)\n",
             "| GPUs | bytes per rank | ms | GB/s leaving each GPU |", "|---|---|---|---|"]
    for (ranks, b), row in sorted(all_to_all.items()):
        lines.append(f"| {ranks} | {b >> 30} GiB | {row['real_time']:.2f} | {row['GBps']:.0f} |")
    lines.append("")
    return lines


def partition_table(hosts):
    rows = sorted((k, r) for k, r in hosts.items() if k[0] == "partition")
    if not rows:
        return []
    lines = ["### The partition-first way's kernels alone (GPU 0; ms)\n",
             "| type | brackets of | n | device copy | count_classes | scan | scatter_classes |",
             "|---|---|---|---|---|---|---|"]
    for (_, key_type, ranks, n), row in rows:
        lines.append(f"| {key_type} | {ranks} ranks | {log2_text(n)} | {row['copy_ms']:.2f} | "
                     f"{row['count_ms']:.2f} | {row['scan_ms']:.3f} | {row['scatter_ms']:.2f} |")
    lines.append("")
    return lines


def host_table(hosts):
    rows = sorted((k, r) for k, r in hosts.items() if k[0] != "partition")
    if not rows:
        return []
    lines = ["### Pinned host arrays: gpusort::sort(distributed::pinned_host, ...)\n",
             "| type | GPUs | n | array | total s | to GPUs s | sorting s | to host s | G keys/s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (key_type, ranks, n), row in rows:
        if "error_message" in row:
            lines.append(f"| {key_type} | {ranks} | {log2_text(n)} | {n * 4 >> 30} GiB | "
                         f"not run: {row['error_message'][:90]}… | | | | |")
            continue
        lines.append(f"| {key_type} | {ranks} | {log2_text(n)} | {n * 4 >> 30} GiB | "
                     f"{row['real_time'] / 1e3:.2f} | {row['to_devices_s']:.2f} | "
                     f"{row['sorting_s']:.2f} | {row['to_host_s']:.2f} | {row['Gkeys_per_s']:.1f} |")
    lines.append("")
    return lines


def plot(sorts, path):
    pyplot = import_pyplot()
    panels = sorted({(k[0], k[1]) for k in sorts}, reverse=True)
    figure, axes = pyplot.subplots(1, len(panels), figsize=(6 * len(panels), 4.2), squeeze=False)
    for axis, (op, key_type) in zip(axes[0], panels):
        configs = sorted({(k[2], k[3]) for k in sorts if k[:2] == (op, key_type)})
        for backend, ranks in configs:
            points = sorted((k[4], r["Gkeys_per_s"]) for k, r in sorts.items()
                            if k[:4] == (op, key_type, backend, ranks) and "error_message" not in r)
            axis.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                      linestyle={"distributed_sort_first": "--",
                                 "distributed_sort_first_nccl": "-.",
                                 "distributed_partition_first": ":"}.get(backend, "-"),
                      label=label(backend, ranks))
        axis.set_xscale("log", base=2)
        axis.set_xlabel("total elements")
        axis.set_ylabel("G keys/s")
        axis.set_title(f"{op}, {key_type}")
        axis.set_ylim(bottom=0)
        axis.grid(True, alpha=0.3)
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main():
    args = sys.argv[1:]
    plot_path = None
    if "--plot" in args:
        at = args.index("--plot")
        plot_path = args[at + 1]
        del args[at:at + 2]
    if not args:
        sys.exit(__doc__)
    if plot_path:
        import_pyplot()  # first: it may start this script again under the system's Python
    context, sorts, all_to_all, hosts = read(args)
    print(f"GPU: {context.get('gpu', '?')} × {context.get('gpus', '?')} · date: {context['date']}\n")
    print("\n".join(throughput_table(sorts) + steps_table(sorts, all_to_all) +
                    link_table(all_to_all) + partition_table(hosts) + host_table(hosts)))
    if plot_path:
        plot(sorts, plot_path)


if __name__ == "__main__":
    main()
