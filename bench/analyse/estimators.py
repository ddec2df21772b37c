#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-run estimators on a time-ordered corpus (bench/record/record_interference.py
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

and two spreads over the runs of a configuration beside them:

  best|quiet  the CV of best-of-N over the runs whose measured interference
              (others' CPU time on the benchmark's CPUs, the run's mean) is
              at most the configuration's median: what a gate that judges
              only runs its interference series call quiet would see
  best MAD    1.4826 x the median absolute deviation of best-of-N over its
              median: the spread without the few worst runs

and whether the interference series tell a disturbed run (a noisy
neighbour) from an undisturbed one: the AUC of each series and of their
sum. Runs of different repeat lengths ("secs", 2 when absent) are kept
apart. Usage:
    bench/analyse/estimators.py bench/corpus/interference-2026-12-01.jsonl \
        bench/corpus/interference-2026-12-02.jsonl
"""
import json
import statistics
import sys

METRICS = (("cost_test", "lower"), ("cost_host", "lower"), ("gbps", "higher"))


def runs_of(paths):
    runs = {}
    for path in paths:
        for line in open(path, encoding="utf-8"):
            r = json.loads(line)
            r.setdefault("secs", 2)
            key = (path, r["seed"], r["round"], r["order"])
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


def mad_cv(v):
    med = statistics.median(v)
    return 1.4826 * statistics.median(abs(x - med) for x in v) / med


def others(r):
    return r.get("others") or 0


def nivcsw(r):
    return (r.get("nivcsw_local") or 0) + (r.get("nivcsw_remote") or 0)


SERIES = (("runq", wait), ("others", others), ("steal", lambda r: r.get("steal") or 0),
          ("nivcsw", nivcsw), ("runq+others+steal",
                               lambda r: wait(r) + others(r) + (r.get("steal") or 0)))


def auc(loud, quiet):
    return sum((l > q) + 0.5 * (l == q) for l in loud for q in quiet) / \
        (len(loud) * len(quiet))


def main(paths):
    path = " + ".join(paths)
    runs = runs_of(paths)
    failed = sum(1 for reps in runs.values() if any("failed" in r for r in reps))
    good = {k: reps for k, reps in runs.items() if not any("failed" in r for r in reps)}
    loads = [reps[0]["load1"] for reps in good.values()]
    print(f"{path}: {len(good)} runs ({sum(len(r) for r in good.values())} repeats), "
          f"{failed} failed runs; load average {min(loads):.1f} to {max(loads):.1f} "
          f"(median {statistics.median(loads):.1f}) on 2 CPUs")
    configs = sorted({(r[0]["secs"], r[0]["neighbours"], r[0]["cpus"]) for r in good.values()})
    names = ("mean", "median", "best", "filtered", "weighted", "adaptive")
    for metric, better in METRICS:
        print(f"\n{metric}: CV across runs of each run's estimate")
        print(f"{'secs':>4} {'neighbours':>10} {'cpus':>5} {'runs':>5} " +
              " ".join(f"{n:>9}" for n in names) + "  repeats(adaptive)  best|quiet  best MAD")
        for secs, nb, cpus in configs:
            sel = [reps for reps in good.values() if reps[0]["secs"] == secs and
                   reps[0]["neighbours"] == nb and reps[0]["cpus"] == cpus]
            pairs = [(estimators(reps, metric, better),
                      statistics.mean(others(r) for r in reps)) for reps in sel]
            pairs = [(e, o) for e, o in pairs if e]
            est = [e for e, _ in pairs]
            if len(est) < 2:
                continue
            cells = " ".join(f"{100 * cv([e[n] for e in est]):8.1f}%" for n in names)
            reps = statistics.mean(e["_n"] for e in est)
            limit = statistics.median(o for _, o in pairs)
            quiet = [e["best"] for e, o in pairs if o <= limit]
            print(f"{secs:>4} {nb:>10} {cpus:>5} {len(est):>5} {cells}  {reps:17.2f} "
                  f"{100 * cv(quiet):10.1f}% {100 * mad_cv([e['best'] for e in est]):8.1f}%")
    print("\ninterference per run (mean over its repeats) by neighbour count:")
    print(f"{'secs':>4} {'neighbours':>10} {'cpus':>5} {'runq':>7} {'others':>7} {'steal':>7} "
          f"{'nivcsw/s':>9}")
    for secs, nb, cpus in configs:
        sel = [reps for reps in good.values() if reps[0]["secs"] == secs and
               reps[0]["neighbours"] == nb and reps[0]["cpus"] == cpus]

        def m(f):
            return statistics.mean(statistics.mean(f(r) for r in reps) for reps in sel)
        print(f"{secs:>4} {nb:>10} {cpus:>5} {m(wait):7.3f} {m(lambda r: r['others']):7.3f} "
              f"{m(lambda r: r['steal']):7.3f} "
              f"{m(lambda r: (r['nivcsw_local'] or 0) + (r['nivcsw_remote'] or 0)):9.1f}")
    # Can the series tell disturbed (a neighbour) from undisturbed runs? The
    # share of (disturbed, undisturbed) run pairs ordered right by the
    # run's mean of each series (AUC; 0.5 is chance, below it the series
    # moves the other way), per repeat length and placement.
    print("\nAUC of each interference series (run mean), neighbour >= 1 against none:")
    print(f"{'secs':>4} {'cpus':>5} {'runs':>5} " + " ".join(f"{n:>17}" for n, _ in SERIES))
    for secs, cpus in sorted({(s, c) for s, _, c in configs}):
        sel = [reps for reps in good.values()
               if reps[0]["secs"] == secs and reps[0]["cpus"] == cpus]
        cells = []
        for _, f in SERIES:
            quiet = [statistics.mean(f(r) for r in reps) for reps in sel
                     if reps[0]["neighbours"] == 0]
            loud = [statistics.mean(f(r) for r in reps) for reps in sel
                    if reps[0]["neighbours"] > 0]
            cells.append(f"{auc(loud, quiet):17.2f}" if quiet and loud else f"{'-':>17}")
        print(f"{secs:>4} {cpus:>5} {len(sel):>5} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["bench/corpus/interference-2026-12-01.jsonl",
                                   "bench/corpus/interference-2026-12-02.jsonl"]))
