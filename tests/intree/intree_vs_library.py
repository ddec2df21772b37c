#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""upstream/ksft_metric.h against libksftmetric: the scenario program built
both ways makes the same random calls for a seed; both must print the same
bytes (metric lines, refused-call warning lines, return values, messages)
and end the same way. Only
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


def run(exe, args, strict):
    env = dict(os.environ)
    for k in ("KSFTMETRIC_STREAM", "KSFTMETRIC_CONTEXT", "KSFTMETRIC_STRICT"):
        env.pop(k, None)
    if strict:
        env["KSFTMETRIC_STRICT"] = "1"
    p = subprocess.run([exe] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, check=False, timeout=300)
    if p.stderr:    # a sanitizer's report, or a crash message
        raise SystemExit(f"{exe} {' '.join(args)} wrote to stderr:\n"
                         + p.stderr.decode(errors="replace"))
    times = [float(t) for t in TIME.findall(p.stdout)]
    return TIME.sub(b'"time":T', p.stdout), p.returncode, times


# Refused-call cases both builds must write alike, each required to occur.
KINDS = {
    "warnings past the kept ones": b'{"call":"*","count":',
    "repeated refusals": re.compile(rb'"count":([2-9]|[1-9][0-9]+),'),
    "strict-mode case ends": b"-125 strict mode: ",
    "messages not valid UTF-8": b'"message":"(message not valid UTF-8)"',
}


def main():
    intree, library = sys.argv[1], sys.argv[2]
    runs = [[str(s), "200"] for s in SEEDS]
    runs += [[str(s), "3", end] for s in SEEDS[:10] for end in ENDS]
    failed = lines = warnings = 0
    seen = dict.fromkeys(KINDS, 0)
    for i, args in enumerate(runs):
        strict = i % 4 == 3       # the environment's strict mode, sometimes
        a, rc_a, t_a = run(intree, args, strict)
        b, rc_b, _ = run(library, args, strict)
        lines += a.count(b"ktap-metric-")
        warnings += a.count(b"ktap-metric-warning-json: {")
        for what, needle in KINDS.items():
            seen[what] += (len(needle.findall(a)) if hasattr(needle, "findall")
                           else a.count(needle))
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
    print(f"{len(runs)} scenarios, {lines} metric lines compared, "
          f"{warnings} of them refused-call warnings")
    if lines - warnings < 10000:
        print("too few metric lines: the scenarios no longer exercise much")
        failed += 1
    for what, n in seen.items():
        print(f"{n} {what}")
        if n < 5:
            print(f"too few {what}: the scenarios no longer exercise them")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
