#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Recording from several Python threads at once: nothing lost, nothing
doubled, each thread's records in its own order, times never going back."""

import json
import threading
import unittest

from test_support import times

from ksftmetric import (ksft_metric, ksft_metric_aggregate,
                        ksft_metric_case_begin, ksft_metric_case_end)

PER_THREAD = 20000


class Threads(unittest.TestCase):
    def setUp(self):
        ksft_metric_case_end(pr=lambda line: None)

    def run_threads(self, n_threads, work):
        barrier = threading.Barrier(n_threads)
        errors = []

        def body(idx):
            try:
                barrier.wait()
                work(idx)
            except Exception as exc:   # noqa: BLE001 - reported below
                errors.append(exc)
        threads = [threading.Thread(target=body, args=(i,))
                   for i in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_two_threads_20000_records_each(self):
        def work(idx):
            tag = "ab"[idx]
            for i in range(PER_THREAD):
                if i % 3:
                    ksft_metric("thr.seq", i, shape="scalar", thread=tag)
                else:
                    ksft_metric("thr.seq", [i, None, i + 0.5],
                                shape="per-cpu", thread=tag)

        ksft_metric_case_begin()
        ksft_metric_aggregate("thr.seq", summarize="last")
        self.run_threads(2, work)
        lines = []
        n = ksft_metric_case_end(lines.append)
        self.assertEqual(n, 2 * PER_THREAD + 1)
        self.assertEqual(len(lines), n)
        self.assertTrue(lines[0].startswith("ktap-metric-policy-json: "))

        seen = {"a": [], "b": []}
        for line in lines[1:]:
            tag, payload = line.split(": ", 1)
            self.assertEqual(tag, "ktap-metric-json")
            obj = json.loads(payload)
            value = obj["value"]
            seq = value[0] if isinstance(value, list) else value
            if seq % 3 == 0:
                self.assertEqual(value, [seq, None, seq + 0.5])
                self.assertEqual(obj["shape"], "per-cpu")
            seen[obj["thread"]].append(seq)
        for tag in "ab":
            # each record exactly once, in the order its thread made it
            self.assertEqual(seen[tag], list(range(PER_THREAD)), tag)
        t = times("\n".join(lines))
        self.assertEqual(len(t), 2 * PER_THREAD)
        self.assertEqual(t, sorted(t))

    def test_policies_and_records_concurrently(self):
        def work(idx):
            for i in range(2000):
                name = f"m{i % 10}"
                try:
                    ksft_metric_aggregate(name, summarize="max")
                except RuntimeError:
                    pass            # another thread observed it first
                ksft_metric(name, i, shape="scalar", t=idx)

        ksft_metric_case_begin()
        self.run_threads(4, work)
        lines = []
        ksft_metric_case_end(lines.append)
        policies = [line for line in lines if "policy" in line]
        self.assertEqual(len(lines) - len(policies), 4 * 2000)
        # at most one policy line per metric name
        names = [json.loads(line.split(": ", 1)[1])["name"]
                 for line in policies]
        self.assertEqual(len(names), len(set(names)))

    def test_recording_after_end_from_another_thread(self):
        ksft_metric_case_begin()
        ksft_metric_case_end(lambda line: None)
        errors = []

        def late():
            try:
                ksft_metric("m", 1, shape="scalar")
            except RuntimeError as exc:
                errors.append(exc)
        t = threading.Thread(target=late)
        t.start()
        t.join()
        self.assertEqual(len(errors), 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
