#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Our producers under the kernel's real selftest code (extracted from
linux-source-6.12 at build time): kselftest.h, kselftest_harness.h with
<ksftmetric/harness.h>, ksft.py with the binding wired in, and all three
nested by run_kselftest.sh. Checked by parsing: each case's metric lines
come before its own result line, exactly once; the kernel's kunit_parser
counts the same with and without them; ksft-metric files every series
under its case, incomplete only where the test really died.

usage: test_upstream.py MODE TREE KSFT_METRIC PROGRAM...
  MODE kselftest | harness | harness_buffered | example | ksft_py | runner
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from collections import Counter

from ktap_check import consumer_report, kunit_counts, parse, strip_metrics


class Expect:
    """A case's result and, in order, the values it recorded (label test);
    for the examples (no such label) how many lines of each metric."""

    def __init__(self, status, test, values, policies=(), abort=None, counts=None):
        self.status, self.test, self.values = status, test, list(values)
        self.policies, self.abort, self.counts = list(policies), abort, counts
        self.prefix = False         # a kill may have cut the values short


def example(status, counts, policies=()):
    return Expect(status, None, [], policies, counts=counts)


def harness_cases(buffered):
    """kselftest_harness.h cases (harness_metrics.c): every way out."""
    return {
        "global.t_pass": Expect("pass", "t_pass", [1, 2], ["value"]),
        "global.t_return": Expect("pass", "t_return", [1]),
        "global.t_skip": Expect("skip", "t_skip", [1]),
        "global.t_assert": Expect("fail", "t_assert", [1]),
        "global.t_expect": Expect("fail", "t_expect", [1, 2]),
        "global.t_fork": Expect("pass", "t_fork", [1, 2]),
        # abort() outside the harness: kept, marked by the SIGABRT hook.
        "global.t_abort": Expect("fail", "t_abort", [1], abort="SIGABRT"),
        "fx.f_pass": Expect("pass", "f_pass", [1, 2]),
        "fx.f_return": Expect("pass", "f_return", [1]),
        "fx.f_skip": Expect("skip", "f_skip", [1]),
        "fx.f_assert": Expect("fail", "f_assert", [1]),
        "fx.f_expect": Expect("fail", "f_expect", [1, 2]),
        # SIGKILL by the harness timeout: written through and marked (a
        # "begin" frame with no "end"), or lost.
        "fx.f_timeout": Expect("fail", "f_timeout", [] if buffered else [1, 2],
                               abort=None if buffered else "killed"),
        "fxp.p_assert": Expect("fail", "p_assert", [1]),
    }


KSELFTEST_CASES = {
    "pass": Expect("pass", "pass", [1, 2], ["value"]),
    "fail": Expect("fail", "fail", [1]),
    "skip": Expect("skip", "skip", [1]),
    "xfail": Expect("xfail", "xfail", [1]),
    "sampled": Expect("pass", "sampled", [10, 11, 12, 1]),
    "empty": Expect("pass", "empty", []),
}

KSFT_PY_CASES = {
    "ksft_metrics.test_pass": Expect("pass", "test_pass", [1, 2], ["value"]),
    "ksft_metrics.test_fail": Expect("fail", "test_fail", [1]),
    "ksft_metrics.test_skip": Expect("skip", "test_skip", [1]),
    "ksft_metrics.test_xfail": Expect("xfail", "test_xfail", [1]),
    "ksft_metrics.test_exception": Expect("fail", "test_exception", [1]),
    "ksft_metrics.test_defer": Expect("pass", "test_defer", [1, 2]),
    "ksft_metrics.test_sampler": Expect("pass", "test_sampler", [10, 11, 12, 1]),
    "ksft_metrics.test_empty": Expect("pass", "test_empty", []),
}

# Our examples: the real-harness one, and the two with stand-ins.
EXAMPLE_CASES = {
    "harness_metric_test": {
        "global.offload": example("skip", {"probe.attempts": 1}),
        "pair.roundtrip": example("pass", {"roundtrip.us": 20}, ["roundtrip.us"]),
    },
    "metric_selftest": {
        "metric_selftest.throughput": example("pass", {"throughput": 1}, ["throughput"]),
        "metric_selftest.sampled": example("pass", None, ["cpu.utilization"]),
    },
    "harness_selftest": {
        "harness.latency": example("pass", {"latency.us": 3}, ["latency.us"]),
        "harness.counters": example("pass", {"tx.packets": 2}),
    },
}

SLEEPING = "f_timeout: recorded, sleeping"


class UpstreamBase(unittest.TestCase):
    tree = ksft_metric = None
    programs = []

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="upstream-", dir=os.getcwd())
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def run_program(self, argv, env=None, want_rc=1):
        full = dict(os.environ, **(env or {}))
        full["KSFTM_KSFT_NET"] = os.path.join(
            self.tree, "tools", "testing", "selftests", "net")
        proc = subprocess.run(argv, capture_output=True, text=True, env=full,
                              timeout=600, check=False)
        self.assertEqual(proc.returncode, want_rc,
                         f"{argv}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
        return proc.stdout

    def check_cases(self, cases, expect, where):
        """Each expected case, in order, with exactly its own lines."""
        self.assertEqual([c.desc for c in cases], list(expect), where)
        for case in cases:
            e = expect[case.desc]
            what = f"{where}: {case.desc}"
            self.assertEqual(case.status, e.status, what)
            self.assertEqual([p["name"] for p in case.policies], e.policies, what)
            if e.abort == "killed":
                # Killed mid-case: framed, its "end" never written.
                self.assertEqual(case.frames, ["begin"], what)
                self.assertIsNone(case.abort, what)
            else:
                self.assertEqual(case.abort, e.abort, what)
            if e.test is None:
                if e.counts is not None:
                    self.assertEqual(Counter(o["name"] for o in case.observations),
                                     Counter(e.counts), what)
                continue
            self.assertEqual([o.get("test") for o in case.observations],
                             [e.test] * len(case.observations),
                             f"{what}: another case's lines before its result")
            values = [o["value"] for o in case.observations]
            self.assertEqual(values, e.values[:len(values)] if e.prefix else e.values,
                             f"{what}: lines lost or repeated")

    def check_output(self, text, expect=None):
        """The whole log: our parse (top-level cases against @expect), and
        the kernel's kunit_parser. Returns the cases of every depth."""
        cases, orphans, problems = parse(text)
        self.assertEqual(problems, [])
        self.assertEqual(orphans, [], "metric lines with no result line of their own")
        if expect is not None:
            self.check_cases([c for c in cases if c.depth == 0], expect, "output")
        seen = [(o["test"], o["value"]) for c in cases for o in c.observations
                if "test" in o]
        self.assertEqual(len(seen), len(set(seen)), "a metric line printed twice")

        # The kernel's parser counts the same with and without our lines,
        # and what we count from the top-level result lines.
        top = [c for c in cases if c.depth == 0]
        want = (sum(c.status in ("pass", "xfail") for c in top),
                sum(c.status == "fail" for c in top), 0,
                sum(c.status == "skip" for c in top), 0)
        self.assertEqual(kunit_counts(self.tree, text), want)
        self.assertEqual(kunit_counts(self.tree, strip_metrics(text)), want)
        return cases

    def check_consumer(self, text, expect, path=()):
        """Every series under its own case; incomplete only where it died."""
        series, err = consumer_report(self.ksft_metric, text, self.tmp)
        self.assertNotIn("without a result line", err)
        mine = [s for s in series if list(s["path"]) == list(path)]
        if all(e.test is None for e in expect.values()):
            self.assertTrue(mine, f"no series under {path}")
            for s in mine:
                self.assertIn(s["case"], expect, s)
                self.assertEqual(s["status"], expect[s["case"]].status, s)
            return
        by_test = {s["labels"].get("test"): s for s in series
                   if s["name"] == "value" and list(s["path"]) == list(path)}
        for desc, e in expect.items():
            s = by_test.get(e.test)
            if e.prefix and s is not None:
                self.assertLessEqual(s["points"], len(e.values), desc)
                self.assertEqual((s["case"], s["status"]), (desc, e.status), desc)
                continue
            if not e.values or e.prefix:
                self.assertIsNone(s, desc)
                continue
            self.assertIsNotNone(s, f"{desc}: no series in {series}")
            self.assertEqual(s["points"], len(e.values), desc)
            if e.abort == "killed":
                # Cut short but named: its result line came, its end did not.
                self.assertEqual((s["case"], s["status"], s.get("abort")),
                                 (desc, "incomplete", e.abort), desc)
            elif e.abort:
                self.assertEqual((s["case"], s["status"], s.get("abort")),
                                 ("incomplete", "incomplete", e.abort), desc)
            else:
                self.assertEqual((s["case"], s["status"], s.get("abort")),
                                 (desc, e.status, None), desc)


class Kselftest(UpstreamBase):
    def test_kselftest_flow(self):
        text = self.run_program([self.programs[0]])
        self.check_output(text, KSELFTEST_CASES)
        self.check_consumer(text, KSELFTEST_CASES)


class Harness(UpstreamBase):
    buffered = False

    def test_every_way_out(self):
        expect = harness_cases(self.buffered)
        text = self.run_program([self.programs[0]])
        reached = SLEEPING in text
        if not reached:
            # Too loaded to record within the 1 s timeout: judge the rest
            # now, and the timeout path on a run with a longer timeout.
            expect["fx.f_timeout"].prefix = True
        cases = self.check_output(text, expect)
        self.check_consumer(text, expect)

        # The fixture's teardown runs in the body's process after the case
        # ended: its line follows the case's metric lines.
        for case in cases:
            teardown = [n for n, l in case.lines if l.endswith("# teardown " +
                        case.desc.split(".")[1])]
            metric = [n for n, l in case.lines if "ktap-metric" in l]
            if teardown and metric:
                self.assertGreater(teardown[0], metric[-1], case.desc)
        if not reached:
            self.timeout_with_more_time(harness_cases(self.buffered)["fx.f_timeout"])

    def timeout_with_more_time(self, e):
        text = self.run_program([self.programs[0], "-r", "fx.f_timeout"],
                                env={"KSFTM_TEST_TIMEOUT": "30"})
        self.assertIn(SLEEPING, text)
        self.check_output(text, {"fx.f_timeout": e})


class HarnessBuffered(Harness):
    buffered = True


class Example(UpstreamBase):
    def test_harness_example(self):
        text = self.run_program([self.programs[0]], want_rc=0)
        expect = EXAMPLE_CASES["harness_metric_test"]
        self.check_output(text, expect)
        self.check_consumer(text, expect)


class KsftPy(UpstreamBase):
    def test_ksft_run(self):
        text = self.run_program([sys.executable, self.programs[0]])
        self.check_output(text, KSFT_PY_CASES)
        self.check_consumer(text, KSFT_PY_CASES)


class Runner(UpstreamBase):
    """run_kselftest.sh over an installed-style tree of our programs."""

    def test_nested(self):
        st = os.path.join(self.tree, "tools", "testing", "selftests")
        base = os.path.join(self.tmp, "kselftest_install")
        os.makedirs(os.path.join(base, "kselftest"))
        for f in ("run_kselftest.sh", "kselftest/runner.sh", "kselftest/prefix.pl"):
            shutil.copy(os.path.join(st, f), os.path.join(base, f))
        names = ["kselftest_metrics", "harness_metrics", "ksft_metrics.py",
                 "harness_metric_test", "metric_selftest", "harness_selftest"]
        names = names[:len(self.programs)]
        os.makedirs(os.path.join(base, "metric"))
        for name, prog in zip(names, self.programs):
            os.symlink(os.path.abspath(prog), os.path.join(base, "metric", name))
        with open(os.path.join(base, "kselftest-list.txt"), "w",
                  encoding="utf-8") as f:
            f.write("".join(f"metric:{n}\n" for n in names))

        # The timeout path is the harness test's; here it would cost time.
        text = self.run_program(
            ["sh", os.path.join(base, "run_kselftest.sh")], want_rc=0,
            env={"KSELFTEST_HARNESS_METRICS_ARGS": "-T f_timeout"})
        cases = self.check_output(text)
        top = [c for c in cases if c.depth == 0]
        # Our test programs fail on purpose (they have failing cases).
        self.assertEqual([(c.desc, c.status) for c in top],
                         [(f"selftests: metric: {n}", "fail" if i < 3 else "pass")
                          for i, n in enumerate(names)])
        nested = dict(EXAMPLE_CASES, **{
            "kselftest_metrics": KSELFTEST_CASES,
            "harness_metrics": {d: e for d, e in harness_cases(False).items()
                                if d != "fx.f_timeout"},
            "ksft_metrics.py": KSFT_PY_CASES,
        })
        # Each program's cases at depth 1, between its neighbours' results.
        start = 0
        for parent, name in zip(top, names):
            inner = [c for c in cases if c.depth == 1 and start < c.lineno < parent.lineno]
            self.check_cases(inner, nested[name], name)
            self.assertFalse(parent.observations, "nested lines read at the top")
            self.check_consumer(text, nested[name], [f"selftests: metric: {name}"])
            start = parent.lineno


MODES = {"kselftest": Kselftest, "harness": Harness, "example": Example,
         "harness_buffered": HarnessBuffered, "ksft_py": KsftPy, "runner": Runner}


def main():
    mode, tree, ksft_metric, *programs = sys.argv[1:]
    cls = MODES[mode]
    cls.tree, cls.ksft_metric, cls.programs = tree, ksft_metric, programs
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(cls)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
