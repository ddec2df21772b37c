#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run-to-run spread of the main job's gated numbers: run a KTAP-printing
benchmark (the main job, or ksft-iperf3 run --sysmon) N times unchanged
and print, for throughput and cpu.cost of each case and host, the mean of
the per-run p50 (what the gate compares) and its coefficient of variation,
plus the CV over all single repeats.

usage: metric_cv.py [-n RUNS] [--keep DIR] -- COMMAND [ARG...]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

METRICS = ("throughput", "cpu.cost")


def run_once(cmd):
    """{(case, name, host): [values]} of one run; exits on a failed run."""
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stdout[-2000:]}{proc.stderr}")
    points, pending = {}, []
    for line in proc.stdout.splitlines():
        m = re.match(r"^# ktap-metric-json: (\{.*\})$", line)
        if m:
            o = json.loads(m.group(1))
            if o["name"] in METRICS:
                pending.append(o)
            continue
        r = re.match(r"^(?:not )?ok \d+ (\S+)", line)
        if r:
            for o in pending:
                points.setdefault((r.group(1), o["name"], o["host"]), []).append(o["value"])
            pending = []
    return points, proc.stdout


def cv(values):
    return statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else float("nan")


def main():
    ap = argparse.ArgumentParser(usage=__doc__.strip().splitlines()[-1])
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("--keep", help="write each run's KTAP log here")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd or a.n < 2:
        ap.error("give a command after -- and at least 2 runs")
    medians, singles = {}, {}
    for i in range(a.n):
        points, out = run_once(cmd)
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
            with open(os.path.join(a.keep, f"run{i:03d}.ktap"), "w", encoding="utf-8") as f:
                f.write(out)
        for key, vals in points.items():
            medians.setdefault(key, []).append(statistics.median(vals))
            singles.setdefault(key, []).extend(vals)
        print(f"run {i + 1}/{a.n} done", file=sys.stderr)
    print(f"{'case':<16} {'metric':<11} {'host':<7} {'runs':>4} {'mean p50':>9} "
          f"{'CV p50':>7} {'CV single':>9}")
    for key in sorted(medians):
        case, name, host = key
        m = medians[key]
        print(f"{case:<16} {name:<11} {host:<7} {len(m):>4} {statistics.mean(m):>9.4f} "
              f"{cv(m):>7.1%} {cv(singles[key]):>9.1%}")


if __name__ == "__main__":
    main()
