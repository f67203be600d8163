#!/usr/bin/env python3
"""Why gpusort::bucket_bitonic buckets floats by their sort bits, not their values.

For float32 keys from several distributions, splits [min, max] into 2048 equal-width
buckets once in value space and once in the radix bit space (the order-preserving unsigned
pattern: sign bit flipped for positives, all bits for negatives) and prints the share of
the keys in the fullest bucket, and how many buckets hold keys. A full bucket means another
partition level over those keys. Host only, standard library only:
    scripts/bucket_space.py [n]
"""
import math
import random
import struct
import sys

BUCKETS = 2048


def sort_bits(x):
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    return (~b) & 0xFFFFFFFF if b & 0x80000000 else b | 0x80000000


def fullest(keys, key_of):
    values = [key_of(k) for k in keys]
    low, high = min(values), max(values)
    counts = {}
    for v in values:
        b = min(BUCKETS - 1, int((v - low) * BUCKETS / (high - low))) if high > low else 0
        counts[b] = counts.get(b, 0) + 1
    return max(counts.values()) / len(keys), len(counts)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    rng = random.Random(7)
    cases = {
        "uniform [-1e6, 1e6]": lambda: rng.uniform(-1e6, 1e6),
        "normal (0, 1)": lambda: rng.gauss(0, 1),
        "exponential (mean 1)": lambda: rng.expovariate(1),
        "log-uniform [1e-30, 1e30]": lambda: 10 ** rng.uniform(-30, 30),
        "+-log-uniform [1e-30, 1e30]": lambda: rng.choice((-1, 1)) * 10 ** rng.uniform(-30, 30),
    }
    print(f"{n} float32 keys, {BUCKETS} equal-width buckets of [min, max]: "
          "share of keys in the fullest bucket (buckets used)")
    print(f"{'distribution':30} {'value space':>22} {'bit space':>22}")
    for name, draw in cases.items():
        keys = [f32(draw()) for _ in range(n)]
        v_share, v_used = fullest(keys, lambda k: k)
        b_share, b_used = fullest(keys, sort_bits)
        print(f"{name:30} {v_share:>12.2%} ({v_used:>5}) {b_share:>12.2%} ({b_used:>5})")


if __name__ == "__main__":
    main()
