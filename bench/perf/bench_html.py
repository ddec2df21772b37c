#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-metric html on big inputs beside `ksft-metric report` of the same
log (the baseline: reading and summarising, no drawing): median wall time
of REPS runs, the ratio html / report, CPU time (user + system) of each
beside a bare Python loop that json.loads every metric line of the same
log (bench_cli.py's, measured in the same run), peak RSS of each and the
page's size. Inputs: 200,000 cases (two scalar series each, bench_cli.py's
generator), a per-cpu log of 20,000-entry arrays, and the two with a
baseline (verdicts). Prints; never passes or fails.

usage: bench_html.py KSFT_METRIC PEAK_RSS [--reps N] [--quick]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_cli  # noqa: E402  (its generators and child runner)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ksft")
    ap.add_argument("peak_rss")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="20k cases, 2000-wide arrays")
    a = ap.parse_args()
    bench_cli.PEAK_RSS = os.path.abspath(a.peak_rss)
    tmp = tempfile.mkdtemp(prefix="bench-html-")
    cases, width = (20000, 2000) if a.quick else (200000, 20000)
    try:
        logs = []
        path = os.path.join(tmp, "cases.log")
        bench_cli.gen_cases(path, cases)
        logs.append((f"{cases // 1000}k cases", path))
        path = os.path.join(tmp, "wide.log")
        bench_cli.gen_wide(path, 200, width, False)
        logs.append((f"per-cpu {width} x 200 pts", path))
        print(bench_cli.load_text())
        print(f"{'log':24} {'baseline':9} {'report':>9} {'html':>9} {'ratio':>6}"
              f" {'CPU rep':>8} {'CPU html':>8} {'py CPU':>7} {'rep/py':>6}"
              f" {'RSS rep':>8} {'RSS html':>8} {'page':>8}")
        for title, log in logs:
            _, py_cpu = bench_cli.py_loads(log, a.reps)
            base = os.path.join(tmp, "base.json")
            subprocess.run([a.ksft, "save", "-q", "-o", base, log], check=True,
                           capture_output=True)
            page = os.path.join(tmp, "page.html")
            for with_base in (False, True):
                b = ["--baseline", base] if with_base else []
                rep = [bench_cli.run([a.ksft, "compare" if with_base else "report",
                                      "-q", *b, "-o", "/dev/null", log])
                       for _ in range(a.reps)]
                htm = [bench_cli.run([a.ksft, "html", "-q", *b, "-o", page, log])
                       for _ in range(a.reps)]
                assert {r[2] for r in htm} == {0}, htm
                rt = statistics.median(r[0] for r in rep)
                ht = statistics.median(r[0] for r in htm)
                rc = statistics.median(r[3] for r in rep)
                hc = statistics.median(r[3] for r in htm)
                print(f"{title:24} {'compare' if with_base else 'report':9}"
                      f" {rt * 1000:7.0f}ms {ht * 1000:7.0f}ms {ht / rt:6.2f}"
                      f" {rc * 1000:6.0f}ms {hc * 1000:6.0f}ms {py_cpu * 1000:5.0f}ms"
                      f" {rc / py_cpu:6.2f}"
                      f" {max(r[1] for r in rep) / 2**20:6.1f}MB"
                      f" {max(r[1] for r in htm) / 2**20:6.1f}MB"
                      f" {os.path.getsize(page) / 2**10:6.0f}KB", flush=True)
        print(bench_cli.load_text())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
