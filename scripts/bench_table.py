#!/usr/bin/env python3
"""Turn gpusort_bench's Google Benchmark JSON into markdown tables.

Usage:
    gpusort_bench --benchmark_out=results.json --benchmark_out_format=json
    scripts/bench_table.py [--copy-ceiling-tbps=X] results.json > table.md

Benchmark names are <op>/<backend>/<type>/<distribution>/<n> (Google Benchmark may append
/manual_time); backends whose name starts with "cub_" are the references: a gpusort
backend is compared with its CUB counterpart in REFERENCES (bucket_bitonic and par with
cub_radix), else with cub_<backend> (radix with cub_radix, merge with cub_merge), or, where
that did not run, with the only CUB backend of the same op, type and distribution; where
the reference was also called another way (REFERENCE_ALTERNATIVES: cub_radix_size_t beside
cub_radix), each cell takes the faster of its calls. A gpusort
call's companions (COMPANIONS: the same call with its temporary memory from elsewhere, and
Thrust's sort of the same cases: par_pool, par_mallocasync and thrust beside par;
merge_pool and thrust_merge beside merge, thrust_merge_lambda beside merge_lambda) share
its reference and its tables, a row each after its own. For each gpusort backend (with its
companions) and its reference (one group after the other, in the order they ran) writes:
  1. throughput: one row per op, type, distribution and backend, "backend / CUB G keys/s
     (backend ÷ CUB)" against the CUB backend of the same op, type, distribution and size;
  2. each backend's achieved GB/s under the bench's model: n * (key + value bytes) * 2 /
     time, the floor of one read and one write of the data;
  3. for the radix pair only (radix and cub_radix, one row each per op, type and
     distribution, sizes from 2^16): achieved TB/s under the traffic of an LSD radix sort with
     8-bit digits, n * (key + passes * 2 * (key + value bytes)) / time with passes = key
     bytes (one read of the keys for the upfront histograms, then one read and one write of
     keys and values per pass), and in parentheses the percentage of a copy ceiling,
     --copy-ceiling-tbps=X TB/s (default 3.0, the H100 device-to-device copy figure).
Each group's tables have the sizes its rows ran at (the radix rows 2^10..2^28, the merge
rows 2^10..2^28, the bucket_bitonic rows 2^20..2^28).
With --benchmark_repetitions the median aggregate is used; otherwise the median of the runs.
A results file may be xz-compressed (results.json.xz), as bench/results keeps them; every
script here reads either (load_results).
Python 3 standard library only.
"""

import json
import lzma
import statistics
import sys

REFERENCE_PREFIX = "cub_"
# gpusort backends whose CUB counterpart is not cub_<backend>.
REFERENCES = {"bucket_bitonic": "cub_radix", "par": "cub_radix"}
# The rows shown with a gpusort call's, in this order after it, and compared with its CUB
# counterpart: the same call with its temporary memory from elsewhere, and Thrust's sort of
# the same cases (bench/par_bench.cu, bench/merge_bench.cu).
COMPANIONS = {"par": ("par_pool", "par_mallocasync", "thrust"),
              "merge": ("merge_pool", "thrust_merge"),
              "merge_lambda": ("thrust_merge_lambda",)}
REFERENCE_TITLES = {"cub_radix": "radix sort", "cub_merge": "merge sort"}
# Other calls of a reference, timed on the same data: in each cell, gpusort is set against the
# fastest of the reference and these (cub_radix_size_t: CUB's radix sort with a std::size_t
# item count instead of an int, faster for some types and sizes; bench/harness/cub_count.cuh).
REFERENCE_ALTERNATIVES = {"cub_radix": ("cub_radix_size_t",)}
TIME_SUFFIXES = ("manual_time", "real_time", "process_time")
# The gpusort backend whose pair gets the LSD radix traffic table, and the smallest size shown.
RADIX_BACKEND = "radix"
TRAFFIC_MIN_SIZE = 1 << 16
COPY_CEILING_FLAG = "--copy-ceiling-tbps="
DEFAULT_COPY_CEILING_TBPS = 3.0
# Bytes per element of the type names in benchmark names (bench/harness/sort_case.cuh);
# s16 is the 16-byte struct key of the merge rows.
TYPE_BYTES = {
    "u8": 1, "i8": 1, "u16": 2, "i16": 2, "f16": 2, "bf16": 2,
    "u32": 4, "i32": 4, "f32": 4, "u64": 8, "i64": 8, "f64": 8, "s16": 16,
}


def parse_name(name):
    """'sort/radix/u32/uniform/1024/manual_time' -> ('sort', 'radix', 'u32', 'uniform', 1024)."""
    parts = name.split("/")
    while parts and parts[-1] in TIME_SUFFIXES:
        parts.pop()
    if len(parts) != 5 or not parts[4].isdigit():
        return None
    op, backend, key_type, distribution, n = parts
    return op, backend, key_type, distribution, int(n)


def collect(benchmarks):
    """Per parsed name: {'keys_per_s', 'gbps'} (or {'error'}); the median aggregate when
    present, else the median over the iteration runs (repetitions)."""
    runs, medians, errors, skipped = {}, {}, {}, set()
    for entry in benchmarks:
        name = entry.get("run_name", entry.get("name", ""))
        key = parse_name(name)
        if key is None:
            skipped.add(name)
            continue
        if entry.get("error_occurred"):
            errors[key] = entry.get("error_message", "error")
            continue
        sample = {"keys_per_s": entry.get("items_per_second"), "gbps": entry.get("GBps")}
        if entry.get("run_type") == "aggregate":
            if entry.get("aggregate_name") == "median":
                medians[key] = sample
        else:
            runs.setdefault(key, []).append(sample)

    results = {}
    for key, samples in runs.items():
        results[key] = {
            field: statistics.median(s[field] for s in samples if s[field] is not None)
            if any(s[field] is not None for s in samples) else None
            for field in ("keys_per_s", "gbps")
        }
    results.update(medians)
    for key, message in errors.items():
        results[key] = {"error": message}
    for name in sorted(skipped):
        print(f"bench_table.py: skipping '{name}' (not <op>/<backend>/<type>/<dist>/<n>)",
              file=sys.stderr)
    return results


def key_value_bytes(type_field):
    """'u64+u32' -> (8, 4), 'u32' -> (4, 0); None for a type not in TYPE_BYTES."""
    key_type, _, value_type = type_field.partition("+")
    key_bytes = TYPE_BYTES.get(key_type)
    value_bytes = TYPE_BYTES.get(value_type) if value_type else 0
    if key_bytes is None or value_bytes is None:
        return None
    return key_bytes, value_bytes


def lsd_radix_bytes_per_key(key_bytes, value_bytes):
    """Bytes an LSD radix sort with 8-bit digits moves per key: one read of the keys for the
    upfront histograms, then per pass (one per key byte) a read and a write of key and value."""
    passes = key_bytes
    return key_bytes + passes * 2 * (key_bytes + value_bytes)


def fmt_rate(value):
    if value is None:
        return "—"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def fmt_size(n):
    log2 = n.bit_length() - 1
    return f"2^{log2}" if n == 1 << log2 else str(n)


def fmt_traffic(tbps, ceiling_tbps):
    """'1.61 (40 %)': TB/s and its percentage of the copy ceiling."""
    return f"{tbps:.2f} ({100 * tbps / ceiling_tbps:.0f} %)"


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def leader(backend):
    """The gpusort call whose rows a backend's are shown with: the one it is a companion of
    (merge_pool -> merge, thrust -> par), else itself."""
    for lead, companions in COMPANIONS.items():
        if backend in companions:
            return lead
    return backend


def member_order(backend):
    """Where a backend's row goes among its leader's: the leader first, then COMPANIONS' order."""
    companions = COMPANIONS.get(leader(backend), ())
    return 1 + companions.index(backend) if backend in companions else 0


def reference_backend(results, op, backend, key_type, distribution):
    """The CUB backend a gpusort backend's (or companion's) row is compared with: its leader's
    counterpart (REFERENCES, else cub_<leader>: radix -> cub_radix, merge and merge_pool ->
    cub_merge, bucket_bitonic, par and thrust -> cub_radix) when that ran for the op, type and
    distribution, else the only CUB backend that did, else None."""
    ran = {r_backend for (r_op, r_backend, r_type, r_dist, _) in results
           if (r_op, r_type, r_dist) == (op, key_type, distribution) and
           r_backend.startswith(REFERENCE_PREFIX) and not is_alternative(r_backend)}
    lead = leader(backend)
    counterpart = REFERENCES.get(lead, REFERENCE_PREFIX + lead)
    if counterpart in ran:
        return counterpart
    return ran.pop() if len(ran) == 1 else None


def is_alternative(backend):
    """Whether a backend is another call of a reference (REFERENCE_ALTERNATIVES)."""
    return any(backend in calls for calls in REFERENCE_ALTERNATIVES.values())


def fastest_reference(results, op, reference, key_type, distribution, n):
    """A reference's result in one cell: the fastest of it and its alternatives
    (REFERENCE_ALTERNATIVES) that ran there without error; None when none did."""
    samples = [results.get((op, call, key_type, distribution, n))
               for call in (reference,) + REFERENCE_ALTERNATIVES.get(reference, ())]
    samples = [s for s in samples if s and "error" not in s and s.get("keys_per_s")]
    return max(samples, key=lambda s: s["keys_per_s"]) if samples else None


def radix_traffic_cell(result, type_field, ceiling_tbps):
    """One cell of the LSD radix traffic table: '' where the case did not run."""
    if result is None:
        return ""
    if "error" in result:
        return "error"
    sizes = key_value_bytes(type_field)
    if sizes is None or not result.get("keys_per_s"):
        return "—"
    tbps = lsd_radix_bytes_per_key(*sizes) * result["keys_per_s"] / 1e12
    return fmt_traffic(tbps, ceiling_tbps)


def radix_traffic_section(results, row_keys, reference, sizes, ceiling_tbps):
    """The LSD radix traffic table's lines: per op, type and distribution a row for the gpusort
    backend, then one for its CUB reference and one for each of its other calls that ran
    (REFERENCE_ALTERNATIVES), at the sizes from TRAFFIC_MIN_SIZE."""
    sizes = [n for n in sizes if n >= TRAFFIC_MIN_SIZE]
    references = (reference,) + REFERENCE_ALTERNATIVES.get(reference, ()) if reference else ()
    rows = []
    for op, backend, key_type, distribution in row_keys:
        for shown in (backend,) + references:
            cells = [radix_traffic_cell(results.get((op, shown, key_type, distribution, n)),
                                        key_type, ceiling_tbps) for n in sizes]
            if shown == backend or any(cells):
                rows.append([op, shown, key_type, distribution] + cells)
    return [
        "",
        "## LSD radix traffic: n × (key + passes × 2 × (key + value)) bytes / time, TB/s "
        f"(% of the {ceiling_tbps} TB/s copy ceiling; passes = key bytes, sizes from "
        f"{fmt_size(TRAFFIC_MIN_SIZE)})",
        "",
        markdown_table(["op", "backend", "type", "dist"] + [fmt_size(n) for n in sizes], rows),
    ]


def build_tables(data, copy_ceiling_tbps=DEFAULT_COPY_CEILING_TBPS):
    context = data.get("context", {})
    results = collect(data.get("benchmarks", []))

    # Rows (op, backend, type, distribution): each distribution is a row of its own. Grouped
    # by gpusort backend, with its companions, and the CUB backend they are compared with
    # (one pair of tables per group, in run order), so that radix and bucket_bitonic, both
    # against cub_radix, get tables of their own. In a group, each op, type and distribution
    # in the order the group's rows first ran it: the leader's row, then its companions'.
    groups = {}
    for key in results:
        row = key[:4]
        if row[1].startswith(REFERENCE_PREFIX):
            continue
        rows = groups.setdefault((leader(row[1]), reference_backend(results, *row)), [])
        if row not in rows:
            rows.append(row)
    for rows in groups.values():
        cases = list(dict.fromkeys((op, key_type, dist) for op, _, key_type, dist in rows))
        rows.sort(key=lambda row: (cases.index((row[0], row[2], row[3])), member_order(row[1])))

    references = list(dict.fromkeys(ref for (_, ref) in groups if ref))
    title = " and ".join(f"CUB {REFERENCE_TITLES.get(ref, ref)}" for ref in references) or "CUB"
    gpu = context.get("gpu", "unknown GPU")
    date = context.get("date", "unknown date")
    facts = [f"GPU: {gpu}", f"date: {date}"]
    for field, label in (("cuda_runtime", "CUDA"), ("cub", "CUB")):
        if field in context:
            facts.append(f"{label} {context[field]}")
    out = [f"# gpusort vs {title}", "", " · ".join(facts)]

    label_header = ["op", "backend", "type", "dist"]
    for (group_leader, reference), row_keys in groups.items() or [((None, None), [])]:
        # The sizes of this group's rows (all sizes when no row): a reference that also ran
        # at other sizes (cub_radix for radix at 2^10..2^18) adds no empty columns.
        shown = set(row_keys)
        sizes = sorted({key[4] for key in results if not row_keys or key[:4] in shown})
        # Name the backends where a group has several, or where two groups share a reference.
        backends = list(dict.fromkeys(row[1] for row in row_keys))
        shared = sum(1 for (_, ref) in groups if ref == reference) > 1
        if len(backends) > 1:
            mine_label, ratio_label = ", ".join(backends), "each"
        else:
            mine_label = f"gpusort {backends[0]}" if shared else "gpusort"
            ratio_label = "gpusort"
        size_header = [fmt_size(n) for n in sizes]
        speed_rows, bandwidth_rows = [], []
        for op, backend, key_type, distribution in row_keys:
            speed_cells, bandwidth_cells = [], []
            for n in sizes:
                mine = results.get((op, backend, key_type, distribution, n))
                ref = fastest_reference(results, op, reference, key_type, distribution, n)
                if mine is None:
                    speed_cells.append("")
                    bandwidth_cells.append("")
                    continue
                if "error" in mine:
                    speed_cells.append("error")
                    bandwidth_cells.append("error")
                    continue
                mine_g = mine["keys_per_s"] / 1e9 if mine["keys_per_s"] else None
                ref_g = ref["keys_per_s"] / 1e9 if ref and ref.get("keys_per_s") else None
                cell = f"{fmt_rate(mine_g)} / {fmt_rate(ref_g)}"
                if mine_g and ref_g:
                    cell += f" ({mine_g / ref_g:.2f}×)"
                speed_cells.append(cell)
                bandwidth_cells.append(fmt_rate(mine.get("gbps")))
            label = [op, backend, key_type, distribution]
            speed_rows.append(label + speed_cells)
            bandwidth_rows.append(label + bandwidth_cells)

        alternatives = [call for call in REFERENCE_ALTERNATIVES.get(reference, ())
                        if any(key[1] == call for key in results)]
        faster_of = (f" (in each cell the faster of {reference} and {', '.join(alternatives)})"
                     if alternatives else "")
        out += [
            "",
            f"## Throughput: {mine_label} / {reference or 'no CUB reference found'}{faster_of} "
            f"in G keys/s ({ratio_label} ÷ CUB: above 1 is faster)",
            "",
            markdown_table(label_header + size_header, speed_rows),
            "",
            f"## {mine_label} achieved GB/s: n × (key + value bytes) × 2 / time "
            "(the floor: one read and one write)",
            "",
            markdown_table(label_header + size_header, bandwidth_rows),
        ]
        if group_leader == RADIX_BACKEND:
            out += radix_traffic_section(results, row_keys, reference, sizes, copy_ceiling_tbps)
    errors = [(key, r["error"]) for key, r in results.items() if "error" in r]
    if errors:
        out += ["", "## Errors", ""]
        out += [f"- `{'/'.join(map(str, key))}`: {message}" for key, message in errors]
    return "\n".join(out) + "\n"


def parse_args(args):
    """(JSON path, copy ceiling in TB/s) from the command-line arguments; raises ValueError
    with the message to print on an unknown flag, a bad ceiling or not one path."""
    paths, ceiling_tbps = [], DEFAULT_COPY_CEILING_TBPS
    for arg in args:
        if arg.startswith(COPY_CEILING_FLAG):
            value = arg[len(COPY_CEILING_FLAG):]
            try:
                ceiling_tbps = float(value)
            except ValueError:
                ceiling_tbps = None
            if ceiling_tbps is None or not ceiling_tbps > 0 or ceiling_tbps == float("inf"):
                raise ValueError(f"{COPY_CEILING_FLAG} wants a positive number of TB/s, "
                                 f"not '{value}'")
        elif arg.startswith("-") and arg != "-":
            raise ValueError(f"unknown flag '{arg}' (the only flag is {COPY_CEILING_FLAG}X)")
        else:
            paths.append(arg)
    if len(paths) != 1:
        raise ValueError(f"expected one JSON path ('-' for stdin), got {len(paths)}")
    return paths[0], ceiling_tbps


def load_results(path):
    """One Google Benchmark JSON: from stdin where path is "-", xz-compressed where the name
    ends in .xz."""
    if path == "-":
        return json.load(sys.stdin)
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    if any(arg in ("-h", "--help") for arg in argv[1:]):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        path, copy_ceiling_tbps = parse_args(argv[1:])
    except ValueError as error:
        print(f"bench_table.py: {error}", file=sys.stderr)
        return 2
    data = load_results(path)
    sys.stdout.write(build_tables(data, copy_ceiling_tbps))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
