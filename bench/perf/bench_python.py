#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-record cost of ksft_metric() + case flush: the ctypes binding beside
the reference's pure-Python way (a dict per record appended under a
threading.Lock, flushed with json.dumps), measured in the same run.

Run from the source tree after building:

  KSFTMETRIC_LIBRARY=build/lib/libksftmetric.so PYTHONPATH=python \\
      python3 bench/perf/bench_python.py [--records N] [--reps R]

Both sides write the same lines to the same kind of sink (sys.stdout
redirected to an io.StringIO), one write per line for the baseline and one
per case for the binding. Prints the median ns/record of R repetitions and
the ratio binding/baseline (goal: <= 1.0).
"""

import argparse
import contextlib
import io
import os
import statistics
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(_HERE, "..", "..", "tests", "python"))

import ksftmetric  # noqa: E402
from test_support import SeedMetrics  # noqa: E402


def ksft_pr(line):
    """The reference's ksft_pr() for one line: "# " + line to sys.stdout."""
    sys.stdout.write(f"# {line}\n")


def run_case(n, kind, begin, metric, end):
    """Record @n observations of @kind between @begin() and @end() (the
    flush); returns the ns taken after @begin()."""
    begin()
    t0 = time.perf_counter_ns()
    if kind == "plain float":
        for i in range(n):
            metric("bench.metric", i + 0.25, shape="scalar")
    elif kind == "plain int":
        for i in range(n):
            metric("bench.metric", i, shape="scalar")
    elif kind == "labelled float":
        for i in range(n):
            metric("bench.metric", i + 0.25, shape="scalar", host="local")
    else:
        cpus = [float(c) for c in range(8)]
        for i in range(n):
            metric("bench.metric", cpus, shape="per-cpu", host="local")
    end()
    return time.perf_counter_ns() - t0


def run_binding(n, kind):
    return run_case(n, kind, ksftmetric.ksft_metric_case_begin,
                    ksftmetric.ksft_metric, ksftmetric.ksft_metric_case_end)


def run_baseline(n, kind, base):
    return run_case(n, kind, base.case_begin, base.ksft_metric, base.case_end)


KINDS = ("plain float", "plain int", "labelled float", "per-cpu[8] labelled")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=20000,
                    help="records per case (default 20000)")
    ap.add_argument("--reps", type=int, default=9,
                    help="repetitions per kind; the median is shown (default 9)")
    args = ap.parse_args()

    base = SeedMetrics(ksft_pr)   # the reference producer (tests/python)
    rows = []
    for kind in KINDS:
        b_ns, p_ns = [], []
        for rep in range(args.reps + 1):    # the first is a warm-up
            sink = io.StringIO()
            with contextlib.redirect_stdout(sink):
                b = run_binding(args.records, kind)
            b_text = sink.getvalue()
            sink = io.StringIO()
            with contextlib.redirect_stdout(sink):
                p = run_baseline(args.records, kind, base)
            p_text = sink.getvalue()
            if b_text.count("\n") != args.records or \
                    p_text.count("\n") != args.records:
                sys.exit(f"{kind}: wrong line count")
            if rep:
                b_ns.append(b / args.records)
                p_ns.append(p / args.records)
        rows.append((kind, statistics.median(b_ns), statistics.median(p_ns)))

    print(f"library: {ksftmetric.LIBRARY_PATH}")
    print(f"python:  {sys.version.split()[0]}; {args.records} records per "
          f"case, median of {args.reps} repetitions, record + flush")
    print(f"{'kind':<22} {'binding ns/rec':>15} {'baseline ns/rec':>16} "
          f"{'ratio':>7}")
    for kind, b, p in rows:
        print(f"{kind:<22} {b:>15.0f} {p:>16.0f} {b / p:>7.2f}")


if __name__ == "__main__":
    main()
