#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The re-keying of an old-layout history (issue 45): OLD's ingest of 4
runs of a 5,000-series log and bench_year.py's SQL copies up to RUNS
runs (the results as the old layout keeps them), then NEW's first ingest
(which re-keys the results, then ingests) and the next one; times, CPU
and the file's size. SQLite only. Passes or fails nothing.

  python3 bench/perf/bench_rekey.py OLD_KSFT_METRIC NEW_KSFT_METRIC [RUNS]
"""
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_year  # noqa: E402
import bench_ingest_cli  # noqa: E402


def main():
    before, after = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    tmp = tempfile.mkdtemp(prefix="bench-rekey-")
    url = os.path.join(tmp, "h.db")
    db = bench_year.Db(url)
    rng = random.Random(45)
    ctx = ["--context", "hostname=bench", "--context", "arch=x86_64"]

    def log(i):
        p = os.path.join(tmp, "run-%d.log" % i)
        with open(p, "w") as f:
            f.write(bench_ingest_cli.make_log(5000, rng)[0])
        return p

    for i in range(4):
        subprocess.run([before, "ingest", "-q", "--db", url] + (["--create"] if i == 0 else [])
                       + ["--run", "run-%d" % i, "--order", "2026-01-01T%05d" % i] + ctx
                       + [log(i)], check=True, stdout=subprocess.DEVNULL)
    db.copy_runs(4, runs - 1)
    print("old layout: %s results, %d MB; %s" % (db.sql("SELECT COUNT(*) FROM ksftm_results"),
                                                  db.size() // 10**6, bench_year.load()), flush=True)
    for k, what in ((runs, "first ingest by NEW (re-keys, then ingests)"), (runs + 1, "next ingest")):
        t, cpu, _ = bench_year.child([after, "ingest", "-q", "--db", url, "--run", "run-%d" % k,
                                      "--order", "2026-01-01T%05d" % k] + ctx + [log(k)])
        print("%s: wall %.1f s, CPU %.1f s; size %d MB; %s"
              % (what, t, cpu, db.size() // 10**6, bench_year.load()), flush=True)
    subprocess.run(["rm", "-rf", tmp])
    return 0


if __name__ == "__main__":
    sys.exit(main())
