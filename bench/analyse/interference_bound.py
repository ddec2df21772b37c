#!/usr/bin/env python3
"""How far interference alone moved the gated series in our recordings
(issue 40): the bound on what DISTURBED may excuse (lib/report/judge/gate.h,
GATE_DISTURBED_MAX_DROP and GATE_DISTURBED_MAX_RISE).

Every unchanged measurement (dose 0) of bench/corpus/interference-*.jsonl,
against the quiet median (no neighbour) of its recording and placement
(cpus, repeat length): throughput (gbps, higher is better) and the test's
own CPU cost per byte (cost_test) and the whole host's (cost_host), both
lower is better, binned by how far
others' CPU time on the machine rose above the quiet median (CPUs).

Usage: bench/analyse/interference_bound.py [CORPUS.jsonl...]
"""
import collections
import glob
import json
import statistics
import sys

BINS = [(0.0, 0.1), (0.1, 0.25), (0.25, 0.5), (0.5, 1.0), (1.0, float("inf"))]


def main(paths):
    rows = []
    for f in paths:
        for line in open(f):
            r = json.loads(line)
            if (r.get("dose", 0) != 0 or not r.get("gbps") or not r.get("cost_test") or
                    not r.get("cost_host")):
                continue
            r["_f"] = f
            rows.append(r)
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["_f"], r.get("cpus"), r.get("secs"))].append(r)
    per = collections.defaultdict(list)
    for rs in groups.values():
        quiet = [r for r in rs if r.get("neighbours", 0) == 0]
        if len(quiet) < 5:
            continue
        g0 = statistics.median(r["gbps"] for r in quiet)
        c0 = statistics.median(r["cost_test"] for r in quiet)
        h0 = statistics.median(r["cost_host"] for r in quiet)
        o0 = statistics.median(r["others"] for r in quiet)
        for r in rs:
            rise = r["others"] - o0
            b = next(i for i, (lo, hi) in enumerate(BINS) if lo <= rise < hi or
                     (i == 0 and rise < lo))
            per[b].append((r["gbps"] / g0 - 1, r["cost_test"] / c0 - 1,
                           r["cost_host"] / h0 - 1))
    print("others' CPU rise (CPUs)  runs  throughput: worst  p1      test cost: worst  p99"
          "     host cost: worst  p99")
    worst_g, worst_c, worst_h, n = 0.0, 0.0, 0.0, 0
    for b in sorted(per):
        g = sorted(x[0] for x in per[b])
        c = sorted(x[1] for x in per[b])
        h = sorted(x[2] for x in per[b])
        lo, hi = BINS[b]
        print("  [%.2f, %.2f)  %14d  %+17.1f%%  %+5.1f%%  %+15.1f%%  %+5.1f%%  %+15.1f%%  %+5.1f%%" % (
            lo, hi, len(g), 100 * g[0], 100 * g[len(g) // 100], 100 * c[-1],
            100 * c[-1 - len(c) // 100], 100 * h[-1], 100 * h[-1 - len(h) // 100]))
        if b > 0:
            worst_g, worst_c, worst_h = min(worst_g, g[0]), max(worst_c, c[-1]), max(worst_h, h[-1])
            n += len(g)
    print("rise >= 0.1 CPU, where DISTURBED can trip (%d runs): throughput fell by at most %.0f %%, the test's own cost "
          "rose by at most %.0f %%, the host's by at most %.0f %%" % (
              n, -100 * worst_g, 100 * worst_c, 100 * worst_h))


if __name__ == "__main__":
    main(sys.argv[1:] or sorted(glob.glob("bench/corpus/interference-*.jsonl")))
