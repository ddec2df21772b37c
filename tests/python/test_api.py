#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The binding's API: formatting of every value kind, every exception path,
the case hooks and library loading."""

import ctypes
import ctypes.util
import enum
import errno
import json
import math
import os
import subprocess
import sys
import unittest
from unittest import mock

from test_support import captured_stdout, mask_time, times

import ksftmetric
from ksftmetric import (ksft_metric, ksft_metric_aggregate,
                        ksft_metric_case_begin, ksft_metric_case_end,
                        ksft_metric_reporting, ksft_metric_reporting_enabled)
from ksftmetric import _library


def reference_line(name, value, shape, **labels):
    """What json.dumps prints for the reference's metric dict (time = T)."""
    metric = {"name": name, "shape": shape, "value": value, "time": 0}
    metric.update(labels)
    text = json.dumps(metric, allow_nan=False, separators=(",", ":"),
                      sort_keys=True)
    return mask_time("ktap-metric-json: " + text)


class CaseTest(unittest.TestCase):
    """Each test starts and ends with no case open."""

    def setUp(self):
        ksft_metric_case_end(pr=lambda line: None)

    def tearDown(self):
        ksft_metric_case_end(pr=lambda line: None)

    def lines(self):
        """The case's metric lines (refused-call warnings: test_rejects.py)."""
        out = []
        ksft_metric_case_end(pr=out.append)
        return [l for l in out if not l.startswith("ktap-metric-warning-json")]

    def one(self, name, value, shape="scalar", **labels):
        """Record one observation in a fresh case; return its masked line."""
        ksft_metric_case_begin()
        ksft_metric(name, value, shape=shape, **labels)
        lines = self.lines()
        self.assertEqual(len(lines), 1, lines)
        return mask_time(lines[0])

    def assertSame(self, name, value, shape="scalar", **labels):
        self.assertEqual(self.one(name, value, shape, **labels),
                         reference_line(name, value, shape, **labels))


class Formatting(CaseTest):
    def test_ints_stay_ints(self):
        for v in (0, 1, -1, 42, 10**15, 2**53 + 1, 2**63 - 1, -2**63):
            with self.subTest(v=v):
                self.assertSame("m", v)
        self.assertIn('"value":0}', self.one("m", 0))

    def test_floats_shortest_repr(self):
        for v in (0.0, -0.0, 0.1, 0.5, 1.0, 100.0, 32.62285180182741, 1e16,
                  1e22, 1.5e-7, 1e-5, 5e-324, 2.2250738585072014e-308,
                  1.7976931348623157e+308, -123456.789, 1 / 3, 2**53 + 0.0,
                  9007199254740993.0, 0.30000000000000004):
            with self.subTest(v=v):
                self.assertSame("m", v)
        self.assertIn('"value":0.0}', self.one("m", 0.0))
        self.assertIn('"value":1e+16}', self.one("m", 1e16))

    def test_arrays(self):
        cases = [[], [0.0], [75.0, 22.0, None, 100.0], [None, None],
                 [1, 2, 3], [1, 2.5, None, -7], (1.0, 2.0), (None,),
                 [2**63 - 1, -2**63, 0.1], [float(i) / 7 for i in range(256)],
                 [0.0] * 3 + [None] + [1e300]]
        for v in cases:
            with self.subTest(v=v):
                self.assertSame("cpu.utilization", v, "per-cpu", host="local")
        self.assertIn('"value":[75.0,22.0,null,100.0]',
                      self.one("c", [75.0, 22.0, None, 100.0], "per-cpu"))
        self.assertIn('"value":[1,2.5,null]', self.one("c", (1, 2.5, None)))

    def test_labels(self):
        self.assertSame("m", 1, host="local", direction="rx")
        self.assertSame("m", 1.5, on=True, off=False, n=3, x=0.25, s="")
        self.assertIn('"flag":true', self.one("m", 1, flag=True))
        self.assertIn('"flag":false', self.one("m", 1, flag=False))
        # keys sort around the fixed ones, as sort_keys does
        self.assertSame("m", 1, a=1, nam="x", namf="y", shape_="z", t="t",
                        timf=0.5, valud=True, z=-1, Z="cap", _u="u")

    def test_label_values_of_equal_hash_do_not_mix(self):
        # 1 == 1.0 == True as dict keys; the label cache must keep them apart
        class Small(enum.IntEnum):
            ONE = 1

        for v in (1, True, 1.0, "1", 1, "1", True, 1.0, Small.ONE, 1,
                  0.0, -0.0, 0, False, 0.0, -0.0, 0, 2.5, 2.5):
            with self.subTest(v=v):
                self.assertSame("m", 2, host=v)
                self.assertSame("m", 2, host="h", n=v)
                self.assertSame("m", [2, None], n=v, on=True)

    def test_unicode_and_escapes(self):
        names = ["caf\u00e9", "\u65e5\u672c", "smile\U0001F600", 'q"uote',
                 "back\\slash", "tab\tnew\nline", "ctl\x01\x1f\x7f",
                 "nb\u00a0sp", "\u2028sep", "\ufeffbom"]
        for s in names:
            with self.subTest(s=s):
                self.assertSame(s, 1, s)
                self.assertSame("m", 1, host=s)
                self.assertSame("m", 1, **{s: s})

    def test_subclasses_print_as_their_base(self):
        class Level(enum.IntEnum):
            HIGH = 3

        class Ratio(float):
            pass

        self.assertIn('"value":3}', self.one("m", Level.HIGH))
        self.assertIn('"value":0.5}', self.one("m", Ratio(0.5)))
        self.assertIn('"value":[3,0.5,null]',
                      self.one("m", [Level.HIGH, Ratio(0.5), None]))
        self.assertIn('"lvl":3', self.one("m", 1, lvl=Level.HIGH))

    def test_array_with_labels_of_every_kind(self):
        self.assertSame("m", [1, None, 0.5], "per-cpu", host="h\u00e9",
                        b=False, i=-4, f=1e-9)

    def test_many_labels(self):
        labels = {f"k{i:03d}": i for i in range(100)}
        self.assertSame("m", 1, **labels)

    def test_time_is_relative_to_case_begin(self):
        ksft_metric_case_begin()
        ksft_metric("a", 1, shape="scalar")
        ksft_metric("b", 2, shape="scalar")
        text = "\n".join(self.lines())
        t = times(text)
        self.assertEqual(len(t), 2)
        self.assertTrue(0 <= t[0] <= t[1] < 60, t)
        self.assertTrue(all(round(x, 6) == x for x in t))


class Hooks(CaseTest):
    def test_default_pr_writes_prefixed_lines_to_stdout(self):
        ksft_metric_case_begin()
        ksft_metric_aggregate("m", summarize="max")
        ksft_metric("m", 1, shape="scalar")
        ksft_metric("m", 2, shape="scalar")
        with captured_stdout() as out:
            print("before")
            self.assertEqual(ksft_metric_case_end(), 3)
            print("after")
        self.assertEqual(mask_time(out.getvalue()), (
            'before\n'
            '# ktap-metric-policy-json: {"name":"m","summarize":"max"}\n'
            '# ktap-metric-json: {"name":"m","shape":"scalar","time":T,"value":1}\n'
            '# ktap-metric-json: {"name":"m","shape":"scalar","time":T,"value":2}\n'
            'after\n'))

    def test_custom_pr_gets_bare_lines(self):
        ksft_metric_case_begin()
        ksft_metric("m", 1, shape="scalar")
        got = []
        self.assertEqual(ksft_metric_case_end(got.append), 1)
        self.assertEqual(mask_time(got[0]),
                         'ktap-metric-json: {"name":"m","shape":"scalar",'
                         '"time":T,"value":1}')

    def test_empty_case_prints_nothing(self):
        ksft_metric_case_begin()
        ksft_metric_aggregate("never.observed", summarize="max")
        with captured_stdout() as out:
            self.assertEqual(ksft_metric_case_end(), 0)
        self.assertEqual(out.getvalue(), "")

    def test_end_without_case_prints_nothing(self):
        with captured_stdout() as out:
            self.assertEqual(ksft_metric_case_end(), 0)
            self.assertEqual(ksft_metric_case_end(), 0)
        self.assertEqual(out.getvalue(), "")

    def test_begin_discards_a_case_left_open(self):
        ksft_metric_case_begin()
        ksft_metric_aggregate("old", summarize="max")
        ksft_metric("old", 1, shape="scalar")
        ksft_metric_reporting(True)
        ksft_metric_case_begin()
        self.assertFalse(ksft_metric_reporting_enabled())
        ksft_metric_aggregate("old", summarize="last")  # old policy gone
        ksft_metric("new", 2, shape="scalar")
        lines = self.lines()
        self.assertEqual(len(lines), 1)
        self.assertIn('"name":"new"', lines[0])

    def test_case_state_does_not_leak(self):
        ksft_metric_case_begin()
        ksft_metric_aggregate("m", summarize="max")
        ksft_metric("m", 1, shape="scalar")
        self.lines()
        ksft_metric_case_begin()
        ksft_metric_aggregate("m", summarize="p50")   # no conflict
        ksft_metric("m", 1, shape="scalar")
        lines = self.lines()
        self.assertIn('"summarize":"p50"', lines[0])

    def test_pr_exception_propagates_and_closes_the_case(self):
        ksft_metric_case_begin()
        ksft_metric("m", 1, shape="scalar")

        def boom(line):
            raise KeyError(line)
        with self.assertRaises(KeyError):
            ksft_metric_case_end(boom)
        with self.assertRaises(RuntimeError):
            ksft_metric("m", 1, shape="scalar")


class Policies(CaseTest):
    def policy(self, name="m", *args, **kw):
        ksft_metric_case_begin()
        ksft_metric_aggregate(name, *args, **kw)
        ksft_metric(name, 1, shape="scalar")
        return self.lines()[0]

    def test_policy_lines(self):
        self.assertEqual(self.policy(), 'ktap-metric-policy-json: '
                         '{"name":"m","summarize":"total"}')
        self.assertEqual(self.policy(
            "cpu.time.usr", summarize="p90", transform="rate",
            aggregation="busy-core-equivalents",
            display_range={"min": 0, "max": 100}, display_scale=100,
            display_label="Percent of one CPU"),
            'ktap-metric-policy-json: {"aggregation":"busy-core-equivalents",'
            '"display_label":"Percent of one CPU","display_range":{"max":100,'
            '"min":0},"display_scale":100,"name":"cpu.time.usr",'
            '"summarize":"p90","transform":"rate"}')
        self.assertEqual(self.policy(
            "throughput", summarize="distribution",
            regression={"compare": "p50", "better": "higher",
                        "relative_tolerance": 0.05}),
            'ktap-metric-policy-json: {"name":"throughput","regression":'
            '{"better":"higher","compare":"p50","relative_tolerance":0.05},'
            '"summarize":"distribution"}')
        self.assertEqual(self.policy(
            "x", "last", regression={"compare": "max", "better": "lower",
                                     "absolute_tolerance": 2,
                                     "relative_tolerance": 0.0},
            display_range={"max": 1.5}, display_label="\u00b5s"),
            'ktap-metric-policy-json: {"display_label":"\\u00b5s",'
            '"display_range":{"max":1.5},"name":"x","regression":'
            '{"absolute_tolerance":2,"better":"lower","compare":"max",'
            '"relative_tolerance":0.0},"summarize":"last"}')

    def test_equal_registration_is_fine_and_latest_spelling_wins(self):
        ksft_metric_case_begin()
        ksft_metric_aggregate("m", display_range={"min": 0})
        ksft_metric_aggregate("m", "total", display_range={"min": 0.0})
        ksft_metric("m", 1, shape="scalar")
        # equal again after the observation: still fine (reference: same)
        ksft_metric_aggregate("m", display_range={"min": 0})
        lines = self.lines()
        self.assertEqual(lines[0], 'ktap-metric-policy-json: {"display_range"'
                         ':{"min":0},"name":"m","summarize":"total"}')

    def test_registration_order_and_only_observed(self):
        ksft_metric_case_begin()
        for name in ("c", "a", "unused", "b"):
            ksft_metric_aggregate(name, summarize="max")
        for name in ("b", "a", "c"):
            ksft_metric(name, 1, shape="scalar")
        names = [json.loads(line.split(": ", 1)[1])["name"]
                 for line in self.lines()]
        self.assertEqual(names, ["c", "a", "b", "b", "a", "c"])

    def test_conflicting_policy_is_value_error(self):
        ksft_metric_case_begin()
        ksft_metric_aggregate("m", summarize="max")
        with self.assertRaisesRegex(ValueError, "Conflicting aggregation"):
            ksft_metric_aggregate("m", summarize="p50")
        with self.assertRaises(ValueError):
            ksft_metric_aggregate("m", summarize="max", transform="rate")

    def test_policy_after_metric_is_runtime_error(self):
        ksft_metric_case_begin()
        ksft_metric("m", 1, shape="scalar")
        with self.assertRaisesRegex(RuntimeError, "after metric m"):
            ksft_metric_aggregate("m", summarize="max")

    def test_invalid_policy_values(self):
        bad = [
            dict(summarize="foo"),
            dict(summarize="distribution ", transform="rate"),
            dict(aggregation="sum"),
            dict(transform="delta"),
            dict(regression={}),
            dict(regression={"better": "higher", "relative_tolerance": 1}),
            dict(regression={"compare": "distribution", "better": "higher",
                             "relative_tolerance": 1}),
            dict(regression={"compare": "p50", "relative_tolerance": 1}),
            dict(regression={"compare": "p50", "better": "up",
                             "relative_tolerance": 1}),
            dict(regression={"compare": "p50", "better": "higher"}),
            dict(regression={"compare": "p50", "better": "higher",
                             "relative_tolerance": -0.1}),
            dict(regression={"compare": "p50", "better": "higher",
                             "absolute_tolerance": -1}),
            dict(regression={"compare": "p50", "better": "higher",
                             "relative_tolerance": 0.1, "extra": 1}),
            dict(regression={"compare": "p50", "better": "higher",
                             "relative_tolerance": True}),
            dict(regression={"compare": "p50", "better": "higher",
                             "relative_tolerance": math.nan}),
            dict(regression={"compare": "p50", "better": "higher",
                             "relative_tolerance": None}),
            dict(regression={"compare": "p50", "better": "higher",
                             "relative_tolerance": "0.1"}),
            dict(display_range={}),
            dict(display_range={"min": 10, "max": 1}),
            dict(display_range={"min": 0, "mid": 1}),
            dict(display_range={"min": math.inf}),
            dict(display_range={"min": False}),
            dict(display_range={"max": None}),
            dict(display_range={"max": 2**63}),
            dict(display_scale=0),
            dict(display_scale=-1.5),
            dict(display_scale=True),
            dict(display_scale=math.nan),
            dict(display_scale="100"),
            dict(display_label=""),
            dict(display_label="a\0b"),
        ]
        ksft_metric_case_begin()
        for i, kw in enumerate(bad):
            with self.subTest(kw=kw):
                with self.assertRaises(ValueError) as cm:
                    ksft_metric_aggregate(f"m{i}", **kw)
                self.assertNotIsInstance(cm.exception, TypeError)
        # nothing was registered
        for i in range(len(bad)):
            ksft_metric(f"m{i}", 1, shape="scalar")
        self.assertFalse(any("policy" in line for line in self.lines()))

    def test_policy_argument_types(self):
        bad = [
            dict(summarize=None),
            dict(summarize=1),
            dict(aggregation=1),
            dict(transform=b"rate"),
            dict(display_label=5),
            dict(regression=[("compare", "p50")]),
            dict(regression={1: "p50"}),
            dict(regression={"compare": 50, "better": "higher",
                             "relative_tolerance": 1}),
            dict(display_range=(0, 100)),
            dict(display_range="0..100"),
        ]
        ksft_metric_case_begin()
        for kw in bad:
            with self.subTest(kw=kw):
                with self.assertRaises(TypeError):
                    ksft_metric_aggregate("m", **kw)
        with self.assertRaises(TypeError):
            ksft_metric_aggregate(None)
        with self.assertRaises(TypeError):
            ksft_metric_aggregate("m", "total", "rate")  # keyword-only
        with self.assertRaises(ValueError):
            ksft_metric_aggregate("")

    def test_outside_a_case(self):
        with self.assertRaisesRegex(RuntimeError, "outside of a test case"):
            ksft_metric_aggregate("m")
        # the case check comes first, as in the reference
        with self.assertRaises(RuntimeError):
            ksft_metric_aggregate("m", summarize="foo")
        with self.assertRaises(RuntimeError):
            ksft_metric_aggregate("m", summarize=None)


class Observations(CaseTest):
    def test_outside_a_case(self):
        with self.assertRaisesRegex(RuntimeError,
                                    r"ksft_metric\(\) called outside"):
            ksft_metric("m", 1, shape="scalar")
        # whatever else is wrong, outside a case it is RuntimeError first
        for args, kw in [(("m", True), {}), (("m", math.nan), {}),
                         ((1, 1), {}), (("m", 1), {"time": 1}),
                         (("m", 1), {"host": [1]})]:
            with self.subTest(args=args, kw=kw):
                with self.assertRaises(RuntimeError):
                    ksft_metric(*args, shape="scalar", **kw)

    def test_after_case_end(self):
        ksft_metric_case_begin()
        self.lines()
        with self.assertRaises(RuntimeError):
            ksft_metric("m", 1, shape="scalar")

    def test_reserved_label(self):
        ksft_metric_case_begin()
        with self.assertRaisesRegex(ValueError, "reserved name: time"):
            ksft_metric("m", 1, shape="scalar", time=3)
        # name/shape/value are parameters: Python itself refuses them twice
        for key in ("name", "shape", "value"):
            with self.assertRaises(TypeError):
                ksft_metric("m", 1, shape="scalar", **{key: 1})
        self.assertEqual(self.lines(), [])

    def test_values_that_are_not_numbers(self):
        ksft_metric_case_begin()
        bad = [True, False, "1", b"1", None, {"a": 1}, {1.0}, [[1.0]],
               [True], [1, "2"], [1, {}], (None, b"x"), object(),
               math.nan, math.inf, -math.inf, [1.0, math.nan],
               [math.inf, None], [1, math.nan], 2**63, -2**63 - 1,
               [2**64], [1.0, -2**63 - 1], 10**30]
        for v in bad:
            with self.subTest(v=v):
                with self.assertRaises(ValueError):
                    ksft_metric("m", v, shape="scalar")
        self.assertEqual(self.lines(), [])

    def test_value_error_messages(self):
        ksft_metric_case_begin()
        with self.assertRaisesRegex(ValueError, "bools are not numbers"):
            ksft_metric("m", True, shape="scalar")
        with self.assertRaisesRegex(ValueError, "NaN"):
            ksft_metric("m", math.nan, shape="scalar")
        with self.assertRaisesRegex(ValueError, "infinite"):
            ksft_metric("m", [0.0, math.inf], shape="scalar")
        with self.assertRaisesRegex(ValueError, "signed 64-bit"):
            ksft_metric("m", 2**63, shape="scalar")
        with self.assertRaisesRegex(ValueError, r"value\[1\]"):
            ksft_metric("m", [1, "x"], shape="scalar")

    def test_names_and_shapes(self):
        ksft_metric_case_begin()
        for name, shape, exc in [(1, "s", TypeError), (None, "s", TypeError),
                                 (b"m", "s", TypeError), ("m", None, TypeError),
                                 ("m", 5, TypeError), ("", "s", ValueError),
                                 ("m", "", ValueError),
                                 ("a\0b", "s", ValueError),
                                 ("m", "s\0", ValueError),
                                 ("\ud800", "s", ValueError),
                                 ("m", "\udfff", ValueError)]:
            with self.subTest(name=name, shape=shape):
                with self.assertRaises(exc):
                    ksft_metric(name, 1, shape=shape)
        with self.assertRaises(TypeError):
            ksft_metric("m", 1)        # shape is required
        with self.assertRaises(TypeError):
            ksft_metric("m", 1, "scalar")  # and keyword-only
        self.assertEqual(self.lines(), [])

    def test_label_kinds(self):
        ksft_metric_case_begin()
        for v in (None, [1], {"a": 1}, b"x", (1,), object(), 1j):
            with self.subTest(v=v):
                with self.assertRaises(TypeError):
                    ksft_metric("m", 1, shape="scalar", host=v)
                with self.assertRaises(TypeError):
                    ksft_metric("m", [1, None], shape="per-cpu", host=v)
        for v in (2**63, math.nan, math.inf, "a\0b", "\ud83d"):
            with self.subTest(v=v):
                with self.assertRaises(ValueError):
                    ksft_metric("m", 1, shape="scalar", host=v)
                with self.assertRaises(ValueError):
                    ksft_metric("m", [1, None], shape="per-cpu", host=v)
        with self.assertRaises(ValueError):
            ksft_metric("m", 1, shape="scalar", **{"": 1})
        with self.assertRaises(ValueError):
            ksft_metric("m", 1, shape="scalar", **{"a\0": 1})
        self.assertEqual(self.lines(), [])

    def test_rejected_call_changes_nothing(self):
        ksft_metric_case_begin()
        ksft_metric("m", 1, shape="scalar")
        with self.assertRaises(ValueError):
            ksft_metric("m", math.nan, shape="scalar")
        ksft_metric("m", 2, shape="scalar")
        self.assertEqual(len(self.lines()), 2)


class Reporting(CaseTest):
    def test_scope(self):
        ksft_metric_case_begin()
        self.assertIs(ksft_metric_reporting_enabled(), False)
        self.assertIsNone(ksft_metric_reporting(True))
        ksft_metric_reporting(1)
        self.assertIs(ksft_metric_reporting_enabled(), True)
        ksft_metric_reporting(False)
        self.assertTrue(ksft_metric_reporting_enabled())
        ksft_metric_reporting(0)
        self.assertFalse(ksft_metric_reporting_enabled())
        with self.assertRaisesRegex(RuntimeError, "left more often"):
            ksft_metric_reporting(False)
        ksft_metric_reporting("yes")
        self.lines()
        self.assertFalse(ksft_metric_reporting_enabled())  # reset at end

    def test_reset_at_begin(self):
        ksft_metric_case_begin()
        ksft_metric_reporting(True)
        ksft_metric_case_begin()
        self.assertFalse(ksft_metric_reporting_enabled())

    def test_outside_a_case(self):
        with self.assertRaisesRegex(RuntimeError, "outside of a test case"):
            ksft_metric_reporting(True)
        with self.assertRaises(RuntimeError):
            ksft_metric_reporting(False)
        self.assertIs(ksft_metric_reporting_enabled(), False)


class ErrnoMapping(CaseTest):
    """Each negative errno of the C API becomes its Python exception."""

    def check(self, ret, exc, in_case=True):
        if in_case:
            ksft_metric_case_begin()
        with self.assertRaises(exc) as cm:
            ksftmetric._raise_c(-ret, "ksft_metric")
        self.assertIs(type(cm.exception), exc)

    def test_mapping(self):
        self.check(errno.EPERM, RuntimeError)
        self.check(errno.EALREADY, RuntimeError)
        self.check(errno.EEXIST, ValueError)
        self.check(errno.EINVAL, ValueError)
        self.check(errno.ENOMEM, MemoryError)
        self.check(errno.EIO, OSError)

    def test_invalid_outside_a_case_is_runtime_error(self):
        self.check(errno.EINVAL, RuntimeError, in_case=False)
        self.check(errno.EEXIST, RuntimeError, in_case=False)

    def test_message_comes_from_the_library(self):
        ksft_metric_case_begin()
        with self.assertRaisesRegex(ValueError,
                                    "^metric m: unknown transform 'x'"):
            ksft_metric_aggregate("m", transform="x")


class Loading(unittest.TestCase):
    def test_uses_the_library_meson_built(self):
        env = os.environ.get("KSFTMETRIC_LIBRARY")
        if not env:
            self.skipTest("KSFTMETRIC_LIBRARY is not set")
        self.assertEqual(ksftmetric.LIBRARY_PATH, env)

    def test_bad_env_path_is_a_clear_oserror(self):
        with mock.patch.dict(os.environ,
                             {"KSFTMETRIC_LIBRARY": "/nonexistent/libx.so"}):
            with self.assertRaisesRegex(OSError, "KSFTMETRIC_LIBRARY="
                                        "/nonexistent/libx.so"):
                _library.load()

    def test_nothing_found_names_what_was_tried(self):
        env = {k: v for k, v in os.environ.items()
               if k != "KSFTMETRIC_LIBRARY"}
        with mock.patch.dict(os.environ, env, clear=True), \
                mock.patch.object(_library, "_installed_candidate",
                                  return_value=None), \
                mock.patch.object(_library, "_build_tree_candidates",
                                  return_value=[]), \
                mock.patch.object(_library.ctypes.util, "find_library",
                                  return_value=None), \
                mock.patch.object(_library, "SONAME",
                                  "libksftmetric-test-none.so.0"):
            with self.assertRaises(OSError) as cm:
                _library.load()
        msg = str(cm.exception)
        for part in ("$KSFTMETRIC_LIBRARY (unset)", "installed location",
                     "build tree", "find_library", "dynamic loader",
                     "Set $KSFTMETRIC_LIBRARY"):
            self.assertIn(part, msg)

    def test_candidates_are_tried_in_order(self):
        env = {k: v for k, v in os.environ.items()
               if k != "KSFTMETRIC_LIBRARY"}
        with mock.patch.dict(os.environ, env, clear=True), \
                mock.patch.object(_library, "_installed_candidate",
                                  return_value="/nonexistent/installed.so"), \
                mock.patch.object(_library, "_build_tree_candidates",
                                  return_value=[ksftmetric.LIBRARY_PATH]):
            _, _, path = _library.load()
        self.assertEqual(path, ksftmetric.LIBRARY_PATH)

    def test_found_by_the_loader_is_a_path(self):
        """Found by the dynamic loader's own search (LD_LIBRARY_PATH, a
        build directory outside the checkout), LIBRARY_PATH is still the
        file's path, which ksft-vm packs (it was the bare soname)."""
        env = {k: v for k, v in os.environ.items()
               if k != "KSFTMETRIC_LIBRARY"}
        libdir = os.path.dirname(os.path.realpath(ksftmetric.LIBRARY_PATH))
        env["LD_LIBRARY_PATH"] = libdir
        code = ("import ksftmetric._library as L\n"
                "L._installed_candidate = lambda: None\n"
                "L._build_tree_candidates = lambda: []\n"
                "L.ctypes.util.find_library = lambda n: None\n"
                "print(L.load()[2])\n")
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             capture_output=True, text=True).stdout.strip()
        self.assertTrue(os.path.isabs(out), out)
        self.assertEqual(os.path.realpath(out),
                         os.path.realpath(ksftmetric.LIBRARY_PATH))

    def test_a_library_without_our_symbols_is_refused(self):
        libc = ctypes.util.find_library("c")
        with self.assertRaisesRegex(OSError, "lacks ksft_metric_"):
            _library.declare(ctypes.CDLL(libc), ctypes.PyDLL(libc))

    def test_pure_python_package(self):
        pkg = os.path.dirname(ksftmetric.__file__)
        self.assertFalse([f for f in os.listdir(pkg)
                          if f.endswith((".so", ".pyd", ".c"))])


if __name__ == "__main__":
    unittest.main(verbosity=2)
