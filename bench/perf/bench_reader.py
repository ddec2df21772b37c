#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""python/ksft_metric_reader.py against `ksft-metric report --format nipa`
on one large log from make-log (per-CPU counters of 64 CPUs, two hosts):
median wall time of each over REPEATS runs, measured in the same run, the
ratio, and the load. Both outputs must be the same records.

Usage: bench_reader.py KSFT_METRIC MAKE_LOG [--samples N] [--cpus N] [--repeats N]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import ksft_metric_reader  # noqa: E402


def timed(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ksft_metric")
    ap.add_argument("make_log")
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--cpus", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "big.log")
        with open(log, "wb") as f:
            subprocess.run([a.make_log, "--samples", str(a.samples), "--cpus",
                            str(a.cpus), "--interval-ms", "0"], stdout=f, check=True)
        size = os.path.getsize(log)
        with open(log, "rb") as f:
            lines = sum(1 for _ in f)

        def cli():
            return subprocess.run([a.ksft_metric, "report", "--format", "nipa",
                                   "--quiet", log], stdout=subprocess.PIPE,
                                  check=True).stdout

        def reader():
            return ksft_metric_reader.read(log).nipa()

        t_cli, out_cli = timed(cli, a.repeats)
        t_py, out_py = timed(reader, a.repeats)
    same = json.loads(out_cli) == json.loads(json.dumps(out_py))
    print(f"log: {size / 1e6:.1f} MB, {lines} lines ({a.samples} samples, {a.cpus} CPUs)")
    print(f"ksft-metric report --format nipa: {t_cli * 1000:.0f} ms (median of {a.repeats})")
    print(f"ksft_metric_reader.read().nipa(): {t_py * 1000:.0f} ms (median of {a.repeats})")
    print(f"ratio reader / report: {t_py / t_cli:.1f}x; "
          f"{size / 1e6 / t_py:.0f} MB/s for the reader")
    print(f"same records: {same}; load: {os.getloadavg()[0]:.2f} "
          f"(1-min), {os.cpu_count()} CPUs")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
