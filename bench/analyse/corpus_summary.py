#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a corpus recorded by bench/record/record_corpus.sh: per number of
nftables rules, the measurements, the mean and coefficient of variation of
throughput and of CPU cost per GB, and each slowdown's measured change
against the unchanged runs (rules 0) of the same recording.

usage: corpus_summary.py CORPUS.jsonl
"""
import json
import statistics
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    by_rules = {}
    with open(sys.argv[1], encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            try:
                d = json.loads(line)
                by_rules.setdefault(int(d["rules"]), []).append(d)
            except (ValueError, KeyError, TypeError) as err:
                sys.exit(f"{sys.argv[1]}:{lineno}: {err}")
    if 0 not in by_rules:
        sys.exit(f"{sys.argv[1]}: no unchanged measurements (rules 0)")
    base_gbps = statistics.mean(d["gbps"] for d in by_rules[0])
    base_cost = statistics.mean(d["cost"] for d in by_rules[0])
    print(f"{'rules':>5} {'n':>4} {'Gbit/s':>7} {'CV':>6} {'change':>7}   "
          f"{'CPU s/GB':>8} {'CV':>6} {'change':>7}")
    for rules in sorted(by_rules):
        runs = by_rules[rules]
        g = [d["gbps"] for d in runs]
        c = [d["cost"] for d in runs]
        mg, mc = statistics.mean(g), statistics.mean(c)
        cvg = statistics.stdev(g) / mg if len(g) > 1 else float("nan")
        cvc = statistics.stdev(c) / mc if len(c) > 1 else float("nan")
        print(f"{rules:>5} {len(runs):>4} {mg:>7.2f} {cvg:>6.1%} {mg / base_gbps - 1:>+7.1%}   "
              f"{mc:>8.3f} {cvc:>6.1%} {mc / base_cost - 1:>+7.1%}")


if __name__ == "__main__":
    main()
