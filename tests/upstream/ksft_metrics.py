#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A ksft test run by the kernel's real ksft_run() (net/lib/py), with the
binding wired in by ksftmetric.ksft_wiring. KSFTM_KSFT_NET names the extracted
tools/testing/selftests/net directory. Observations carry label
test=<function> and a value unique within it."""

import os
import sys
import threading

sys.path.insert(0, os.environ["KSFTM_KSFT_NET"])
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

import lib.py.ksft                                   # noqa: E402
from ksftmetric import ksft_wiring                   # noqa: E402

ksft_wiring.wire(lib.py.ksft)

from lib.py import (KsftSkipEx, KsftXfailEx, defer,  # noqa: E402
                    ksft_eq, ksft_exit, ksft_run)
from ksftmetric import ksft_metric, ksft_metric_aggregate  # noqa: E402


def rec(test, value):
    ksft_metric("value", value, shape="scalar", test=test)


def test_pass():
    ksft_metric_aggregate("value", summarize="max")
    rec("test_pass", 1)
    rec("test_pass", 2)


def test_fail():
    rec("test_fail", 1)
    ksft_eq(1, 2)


def test_skip():
    rec("test_skip", 1)
    raise KsftSkipEx("no device")


def test_xfail():
    rec("test_xfail", 1)
    raise KsftXfailEx("known bug")


def test_exception():
    rec("test_exception", 1)
    raise RuntimeError("boom")


def test_defer():
    rec("test_defer", 1)
    defer(rec, "test_defer", 2)     # ksft_run() runs it before the result


def test_sampler():
    thread = threading.Thread(
        target=lambda: [rec("test_sampler", v) for v in (10, 11, 12)])
    thread.start()
    thread.join()
    rec("test_sampler", 1)


def test_empty():
    pass


def main():
    ksft_run([test_pass, test_fail, test_skip, test_xfail, test_exception,
              test_defer, test_sampler, test_empty])
    ksft_exit()


if __name__ == "__main__":
    main()
