#!/usr/bin/env python3
"""Shared-memory wavefronts of gpusort::merge's tile sort, by stage, under a few layouts.

A host model of one wide tile (512 threads x 17 u32 keys, random keys) as
backends/merge/tile_sort.cuh sorts it: each thread's 17 keys sorted in registers, then nine
merge levels, each staging the keys (17 stores a thread), searching each thread's split on
the merge path (two loads a probe) and merging 17 outputs (one load a run's next key, under
the predicate of the run it came from). For each warp-wide load or store it counts the
wavefronts the hardware needs: the most distinct 4-byte words that the warp's active lanes
touch in any one of the 32 banks. Position p of the tile lives at word layout(p); the
library's layout is the identity (17 is odd). With the identity the model gives what ncu
measured on the H200 (bench/results/NOTES.md, 2026-12-04: merge 2.3 wavefronts a load,
search 2.8, staging 1.0). Standard library only:
    scripts/tile_bank_model.py [TILES]      (default 2 tiles: a few seconds)
"""
import random
import sys

THREADS, ITEMS, LEVELS = 512, 17, 9

LAYOUTS = {
    "identity": lambda p: p,
    "one pad word per 32": lambda p: p + (p >> 5),
    "one pad word per 16": lambda p: p + (p >> 4),
    "xor of the row within each row of 32": lambda p: (p & ~31) | ((p ^ (p >> 5)) & 31),
}


def wavefronts(words):
    per_bank = {}
    for word in set(words):
        per_bank[word % 32] = per_bank.get(word % 32, 0) + 1
    return max(per_bank.values(), default=0)


def merge_path_split(keys, a_begin, b_begin, run, diagonal, probes):
    """Binary search as merge_path_split: probes[round] = (a position, b position)."""
    low, high = max(0, diagonal - run), min(diagonal, run)
    round_ = 0
    while low < high:
        middle = (low + high) // 2
        a, b = a_begin + middle, b_begin + diagonal - 1 - middle
        probes[round_] = (a, b)
        if keys[b] < keys[a]:
            high = middle
        else:
            low = middle + 1
        round_ += 1
    return low


def sort_tile(keys, layout, counts):
    """Sorts keys (one tile) as the tile sort does, adding each stage's wavefronts and
    warp-wide instructions into counts[stage] = [wavefronts, instructions]."""
    for t in range(THREADS):
        keys[t * ITEMS:(t + 1) * ITEMS] = sorted(keys[t * ITEMS:(t + 1) * ITEMS])

    def add(stage, words):
        counts[stage][0] += wavefronts(words)
        counts[stage][1] += 1

    for level in range(LEVELS):
        run = ITEMS << level
        merged = [None] * len(keys)
        for warp in range(THREADS // 32):
            lanes = range(warp * 32, warp * 32 + 32)
            for i in range(ITEMS):
                add("staging stores", [layout(t * ITEMS + i) for t in lanes])
            lane_probes, loads = [], {}
            for t in lanes:
                pair_begin = (t >> (level + 1)) * 2 * run
                a_begin, b_begin = pair_begin, pair_begin + run
                diagonal = t * ITEMS - pair_begin
                probes = {}
                split = merge_path_split(keys, a_begin, b_begin, run, diagonal, probes)
                lane_probes.append(probes)
                from_a, from_b = a_begin + split, b_begin + diagonal - split
                for i in range(ITEMS):
                    take_a = from_a < b_begin and (
                        from_b >= b_begin + run or not keys[from_b] < keys[from_a])
                    merged[t * ITEMS + i] = keys[from_a] if take_a else keys[from_b]
                    if take_a:
                        from_a += 1
                        loads.setdefault((i, "a"), []).append(layout(from_a))
                    else:
                        from_b += 1
                        loads.setdefault((i, "b"), []).append(layout(from_b))
            rounds = max((len(probes) for probes in lane_probes), default=0)
            for round_ in range(rounds):
                for side in (0, 1):
                    add("split search", [layout(probes[round_][side])
                                         for probes in lane_probes if round_ in probes])
            for words in loads.values():
                add("merge loads", words)
        keys[:] = merged
    assert keys == sorted(keys)


def main():
    tiles = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    print(f"{tiles} tile(s) of {THREADS} x {ITEMS} random u32 keys; wavefronts (a warp-wide "
          "instruction's average)")
    for name, layout in LAYOUTS.items():
        counts = {stage: [0, 0] for stage in ("staging stores", "split search", "merge loads")}
        for seed in range(tiles):
            rng = random.Random(seed)
            sort_tile([rng.getrandbits(32) for _ in range(THREADS * ITEMS)], layout, counts)
        total = sum(wavefronts for wavefronts, _ in counts.values())
        parts = ", ".join(f"{stage} {w / tiles:.0f} ({w / n:.2f})"
                          for stage, (w, n) in counts.items())
        print(f"{name:38s} {total / tiles:6.0f} a tile: {parts}")


if __name__ == "__main__":
    main()
