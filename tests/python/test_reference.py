#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The binding against SeedMetrics, the reference producer re-implemented in
test_support: the same calls must print the same lines (time masked) and
raise the same exceptions."""

import math
import random
import struct
import unittest

from test_support import SeedMetrics, captured_stdout, mask_time

import ksftmetric

STRINGS = ["local", "remote", "rx", "tx", "", "caf\u00e9", "\u65e5\u672c\u8a9e",
           "smile\U0001F600", 'q"uote', "back\\slash", "tab\there", "nl\nx",
           "ctl\x01\x1f", "del\x7f", "\u2028", "\ufeff", "\u00ff\u0100",
           "a/b.c-d_e", " spaced ", "0", "true", "null"]
NAMES = ["throughput", "tcp.retransmits", "cpu.utilization", "cpu.time.usr",
         "nic.rx.dropped", "m\u00e9trique", "\U0001F680.launch", 'we"ird',
         "x", "name", "time", "value"]
SHAPES = ["scalar", "per-cpu", "per-queue", "histogram", "\u00e9"]
LABEL_KEYS = ["host", "direction", "a", "Z", "_", "nam", "namf", "shapf",
              "shape_", "t", "timd", "timf", "valud", "valuf", "zz",
              "\u00e9", "\U0001F600", "k y", 'k"q', "k\\b", "k\x02", "0",
              "~"]
SPECIAL_FLOATS = [0.0, -0.0, 0.1, 0.5, 1.0, 100.0, 1e16, 1e22, 1e-7,
                  5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                  -1e300, 123456789.125, 1 / 3, 2.0**53, 9007199254740993.0,
                  0.30000000000000004, 1e15, 1e-5, 1e-4, 0.001, 12345.6789e10]
SPECIAL_INTS = [0, 1, -1, 2**31, -2**31 - 1, 2**53 + 1, 2**63 - 1, -2**63,
                10**18, 75895]


def rand_float(rng):
    pick = rng.random()
    if pick < 0.25:
        return rng.choice(SPECIAL_FLOATS)
    if pick < 0.5:
        while True:
            (v,) = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))
            if math.isfinite(v):
                return v
    if pick < 0.75:
        return round(rng.uniform(-1000, 1000), rng.randint(0, 6))
    return rng.uniform(0, 1) * 10.0 ** rng.randint(-20, 20)


def rand_int(rng):
    if rng.random() < 0.3:
        return rng.choice(SPECIAL_INTS)
    return rng.randint(-10**rng.randint(1, 18), 10**rng.randint(1, 18))


def rand_scalar(rng):
    return rand_int(rng) if rng.random() < 0.4 else rand_float(rng)


def rand_value(rng):
    pick = rng.random()
    if pick < 0.6:
        return rand_scalar(rng)
    n = rng.choice([0, 1, 2, 4, 8, 33])
    style = rng.random()
    if style < 0.3:
        vals = [rand_float(rng) for _ in range(n)]
    elif style < 0.5:
        vals = [None if rng.random() < 0.2 else rand_float(rng)
                for _ in range(n)]
    elif style < 0.7:
        vals = [rand_int(rng) for _ in range(n)]
    else:
        vals = [rng.choice([None, rand_int(rng), rand_float(rng)])
                for _ in range(n)]
    return tuple(vals) if rng.random() < 0.3 else vals


def rand_label_value(rng):
    pick = rng.random()
    if pick < 0.55:
        return rng.choice(STRINGS)
    if pick < 0.7:
        return rng.choice([True, False])
    if pick < 0.85:
        return rand_int(rng)
    return rand_float(rng)


def rand_labels(rng):
    keys = rng.sample(LABEL_KEYS, rng.choice([0, 0, 1, 1, 1, 2, 3, 5]))
    return {k: rand_label_value(rng) for k in keys}


def rand_number(rng, low=0):
    if rng.random() < 0.5:
        return rng.randint(low, 1000)
    return rng.choice([float(low), 0.05, 0.5, 2.5, 100.0, 1e-3, 1e6]) + low


def rand_policy(rng):
    """A valid policy, as keyword arguments (some of them defaulted)."""
    kw = {}
    if rng.random() < 0.8:
        kw["summarize"] = rng.choice(["last", "total", "p50", "p90", "p99",
                                      "max", "distribution"])
    if rng.random() < 0.3:
        kw["aggregation"] = "busy-core-equivalents"
    if rng.random() < 0.4:
        kw["transform"] = "rate"
    if rng.random() < 0.4:
        reg = {"compare": rng.choice(["last", "total", "p50", "p90", "p99",
                                      "max"]),
               "better": rng.choice(["higher", "lower"])}
        tol = rng.choice([["relative_tolerance"], ["absolute_tolerance"],
                          ["relative_tolerance", "absolute_tolerance"]])
        for key in tol:
            reg[key] = rand_number(rng)
        kw["regression"] = dict(rng.sample(sorted(reg.items()), len(reg)))
    if rng.random() < 0.4:
        lo = rand_number(rng)
        rng_kind = rng.random()
        if rng_kind < 0.33:
            kw["display_range"] = {"min": lo}
        elif rng_kind < 0.66:
            kw["display_range"] = {"max": lo}
        else:
            kw["display_range"] = {"max": lo + rand_number(rng), "min": lo}
    if rng.random() < 0.3:
        kw["display_scale"] = rand_number(rng, low=1)
    if rng.random() < 0.3:
        kw["display_label"] = rng.choice([s for s in STRINGS if s])
    return kw


def respell(kw):
    """The same policy with ints and floats swapped where equal (0 vs 0.0)."""
    def flip(v):
        if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
            return int(v)
        if isinstance(v, int) and not isinstance(v, bool):
            return float(v)
        return v
    out = {}
    for k, v in kw.items():
        if isinstance(v, dict):
            out[k] = {kk: flip(vv) for kk, vv in v.items()}
        elif k == "display_scale":
            out[k] = flip(v)
        else:
            out[k] = v
    return out


class Impl:
    """One producer under test behind a common face: the binding or the seed."""

    def __init__(self, seed):
        self.lines = []
        if seed:
            self.seed = SeedMetrics(self.lines.append)
            self.metric = self.seed.ksft_metric
            self.aggregate = self.seed.ksft_metric_aggregate
            self.reporting = self.seed.ksft_metric_reporting
            self.enabled = self.seed.ksft_metric_reporting_enabled
            self.begin = self.seed.case_begin
            self.end = self.seed.case_end
        else:
            self.metric = ksftmetric.ksft_metric
            self.aggregate = ksftmetric.ksft_metric_aggregate
            self.reporting = ksftmetric.ksft_metric_reporting
            self.enabled = ksftmetric.ksft_metric_reporting_enabled
            self.begin = ksftmetric.ksft_metric_case_begin
            self.end = lambda: ksftmetric.ksft_metric_case_end(self.lines.append)

    def run(self, script):
        """Run the calls; return (masked lines, one outcome per call)."""
        outcomes = []
        for op, args, kw in script:
            try:
                ret = getattr(self, op)(*args, **kw)
                outcomes.append(("ok", ret if op == "enabled" else None))
            except Exception as exc:   # noqa: BLE001 - compared below
                outcomes.append((type(exc).__name__, None))
        return [mask_time(line) for line in self.lines], outcomes


def make_script(rng, n_cases=25, calls=80):
    script = [("metric", ("early", 1), {"shape": "scalar"}),
              ("aggregate", ("early",), {}),
              ("enabled", (), {}),
              ("end", (), {})]
    for _ in range(n_cases):
        script.append(("begin", (), {}))
        policies = {}
        observed = set()
        depth = 0
        for name in rng.sample(NAMES, 4):    # registered up front, as usual
            policies[name] = rand_policy(rng)
            script.append(("aggregate", (name,), dict(policies[name])))
        for _ in range(calls):
            pick = rng.random()
            name = rng.choice(NAMES)
            if pick < 0.15:
                if name in policies and rng.random() < 0.5:
                    kw = respell(policies[name]) if rng.random() < 0.7 \
                        else rand_policy(rng)     # equal, or a conflict
                else:
                    kw = rand_policy(rng)       # new, or late if observed
                args = (name,)
                if "summarize" in kw and rng.random() < 0.5:
                    args = (name, kw.pop("summarize"))
                script.append(("aggregate", args, kw))
                if name not in policies and name not in observed:
                    policies[name] = dict(kw, **({"summarize": args[1]}
                                                 if len(args) > 1 else {}))
            elif pick < 0.2:
                if depth and rng.random() < 0.5:
                    depth -= 1
                    script.append(("reporting", (False,), {}))
                else:
                    depth += 1
                    script.append(("reporting", (True,), {}))
                script.append(("enabled", (), {}))
            elif pick < 0.22:
                labels = rand_labels(rng)
                labels["time"] = 1                  # reserved: ValueError
                script.append(("metric", (name, 1), dict(shape="scalar",
                                                         **labels)))
            else:
                observed.add(name)
                script.append(("metric", (name, rand_value(rng)),
                               dict(shape=rng.choice(SHAPES),
                                    **rand_labels(rng))))
        script.append(("end", (), {}))
        script.append(("enabled", (), {}))
        script.append(("metric", ("late", 1), {"shape": "scalar"}))
    return script


class AgainstReference(unittest.TestCase):
    def setUp(self):
        ksftmetric.ksft_metric_case_end(pr=lambda line: None)

    def compare(self, script):
        seed_lines, seed_out = Impl(seed=True).run(script)
        ours_lines, ours_out = Impl(seed=False).run(script)
        # Our refused-call warnings are an addition the reference does not
        # have (test_rejects.py checks them); every other byte must match.
        ours_lines = [l for l in ours_lines if "ktap-metric-warning-json" not in l]
        for i, (call, a, b) in enumerate(zip(script, seed_out, ours_out)):
            self.assertEqual(a, b, f"call {i}: {call!r}")
        self.assertEqual(len(ours_lines), len(seed_lines))
        for a, b in zip(seed_lines, ours_lines):
            self.assertEqual(a, b)
        return seed_lines, seed_out

    def test_random_mix(self):
        for seed in range(8):
            with self.subTest(seed=seed):
                lines, outcomes = self.compare(make_script(random.Random(seed)))
                kinds = {o[0] for o in outcomes}
                # the mix really exercised the error paths
                self.assertTrue({"ok", "RuntimeError", "ValueError"} <= kinds,
                                kinds)
                self.assertTrue(any("policy-json" in line for line in lines))
                self.assertGreater(len(lines), 500)

    def test_patch_examples(self):
        """The calls the patch series itself makes (README and monitors)."""
        script = [("begin", (), {})]
        for metric in ("cpu.time.usr", "cpu.time.sys", "cpu.time.sirq"):
            script.append(("aggregate", (metric,), dict(
                summarize="p90", transform="rate",
                aggregation="busy-core-equivalents",
                display_range={"min": 0, "max": 100}, display_scale=100,
                display_label="Percent of one CPU")))
        script += [
            ("aggregate", ("cpu.utilization",), dict(
                summarize="p90", aggregation="busy-core-equivalents",
                display_range={"min": 0, "max": 100},
                display_label="Percent of one CPU")),
            ("aggregate", ("nic.rx.dropped",), dict(
                summarize="distribution", transform="rate",
                display_range={"min": 0})),
            ("aggregate", ("throughput",), dict(
                summarize="distribution",
                regression={"compare": "p50", "better": "higher",
                            "relative_tolerance": 0.05})),
            ("aggregate", ("tcp.retransmits",), dict(summarize="max")),
            ("reporting", (True,), {}),
            ("enabled", (), {}),
            ("metric", ("nic.rx.dropped", 0), dict(shape="scalar",
                                                   host="local")),
            ("metric", ("throughput", 100.5), dict(shape="scalar",
                                                   direction="rx")),
            ("metric", ("cpu.utilization", [75.0, 22.0, None, 100.0]),
             dict(shape="per-cpu", host="local")),
            ("metric", ("cpu.time.usr", [0.0, 0.02, 0.16, 0.01]),
             dict(shape="per-cpu", host="remote")),
            ("metric", ("cpu.utilization", [9.0909, 0.0, 2.0202, 19.1919]),
             dict(shape="per-cpu", host="remote")),
            ("metric", ("throughput", 32.62285180182741),
             dict(shape="scalar", host="local")),
            ("metric", ("tcp.retransmits", 75895), dict(shape="scalar",
                                                        host="remote")),
            ("reporting", (False,), {}),
            ("enabled", (), {}),
            ("end", (), {}),
        ]
        lines, _ = self.compare(script)
        self.assertEqual(len(lines), 5 + 7)
        self.assertEqual(lines[-1], 'ktap-metric-json: {"host":"remote",'
                         '"name":"tcp.retransmits","shape":"scalar",'
                         '"time":T,"value":75895}')

    def test_default_pr_matches_ksft_pr(self):
        """ksft_pr() prints "# " + line; so does the default pr."""
        def ksft_pr(*objs, **kwargs):
            kwargs["flush"] = True
            print("#", *objs, **kwargs)

        def run(seed):
            with captured_stdout() as out:
                if seed:
                    ref = SeedMetrics(ksft_pr)
                    begin, metric, end = (ref.case_begin, ref.ksft_metric,
                                          ref.case_end)
                    aggregate = ref.ksft_metric_aggregate
                else:
                    begin = ksftmetric.ksft_metric_case_begin
                    metric = ksftmetric.ksft_metric
                    aggregate = ksftmetric.ksft_metric_aggregate
                    end = ksftmetric.ksft_metric_case_end
                begin()
                aggregate("m", summarize="max", display_label="\u00b0C")
                metric("m", 1.5, shape="scalar", host="caf\u00e9")
                metric("m", [1, None], shape="per-cpu", on=True)
                end()
            return mask_time(out.getvalue())
        self.assertEqual(run(False), run(True))


if __name__ == "__main__":
    unittest.main(verbosity=2)
