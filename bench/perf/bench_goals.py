#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Issue 45's four ratios, each beside its baseline in the same round,
ROUNDS rounds interleaved (baseline, command, baseline, command, ...),
then the median of each ratio and the load:

  1. report of a CASES-case log (bench_cli.py's generator) against a bare
     Python loop that json.loads each metric line: CPU time (goal <= 0.25);
  2. report's peak RSS against the log's size (goal <= 1);
  3. compare --baseline (the log's own saved baseline) against report:
     CPU time and peak RSS (goal <= 1.5 each);
  4. ingest of a 1,000-series run into SQLite (after WARM runs), the whole
     command's CPU time, against Python's sqlite3 executemany of the same
     point rows in one transaction (bench_ingest_cli.py; goal <= 2).

Every child runs under peak-rss (wall, CPU, ru_maxrss). Passes or fails
nothing.

usage: bench_goals.py KSFT_METRIC PEAK_RSS [--cases N] [--rounds N] [--warm N] [--ingest-only]
(--ingest-only: ratio 4 alone, its rounds interleaved the same way)
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_cli  # noqa: E402
import bench_ingest_cli  # noqa: E402


def load():
    return "load %s" % " ".join(open("/proc/loadavg").read().split()[:3])


def py_insert(db, run, points):
    """Python's side of ratio 4: CPU seconds of the executemany."""
    c0 = time.process_time()
    bench_ingest_cli.bulk_insert(db, run, points)
    return time.process_time() - c0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ksft")
    ap.add_argument("peak_rss")
    ap.add_argument("--cases", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warm", type=int, default=6)
    ap.add_argument("--ingest-only", action="store_true")
    a = ap.parse_args()
    bench_cli.PEAK_RSS = os.path.abspath(a.peak_rss)
    tool = os.path.abspath(a.ksft)
    tmp = tempfile.mkdtemp(prefix="bench-goals-")
    log = os.path.join(tmp, "cases.log")
    if a.ingest_only:
        with open(log, "w") as f:
            f.write("TAP version 13\n1..0\n")
    else:
        bench_cli.gen_cases(log, a.cases)
    size = os.path.getsize(log)
    base = os.path.join(tmp, "base.json")
    if not a.ingest_only:
        subprocess.run([tool, "save", "-q", "-o", base, log], check=True)
    db = os.path.join(tmp, "history.db")
    rng = random.Random(25)
    ctx = ["--context", "hostname=bench", "--context", "arch=x86_64"]
    run_no = 0

    def ingest_log():
        nonlocal run_no
        text, points = bench_ingest_cli.make_log(1000, rng)
        path = os.path.join(tmp, "run.log")
        with open(path, "w") as f:
            f.write(text)
        # The first run makes the history (ingest refuses a missing one).
        create = ["--create"] if run_no == 0 else []
        argv = [tool, "ingest", "-q", "--db", db, *create, "--run", "run-%04d" % run_no,
                "--order", "2026-12-01T%04d" % run_no, *ctx, path]
        run_no += 1
        return argv, points

    for _ in range(a.warm):
        subprocess.run(ingest_log()[0], check=True, stdout=subprocess.DEVNULL)
    print("log: %s; %s on %d CPUs" % ("none (--ingest-only)" if a.ingest_only else
                                     "%d cases, %.1f MB" % (a.cases, size / 1e6), load(),
                                                     os.cpu_count()), flush=True)
    rows = []
    for r in range(a.rounds):
        if a.ingest_only:
            py = rss = rep = crss = cmp_ = 1.0
        else:
            _, _, _, py = bench_cli.run([sys.executable, "-c", bench_cli.PY_LOADS, log])
            _, rss, _, rep = bench_cli.run([tool, "report", "-q", "-o", "/dev/null", log])
            _, crss, _, cmp_ = bench_cli.run([tool, "compare", "-q", "--baseline", base,
                                              "-o", "/dev/null", log])
        argv, points = ingest_log()
        pyi = py_insert(os.path.join(tmp, "py-%d.db" % r), "run-%04d" % run_no, points)
        _, _, _, ing = bench_cli.run(argv)
        if a.ingest_only:
            rows.append((0, 0, 0, 0, ing / pyi))
            print("round %d: ingest %.1f ms / executemany %.1f ms = %.2f; %s"
                  % (r + 1, ing * 1e3, pyi * 1e3, ing / pyi, load()), flush=True)
            continue
        row = (rep / py, rss / size, cmp_ / rep, crss / rss, ing / pyi)
        rows.append(row)
        print("round %d: report %.0f ms CPU / python loop %.0f ms = %.2f; report RSS %.0f MB"
              " / log %.0f MB = %.2f; compare %.0f ms = %.2fx report, RSS %.0f MB = %.2fx;"
              " ingest %.1f ms / executemany %.1f ms = %.2f; %s"
              % (r + 1, rep * 1e3, py * 1e3, row[0], rss / 2**20, size / 2**20, row[1],
                 cmp_ * 1e3, row[2], crss / 2**20, row[3], ing * 1e3, pyi * 1e3, row[4],
                 load()), flush=True)
    med = [statistics.median(x[i] for x in rows) for i in range(5)]
    if a.ingest_only:
        print("median of %d rounds: ingest / python executemany, CPU %.2f  (<= 2)"
              % (a.rounds, med[4]))
        print(load())
        subprocess.run(["rm", "-rf", tmp])
        return 0
    print("median of %d rounds (goal):" % a.rounds)
    print("  report / python json.loads loop, CPU   %.2f  (<= 0.25)" % med[0])
    print("  report peak RSS / log size             %.2f  (<= 1)" % med[1])
    print("  compare --baseline / report, CPU       %.2f  (<= 1.5)" % med[2])
    print("  compare --baseline / report, peak RSS  %.2f  (<= 1.5)" % med[3])
    print("  ingest / python executemany, CPU       %.2f  (<= 2)" % med[4])
    print(load())
    subprocess.run(["rm", "-rf", tmp])
    return 0


if __name__ == "__main__":
    sys.exit(main())
