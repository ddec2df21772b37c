#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions of `ksft-metric ingest` of a 1,000-series run into SQLite
after WARM runs (bench_ingest_cli.py's logs, bench_goals.py's commands),
under valgrind --tool=callgrind: the total, and the TOP inclusive
entries of callgrind_annotate. Instruction counts do not move with the
machine's load (issue 45). Passes or fails nothing.

  python3 bench/perf/bench_ingest_callgrind.py KSFT_METRIC [SERIES] [WARM] [TOP]

(KEEP=FILE: keep callgrind's output there, for callgrind_annotate --tree;
KEEP_DB=FILE: the history before the measured ingest, for
bench_sqlite_row_cost.sh.)
"""
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_ingest_cli  # noqa: E402


def main():
    tool = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    warm = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 25
    rng = random.Random(25)
    ctx = ["--context", "hostname=bench", "--context", "arch=x86_64"]
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "history.db")
        log = os.path.join(tmp, "run.log")
        for i in range(warm + 1):
            text, _ = bench_ingest_cli.make_log(n, rng)
            with open(log, "w") as f:
                f.write(text)
            argv = [tool, "ingest", "-q", "--db", db, "--run", "run-%04d" % i,
                    "--order", "2026-12-01T%04d" % i, *ctx, log]
            if i == 0:
                argv.insert(2, "--create")
            if i == warm:
                if os.environ.get("KEEP_DB"):
                    subprocess.run(["cp", db, os.environ["KEEP_DB"]], check=True)
                out = os.path.join(tmp, "cg.out")
                argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + argv
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if os.environ.get("KEEP"):
            subprocess.run(["cp", out, os.environ["KEEP"]], check=True)
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                             check=True, capture_output=True, text=True).stdout
        total = re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", ann)
        print("ingest of a %d-series run after %d: %s instructions"
              % (n, warm, total.group(1) if total else "?"))
        rows = [ln for ln in ann.splitlines() if re.match(r"\s*[\d,]+ \(", ln)]
        for ln in rows[:top]:
            print(ln.rstrip())


if __name__ == "__main__":
    main()
