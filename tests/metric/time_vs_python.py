#!/usr/bin/env python3
"""Compare the library's "time" field (via the time_round_dump helper) with
the reference's round(time.monotonic() - start, 6), computed by Python itself.

CPython's monotonic() is the CLOCK_MONOTONIC nanosecond count as a double
divided by 1e9, or the whole seconds as an integer when the count is a
multiple of 1e9 (_PyTime_AsSecondsDouble); monotonic() below does the same.
Pairs are random, plus the cases where rounding is decided by a hair:
nanosecond offsets at and next to half-microsecond ties, and seconds
offsets that are exact binary ties (odd multiples of 1/128 s).

Usage: time_vs_python.py DUMP_EXE [--seed N] [--count N]
"""
import argparse
import random
from fractions import Fraction
import subprocess
import sys


def monotonic(ns):
    # CPython's (Py|_Py)Time_AsSecondsDouble(): whole seconds as an integer.
    if ns % 10 ** 9 == 0:
        return float(ns // 10 ** 9)
    return float(ns) / 1e9


def reference(start_ns, now_ns):
    return repr(round(monotonic(now_ns) - monotonic(start_ns), 6))


def pairs(rng, n):
    out = []
    for i in range(n):
        # Uptimes from seconds to ~100 days; offsets up to a few hours.
        start = rng.randrange(10 ** rng.randint(9, 16))
        kind = i % 4
        if kind == 0:
            off = rng.randrange(10 ** rng.randint(1, 13))
        elif kind == 1:
            off = rng.randrange(10 ** rng.randint(1, 10)) * 1000 + 500
            off += rng.choice((0, 0, -1, 1))
        elif kind == 2:
            off = (2 * rng.randrange(10 ** rng.randint(0, 6)) + 1) * 7812500
            off += rng.randint(-4, 4)
        elif i % 8 == 3:
            # Start exactly on a representable value so ties stay exact.
            start = rng.randrange(1 << 20) * 10 ** 9
            off = (2 * rng.randrange(10 ** 5) + 1) * 7812500
        else:
            # Whole seconds past 2^53 ns, where float(ns) / 1e9 rounds twice.
            start = rng.randrange(10 ** 7, 10 ** 9) * 10 ** 9
            off = rng.choice((rng.randrange(10 ** 4) * 10 ** 9,
                              rng.randrange(10 ** 12)))
        out.append((start, start + max(off, 0)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('dump')
    ap.add_argument('--seed', type=int, default=20261201)
    ap.add_argument('--count', type=int, default=200000)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases = pairs(rng, args.count)
    text = ''.join('%d %d\n' % p for p in cases)
    got = subprocess.run([args.dump], input=text.encode(), stdout=subprocess.PIPE,
                         check=True).stdout.decode('ascii').split('\n')
    if got and got[-1] == '':
        got.pop()
    if len(got) != len(cases):
        print('FAIL: %d pairs in, %d lines out' % (len(cases), len(got)))
        return 1
    bad = ties = 0
    for (start, now), line in zip(cases, got):
        want = reference(start, now)
        # Count the pairs whose double difference is an exact tie.
        if (Fraction(monotonic(now) - monotonic(start)) * 10 ** 6).denominator == 2:
            ties += 1
        if line != want:
            bad += 1
            if bad <= 20:
                print('MISMATCH start=%d now=%d: ours %s, python %s'
                      % (start, now, line, want))
    print('%d pairs compared with round(monotonic() - start, 6) (seed %d, '
          '%d exact ties): %d mismatches' % (len(cases), args.seed, ties, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
