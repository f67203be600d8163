#!/usr/bin/env python3
"""How many partition levels, and scatters per key, gpusort::bucket_bitonic's plan takes.

A host model of the plan for 32-bit integer keys (the default sm90 tuning's sizes: units of
2048 keys, small buckets of at most 512, a target of 256 keys per bucket, the balanced first
level of two, deeper levels of 2^8-2^11 buckets), without the sample's choice of more
first-level bits or a window: every segment's range is cut into equal-width buckets, a
bucket of at most `small` keys goes to the sort units, a segment of one value is skipped,
and every other bucket is a segment of the next level. With --direct-units, a bucket
between `small` and a unit is a unit of its own instead of another level's segment.
Prints the scatters per key (each level's keys over n), the levels, and the buckets that
became units directly. Keys as harness/random_keys.cuh draws them (zipf: ranks 1..2^20 with
frequency ~ 1/rank, each rank a fixed random key). Standard library only:
    scripts/bucket_levels.py LOG2_N {uniform,normal,zipf} [--direct-units]
(2^22 keys: seconds; 2^24: about 20 s.)
"""
import bisect
import random
import sys

UNIT, SMALL, TARGET = 2048, 512, 256
RANKS = 1 << 20


def draw_keys(n, distribution, rng):
    if distribution == "zipf":
        rank_key = [rng.getrandbits(32) for _ in range(RANKS + 1)]
        cumulative, total = [], 0.0
        for rank in range(1, RANKS + 1):
            total += 1.0 / rank
            cumulative.append(total)
        return [rank_key[bisect.bisect_left(cumulative, rng.random() * total) + 1]
                for _ in range(n)]
    if distribution == "normal":
        return [min(max(int((0.5 + rng.gauss(0, 1) / 16) * 2**32), 0), 2**32 - 1)
                for _ in range(n)]
    return [rng.getrandbits(32) for _ in range(n)]


def balanced_first_bits(n):
    needed = 1
    while (n >> needed) > TARGET:
        needed += 1
    levels = (needed + 10) // 11
    return (needed + levels - 1) // levels


def deeper_bits(count):
    bits = 8
    while bits < 11 and (count >> bits) > TARGET:
        bits += 1
    return bits


def plan(keys, direct_units):
    """Scatters per key, levels, and (count, keys) of the buckets made units directly."""
    n = len(keys)
    scattered, level, direct, direct_keys = 0, 0, 0, 0
    segments = [(0, n)]
    while segments:
        next_segments = []
        for low, high in segments:
            smallest, largest = keys[low], keys[high - 1]
            if smallest == largest:
                continue
            scattered += high - low
            bits = balanced_first_bits(n) if level == 0 else deeper_bits(high - low)
            shift = 0
            while ((largest - smallest) >> shift) >= (1 << bits):
                shift += 1
            start = low
            while start < high:
                bucket = (keys[start] - smallest) >> shift
                end = bisect.bisect_left(keys, smallest + ((bucket + 1) << shift), start, high)
                count = end - start
                if direct_units and SMALL < count <= UNIT:
                    direct, direct_keys = direct + 1, direct_keys + count
                elif count > SMALL:
                    next_segments.append((start, end))
                start = end
        segments = next_segments
        level += 1
    return scattered / n, level, direct, direct_keys


def main(args):
    if len(args) < 2:
        sys.exit(__doc__)
    n, distribution = 1 << int(args[0]), args[1]
    keys = sorted(draw_keys(n, distribution, random.Random(1)))
    scatters, levels, direct, direct_keys = plan(keys, "--direct-units" in args)
    print(f"{distribution} 2^{args[0]}: {scatters:.3f} scatters per key, {levels} levels, "
          f"{direct} buckets made units directly ({direct_keys / n:.3f} of the keys)")


if __name__ == "__main__":
    main(sys.argv[1:])
