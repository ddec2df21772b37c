#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`ksft-metric ingest` (the whole command) of a 1,000-series run into
SQLite, beside Python's sqlite3 bulk insert of the same point rows (one
row per point: series identity, run, time, value) with executemany in one
transaction, measured in the same run (issue 25). WARM runs first, so the
command's gate judges against windows as in CI. Prints medians of wall
time and of CPU time (the command's from its rusage, Python's
process_time) and their ratios; passes or fails nothing.

  python3 bench/perf/bench_ingest_cli.py build/tools/ksft-metric [SERIES] [REPS] [WARM]
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


def make_log(n_series, rng):
    """The log of bench/perf/bench_log.h's make_log(): cases of 4 series, 3
    points each; returns (text, point rows)."""
    n_cases = (n_series + 3) // 4
    out = ["TAP version 13", "1..1", "# selftests: net/perf: iperf_selftest",
           "# TAP version 13", "# 1..%d" % n_cases,
           '# # ktap-metric-policy-json: {"name":"throughput","regression":'
           '{"better":"higher","compare":"p50","relative_tolerance":0.05},'
           '"summarize":"distribution"}',
           '# # ktap-metric-policy-json: {"name":"tcp.retransmits","summarize":"max"}',
           '# # ktap-metric-policy-json: {"name":"cpu.utilization","regression":'
           '{"better":"lower","compare":"p50","relative_tolerance":0.1},"summarize":"p90"}',
           '# # ktap-metric-policy-json: {"name":"throughput.interval",'
           '"summarize":"distribution"}']
    points = []
    dirs = ("forward", "reverse")
    for c in range(n_cases):
        level = 8.0 + c % 13
        case = "big.%s.%s%03d" % (dirs[c % 2], "tcp" if c % 4 < 2 else "udp", c)
        for k in range(3):
            t = 1.615669 + 4.0 * k
            for i in range(4 * c, min(4 * c + 4, n_series)):
                kind = i % 4
                if kind == 0:
                    name, labels, v = "throughput", "{}", level * (1 + rng.gauss(0, 0.03))
                    line = ('{"name":"throughput","shape":"scalar","time":%.6f,'
                            '"unit":"Gbps","value":%.4f}' % (t, v))
                elif kind == 1:
                    name, labels, v = "tcp.retransmits", "{}", rng.randrange(40)
                    line = ('{"name":"tcp.retransmits","shape":"scalar","time":%.6f,'
                            '"value":%d}' % (t, v))
                elif kind == 2:
                    host = "remote" if c % 2 else "local"
                    name, labels, v = "cpu.utilization", '{"host":"%s"}' % host, \
                        0.6 + rng.gauss(0, 0.02)
                    line = ('{"host":"%s","name":"cpu.utilization","shape":"scalar",'
                            '"time":%.6f,"value":%.4f}' % (host, t, v))
                else:
                    name, labels, v = "throughput.interval", '{"host":"local"}', \
                        level * (1 + rng.gauss(0, 0.05))
                    t += 1.0
                    line = ('{"host":"local","name":"throughput.interval","shape":"scalar",'
                            '"time":%.6f,"value":%.4f}' % (t, v))
                out.append("# # ktap-metric-json: " + line)
                points.append((case, name, labels, t, float(v)))
        out.append("# ok %d %s" % (c + 1, case))
    out.append("ok 1 selftests: net/perf: iperf_selftest")
    return "\n".join(out) + "\n", points


def bulk_insert(db, run, points):
    """The engine alone: @points as run @run's rows of a new SQLite file
    @db, one executemany in one transaction (bench_goals.py's too)."""
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("CREATE TABLE points (run TEXT, case_name TEXT, metric TEXT,"
                " labels TEXT, time REAL, value REAL)")
    with con:
        con.executemany("INSERT INTO points VALUES (?, ?, ?, ?, ?, ?)",
                        [(run,) + p for p in points])
    con.close()


def main():
    tool = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    warm = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    rng = random.Random(25)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "history.db")
        t_cmd, c_cmd, t_py, c_py = [], [], [], []
        for i in range(warm + reps):
            text, points = make_log(n, rng)
            log = os.path.join(tmp, "run.log")
            with open(log, "w") as f:
                f.write(text)
            argv = [tool, "ingest", "--create", "--db", db, "--run", "run-%04d" % i,
                    "--order", "2026-12-01T%04d" % i, "--context", "hostname=bench",
                    "--context", "arch=x86_64", log]
            ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
            t = time.perf_counter() - t0
            ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
            # The engine alone: the same point rows, one transaction.
            pdb = os.path.join(tmp, "py-%d.db" % i)
            p0, c0 = time.perf_counter(), time.process_time()
            bulk_insert(pdb, "run-%04d" % i, points)
            tp, cp = time.perf_counter() - p0, time.process_time() - c0
            if i >= warm:
                t_cmd.append(t)
                c_cmd.append(cpu)
                t_py.append(tp)
                c_py.append(cp)
        load = open("/proc/loadavg").read().split()[:3]
        mt, mc = statistics.median(t_cmd), statistics.median(c_cmd)
        pt, pc = statistics.median(t_py), statistics.median(c_py)
        print("host: %d CPUs, load %s" % (os.cpu_count(), " ".join(load)))
        print("ingest of a %d-series run (%d points), median of %d after %d runs:"
              % (n, len(points), reps, warm))
        print("  ksft-metric ingest (whole command)   wall %8.1f ms  CPU %8.1f ms" %
              (mt * 1e3, mc * 1e3))
        print("  python sqlite3 executemany, 1 tx     wall %8.1f ms  CPU %8.1f ms" %
              (pt * 1e3, pc * 1e3))
        print("  ratio command / python: wall %.1fx  CPU %.1fx" % (mt / pt, mc / pc))


if __name__ == "__main__":
    main()
