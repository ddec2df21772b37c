#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run context and performance-test gating from Python:
ksft_metric_context() and ksft_metric_perf_check(), and KSFTMETRIC_CONTEXT=1
printing the line once, at the first case, through sys.stdout."""

import json
import os
import platform
import subprocess
import sys
import tempfile
import unittest

from test_support import captured_stdout

import ksftmetric
from ksftmetric import (ksft_metric, ksft_metric_case_begin,
                        ksft_metric_case_end, ksft_metric_context,
                        ksft_metric_perf_check)

TAG = "ktap-metric-context-json: "


class EnvTest(unittest.TestCase):
    """Each test gets a kernel config of its own and a clean environment."""

    def setUp(self):
        self.saved = {k: os.environ.get(k) for k in (
            "KSFTMETRIC_KCONFIG", "KSFT_MACHINE_SLOW", "KSFTMETRIC_PERF_FORCE",
            "KSFTMETRIC_CONTEXT_NIC")}
        for k in self.saved:
            os.environ.pop(k, None)
        self.kconfig("CONFIG_NET=y\n")

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        os.unlink(self.kconfig_path)

    def kconfig(self, text):
        if getattr(self, "kconfig_path", None) and os.path.exists(self.kconfig_path):
            os.unlink(self.kconfig_path)
        fd, self.kconfig_path = tempfile.mkstemp()
        os.write(fd, text.encode())
        os.close(fd)
        os.environ["KSFTMETRIC_KCONFIG"] = self.kconfig_path


class ContextTest(EnvTest):
    def test_line(self):
        os.environ["KSFTMETRIC_CONTEXT_NIC"] = "veth0"
        with captured_stdout() as out:
            line = ksft_metric_context(commit="abc\u00e9")
        self.assertEqual(out.getvalue(), "# " + line + "\n")
        self.assertTrue(line.startswith(TAG))
        ctx = json.loads(line[len(TAG):])
        self.assertEqual(list(ctx), sorted(ctx))
        self.assertEqual(ctx["kernel"], platform.release())
        self.assertEqual(ctx["arch"], platform.machine())
        self.assertEqual(ctx["cpu_count"], os.cpu_count())
        self.assertEqual(ctx["commit"], "abc\u00e9")
        self.assertEqual(ctx["nic"], "veth0")
        self.assertIs(ctx["debug_kernel"], False)
        self.assertIn('"commit":"abc\\u00e9"', line)   # escaped like json.dumps
        # pr gets the line without "# ".
        got = []
        ksft_metric_context(pr=got.append, commit=None)
        self.assertEqual(len(got), 1)
        self.assertNotIn("commit", json.loads(got[0][len(TAG):]))

    def test_errors(self):
        with self.assertRaisesRegex(ValueError, "filled by the library"):
            ksft_metric_context(kernel="x")
        with self.assertRaisesRegex(TypeError, "must be a str, not int"):
            ksft_metric_context(commit=3)
        with self.assertRaisesRegex(ValueError, "NUL"):
            ksft_metric_context(commit="a\0b")

    def test_env_prints_once_at_first_case(self):
        code = ("import ksftmetric as k\n"
                "for i in range(3):\n"
                "    k.ksft_metric_case_begin()\n"
                "    k.ksft_metric('m', i, shape='scalar')\n"
                "    k.ksft_metric_case_end()\n")
        env = dict(os.environ, KSFTMETRIC_CONTEXT="1")
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             capture_output=True, text=True).stdout.splitlines()
        self.assertEqual(len(out), 4, out)
        self.assertTrue(out[0].startswith("# " + TAG), out[0])
        self.assertTrue(all("ktap-metric-json" in l for l in out[1:]), out)
        env.pop("KSFTMETRIC_CONTEXT")
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             capture_output=True, text=True).stdout
        self.assertNotIn("context", out)   # off by default


class PerfCheckTest(EnvTest):
    def test_runs_on_a_plain_kernel(self):
        self.assertEqual(ksft_metric_perf_check(), (True, ""))

    def test_debug_kernel(self):
        self.kconfig("CONFIG_KASAN=y\nCONFIG_PROVE_LOCKING=y\n")
        run, why = ksft_metric_perf_check()
        self.assertFalse(run)
        self.assertTrue(why.startswith(
            "debug kernel (CONFIG_KASAN, CONFIG_PROVE_LOCKING): "), why)
        os.environ["KSFTMETRIC_PERF_FORCE"] = "1"
        self.assertEqual(ksft_metric_perf_check(), (True, ""))

    def test_machine_slow(self):
        os.environ["KSFT_MACHINE_SLOW"] = "yes"
        run, why = ksft_metric_perf_check()
        self.assertFalse(run)
        self.assertTrue(why.startswith("KSFT_MACHINE_SLOW=yes"), why)


if __name__ == "__main__":
    unittest.main()
