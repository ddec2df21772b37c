#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""CV across runs of the own cost (cpu.cost.test), per placement, raw and
divided by the vCPU's measured speed (issue 21). Reads a recording made
with ``record_interference.py --reference`` (each run carries "ref": the
CPU seconds of a fixed piece of work on the run's CPUs, before and after
it). For each placement: runs, CV of the best of the run's repeats, of the
best divided by ref, the successive-difference CV (slow drift left out),
the correlation of best and ref, the best less ref's share (a slope
fitted on the other half of the runs), and the same for throughput. Usage:
    bench/analyse/placement_reference.py bench/corpus/interference-2026-12-02-placement.jsonl
"""
import collections
import json
import statistics as st
import sys


def cv(x):
    return st.pstdev(x) / st.mean(x) * 100


def sd_cv(x):
    """Successive-difference CV: sqrt(mean squared step / 2) / mean."""
    d = [b - a for a, b in zip(x, x[1:])]
    return (sum(v * v for v in d) / (2 * len(d))) ** 0.5 / st.mean(x) * 100


def corr(x, y):
    mx, my = st.mean(x), st.mean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return sxy / (sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y)) ** 0.5


def cross_fitted(best, ref):
    """@best less the reference's share: each half (in time order) corrected
    with the least-squares slope of best on ref fitted on the other half."""
    half = len(best) // 2
    out = []
    for part, other in ((range(0, half), range(half, len(best))),
                        (range(half, len(best)), range(0, half))):
        x, y = [ref[i] for i in other], [best[i] for i in other]
        mx, my = st.mean(x), st.mean(y)
        slope = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sum((a - mx) ** 2 for a in x)
        out += [best[i] - slope * (ref[i] - mx) for i in part]
    return out


def main(path):
    runs = collections.defaultdict(list)
    for line in open(path, encoding="utf-8"):
        d = json.loads(line)
        if "failed" not in d:
            runs[(d["cpus"], d["round"])].append(d)
    by_place = collections.defaultdict(list)
    for (cpus, rnd), reps in sorted(runs.items(), key=lambda kv: kv[1][0]["t"]):
        by_place[cpus].append(reps)
    loads = [r["load1"] for reps in runs.values() for r in reps]
    print(f"{path}: {len(runs)} runs, load1 {min(loads):.2f}-{max(loads):.2f}"
          f" (median {st.median(loads):.2f})")
    for cpus, rs in sorted(by_place.items()):
        best = [min(r["cost_test"] for r in reps) for reps in rs]
        ref = [reps[0]["ref"] for reps in rs]
        norm = [b / f for b, f in zip(best, ref)]
        gbps = [max(r["gbps"] for r in reps) for reps in rs]
        gnorm = [g * f for g, f in zip(gbps, ref)]
        steal = [max(r["steal"] for r in reps) for reps in rs]
        quiet = [b for b, s in zip(best, steal) if s <= 0.01]
        qnorm = [b for b, s in zip(norm, steal) if s <= 0.01]
        print(f"placement {cpus}: {len(rs)} runs, ref CV {cv(ref):.1f}%, "
              f"mean cost {st.mean(best):.3f} CPU s/GB")
        print(f"  cost best of {len(rs[0])}   CV {cv(best):5.1f}%  succ-diff {sd_cv(best):5.1f}%"
              f"  steal<=0.01 ({len(quiet)} runs) {cv(quiet):5.1f}%  corr(best, ref) "
              f"{corr(best, ref):+.2f}")
        print(f"  cost best / ref     CV {cv(norm):5.1f}%  succ-diff {sd_cv(norm):5.1f}%"
              f"  steal<=0.01 ({len(qnorm)} runs) {cv(qnorm):5.1f}%")
        print(f"  cost best less ref's share (cross-fitted)  CV {cv(cross_fitted(best, ref)):5.1f}%")
        print(f"  throughput best     CV {cv(gbps):5.1f}%  x ref {cv(gnorm):5.1f}%"
              f"  corr(gbps, ref) {corr(gbps, ref):+.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
