#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Refused calls reach the log through the binding: a policy the library
refuses (caught by the test, as a careless one would) still leaves a
ktap-metric-warning-json line at the case's end, and KSFTMETRIC_STRICT=1
fails the case after printing it. So does a call the binding refuses
itself (TypeError, ValueError) before the library is reached, named as the
Python caller wrote it; `ksft-metric report` ($KSFT_METRIC_EXE) reads
each line back as a warning."""

import json
import os
import subprocess
import tempfile
import unittest

from test_support import captured_stdout

from ksftmetric import (ksft_metric, ksft_metric_aggregate,
                        ksft_metric_case_begin, ksft_metric_case_end)

TAG = "# ktap-metric-warning-json: "


def warnings(text):
    return [json.loads(l[len(TAG):]) for l in text.splitlines() if l.startswith(TAG)]


class Rejects(unittest.TestCase):
    def tearDown(self):
        os.environ.pop("KSFTMETRIC_STRICT", None)

    def run_case(self):
        ksft_metric_case_begin()
        with self.assertRaises(ValueError):
            ksft_metric_aggregate("throughput", summarize="p51")
        ksft_metric("throughput", 32.5, shape="scalar")

    def test_warning_line(self):
        with captured_stdout() as out:
            self.run_case()
            self.assertEqual(ksft_metric_case_end(), 2)
        w = warnings(out.getvalue())
        self.assertEqual(len(w), 1, out.getvalue())
        self.assertEqual((w[0]["call"], w[0]["name"], w[0]["errno"], w[0]["count"]),
                         ("ksft_metric_aggregate_json", "throughput", "EINVAL", 1))
        self.assertIn("p51", w[0]["message"])

    def test_strict(self):
        os.environ["KSFTMETRIC_STRICT"] = "1"
        with captured_stdout() as out:
            self.run_case()
            with self.assertRaisesRegex(RuntimeError, "strict mode: 1 producer call"):
                ksft_metric_case_end()
        self.assertEqual(len(warnings(out.getvalue())), 1, out.getvalue())
        self.assertIn('"value":32.5', out.getvalue())
        # A clean case passes in strict mode too.
        with captured_stdout():
            ksft_metric_case_begin()
            ksft_metric("throughput", 32.5, shape="scalar")
            self.assertEqual(ksft_metric_case_end(), 1)


    def binding_case(self):
        """Refusals made by the binding, each caught as a careless test
        would: none reaches the library."""
        ksft_metric_case_begin()
        with self.assertRaises(ValueError):
            ksft_metric("throughput", "32.5", shape="scalar")
        with self.assertRaises(ValueError):
            ksft_metric("throughput", "32.5", shape="scalar")
        with self.assertRaises(TypeError):
            ksft_metric(42, 1.0, shape="scalar")
        with self.assertRaises(ValueError):
            ksft_metric("cpu", [1, float("nan")], shape="per-cpu")
        with self.assertRaises(ValueError):
            ksft_metric("bad\udc80", 1, shape="scalar")
        with self.assertRaises(ValueError):
            ksft_metric_aggregate("throughput", summarize="p50",
                                  regression={"comapre": "p50"})
        with self.assertRaises(TypeError):
            ksft_metric_aggregate("throughput", summarize=None)
        ksft_metric("throughput", 32.5, shape="scalar")

    def test_binding_refusals(self):
        with captured_stdout() as out:
            self.binding_case()
            self.assertEqual(ksft_metric_case_end(), 7)
        text = out.getvalue()
        w = warnings(text)
        got = [(x["call"], x["name"], x["errno"], x["count"]) for x in w]
        self.assertEqual(got, [
            ("ksft_metric", "throughput", "EINVAL", 2),
            ("ksft_metric", "", "EINVAL", 1),
            ("ksft_metric", "cpu", "EINVAL", 1),
            ("ksft_metric", "bad\\udc80", "EINVAL", 1),
            ("ksft_metric_aggregate", "throughput", "EINVAL", 1),
            ("ksft_metric_aggregate", "throughput", "EINVAL", 1),
        ], text)
        # The message is the exception's.
        self.assertEqual(w[0]["message"], "metric throughput: value must be a "
                         "number or a list/tuple of numbers and None, not str")
        self.assertEqual(w[1]["message"], "metric name must be a str, not int")
        self.assertEqual(w[2]["message"], "metric cpu: value[1] is NaN")
        self.assertIn("unknown regression key 'comapre'", w[4]["message"])
        self.assertIn("summarize must be a str, not NoneType", w[5]["message"])
        # After the observation, as the library's own warnings.
        self.assertLess(text.index('"value":32.5'), text.index(TAG))

        # ksft-metric report reads each one back as a warning.
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "run.log")
            with open(log, "w", encoding="utf-8") as f:
                f.write("TAP version 13\n1..1\n" + text + "ok 1 case\n")
            p = subprocess.run([os.environ["KSFT_METRIC_EXE"], "report", log],
                               capture_output=True, text=True, check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        report = p.stdout + p.stderr
        for line in (
                "warning: producer call refused: ksft_metric(throughput): "
                "EINVAL: metric throughput: value must be a number or a "
                "list/tuple of numbers and None, not str (2 times)",
                "warning: producer call refused: ksft_metric(): EINVAL: "
                "metric name must be a str, not int",
                "warning: producer call refused: "
                "ksft_metric_aggregate(throughput): EINVAL: metric throughput: "
                "unknown regression key 'comapre'"):
            self.assertIn(log + ":", report)
            self.assertIn(line, report)

    def test_binding_refusal_strict(self):
        os.environ["KSFTMETRIC_STRICT"] = "1"
        with captured_stdout() as out:
            ksft_metric_case_begin()
            with self.assertRaises(TypeError):
                ksft_metric("throughput", 1, shape=None)
            ksft_metric("throughput", 32.5, shape="scalar")
            with self.assertRaisesRegex(
                    RuntimeError, "strict mode: 1 producer call was refused in "
                    "this test case; first: ksft_metric: metric throughput: "
                    "shape must be a str, not NoneType"):
                ksft_metric_case_end()
        self.assertEqual(len(warnings(out.getvalue())), 1, out.getvalue())
        self.assertIn('"value":32.5', out.getvalue())

    def test_binding_refusal_outside_case(self):
        # RuntimeError wins; no case to keep the refusal in, none leaks into
        # the next case.
        with self.assertRaisesRegex(RuntimeError, "outside of a test case"):
            ksft_metric("throughput", "x", shape="scalar")
        with captured_stdout() as out:
            ksft_metric_case_begin()
            self.assertEqual(ksft_metric_case_end(), 0)
        self.assertEqual(out.getvalue(), "")


if __name__ == "__main__":
    unittest.main()
