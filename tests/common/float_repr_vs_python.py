#!/usr/bin/env python3
"""Compare float_repr() (via the float_repr_dump helper) with Python's
repr(float) on a couple of million doubles chosen to cover Ryu's paths.

Usage: float_repr_vs_python.py DUMP_EXE [--seed N] [--scale X]
Exit status is non-zero, with the first mismatches printed, on any difference.
"""
import argparse
import array
import math
import random
import struct
import subprocess
import sys
import time


def from_bits(ints):
    return array.array('d', array.array('Q', ints).tobytes()).tolist()


def random_bits(rng, n):
    # Uniform over bit patterns: every exponent, subnormals included.
    return [x for x in from_bits(rng.getrandbits(64) for _ in range(n))
            if math.isfinite(x)]


def short_decimals(rng, n):
    # k-digit decimals at random exponents: values that are exactly (or very
    # nearly) short numbers take Ryu's trailing-zero and tie paths.
    out = []
    for _ in range(n):
        k = rng.randint(1, 17)
        d = rng.randrange(10 ** k)
        x = float('%de%d' % (d, rng.randint(-345, 310)))
        if math.isfinite(x):
            out.append(-x if rng.getrandbits(1) else x)
    return out


def neighbours(xs):
    # The doubles next to short decimals have those decimals as (or near)
    # their halfway bounds: this is where bound inclusion (even mantissa)
    # and the narrower gap below a power of two decide the digits.
    out = []
    for x in xs:
        out += [math.nextafter(x, -math.inf), math.nextafter(x, math.inf)]
    return [x for x in out if math.isfinite(x)]


def cent_steps(n):
    # Metrics in 0.01 steps, both as exact decimals and accumulated products.
    half = n // 2
    return [i / 100 for i in range(half)] + [i * 0.01 for i in range(n - half)]


def integers(rng, n):
    out = [float(i) for i in range(-1000, n // 4)]
    out += [float(rng.randrange(1 << 53)) for _ in range(n // 4)]
    out += [float(rng.randrange(10 ** rng.randint(1, 25))) for _ in range(n // 4)]
    out += [float(rng.randrange(1 << 64)) * 2.0 ** rng.randint(0, 900)
            for _ in range(n // 4)]
    return out


def power_neighbours():
    # 2^e and 10^e and their closest few neighbours, across the whole range.
    out = []
    centres = [2.0 ** e for e in range(-1074, 1024)]
    centres += [float('1e%d' % e) for e in range(-323, 309)]
    centres += [float('5e%d' % e) for e in range(-324, 308)]
    for c in centres:
        lo = hi = c
        out.append(c)
        for _ in range(4):
            lo = math.nextafter(lo, 0.0)
            hi = math.nextafter(hi, math.inf)
            out += [lo, hi] if math.isfinite(hi) else [lo]
    return out + [0.0, -0.0, sys.float_info.max, sys.float_info.min, 5e-324]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('dump')
    ap.add_argument('--seed', type=int, default=20240601)
    ap.add_argument('--scale', type=float, default=1.0,
                    help='multiply the sample sizes (default 1: ~2.1M doubles)')
    args = ap.parse_args()
    rng = random.Random(args.seed)

    def sz(n):
        return max(1, int(n * args.scale))

    t0 = time.monotonic()
    groups = [
        ('random bit patterns', random_bits(rng, sz(700000))),
        ('short decimals', short_decimals(rng, sz(500000))),
        ('neighbours of short decimals',
         neighbours(short_decimals(rng, sz(150000)))),
        ('0.01 steps', cent_steps(sz(300000))),
        ('integers', integers(rng, sz(300000))),
        ('powers of 2/10 and neighbours', power_neighbours()),
        ('random [0,1) and scaled', [rng.random() * 10.0 ** rng.randint(-20, 20)
                                     for _ in range(sz(100000))]),
    ]
    values = [x for _, x_list in groups for x in x_list]
    proc = subprocess.run([args.dump], input=array.array('d', values).tobytes(),
                          stdout=subprocess.PIPE, check=True)
    got = proc.stdout.decode('ascii').split('\n')
    if got and got[-1] == '':
        got.pop()
    if len(got) != len(values):
        print('FAIL: %d doubles in, %d lines out' % (len(values), len(got)))
        return 1

    bad = 0
    for x, line in zip(values, got):
        if line != repr(x):
            bad += 1
            if bad <= 20:
                bits = struct.unpack('<Q', struct.pack('<d', x))[0]
                print('MISMATCH %016x: ours %r, python %r' % (bits, line, repr(x)))
    for name, lst in groups:
        print('%8d  %s' % (len(lst), name))
    print('%d doubles compared with repr() in %.1f s (seed %d): %d mismatches'
          % (len(values), time.monotonic() - t0, args.seed, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
