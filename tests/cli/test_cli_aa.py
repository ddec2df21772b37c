#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""compare --baseline on unchanged runs (issue 31, item 13): with repeats
on both sides no verdict without significance (p < --alpha, 0.05 by
default), so the README's first comparison does not cry wolf; single
values keep the tolerance rule, and so do samples too few for the rank
test to reach --alpha when they lie all apart (issue 40 item 11). On the recorded A/A corpus of main-job runs
(bench/corpus/main-job-aa-2026-12-03), and on a made-up pair. Each verdict
is judged twice.

usage: test_cli_aa.py KSFT_METRIC CORPUS_DIR
"""

import json
import lzma
import os
import shutil
import sys
import tempfile

import cli_util
from cli_util import expect_rc

cli_util.KSFT = os.path.abspath(sys.argv[1])
CORPUS = os.path.abspath(sys.argv[2])
TMP = tempfile.mkdtemp(prefix="ksft-metric-aa-")


def unpack():
    runs = []
    for name in sorted(os.listdir(CORPUS)):
        if name.endswith(".log.xz"):
            path = os.path.join(TMP, name[:-3])
            with lzma.open(os.path.join(CORPUS, name), "rb") as f, open(path, "wb") as g:
                g.write(f.read())
            runs.append(path)
    assert len(runs) == 8, runs
    return runs


RUNS = unpack()


def compare_json(base, cur, *extra):
    outs = []
    for _ in range(2):
        rc, out, err = cli_util.run("compare", "--format", "json", *extra, "--baseline", base,
                                    cur)
        assert rc in (0, 1), err
        outs.append((rc, out))
    assert outs[0] == outs[1], outs
    return outs[0][0], json.loads(outs[0][1])


def test_aa_pairs_with_repeats_flag_only_samples_all_apart():
    """Every earlier run as the baseline of every later one: no tracked
    series whose repeats overlap reads a change (before issue 31: 144 of
    168). 3 repeats a side cannot reach p < 0.05 (the best is 0.1): where
    they lie all apart and beyond the tolerance, the tolerance decides as
    with one value a side (issue 40 item 11), so a one-run baseline shows
    this corpus' run-to-run shifts (102 of 168); overlapping samples never."""
    flagged, rows = [], 0
    for i, base_log in enumerate(RUNS):
        base = os.path.join(TMP, f"base{i}.json")
        expect_rc(0, "save", "-q", "-o", base, base_log)
        for cur in RUNS[i + 1:]:
            _, doc = compare_json(base, cur)
            for r in doc["rows"]:
                if r["better"] and r["n_baseline"] >= 2 and r["n_current"] >= 2:
                    rows += 1
                    if r["verdict"] in ("regression", "improvement"):
                        flagged.append((i, os.path.basename(cur), r["case"], r["name"],
                                        r["p_value"], r["verdict"]))
                        assert r["n_baseline"] == r["n_current"] == 3, r
                        assert abs(r["p_value"] - 0.1) < 1e-12, r   # all apart
                        assert abs(r["change_pct"]) > 100 * r["allowance"] / abs(r["baseline"]), r
    assert rows == 168, rows
    assert len(flagged) == 102, flagged


def test_two_a_side_all_apart_fails():
    """100,100 -> 50,50 (issue 40 item 11): was TOO NOISY, exit 0."""
    base = os.path.join(TMP, "b2.json")
    expect_rc(0, "save", "-q", "-o", base, write_log("b2.log", [100, 100]))
    rc, doc = compare_json(base, write_log("c2.log", [50, 50]))
    assert rc == 1 and doc["rows"][0]["verdict"] == "regression", doc
    rc, doc = compare_json(base, write_log("c2o.log", [50, 100]))   # overlapping
    assert rc == 0 and doc["rows"][0]["verdict"] == "too_noisy", doc


def write_log(name, values, status="ok"):
    lines = ["KTAP version 1", "1..1",
             '# ktap-metric-policy-json: {"name":"tput","regression":{"better":"higher",'
             '"compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}']
    lines += ['# ktap-metric-json: {"name":"tput","shape":"scalar","time":%d,"value":%r}'
              % (t + 1, v) for t, v in enumerate(values)]
    lines.append(f"{status} 1 case")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def test_unproven_change_is_too_noisy():
    """The README's pair: 8 % up on 3 v 3 repeats that overlap: p 0.7."""
    base = os.path.join(TMP, "b.json")
    expect_rc(0, "save", "-q", "-o", base, write_log("b.log", [100, 90, 110]))
    cur = write_log("c.log", [108, 95, 120])
    rc, doc = compare_json(base, cur)
    row = doc["rows"][0]
    assert rc == 0 and row["verdict"] == "too_noisy" and row["p_value"] > 0.05, row
    # --alpha 0: the tolerance alone, as before.
    _, doc = compare_json(base, cur, "--alpha", "0")
    assert doc["rows"][0]["verdict"] == "improvement", doc
    # A change the samples prove is still one (7 v 7, all apart: p < 0.001).
    base7 = os.path.join(TMP, "b7.json")
    expect_rc(0, "save", "-q", "-o", base7, write_log("b7.log", [100 + k for k in range(7)]))
    rc, doc = compare_json(base7, write_log("c7.log", [80 + k for k in range(7)]))
    assert rc == 1 and doc["rows"][0]["verdict"] == "regression", doc


def test_single_values_keep_the_tolerance_rule():
    base = os.path.join(TMP, "b1.json")
    expect_rc(0, "save", "-q", "-o", base, write_log("b1.log", [100]))
    rc, doc = compare_json(base, write_log("c1.log", [90]))
    assert rc == 1 and doc["rows"][0]["verdict"] == "regression", doc
    assert doc["rows"][0]["p_value"] is None, doc


if __name__ == "__main__":
    try:
        sys.exit(cli_util.run_tests(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
