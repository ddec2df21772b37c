#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""KperfRunner from ksftmetric.producers with the kperf stand-ins
(tests/kperf/standin: real processes, a real report): the servers on both
endpoints, the client's numbers, the same lines as the C runner, clean
errors for bad cfg objects and a failing client.

usage: test_producers_kperf.py STANDIN_DIR FIXTURES_DIR
"""
import os
import socket
import sys
import tempfile
import types
import unittest

from ksftmetric import ksft_metric_case_begin, ksft_metric_case_end, \
    ksft_metric_reporting
from ksftmetric.producers import KperfRunner, SystemMonitor

STANDIN, FIXTURES = sys.argv.pop(1), sys.argv.pop(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class KperfRunnerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cfg = types.SimpleNamespace(addr="127.0.0.1", remote_addr="127.0.0.1",
                                         remote=["env", "KSFTM_STANDIN_SIDE=remote"])
        self.kw = {"server": os.path.join(STANDIN, "kperf-server"),
                   "client": os.path.join(STANDIN, "kperf-client"),
                   "port": free_port(), "pid_dir": self.tmp.name}
        os.environ["KSFTM_STANDIN_REPORT"] = os.path.join(FIXTURES, "kperf", "client-n2.txt")
        os.environ["KSFTM_STANDIN_CLIENT"] = "ok"

    def tearDown(self):
        self.tmp.cleanup()

    def lines(self):
        out = []
        ksft_metric_case_end(pr=out.append)
        return out

    def test_run_records_both_hosts(self):
        ksft_metric_case_begin()
        ksft_metric_reporting(True)
        with KperfRunner(self.cfg, **self.kw) as runner:
            res = [runner.run(client_args=["--marker", self.tmp.name]) for _ in range(2)]
            self.assertEqual(os.listdir(self.tmp.name).__len__(), 2)  # both pid files
        ksft_metric_reporting(False)
        self.assertEqual(os.listdir(self.tmp.name), [])  # servers killed
        lines = self.lines()
        self.assertAlmostEqual(res[0]["source_throughput"], 29.954)
        self.assertAlmostEqual(res[1]["target_throughput"], 29.822)
        self.assertEqual(res[0]["source_retransmits"], 88)
        self.assertIn('ktap-metric-policy-json: {"name":"throughput","regression":'
                      '{"better":"higher","compare":"p50","relative_tolerance":0.05},'
                      '"summarize":"distribution"}', lines)
        tput = [l for l in lines if '"name":"throughput"' in l and "policy" not in l]
        self.assertEqual(len(tput), 4, lines)  # two hosts, two runs
        self.assertEqual(sum('"host":"remote"' in l for l in tput), 2)

    def test_priced_under_a_monitor(self):
        ksft_metric_case_begin()
        with SystemMonitor(self.cfg, interval=0.5), KperfRunner(self.cfg, **self.kw) as runner:
            runner.run()
            runner.run()
        lines = self.lines()
        # Target Rx bytes of the report; both endpoints (the remote prefix
        # reaches this host), one point per client run.
        for host in ("local", "remote"):
            cost = [l for l in lines if f'{{"host":"{host}","name":"cpu.cost"' in l]
            self.assertEqual(len(cost), 2, lines)
        self.assertIn('"display_label":"CPU ms/GB"', "".join(lines))

    def test_placement(self):
        # cpus="0/0": the remote server and the client on CPU 0 (the client
        # is a real process: its affinity is what the stand-in reports).
        aff = os.path.join(self.tmp.name, "affinity")
        os.environ["KSFTM_STANDIN_AFFINITY"] = aff
        try:
            ksft_metric_case_begin()
            ksft_metric_reporting(True)
            with KperfRunner(self.cfg, cpus="0/0", **self.kw) as runner:
                runner.run()
            ksft_metric_reporting(False)
            with open(aff, encoding="utf-8") as f:
                self.assertEqual(f.read(), "0")
            lines = self.lines()
            # One CPU shared by both endpoints: interference on host "both".
            self.assertTrue(any('{"host":"both","name":"interference.others_cpu"' in l
                                for l in lines), lines)
            with KperfRunner(self.cfg, cpus="none", **self.kw) as runner:
                runner.run()
            with open(aff, encoding="utf-8") as f:
                self.assertEqual(f.read(), ",".join(str(c) for c in
                                                    sorted(os.sched_getaffinity(0))))
            os.unlink(aff)
        finally:
            del os.environ["KSFTM_STANDIN_AFFINITY"]
        with self.assertRaisesRegex(ValueError, "kperf servers: .*"):
            with KperfRunner(self.cfg, cpus="9999/0", **self.kw):
                pass
        with self.assertRaisesRegex(ValueError, "cpus must be"):
            KperfRunner(self.cfg, cpus="", **self.kw)

    def test_not_reporting_records_nothing(self):
        ksft_metric_case_begin()
        with KperfRunner(self.cfg, **self.kw) as runner:
            runner.run()
        self.assertEqual(self.lines(), [])

    def test_client_failure_raises_with_output(self):
        os.environ["KSFTM_STANDIN_CLIENT"] = "fail"
        ksft_metric_case_begin()
        with KperfRunner(self.cfg, **self.kw) as runner:
            with self.assertRaisesRegex(RuntimeError, "kperf: .*status 3"):
                runner.run()
        self.lines()
        self.assertEqual(os.listdir(self.tmp.name), [])

    def test_missing_program(self):
        kw = dict(self.kw, server="/nonexistent/kperf-server")
        with self.assertRaises(FileNotFoundError):
            with KperfRunner(self.cfg, **kw):
                pass

    def test_bad_cfg(self):
        with self.assertRaisesRegex(ValueError, "cfg.remote_addr is missing"):
            KperfRunner(types.SimpleNamespace(addr="127.0.0.1", remote=None))
        with self.assertRaisesRegex(ValueError, "cfg.remote is missing"):
            KperfRunner(types.SimpleNamespace(addr="a", remote_addr="b"))
        with self.assertRaisesRegex(ValueError, "command prefix"):
            KperfRunner(types.SimpleNamespace(addr="a", remote_addr="b", remote=[]))
        with self.assertRaisesRegex(ValueError, "cfg.addr must be a non-empty str"):
            KperfRunner(types.SimpleNamespace(addr=5, remote_addr="b", remote=None))
        with self.assertRaisesRegex(RuntimeError, "outside its with block"):
            KperfRunner(self.cfg, **self.kw).run()


if __name__ == "__main__":
    unittest.main()
