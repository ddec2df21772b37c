#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""upstream/ksft_metric.h against libksftmetric: the scenario program built
both ways makes the same random calls for a seed; both must print the same
bytes (metric lines, return values, messages) and end the same way. Only
the "time" values differ (two clocks): they are masked here, and
intree_time_vs_python checks the header computes them as the library does.

Usage: intree_vs_library.py SCENARIO_INTREE SCENARIO_LIBRARY
"""
import difflib
import os
import re
import subprocess
import sys

TIME = re.compile(rb'(?<=[{,])"time":(-?[0-9.e+-]+)(?=[,}])')
SEEDS = range(1, 61)          # fixed: the same calls on every run
ENDS = ["exit", "term", "abort", "fork"]


def run(exe, args):
    env = dict(os.environ)
    for k in ("KSFTMETRIC_STREAM", "KSFTMETRIC_CONTEXT"):
        env.pop(k, None)
    p = subprocess.run([exe] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, check=False, timeout=300)
    if p.stderr:    # a sanitizer's report, or a crash message
        raise SystemExit(f"{exe} {' '.join(args)} wrote to stderr:\n"
                         + p.stderr.decode(errors="replace"))
    times = [float(t) for t in TIME.findall(p.stdout)]
    return TIME.sub(b'"time":T', p.stdout), p.returncode, times


CASE_END = re.compile(rb"^(case_end(?:_buffer)? -> )(\d+)$")


def without_warnings(out):
    """The library's output without its refused-call warning lines (the
    in-tree header has none; tests/metric/test_rejects.c checks them), each
    case end's line count lowered by the warnings it wrote."""
    kept, dropped = [], 0
    for line in out.split(b"\n"):
        if b"ktap-metric-warning-json: {" in line:
            dropped += 1
            continue
        m = CASE_END.match(line)
        if m and dropped:
            line = m.group(1) + str(int(m.group(2)) - dropped).encode()
        if m:
            dropped = 0
        kept.append(line)
    return b"\n".join(kept)


def main():
    intree, library = sys.argv[1], sys.argv[2]
    runs = [[str(s), "200"] for s in SEEDS]
    runs += [[str(s), "3", end] for s in SEEDS[:10] for end in ENDS]
    failed = lines = 0
    for args in runs:
        a, rc_a, t_a = run(intree, args)
        b, rc_b, _ = run(library, args)
        b = without_warnings(b)
        lines += a.count(b"ktap-metric-")
        if any(t < 0 for t in t_a) or len(t_a) != a.count(b'"time":T'):
            print(f"scenario {' '.join(args)}: bad time values")
            failed += 1
        if a != b or rc_a != rc_b:
            failed += 1
            print(f"scenario {' '.join(args)}: exit {rc_a} vs {rc_b}")
            sys.stdout.writelines(difflib.unified_diff(
                a.decode("utf-8", "replace").splitlines(True),
                b.decode("utf-8", "replace").splitlines(True),
                "ksft_metric.h", "libksftmetric", n=1))
            if failed > 3:
                break
    print(f"{len(runs)} scenarios, {lines} metric lines compared")
    if lines < 10000:
        print("too few metric lines: the scenarios no longer exercise much")
        failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
