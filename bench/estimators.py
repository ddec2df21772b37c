#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-run estimators on a time-ordered corpus (bench/record_interference.py
output): how much each run's estimate of a metric moves from run to run
(the CV across runs of one configuration), for

  mean      of the run's repeats
  median    of the repeats
  best      best of N (min for a cost, max for throughput): interference
            only ever makes a repeat slower and costlier
  filtered  mean of the repeats whose run-queue wait (both endpoints) is
            at most the run's lowest + 0.05, i.e. the least disturbed
  weighted  mean weighted by 1 / (0.05 + run-queue wait + others' CPU)
  adaptive  stop after 2 repeats when they agree within 3 %, else median
            of 3 (reports the mean number of repeats it took)

and whether the interference series tell a disturbed run (a noisy
neighbour) from an undisturbed one. Usage:
    bench/estimators.py bench/corpus/interference-2026-12-01.jsonl
"""
import json
import statistics
import sys

METRICS = (("cost_test", "lower"), ("cost_host", "lower"), ("gbps", "higher"))


def runs_of(path):
    runs = {}
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        key = (r["seed"], r["round"], r["order"])
        runs.setdefault(key, []).append(r)
    return runs


def wait(r):
    return (r.get("runq_local") or 0) + (r.get("runq_remote") or 0)


def estimators(reps, metric, better):
    v = [r[metric] for r in reps if r.get(metric) is not None]
    if len(v) < 3:
        return None
    best = min(v) if better == "lower" else max(v)
    low = min(wait(r) for r in reps)
    kept = [r[metric] for r in reps if wait(r) <= low + 0.05]
    w = [1 / (0.05 + wait(r) + (r.get("others") or 0)) for r in reps]
    weighted = sum(wi * r[metric] for wi, r in zip(w, reps)) / sum(w)
    if abs(v[0] - v[1]) / max(abs(v[0]), 1e-12) <= 0.03:
        adaptive, n = (v[0] + v[1]) / 2, 2
    else:
        adaptive, n = statistics.median(v[:3]), 3
    return {"mean": statistics.mean(v), "median": statistics.median(v), "best": best,
            "filtered": statistics.mean(kept), "weighted": weighted,
            "adaptive": adaptive, "_n": n}


def cv(v):
    return statistics.stdev(v) / statistics.mean(v) if len(v) > 1 else float("nan")


def main(path):
    runs = runs_of(path)
    failed = sum(1 for reps in runs.values() if any("failed" in r for r in reps))
    good = {k: reps for k, reps in runs.items() if not any("failed" in r for r in reps)}
    loads = [reps[0]["load1"] for reps in good.values()]
    print(f"{path}: {len(good)} runs ({sum(len(r) for r in good.values())} repeats), "
          f"{failed} failed runs; load average {min(loads):.1f} to {max(loads):.1f} "
          f"(median {statistics.median(loads):.1f}) on 2 CPUs")
    configs = sorted({(r[0]["neighbours"], r[0]["cpus"]) for r in good.values()})
    names = ("mean", "median", "best", "filtered", "weighted", "adaptive")
    for metric, better in METRICS:
        print(f"\n{metric}: CV across runs of each run's estimate")
        print(f"{'neighbours':>10} {'cpus':>5} {'runs':>5} " +
              " ".join(f"{n:>9}" for n in names) + "  repeats(adaptive)")
        for nb, cpus in configs:
            est = [estimators(reps, metric, better) for reps in good.values()
                   if reps[0]["neighbours"] == nb and reps[0]["cpus"] == cpus]
            est = [e for e in est if e]
            if len(est) < 2:
                continue
            cells = " ".join(f"{100 * cv([e[n] for e in est]):8.1f}%" for n in names)
            reps = statistics.mean(e["_n"] for e in est)
            print(f"{nb:>10} {cpus:>5} {len(est):>5} {cells}  {reps:.2f}")
    print("\ninterference per run (mean over its repeats) by neighbour count:")
    print(f"{'neighbours':>10} {'cpus':>5} {'runq':>7} {'others':>7} {'steal':>7} "
          f"{'nivcsw/s':>9}")
    for nb, cpus in configs:
        sel = [reps for reps in good.values()
               if reps[0]["neighbours"] == nb and reps[0]["cpus"] == cpus]

        def m(f):
            return statistics.mean(statistics.mean(f(r) for r in reps) for reps in sel)
        print(f"{nb:>10} {cpus:>5} {m(wait):7.3f} {m(lambda r: r['others']):7.3f} "
              f"{m(lambda r: r['steal']):7.3f} "
              f"{m(lambda r: (r['nivcsw_local'] or 0) + (r['nivcsw_remote'] or 0)):9.1f}")
    # Can the series tell disturbed (a neighbour) from undisturbed runs? The
    # share of (disturbed, undisturbed) run pairs ordered right by the
    # run's mean run-queue wait (AUC), per placement.
    print("\nAUC of the run's run-queue wait, neighbour >= 1 against none:")
    for cpus in sorted({c for _, c in configs}):
        def score(reps):
            return statistics.mean(wait(r) for r in reps)
        quiet = [score(r) for r in good.values()
                 if r[0]["cpus"] == cpus and r[0]["neighbours"] == 0]
        loud = [score(r) for r in good.values()
                if r[0]["cpus"] == cpus and r[0]["neighbours"] > 0]
        if quiet and loud:
            auc = sum((l > q) + 0.5 * (l == q) for l in loud for q in quiet) / \
                (len(loud) * len(quiet))
            print(f"  cpus {cpus}: {auc:.2f} ({len(loud)} disturbed, {len(quiet)} not)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else
                  "bench/corpus/interference-2026-12-01.jsonl"))
