#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksftmetric.report against the report library just built: reading paths,
file objects and bytes, series identity/policy/points/summary (checked
against the library's own JSON report), comparisons, formats, errors."""

import io
import json
import os
import tempfile
import unittest

from ksftmetric import report as kr

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli", "data")
SEED = os.path.join(DATA, "seed.log")
PIPELINE = os.path.join(DATA, "pipeline.log")


def seed_bytes():
    with open(SEED, "rb") as f:
        return f.read()


class ReadTest(unittest.TestCase):
    def test_sources_agree(self):
        by_path = kr.Report.read(SEED)
        with open(SEED, "rb") as f:
            by_file = kr.Report.read(f)
        by_bytes = kr.read(seed_bytes(), name="seed")
        for r in (by_file, by_bytes):
            self.assertEqual([(s.path, s.case, s.name, s.labels, s.summary) for s in r],
                             [(s.path, s.case, s.name, s.labels, s.summary) for s in by_path])
        self.assertEqual(by_path.sources, [SEED])
        self.assertEqual(by_bytes.sources, ["seed"])
        with open(SEED, "r") as f, self.assertRaisesRegex(TypeError, "binary mode"):
            kr.Report.read(f)
        with self.assertRaises(TypeError):
            kr.Report.read(42)
        with self.assertRaises(FileNotFoundError):
            kr.Report.read(os.path.join(DATA, "no-such.log"))

    def test_series_match_the_json_report(self):
        for log in (SEED, PIPELINE):
            r = kr.Report.read(log)
            doc = json.loads(r.format("json"))
            self.assertEqual(len(r), len(doc["series"]))
            for s, j in zip(r, doc["series"]):
                self.assertEqual((list(s.path), s.case, s.name, s.labels),
                                 (j["path"], j["case"], j["name"], j["labels"]))
                self.assertEqual((s.status, s.source, s.shape, s.n_points, s.summarize),
                                 (j["status"], j["source"], j["shape"], j["points"],
                                  j["summarize"]))
                self.assertEqual(s.summary, j["summary"], s.title)
                self.assertEqual(len(s.points("processed")), j["processed"])
                self.assertEqual(s.policy.raw if s.policy else None, j["policy"])
                # One unit and scale per series (issue 34), as the JSON says.
                self.assertEqual((s.unit, s.scale), (j["unit"], j["scale"]), s.title)

    def test_identity_policy_points(self):
        r = kr.Report.read(SEED)
        s = r.find("throughput", host="local")[0]
        self.assertEqual(s.path, ("selftests: drivers/net/hw: iperf.py",))
        self.assertEqual((s.case, s.status, s.source), ("iperf.test_iperf", "pass", "ktap"))
        self.assertEqual(s.policy.compare, "p50")
        self.assertEqual(s.policy.better, "higher")
        self.assertEqual(s.policy.relative_tolerance, 0.05)
        self.assertIsNone(s.policy.absolute_tolerance)
        self.assertEqual(list(s.points()), [(11.42686, 32.62285180182741)])
        self.assertEqual(s.summary, {"last": 32.62285180182741})
        self.assertEqual(s.title, "selftests: drivers/net/hw: iperf.py / "
                         "iperf.test_iperf throughput{host=local}")
        skipped = [x for x in kr.Report.read(SEED) if x.status == "skip"]
        self.assertEqual(skipped, [])
        with self.assertRaises(ValueError):
            s.points("cooked")
        p = kr.Report.read(PIPELINE)
        raw = p.find("cpu.raw")[0]
        self.assertTrue(raw.is_array)
        self.assertEqual(raw.points("processed").values,
                         [[1.0, None, None, 2.0], [2.0, 3.0, None, None]])
        self.assertEqual(raw.summary, [{"max": 2.0}, {"max": 3.0}, None, {"max": 2.0}])
        # Aggregated arrays are single numbers once processed.
        self.assertEqual(p.find("cpu.time.usr")[0].points("processed").values, [3.0, 5.0])
        self.assertEqual((p.find("cpu.time.usr")[0].unit, p.find("cpu.time.usr")[0].scale),
                         ("busy cores", 1.0))
        self.assertEqual((s.unit, s.scale), (None, 1.0))      # no display_label

    def test_warnings_and_strict(self):
        bad = (b"# ktap-metric-json: {\"name\":\"a\",\"shape\":\"scalar\",\"value\":1}\n"
               b"# ktap-metric-json: {broken\n"
               b"ok 1 c\n")
        r = kr.Report.read(bad, name="bad.log")
        self.assertEqual(len(r), 1)
        self.assertEqual([(w.file, w.line) for w in r.warnings], [("bad.log", 2)])
        self.assertIsInstance(r.warnings[0], kr.InputWarning)
        self.assertTrue(str(r.warnings[0]).startswith("bad.log:2: "))
        self.assertEqual(r.warnings_total, 1)
        with self.assertRaises(kr.InputError) as cm:
            kr.Report.read(SEED, bad, strict=True, name="bad.log")
        e = cm.exception
        self.assertIsInstance(e, ValueError)
        self.assertEqual((e.file, e.line), ("bad.log", 2))
        self.assertIn("bad.log:2: ", str(e))
        # The good input before it was read without complaint.
        kr.Report.read(SEED, strict=True)

    def test_context(self):
        log = (b'# ktap-metric-context-json: {"kernel":"6.12.9","cpu_count":2}\n'
               b'# ktap-metric-json: {"name":"a","shape":"scalar","time":1,"value":1}\n'
               b"ok 1 c\n")
        self.assertEqual(kr.read(log).context, {"kernel": "6.12.9", "cpu_count": 2})
        self.assertEqual(kr.read(SEED).context, {})


class CompareTest(unittest.TestCase):
    def slower(self):
        return seed_bytes().replace(b'"value":32.62285180182741', b'"value":16.0')

    def test_verdicts(self):
        with tempfile.TemporaryDirectory() as tmp:
            base = os.path.join(tmp, "base.json")
            with open(base, "w") as f:
                f.write(kr.Report.read(SEED).baseline())
            cur = kr.read(self.slower(), name="cur.log")
            with open(base, "rb") as f:
                as_file = [f]
                kinds = (base, [base], [kr.Report.read(SEED)], as_file)
                comparisons = [cur.compare(b) for b in kinds]
            with open(base, "rb") as f:
                comparisons.append(cur.compare(f.read()))
            for c in comparisons:
                self.assertEqual([r.title for r in c.regressions],
                                 ["selftests: drivers/net/hw: iperf.py / iperf.test_iperf "
                                  "throughput{host=local}"])
                row = c.regressions[0]
                self.assertEqual((row.baseline, row.current, row.fails),
                                 (32.62285180182741, 16.0, True))
                self.assertAlmostEqual(row.change_pct, -50.95, places=2)
                self.assertEqual(c.failing, c.regressions)
                self.assertEqual(len(c), 6)
            # A tolerance gates the untracked ones too.
            c = kr.read(SEED).compare(base, tolerance=1)
            self.assertEqual({r.verdict for r in c}, {"no_change"})
            self.assertEqual({r.verdict for r in kr.read(SEED).compare(base)},
                             {"no_change", "untracked"})

    def test_bad_baselines(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "b.json")
            with open(path, "w") as f:
                f.write('{"format": "ksft-metric-baseline",\n "version": 1,\n "runs": [}\n')
            with self.assertRaises(kr.BaselineError) as cm:
                kr.read(SEED).compare(path)
            self.assertEqual((cm.exception.file, cm.exception.line), (path, 3))
            self.assertIn("malformed JSON", cm.exception.reason)
            with open(path, "w") as f:
                f.write('{"format": "something-else", "version": 1, "runs": []}')
            with self.assertRaises(kr.BaselineError) as cm:
                kr.read(SEED).compare(path)
            self.assertEqual((cm.exception.file, cm.exception.line), (path, 0))
            with self.assertRaises(TypeError):
                kr.read(SEED).compare([3.5])


POLICY = (b'# ktap-metric-policy-json: {"name":"throughput","regression":{"better":'
          b'"higher","compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}\n')


def noisy_log(level, rng):
    """Three throughput points around @level (3% noise), as one KTAP case."""
    lines = [b"KTAP version 1", b"1..1", POLICY.rstrip()]
    for k in range(3):
        v = level * (1 + 0.03 * rng.gauss(0, 1))
        lines.append(b'# ktap-metric-json: {"name":"throughput","shape":"scalar",'
                     b'"time":%d,"value":%.6f}' % (k + 1, v))
    lines.append(b"ok 1 tcp")
    return b"\n".join(lines) + b"\n"


def _run_log(values, context):
    lines = ["KTAP version 1", "1..1", "# ktap-metric-context-json: " + json.dumps(context),
             '# ktap-metric-policy-json: {"name":"rtt","regression":{"better":"lower",'
             '"compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}']
    lines += ['# ktap-metric-json: {"name":"rtt","shape":"scalar","time":%d,"value":%r}'
              % (t + 1, v) for t, v in enumerate(values)]
    return ("\n".join(lines + ["ok 1 case"]) + "\n").encode()


class MeasuredAlikeTest(unittest.TestCase):
    """Issue 42: one clock per comparison, and --max-tolerance, from Python."""

    NATIVE = {"cpu_count": 4, "cpu_model": "EPYC"}
    GUEST = {"clock": "icount", "cpu_count": 1, "cpu_model": "Westmere"}

    def test_guest_against_native(self):
        base = kr.read(_run_log([20, 21, 22, 20, 21], self.NATIVE))
        cur = kr.read(_run_log([41, 42, 43, 41, 42], self.GUEST))
        with self.assertRaisesRegex(ValueError, "clock none vs icount; cpu_count 4 vs 1"):
            cur.compare(base)
        c = cur.compare(base, allow_context_mismatch=True)
        self.assertIn("clock none vs icount", c.context_mismatch)
        self.assertEqual(c.rows[0].verdict, "regression")
        self.assertIsNone(kr.read(_run_log([20, 21], self.NATIVE)).compare(base)
                          .context_mismatch)

    def test_max_tolerance(self):
        base = kr.read(_run_log([100.0, 100.1, 99.9, 100.2, 99.8], self.GUEST))
        cur = kr.read(_run_log([103.4, 103.5, 103.3, 103.6, 103.2], self.GUEST))
        self.assertEqual(cur.compare(base).rows[0].verdict, "no_change")
        row = cur.compare(base, max_tolerance=2).rows[0]
        self.assertEqual((row.verdict, round(row.allowance, 9)), ("regression", 2.0))
        with self.assertRaisesRegex(ValueError, "above 0"):
            cur.compare(base, max_tolerance=0)


class HistoryTest(unittest.TestCase):
    def test_ingest_and_compare(self):
        import random
        rng = random.Random(7)
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "history.sqlite")
            ctx = {"runner": "py"}
            with kr.History(db) as h:
                for i in range(12):
                    run = h.ingest(kr.read(noisy_log(100, rng)), run_id=f"py-{i:03d}",
                                   order=f"{i:03d}", context=ctx)
                    self.assertEqual(run, f"py-{i:03d}")
                with self.assertRaises(FileExistsError):
                    h.ingest(kr.read(noisy_log(100, rng)), run_id="py-000", context=ctx)
                same = h.compare(kr.read(noisy_log(100, rng)), context=ctx)
                self.assertEqual([r.verdict for r in same.failing], [])
                hist = json.loads(h.format("json", context=ctx))
                self.assertEqual(len(hist["series"][0]["points"]), 12)
            # By URL, through Report.compare(db=...): a 25% drop regresses
            # (12 runs are a short history: the gate's heavy-tailed residuals
            # leave a 20% drop too noisy there, doc/regression-gate.rst).
            slow = kr.read(noisy_log(75, rng))
            c = slow.compare(db=db, context=ctx)
            self.assertEqual([r.verdict for r in c], ["regression"])
            row = c.regressions[0]
            self.assertEqual((row.name, row.baseline_runs, row.fails),
                             ("throughput", 12, True))
            self.assertTrue(-25 < row.change_pct < -15, row)
            # Another runner's context (a forgotten or mistyped one): the
            # CLI's error, naming the contexts found; first_run: all new.
            with self.assertRaisesRegex(kr.HistoryMismatchError,
                                        r"12 runs there hold its series under other "
                                        r"contexts .*: runner=py \(12 runs\)"):
                slow.compare(db=db, context={"runner": "elsewhere"})
            other = slow.compare(db=db, context={"runner": "elsewhere"}, first_run=True)
            self.assertEqual([r.verdict for r in other], ["new"])
            with self.assertRaises(ValueError):
                slow.compare([SEED], db=db)
            with self.assertRaises(OSError):
                kr.History(tmp)          # a directory is no database
            h = kr.History(db)
            h.close()
            with self.assertRaises(ValueError):
                h.compare(slow)


    def test_mis_set_history_is_loud(self):
        """Issue 31: Report.compare(db=...) raises the CLI's errors instead
        of creating an empty history and calling every series new."""
        import random
        rng = random.Random(15)
        r = kr.read(noisy_log(100, rng))
        with tempfile.TemporaryDirectory() as tmp:
            typo = os.path.join(tmp, "histroy.sqlite")
            for _ in range(2):
                with self.assertRaisesRegex(FileNotFoundError, "no run history there"):
                    r.compare(db=typo)
                self.assertFalse(os.path.exists(typo))
            c = r.compare(db=typo, first_run=True)
            self.assertEqual([row.verdict for row in c], ["new"])
            self.assertFalse(os.path.exists(typo))
            text = os.path.join(tmp, "notes.txt")
            with open(text, "w", encoding="utf-8") as f:
                f.write("not a database\n")
            with self.assertRaisesRegex(ValueError, "not a run history"):
                r.compare(db=text)
            # A history with its tables and no run (a History() opened on a
            # typo made it): nothing to judge against.
            empty = os.path.join(tmp, "empty.sqlite")
            kr.History(empty).close()
            with self.assertRaisesRegex(kr.HistoryMismatchError, "holds no run"):
                r.compare(db=empty)
            with kr.History(empty) as h:
                with self.assertRaisesRegex(kr.HistoryMismatchError, "holds no run"):
                    h.compare(r)
                self.assertEqual([row.verdict for row in h.compare(r, first_run=True)],
                                 ["new"])
                h.ingest(kr.read(noisy_log(100, rng)), run_id="a", context={"runner": "x"})
                # A forgotten context: the run's series are there under another
                # (the library's answer, ksft_metric_report_history_check()).
                with self.assertRaisesRegex(kr.HistoryMismatchError,
                                            r"this run's context has no runner.*"
                                            r"runner=x \(1 run\).*forgotten"):
                    h.compare(r)
                self.assertEqual([row.verdict for row in h.compare(r, context={"runner": "x"})],
                                 ["no_change"])

    def test_retry_is_idempotent(self):
        """Issue 40: the same log ingested again under another order, or
        none, is the run stored already: its id comes back, nothing is
        stored; a CI's own run id again likewise."""
        import random
        rng = random.Random(40)
        with tempfile.TemporaryDirectory() as tmp:
            with kr.History(os.path.join(tmp, "retry.sqlite")) as h:
                log = noisy_log(100, rng)
                first = h.ingest(kr.read(log), order="100", context={"runner": "r"})
                self.assertRegex(first, r"^fnv-[0-9a-f]{32}$")
                for order in ("101", None):
                    self.assertEqual(h.ingest(kr.read(log), order=order,
                                              context={"runner": "r"}), first)
                named = h.ingest(kr.read(log), run_id="b7", order="200",
                                 context={"runner": "r"})
                self.assertEqual(named, "b7")
                self.assertEqual(h.ingest(kr.read(log), run_id="b7", order="9",
                                          context={"runner": "r"}), "b7")
                hist = json.loads(h.format("json", context={"runner": "r"}))
                self.assertEqual([p["run"] for p in hist["series"][0]["points"]],
                                 [first, "b7"])

    def test_arguments_checked(self):
        """Bad arguments are ValueError/TypeError naming them, never a
        wrapped size_t, a silent default or text cut at a NUL."""
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "args.sqlite")
            r = kr.read(noisy_log(100, __import__("random").Random(3)))
            with kr.History(db) as h:
                for kw in ({"window": -1}, {"window": 2**70}, {"fdr": -0.1}, {"fdr": 0.9}):
                    name = next(iter(kw))
                    with self.assertRaisesRegex(ValueError, name):
                        h.compare(r, **kw)
                    with self.assertRaisesRegex(ValueError, name):
                        h.ingest(r, run_id="never", **kw)
                for kw in ({"window": "3"}, {"window": 1.5}, {"fdr": "x"}):
                    with self.assertRaisesRegex(TypeError, next(iter(kw))):
                        h.compare(r, **kw)
                with self.assertRaisesRegex(ValueError, "last"):
                    h.format(last=-1)
                with self.assertRaisesRegex(ValueError, "last"):
                    h.format(last=2**70)
                with self.assertRaisesRegex(ValueError, "run_id 'x\\\\x00y'"):
                    h.ingest(r, run_id="x\0y")
                with self.assertRaisesRegex(TypeError, "order must be a str, not bytes"):
                    h.ingest(r, run_id="b", order=b"0001")
                with self.assertRaisesRegex(ValueError, "context item"):
                    h.ingest(r, run_id="c", context={"runner": "a\0b"})
                with self.assertRaisesRegex(ValueError, "series"):
                    h.format(series="a\0b")
                with self.assertRaisesRegex(TypeError, "report must be a Report"):
                    h.compare(None)
                with self.assertRaisesRegex(TypeError, "report must be a Report"):
                    h.ingest(None)
                # none of it was stored
                self.assertEqual(json.loads(h.format("json"))["series"], [])
                # a run id with a control character: the library's refusal
                with self.assertRaisesRegex(ValueError, "control character 0x1b at byte 1"):
                    h.ingest(r, run_id="r\x1b[2J")
                h.ingest(r, run_id="ok", order="0001", window=2, fdr=0.01)
                self.assertEqual(json.loads(h.format("json"))["series"][0]["points"][0]["order"],
                                 "0001")
            with self.assertRaisesRegex(TypeError, "baselines"):
                r.compare(None)
            with self.assertRaisesRegex(ValueError, "url holds a NUL"):
                kr.History(os.path.join(tmp, "x\0y.db"))
            with self.assertRaisesRegex(TypeError, "url"):
                kr.History(None)
            self.assertFalse(os.path.exists(os.path.join(tmp, "x")))


class FormatTest(unittest.TestCase):
    def test_formats(self):
        r = kr.read(SEED)
        # Issue 34: each case named once above its rows (METRIC, N, VALUE, UNIT).
        self.assertIn("  METRIC", r.format())
        self.assertTrue(r.format("openmetrics").endswith("# EOF\n"))
        doc = json.loads(r.format("kcidb", origin="ci", build_id="ci:1",
                                  context={"commit": "abc"}, name_style="nipa"))
        self.assertEqual(doc["tests"][0]["path"],
                         "selftests-drivers-net-hw.iperf-py.iperf-test-iperf.throughput-host-local")
        self.assertEqual(doc["tests"][0]["misc"]["context"], {"commit": "abc"})
        c = kr.read(SEED).compare(kr.read(SEED))
        nipa = json.loads(r.format("nipa", comparison=c))
        self.assertEqual(nipa["results"][0]["metrics"][0]["verdicts"][0]["verdict"], "no_change")
        with self.assertRaisesRegex(ValueError, "KCIDB origin"):
            r.format("kcidb")
        with self.assertRaisesRegex(ValueError, "KCIDB build id 'x'"):
            r.format("kcidb", origin="ci", build_id="x")
        with self.assertRaises(ValueError):
            r.format("xml")
        with self.assertRaises(ValueError):
            r.format("text", name_style="kernelci")


if __name__ == "__main__":
    unittest.main()
