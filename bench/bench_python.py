#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-record cost of ksft_metric() + case flush: the ctypes binding beside
the reference's pure-Python way (a dict per record appended under a
threading.Lock, flushed with json.dumps), measured in the same run.

Run from the source tree after building:

  KSFTMETRIC_LIBRARY=build/lib/libksftmetric.so PYTHONPATH=python \\
      python3 bench/bench_python.py [--records N] [--reps R]

Both sides write the same lines to the same kind of sink (sys.stdout
redirected to an io.StringIO), one write per line for the baseline and one
per case for the binding. Prints the median ns/record of R repetitions and
the ratio binding/baseline (goal: <= 1.0).
"""

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))

import ksftmetric  # noqa: E402


class Baseline:
    """The reference's ksft_metric() and flush, as the bench baseline."""

    def __init__(self):
        self.lock = threading.Lock()
        self.metrics = None
        self.start = None

    def begin(self):
        with self.lock:
            self.metrics = []
            self.start = time.monotonic()

    def metric(self, name, value, *, shape, **labels):
        with self.lock:
            if self.metrics is None or self.start is None:
                raise RuntimeError("ksft_metric() called outside of a test case")
            metric = {
                "name": name,
                "shape": shape,
                "value": value,
                "time": round(time.monotonic() - self.start, 6),
            }
            for key, label_value in sorted(labels.items()):
                if key in metric:
                    raise ValueError(f"Metric label uses reserved name: {key}")
                metric[key] = label_value
            self.metrics.append(metric)

    def end(self):
        with self.lock:
            metrics = self.metrics
            self.metrics = None
            self.start = None
        out = sys.stdout
        for metric in metrics or []:
            payload = json.dumps(metric, allow_nan=False,
                                 separators=(",", ":"), sort_keys=True)
            out.write(f"# ktap-metric-json: {payload}\n")


def run_binding(n, kind):
    metric = ksftmetric.ksft_metric
    ksftmetric.ksft_metric_case_begin()
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
    ksftmetric.ksft_metric_case_end()
    return time.perf_counter_ns() - t0


def run_baseline(n, kind, base):
    metric = base.metric
    base.begin()
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
    base.end()
    return time.perf_counter_ns() - t0


KINDS = ("plain float", "plain int", "labelled float", "per-cpu[8] labelled")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=20000,
                    help="records per case (default 20000)")
    ap.add_argument("--reps", type=int, default=9,
                    help="repetitions per kind; the median is shown (default 9)")
    args = ap.parse_args()

    base = Baseline()
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
