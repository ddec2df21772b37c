#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A miniature ksft_run() with the binding's hooks where the reference has its
inline begin and flush; its whole stdout is compared with
golden/harness.txt (time values masked)."""

import sys
import threading
import traceback
import unittest
from unittest import mock

from test_support import (SeedMetrics, captured_stdout, diff, mask_time,
                          read_golden, times)

from ksftmetric import (ksft_metric, ksft_metric_aggregate,
                        ksft_metric_case_begin, ksft_metric_case_end,
                        ksft_metric_reporting, ksft_metric_reporting_enabled)


class KsftFailEx(Exception):
    pass


def ksft_pr(*objs, **kwargs):
    kwargs["flush"] = True
    print("#", *objs, **kwargs)


def ktap_result(ok, cnt=1, case_name="", comment=""):
    res = ("" if ok else "not ") + f"ok {cnt} {case_name}"
    if comment:
        res += " # " + comment
    print(res, flush=True)


def ksft_run(cases, pr):
    """ksft_run()'s shape: begin hook, test, flush hook, result line."""
    print("TAP version 13")
    print(f"1..{len(cases)}")
    totals = {"pass": 0, "fail": 0}
    for cnt, func in enumerate(cases, start=1):
        ksft_metric_case_begin()
        ok = True
        try:
            func()
        except KsftFailEx as exc:
            ksft_pr(f"Check failed: {exc}")
            ok = False
        except Exception:      # noqa: BLE001 - reported like ksft_run()
            for line in traceback.format_exc().strip().split("\n"):
                ksft_pr("Exception|", line)
            ok = False
        ksft_metric_case_end(pr)
        ktap_result(ok, cnt, func.__name__)
        totals["pass" if ok else "fail"] += 1
    print(f"# Totals: pass:{totals['pass']} fail:{totals['fail']} xfail:0 "
          "xpass:0 skip:0 error:0")


SAMPLES = [[12.5, 0.0, None, 100.0], [30.0, 2.0202, None, 99.5],
           [0.0, 0.0, 1.0, 75.25]]


class Sampler:
    """A background sampler like the SystemMonitor: it records while the
    test runs. Lock-step with the test so that the golden order is fixed."""

    def __init__(self):
        self.turn = threading.Semaphore(0)
        self.done = threading.Semaphore(0)
        self.error = None
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        try:
            for i, sample in enumerate(SAMPLES):
                self.turn.acquire()
                ksft_metric("cpu.utilization", sample, shape="per-cpu",
                            host="local")
                ksft_metric("nic.rx.dropped", i * 7, shape="scalar",
                            host="local")
                self.done.release()
        except Exception as exc:   # noqa: BLE001 - re-raised by the test
            self.error = exc
            self.done.release()

    def __enter__(self):
        ksft_metric_reporting(True)
        ksft_metric_aggregate(
            "cpu.utilization", summarize="p90",
            aggregation="busy-core-equivalents",
            display_range={"min": 0, "max": 100},
            display_label="Percent of one CPU")
        ksft_metric_aggregate("nic.rx.dropped", summarize="distribution",
                              transform="rate", display_range={"min": 0})
        ksft_metric_aggregate("never.observed", summarize="max")
        self.thread.start()
        return self

    def step(self):
        self.turn.release()
        self.done.acquire()
        if self.error:
            raise self.error

    def __exit__(self, *exc):
        self.thread.join()
        ksft_metric_reporting(False)
        return False


def test_sampled_throughput():
    with Sampler() as sampler:
        ksft_metric_aggregate(
            "throughput", summarize="distribution",
            regression={"compare": "p50", "better": "higher",
                        "relative_tolerance": 0.05})
        for i in range(len(SAMPLES)):
            ksft_metric("throughput", 32.62285180182741 + i, shape="scalar",
                        host="local", direction="rx")
            sampler.step()
        assert ksft_metric_reporting_enabled()
        ksft_pr("sampler done")
    assert not ksft_metric_reporting_enabled()


def test_retransmits_fail():
    ksft_metric_aggregate("tcp.retransmits", summarize="max")
    ksft_metric("tcp.retransmits", 75895, shape="scalar", host="remote")
    ksft_metric("caf\u00e9.latency", [1, 2.5, None], shape="per-queue",
                unit="\u00b5s", ok=False)
    raise KsftFailEx("too many retransmits")


class Harness(unittest.TestCase):
    def setUp(self):
        ksft_metric_case_end(pr=lambda line: None)

    def run_harness(self, pr):
        with captured_stdout() as out:
            ksft_run([test_sampled_throughput, test_retransmits_fail], pr)
        return out.getvalue()

    def check(self, text):
        expected = read_golden("harness.txt")
        masked = mask_time(text)
        self.assertEqual(masked, expected, "\n" + diff(expected, masked))
        # case 1's observation times: from its own begin, in order
        first = text.split("ok 1 ")[0]
        t = times(first)
        self.assertEqual(len(t), 3 * 3)
        self.assertEqual(t, sorted(t))
        self.assertTrue(0 <= t[0] and t[-1] < 60, t)

    def test_with_ksft_pr(self):
        self.check(self.run_harness(ksft_pr))

    def test_with_default_pr(self):
        self.check(self.run_harness(None))

    def test_reference_prints_the_same(self):
        """The same harness on SeedMetrics gives the same golden text."""
        seed = SeedMetrics(ksft_pr)
        me = sys.modules[__name__]
        with mock.patch.multiple(
                me, ksft_metric=seed.ksft_metric,
                ksft_metric_aggregate=seed.ksft_metric_aggregate,
                ksft_metric_reporting=seed.ksft_metric_reporting,
                ksft_metric_reporting_enabled=seed.ksft_metric_reporting_enabled,
                ksft_metric_case_begin=seed.case_begin,
                ksft_metric_case_end=lambda pr: seed.case_end()):
            self.check(self.run_harness(ksft_pr))


if __name__ == "__main__":
    unittest.main(verbosity=2)
