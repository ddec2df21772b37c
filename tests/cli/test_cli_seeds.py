#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judging N seeds (issue 42): `save -o a.json a-s1.log ... a-sN.log` keeps
one run a seed (the log's context "seed", ksft-vm --seed), and `compare
--baseline a.json b-s1.log ... b-sN.log` judges each series seed by seed:
one value a boot (its repeats share a layout), the exact rank test over
seeds, the shift (Hodges-Lehmann) with its interval: REGRESSION beyond
the tolerance, NO CHANGE within it, else TOO NOISY saying what the seeds
could not tell; too few seeds say how many are needed; series identical
across 3 seeds a side are judged at once. Each verdict twice.

usage: test_cli_seeds.py KSFT_METRIC
"""

import json
import os
import shutil
import sys
import tempfile

import cli_util
from cli_util import expect_rc

cli_util.KSFT = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="ksft-metric-seeds-")
GUEST = {"clock": "icount", "cpu_count": 1, "icount_shift": "0", "qemu": "7.2.22",
         "qemu_cpu": "Westmere-v1"}


def boot(name, seed, values, **more):
    """One boot's log: its context names the seed (and @more context keys);
    one point a repeat."""
    lines = ["KTAP version 1", "1..1"]
    if seed is not None:
        lines.append("# ktap-metric-context-json: " +
                     json.dumps(dict(GUEST, seed=seed, **more)))
    lines.append('# ktap-metric-policy-json: {"name":"rtt","regression":{"better":"lower",'
                 '"compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}')
    lines += ['# ktap-metric-json: {"name":"rtt","shape":"scalar","time":%d,"value":%r}'
              % (t + 1, v) for t, v in enumerate(values)]
    lines.append("ok 1 case")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def boots(tag, levels, repeats=(0.0, 0.02, -0.02, 0.01, -0.01)):
    """One log a seed: seed s at levels[s - 1], its repeats close to it."""
    return [boot(f"{tag}-s{s}.log", str(s), [lv + r for r in repeats])
            for s, lv in enumerate(levels, 1)]


def saved(tag, levels, **kw):
    path = os.path.join(TMP, tag + ".json")
    logs = boots(tag, levels, **kw)
    _, err = expect_rc(0, "save", "-q", "-o", path, *logs)
    assert f"one a seed ({len(levels)} seeds)" in err, err
    return path


def judge(base, logs, want_rc):
    outs = [expect_rc(want_rc, "compare", "-f", "json", "--baseline", base, *logs)
            for _ in range(2)]
    assert outs[0] == outs[1], outs
    text = [expect_rc(want_rc, "compare", "--baseline", base, *logs)[0] for _ in range(2)]
    assert text[0] == text[1], text
    return json.loads(outs[0][0])["rows"][0], " ".join(text[0].split())   # unwrapped


A5 = [100.0, 101.0, 99.0, 100.5, 99.5]


def test_save_keeps_one_run_a_seed():
    base = saved("keep", A5)
    with open(base, encoding="utf-8") as f:
        runs = json.load(f)["runs"]
    assert [r["context"]["seed"] for r in runs] == ["1", "2", "3", "4", "5"], runs
    assert all(len(r["sources"]) == 1 for r in runs), runs


def test_shift_beyond_the_tolerance_regresses():
    base = saved("a1", A5)
    row, text = judge(base, boots("b1", [v * 1.10 for v in A5]), 1)
    assert row["verdict"] == "regression" and row["seeds"]["baseline"] == 5, row
    assert row["n_baseline"] == 5 and row["n_current"] == 5, row     # seeds, not repeats
    assert 8 < row["change_pct"] < 12 and row["seeds"]["shift_lo_pct"] > 5, row
    assert "judged seed by seed" in text, text


def test_unchanged_seeds_are_no_change():
    base = saved("a2", A5)
    row, _ = judge(base, boots("b2", [100.2, 99.8, 100.6, 99.4, 100.1]), 0)
    assert row["verdict"] == "no_change", row
    assert -5 < row["seeds"]["shift_lo_pct"] and row["seeds"]["shift_hi_pct"] < 5, row


def test_bimodal_seeds_are_too_noisy_and_say_why():
    """A UDP round trip's two modes (17.5 or 34 virtual us) by seed: the
    25 repeats pooled would read a change; the seeds cannot tell."""
    base = saved("a3", [17.5, 34.0, 17.5, 34.0, 17.6])
    row, text = judge(base, boots("b3", [34.0, 17.5, 17.6, 34.0, 34.0]), 0)
    assert row["verdict"] == "too_noisy", row
    assert row["seeds"]["shift_lo_pct"] < -5 < 5 < row["seeds"]["shift_hi_pct"], row
    assert "holds both no change and one beyond the tolerance" in text, text
    assert "5 against 5 seeds show changes beyond about" in text, text


def test_too_few_seeds_say_how_many():
    base = saved("a4", [100.0, 101.0])
    row, text = judge(base, boots("b4", [120.0, 121.0]), 0)
    assert row["verdict"] == "too_noisy" and row["seeds"]["needed"] == 4, row
    assert "2 against 2 seeds cannot bound the shift" in text, text
    assert "at least 4 seeds a side" in text, text


def test_identical_across_seeds_stops_early():
    flat = (0.0,) * 5
    base = saved("a5", [100.0] * 3, repeats=flat)
    row, text = judge(base, boots("b5", [110.0] * 3, repeats=flat), 1)
    assert row["verdict"] == "regression", row
    row, text = judge(base, boots("b6", [103.4] * 3, repeats=flat), 0)
    assert row["verdict"] == "no_change" and row["beyond_floor"] is True, row
    assert "+3.40% (5% allowed)" in text, text


def test_paired_by_seed_where_a_and_b_move_together():
    """Seeds that move the result a lot (10 to 80), the same way in A and
    B: unpaired, the spread hides a +10 % shift; paired by seed (rank
    correlation 1 over 8 seeds) it is a regression. Where they do not
    move together, no pairing."""
    levels = [10.0 * s for s in range(1, 9)]
    base = saved("a8", levels)
    row, _ = judge(base, boots("b8", [v + 4.5 + 0.01 * s for s, v in enumerate(levels)]), 1)
    assert row["verdict"] == "regression" and row["seeds"]["paired"] == 8, row
    assert row["seeds"]["shift_lo_pct"] > 5, row
    shuffled = [levels[i] + 4.5 for i in (7, 0, 6, 1, 5, 2, 4, 3)]
    row, _ = judge(base, boots("b9", shuffled), 0)
    assert row["verdict"] == "too_noisy" and row["seeds"]["paired"] == 0, row


def test_what_a_seed_produced_is_no_context_difference():
    """ksft-vm --seed S also records what S produced (seed_spin, the first
    urandom bytes): those differ across seeds by design, as the seed does,
    and are no "run context differs" warning."""
    logs = [boot(f"sp-s{s}.log", str(s), [100.0 + s], seed_spin="%07d" % (s * 997),
                 seed_urandom="%016x" % (s * 0x9e3779b97f4a7c15 % 2 ** 64))
            for s in range(1, 6)]
    base = os.path.join(TMP, "sp.json")
    _, err = expect_rc(0, "save", "-q", "-o", base, *logs)
    assert "differs" not in err, err
    for _ in range(2):
        _, err = expect_rc(0, "compare", "--baseline", base, *logs)
        assert "differs" not in err, err


def test_one_seeded_log_is_one_seed():
    """One log is the command's own report, not read again (issue 45): its
    seed and its run are that report's, as when each file was read alone."""
    one = boot("one-s7.log", "7", [100.0, 100.2, 99.8])
    path = os.path.join(TMP, "one.json")
    _, err = expect_rc(0, "save", "-q", "-o", path, one)
    assert "one a seed (1 seeds)" in err, err
    with open(path, encoding="utf-8") as f:
        runs = json.load(f)["runs"]
    assert [(r["context"]["seed"], r["sources"]) for r in runs] == [("7", [one])], runs
    base = saved("a9", A5)
    row, _ = judge(base, [one], 0)
    assert row["seeds"]["baseline"] == 5 and row["n_current"] == 1, row


def test_a_log_without_seed_among_seeded_ones_is_refused():
    base = saved("a7", A5)
    logs = boots("b7", A5)[:4] + [boot("b7-none.log", None, [100.0])]
    _, err = expect_rc(2, "compare", "--baseline", base, *logs)
    assert "b7-none.log names no seed" in err, err
    _, err = expect_rc(2, "save", "-o", os.path.join(TMP, "x.json"), *logs)
    assert "b7-none.log names no seed" in err, err


if __name__ == "__main__":
    try:
        sys.exit(cli_util.run_tests(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
