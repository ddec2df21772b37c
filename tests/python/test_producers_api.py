#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksftmetric.producers without root: the producer library loads only on
first use, SystemMonitor and Iperf3Runner on this host (real /proc, real
iperf3 over loopback: cpu.cost for the local endpoint only when there is
no remote), and the errors: no open case, bad arguments, a missing iperf3,
a remote endpoint that does not exist."""

import os
import shutil
import subprocess
import sys
import types
import unittest

from ksftmetric import ksft_metric_case_begin, ksft_metric_case_end, \
    ksft_metric_reporting_enabled
from ksftmetric.producers import Iperf3Runner, SystemMonitor, active_monitor

LOCAL = types.SimpleNamespace(remote=None, addr="127.0.0.1", remote_addr="127.0.0.1")


class ProducersTest(unittest.TestCase):
    def end(self):
        out = []
        ksft_metric_case_end(pr=out.append)
        return out

    def test_lazy_load(self):
        code = ("import ksftmetric.producers\n"
                "maps = open('/proc/self/maps').read()\n"
                "print('loaded' if 'libksftmetric-producers' in maps else '-')\n")
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                             text=True).stdout.split()
        self.assertEqual(out, ["-"])

    @unittest.skipUnless(shutil.which("iperf3"), "iperf3 not installed")
    def test_monitor_and_iperf3_here(self):
        ksft_metric_case_begin()
        with SystemMonitor(LOCAL, interval=0.5) as mon:
            self.assertIs(active_monitor(), mon)
            self.assertEqual(ksft_metric_reporting_enabled(), True)
            runner = Iperf3Runner(LOCAL)
            gbps = runner.measure_bandwidth(duration=2, interval=0.2, repeat=2)
        self.assertIsNone(active_monitor())
        self.assertEqual(ksft_metric_reporting_enabled(), False)
        lines = self.end()
        self.assertGreater(gbps, 0)
        self.assertGreater(runner.bytes, 0)
        self.assertIsInstance(runner.retransmits, int)
        local = [l for l in lines if '{"host":"local","name":"cpu.cost","shape"' in l]
        self.assertEqual(len(local), 2, lines)
        # The test's own cost: one total for both endpoints (one host), per
        # repeat, with its interference per endpoint and the placement used.
        own = [l for l in lines if '{"host":"both","name":"cpu.cost.test","shape"' in l]
        self.assertEqual(len(own), 2, lines)
        self.assertGreater(runner.test_cost, 0)
        for name in ("interference.runq_wait", "interference.involuntary_switches"):
            for host in ("local", "remote"):
                self.assertEqual(sum(f'{{"host":"{host}","name":"{name}","shape"' in l
                                     for l in lines), 2, (name, host))
        self.assertFalse([l for l in lines if '"host":"remote"' in l and '"name":"cpu.cost",' in l])
        self.assertEqual(sum('"name":"throughput","shape"' in l for l in lines), 2)
        self.assertTrue(any('"name":"cpu.utilization"' in l for l in lines))

    def test_outside_a_case(self):
        with self.assertRaisesRegex(RuntimeError, "system monitor: .*test case open"):
            with SystemMonitor(LOCAL):
                pass
        self.assertIsNone(active_monitor())

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, "interval"):
            SystemMonitor(LOCAL, interval=0)
        with self.assertRaisesRegex(ValueError, "cfg.remote is missing"):
            SystemMonitor(types.SimpleNamespace(addr="x"))
        with self.assertRaisesRegex(ValueError, "cfg.ifname must be a non-empty str"):
            SystemMonitor(types.SimpleNamespace(remote=None, ifname=""))
        with self.assertRaisesRegex(ValueError, "cfg.addr is missing"):
            Iperf3Runner(types.SimpleNamespace(remote=None))
        with self.assertRaisesRegex(ValueError, "repeat"):
            Iperf3Runner(LOCAL).measure_bandwidth(repeat=0)
        with self.assertRaisesRegex(ValueError, "interval"):
            Iperf3Runner(LOCAL).measure_bandwidth(interval=float("nan"))

    def test_missing_iperf3(self):
        ksft_metric_case_begin()
        with self.assertRaisesRegex(FileNotFoundError, "/nonexistent/iperf3 not found"):
            Iperf3Runner(LOCAL, iperf3="/nonexistent/iperf3").measure_bandwidth()
        self.assertEqual(self.end(), [])

    def test_remote_that_does_not_exist(self):
        cfg = types.SimpleNamespace(remote="/nonexistent/ssh host", addr="127.0.0.1")
        ksft_metric_case_begin()
        with self.assertRaisesRegex(OSError, "remote endpoint `/nonexistent/ssh host`"):
            with SystemMonitor(cfg):
                pass
        self.assertEqual(ksft_metric_reporting_enabled(), False)
        self.end()


if __name__ == "__main__":
    os.environ.setdefault("KSFTMETRIC_PERF_FORCE", "1")
    unittest.main()
