# SPDX-License-Identifier: GPL-2.0
"""Shared helpers for the binding's tests: import, output capture, time
masking, and SeedMetrics, a re-implementation of the reference producer
(the ksft.py functions of "selftests: net: add performance metric
reporting") that the binding's output is compared with."""

import contextlib
import io
import json
import os
import re
import sys
import threading
import time

_SRC_PYTHON = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "..", "python")
try:
    import ksftmetric  # noqa: F401  (meson sets PYTHONPATH)
except ImportError:
    sys.path.insert(0, os.path.abspath(_SRC_PYTHON))
    import ksftmetric  # noqa: F401

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")

_TIME_RE = re.compile(r'([{,])"time":(-?[0-9][0-9.e+-]*)')


def mask_time(text):
    """Replace every observation's time value with T."""
    return _TIME_RE.sub(r'\1"time":T', text)


def times(text):
    """The time values of the observation lines in @text, in order."""
    return [float(m.group(2)) for m in _TIME_RE.finditer(text)]


@contextlib.contextmanager
def captured_stdout():
    """Collect what is written to sys.stdout (Python level) into a StringIO."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        yield buf


def read_golden(name):
    with open(os.path.join(GOLDEN_DIR, name), encoding="utf-8") as f:
        return f.read()


def diff(expected, actual):
    import difflib
    return "".join(difflib.unified_diff(
        expected.splitlines(True), actual.splitlines(True),
        "expected", "actual"))


class SeedMetrics:
    """The reference producer's behaviour, written anew for comparison.

    State lives in one object instead of module globals; ksft_pr is the
    @pr callable. Semantics follow the reference: the case check comes
    first, labels are merged in sorted order and may not reuse a fixed key,
    policies are dicts compared with ==, registration after an observation
    or with a different policy is rejected, the flush prints each observed
    metric's policy (registration order) and then each observation with
    json.dumps(sort_keys=True, separators=(",", ":"), allow_nan=False).
    """

    def __init__(self, pr):
        self.pr = pr
        self.lock = threading.Lock()
        self.metrics = None
        self.start = None
        self.aggregates = None
        self.reporting = 0

    # ksft_run()'s inline begin
    def case_begin(self):
        with self.lock:
            self.metrics = []
            self.start = time.monotonic()
            self.aggregates = {}
            self.reporting = 0

    def ksft_metric_reporting(self, enable):
        with self.lock:
            self.reporting += 1 if enable else -1

    def ksft_metric_reporting_enabled(self):
        with self.lock:
            return self.reporting > 0

    def ksft_metric_aggregate(self, name, summarize="total", *,
                              aggregation=None, transform=None,
                              regression=None, display_range=None,
                              display_scale=None, display_label=None):
        metadata = {"summarize": summarize}
        optional = {
            "aggregation": aggregation,
            "transform": transform,
            "regression": regression,
            "display_range": display_range,
            "display_scale": display_scale,
            "display_label": display_label,
        }
        metadata.update({k: v for k, v in optional.items() if v is not None})
        with self.lock:
            if self.aggregates is None:
                raise RuntimeError(
                    "ksft_metric_aggregate() called outside of a test case")
            previous = self.aggregates.get(name)
            if previous is not None and previous != metadata:
                raise ValueError(f"Conflicting aggregation for metric {name}")
            if previous is None and any(m["name"] == name
                                        for m in self.metrics):
                raise RuntimeError(
                    f"Aggregation registered after metric {name} was recorded")
            self.aggregates[name] = metadata

    def ksft_metric(self, name, value, *, shape, **labels):
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

    # ksft_run()'s flush just before ktap_result()
    def case_end(self):
        with self.lock:
            metrics = self.metrics
            aggregates = self.aggregates
            self.metrics = None
            self.start = None
            self.aggregates = None
            self.reporting = 0
        names = {m["name"] for m in metrics or []}
        for name, metadata in (aggregates or {}).items():
            if name not in names:
                continue
            policy = {"name": name, **metadata}
            payload = json.dumps(policy, allow_nan=False, separators=(",", ":"),
                                 sort_keys=True)
            self.pr(f"ktap-metric-policy-json: {payload}")
        for m in metrics or []:
            payload = json.dumps(m, allow_nan=False, separators=(",", ":"),
                                 sort_keys=True)
            self.pr(f"ktap-metric-json: {payload}")
