#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Refused calls reach the log through the binding: a policy the library
refuses (caught by the test, as a careless one would) still leaves a
ktap-metric-warning-json line at the case's end, and KSFTMETRIC_STRICT=1
fails the case after printing it."""

import json
import os
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


if __name__ == "__main__":
    unittest.main()
