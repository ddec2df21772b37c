#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A year of history (issue 45): `compare --db` and `ingest` of a
SERIES-series run against RUNS stored runs, the database's size, and
`prune --keep KEEP` (its time, the size after, and the next run's
verdicts the same before and after: the JSON of compare --db, byte for
byte). Prints each figure with the load; fails only when prune changed
a verdict.

The history is made the way CI makes it for its first 4 runs (ingest of
bench_ingest_cli.py's log); the other runs are copies of those runs'
rows (ksftm_runs, ksftm_results: same series, values, samples, summaries
and verdicts, a new run id and order each), written by SQL in batches,
since ingesting 3,000 runs of 5,000 series one by one would take hours
here. Every stored row has the shape ingest gives it and every index is
maintained as the copies go in.

usage: bench_year.py DB KSFT_METRIC [SERIES [RUNS [KEEP [REPS]]]]
  DB: a SQLite file (created) or a postgresql:// URL (psql must reach it);
  bench/perf/bench_history.sh runs it on both (a throwaway server for the second):
    bench/perf/bench_history.sh bench/perf/bench_year.py build/tools/ksft-metric 5000 3000
"""
import os
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_ingest_cli  # noqa: E402  (the 4-series-a-case log)

REAL = 4        # runs ingested for real; the others copy runs 1..3


def load():
    return "load %s" % " ".join(open("/proc/loadavg").read().split()[:3])


def child(argv):
    """(wall s, CPU s, stdout) of one run of argv."""
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1):
        sys.exit("%s: exit %d\n%s" % (" ".join(argv[:3]), p.returncode,
                                      p.stderr.decode(errors="replace")))
    return t, (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime), p.stdout


class Db:
    def __init__(self, url):
        self.url = url
        self.pg = "://" in url

    def sql(self, text):
        if self.pg:
            p = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                                "-d", self.url, "-c", text], capture_output=True, text=True)
            if p.returncode:
                sys.exit("psql: " + p.stderr)
            return p.stdout.strip()
        con = sqlite3.connect(self.url, timeout=600)
        try:
            with con:
                rows = con.execute(text).fetchall()
            return "\n".join("|".join(str(c) for c in r) for r in rows)
        finally:
            con.close()

    def size(self):
        if self.pg:
            return int(self.sql("SELECT pg_database_size(current_database())"))
        self.sql("PRAGMA wal_checkpoint(TRUNCATE)")
        return os.path.getsize(self.url)

    def copy_runs(self, first, last):
        """Runs first..last (numbers) as copies of the real runs 1..3."""
        if self.pg:
            seq = "generate_series(%d, %d) AS s(k)" % (first, last)
            order = "'2026-01-01T' || lpad(k::text, 5, '0') || chr(1) || 'run-' || k"
            key = "'run-' || k"
        else:
            seq = ("(WITH RECURSIVE s(k) AS (SELECT %d UNION ALL SELECT k + 1 FROM s"
                   " WHERE k < %d) SELECT k FROM s)" % (first, last))
            order = "printf('2026-01-01T%05d', k) || char(1) || 'run-' || k"
            key = "'run-' || k"
        self.sql("INSERT INTO ksftm_runs (run_key, run_order, context, comparable, state,"
                 " pinned, ingested) SELECT %s, %s, t.context, t.comparable, t.state, 0,"
                 " t.ingested FROM %s JOIN ksftm_runs t ON t.run_key = 'run-' || (1 + k %% 3)"
                 % (key, order, seq))
        self.sql("INSERT INTO ksftm_results (run_id, series_id, comparable, run_order, usable,"
                 " status, shape, policy, compare_op, better, value, samples, summary, verdict,"
                 " accepted) SELECT r.id, t.series_id, t.comparable, r.run_order, t.usable,"
                 " t.status, t.shape, t.policy, t.compare_op, t.better, t.value, t.samples,"
                 " t.summary, t.verdict, t.accepted FROM ksftm_runs r JOIN ksftm_runs tr"
                 " ON tr.run_key = 'run-' || (1 + CAST(substr(r.run_key, 5) AS INTEGER) %% 3)"
                 " JOIN ksftm_results t ON t.run_id = tr.id"
                 " WHERE CAST(substr(r.run_key, 5) AS INTEGER) BETWEEN %d AND %d"
                 % (first, last))


def main():
    url, tool = sys.argv[1], os.path.abspath(sys.argv[2])
    series = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3000
    keep = int(sys.argv[5]) if len(sys.argv) > 5 else 63
    reps = int(sys.argv[6]) if len(sys.argv) > 6 else 3
    db = Db(url)
    rng = random.Random(45)
    tmp = tempfile.mkdtemp(prefix="bench-year-")
    ctx = ["--context", "hostname=bench", "--context", "arch=x86_64"]

    def log(i):
        path = os.path.join(tmp, "run-%d.log" % i)
        with open(path, "w") as f:
            f.write(bench_ingest_cli.make_log(series, rng)[0])
        return path

    def ingest(i, path):
        # The first run makes the history (ingest refuses a missing one).
        return child([tool, "ingest", "-q", "--db", url, *(["--create"] if i == 0 else []),
                      "--run", "run-%d" % i, "--order", "2026-01-01T%05d" % i, *ctx, path])

    def compare(i, path):
        return child([tool, "compare", "-q", "--db", url, "--order", "2026-01-01T%05d" % i,
                      "--format", "json", *ctx, path])

    print("%d-series runs, %d runs of history, prune --keep %d; %s on %d CPUs"
          % (series, runs, keep, load(), os.cpu_count()), flush=True)
    t0 = time.perf_counter()
    for i in range(REAL):
        ingest(i, log(i))
    batch = max(1, 2000000 // series)   # about 2 M result rows a statement
    for first in range(REAL, runs, batch):
        db.copy_runs(first, min(runs - 1, first + batch - 1))
    n_rows = db.sql("SELECT COUNT(*) FROM ksftm_results")
    print("history made: %s runs, %s result rows in %.0f s; %s"
          % (db.sql("SELECT COUNT(*) FROM ksftm_runs"), n_rows, time.perf_counter() - t0,
             load()), flush=True)
    size = db.size()
    print("  database size %.1f MB (%.0f bytes a result row)"
          % (size / 1e6, size / int(n_rows)), flush=True)

    nxt = log(runs)
    cmp_t = [compare(runs, nxt) for _ in range(reps)]
    before = cmp_t[-1][2]
    print("  compare --db of run %d: wall %.0f ms, CPU %.0f ms (median of %d); %s"
          % (runs + 1, statistics.median(c[0] for c in cmp_t) * 1e3,
             statistics.median(c[1] for c in cmp_t) * 1e3, reps, load()), flush=True)
    t, cpu, _ = ingest(runs, nxt)
    print("  ingest of run %d: wall %.0f ms, CPU %.0f ms; %s"
          % (runs + 1, t * 1e3, cpu * 1e3, load()), flush=True)
    nxt2 = log(runs + 1)
    before = compare(runs + 1, nxt2)[2]

    t, cpu, out = child([tool, "prune", "--db", url, "--keep", str(keep)])
    print("  prune --keep %d: wall %.1f s, CPU %.1f s: %s"
          % (keep, t, cpu, out.decode().strip()), flush=True)
    print("  database size after prune %.1f MB (freed pages kept for reuse)"
          % (db.size() / 1e6), flush=True)
    t0 = time.perf_counter()
    if db.pg:
        db.sql("VACUUM FULL")
    else:
        db.sql("VACUUM")
    print("  after VACUUM%s: %.1f MB (%.0f s)" % (" FULL" if db.pg else "", db.size() / 1e6,
                                                 time.perf_counter() - t0), flush=True)
    cmp_t = [compare(runs + 1, nxt2) for _ in range(reps)]
    after = cmp_t[-1][2]
    print("  compare --db of run %d after prune: wall %.0f ms, CPU %.0f ms (median of %d);"
          " verdicts %s; %s"
          % (runs + 2, statistics.median(c[0] for c in cmp_t) * 1e3,
             statistics.median(c[1] for c in cmp_t) * 1e3, reps,
             "the same (JSON byte for byte)" if after == before else "CHANGED", load()),
          flush=True)
    t, cpu, _ = ingest(runs + 1, nxt2)
    print("  ingest of run %d after prune: wall %.0f ms, CPU %.0f ms; %s"
          % (runs + 2, t * 1e3, cpu * 1e3, load()), flush=True)
    return 0 if after == before else 1


if __name__ == "__main__":
    sys.exit(main())
