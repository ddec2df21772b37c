#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Scaling of every ksft-metric command: wall time and peak RSS of each
command run as a child (os.wait4's ru_maxrss) on generated logs of 20,000
and 200,000 cases and on wide / ragged per-cpu arrays, beside a baseline
measured in the same run: `cat FILE > /dev/null` for time (ratio = command
/ cat) and the file size for memory (ratio = peak RSS / log size). The
200k-case line against the 20k one shows the growth (linear: about 10x).
Prints medians of REPS runs; never passes or fails.

usage: bench_cli.py KSFT_METRIC PEAK_RSS [--reps N] [--quick]
       (PEAK_RSS: build/bench/peak-rss, which forks and measures each run)
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile


PEAK_RSS = None


def gen_cases(path, n):
    """n cases of run_kselftest-style nesting, two scalar series each."""
    rnd = random.Random(n)
    with open(path, "w") as f:
        f.write("TAP version 13\n1..1\n# selftests: net: bench.py\n"
                f"# TAP version 13\n# 1..{n}\n")
        for i in range(1, n + 1):
            f.write('# # ktap-metric-json: {"host":"local","name":"throughput",'
                    f'"shape":"scalar","time":{i / 1000:.6f},'
                    f'"value":{rnd.random() * 100!r}}}\n'
                    '# # ktap-metric-json: {"name":"lat.%d","shape":"scalar",'
                    '"time":%.6f,"value":%r}\n# ok %d bench.case_%d\n'
                    % (i % 100, i / 1000, rnd.random(), i, i))
        f.write("ok 1 selftests: net: bench.py\n")


def gen_wide(path, points, width, ragged):
    """One per-cpu series: every point `width` wide, or (ragged) only the
    first, the rest 4 wide: the shape that was points x width."""
    with open(path, "w") as f:
        f.write("TAP version 13\n1..1\n")
        f.write('# ktap-metric-policy-json: {"aggregation":"busy-core-equivalents",'
                '"name":"cpu","summarize":"p90","transform":"rate"}\n')
        for t in range(points):
            w = width if (t == 0 or not ragged) else 4
            vals = ",".join(str(t * 10 + (j % 7)) for j in range(w))
            f.write('# ktap-metric-json: {"name":"cpu","shape":"per-cpu",'
                    f'"time":{t * 0.1:.6f},"value":[{vals}]}}\n')
        f.write("ok 1 wide\n")


def run(argv):
    """(seconds, peak RSS bytes, rc) of one child, through peak-rss."""
    p = subprocess.run([PEAK_RSS, *argv], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, check=True)
    secs, kb, rc = p.stdout.split()[-3:]
    return float(secs), int(kb) * 1024, int(rc)


def measure(argv, reps):
    runs = [run(argv) for _ in range(reps)]
    rcs = {r[2] for r in runs}
    return (statistics.median(r[0] for r in runs),
            max(r[1] for r in runs), rcs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ksft")
    ap.add_argument("peak_rss")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--quick", action="store_true",
                    help="2k/20k cases and smaller arrays")
    a = ap.parse_args()
    global PEAK_RSS
    PEAK_RSS = os.path.abspath(a.peak_rss)
    tmp = tempfile.mkdtemp(prefix="bench-cli-")
    small, big = (2000, 20000) if a.quick else (20000, 200000)
    logs = [
        (f"{small // 1000}k cases", "cases", small),
        (f"{big // 1000}k cases", "cases", big),
        ("per-cpu 256 x 4000 pts", "wide", (4000, 256, False)),
        ("ragged 20000 + 4 x 20000", "wide", (20000, 20000, True)),
    ]
    try:
        print(f"{'log':26} {'command':22} {'time':>8} {'cat':>7} {'ratio':>7}"
              f" {'peak RSS':>9} {'log':>8} {'RSS/log':>7}")
        for title, kind, arg in logs:
            path = os.path.join(tmp, title.replace(" ", "_") + ".log")
            if kind == "cases":
                gen_cases(path, arg)
            else:
                gen_wide(path, *arg)
            size = os.path.getsize(path)
            base = os.path.join(tmp, "base.json")
            subprocess.run([a.ksft, "save", "-q", "-o", base, path],
                           check=True, capture_output=True)
            cat_t = statistics.median(
                run(["sh", "-c", 'cat "$1" > /dev/null', "sh", path])[0]
                for _ in range(a.reps))
            cmds = [
                ("report", ["report", "-q", "-o", "/dev/null", path]),
                ("report -f json", ["report", "-q", "-f", "json", "-o", "/dev/null", path]),
                ("report -f openmetrics", ["report", "-q", "-f", "openmetrics",
                                           "-o", "/dev/null", path]),
                ("save", ["save", "-q", "-o", os.path.join(tmp, "s.json"), path]),
                ("compare", ["compare", "-q", "--baseline", base, "-o",
                             "/dev/null", path]),
                ("plot", ["plot", "-q", "-o", os.path.join(tmp, "p.svg"), path]),
                ("html", ["html", "-q", "-o", os.path.join(tmp, "p.html"), path]),
            ]
            for name, args in cmds:
                t, rss, rcs = measure([a.ksft, *args], a.reps)
                bad = "" if rcs <= {0, 1} else f"  rc {sorted(rcs)}"
                print(f"{title:26} {name:22} {t * 1000:7.0f}ms {cat_t * 1000:5.1f}ms"
                      f" {t / cat_t:7.0f} {rss / 2**20:7.1f}MB {size / 2**20:6.1f}MB"
                      f" {rss / size:7.2f}{bad}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
