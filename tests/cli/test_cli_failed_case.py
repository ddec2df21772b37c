#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A failed case is not a performance regression (issue 31, item 14): in
compare --db and compare --baseline, the series of a case that failed in
the current run (its own series, and those its history has and the
failed run lacks) are CASE FAILED, not judged and not MISSING; the run's
result says CASE FAILED, not REGRESSION; exit 1 (0 with --allow-missing,
as for a missing series), --bisect 125. Each
verdict is judged twice.

usage: test_cli_failed_case.py KSFT_METRIC
"""

import json
import os
import random
import shutil
import sys
import tempfile

import cli_util
from cli_util import expect_rc

cli_util.KSFT = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="ksft-metric-failed-case-")
DB = os.path.join(TMP, "history.sqlite")

POLICY = ('# ktap-metric-policy-json: {"name":"throughput","regression":{"better":'
          '"higher","compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}')


def write_log(name, rng, fail_second=False):
    """Cases fwd and rev, each a throughput (tracked) and a cpu series
    (untracked); with @fail_second rev fails after its cpu samples, its
    throughput never measured (as iperf-selftest's case whose iperf3
    delivered too few intervals)."""
    lines = ["KTAP version 1", "1..2"]
    for k, case in enumerate(("fwd", "rev")):
        failed = fail_second and case == "rev"
        lines.append(POLICY)    # a policy line belongs to the case it precedes
        for t in range(3):
            lines.append('# ktap-metric-json: {"name":"cpu","shape":"scalar",'
                         f'"time":{t + 1},"value":{50 + rng.random():.4f}}}')
            if not failed:
                v = 100 * (1 + 0.01 * rng.gauss(0, 1))
                lines.append('# ktap-metric-json: {"name":"throughput","shape":"scalar",'
                             f'"time":{t + 1},"value":{v:.6f}}}')
        if failed:
            lines.append(f"# {case}: iperf3: intervals: 6 intervals, need at least 7")
        lines.append(f"{'not ok' if failed else 'ok'} {k + 1} {case}")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def twice(rc, *args):
    outs = [expect_rc(rc, *args)[0] for _ in range(2)]
    assert outs[0] == outs[1], outs
    return outs[0]


def check(how):
    doc = json.loads(twice(1, "compare", *how, "--format", "json", CUR))
    rows = {(r["case"], r["name"]): r for r in doc["rows"]}
    assert rows[("rev", "throughput")]["verdict"] == "case_failed", rows
    assert rows[("rev", "throughput")]["fails"], rows
    assert rows[("rev", "cpu")]["verdict"] in ("untracked", "missing"), rows
    assert rows[("fwd", "throughput")]["verdict"] == "no_change", rows
    assert not [r for r in doc["rows"] if r["verdict"] in ("regression", "missing")
                and r["fails"]], doc
    assert doc["result"] == "case_failed", doc
    text = twice(1, "compare", *how, CUR)
    assert "CASE FAILED" in text and "RESULT: CASE FAILED" in text, text
    assert "REGRESSION" not in text and "MISSING" not in text, text
    twice(125, "compare", *how, "--bisect", CUR)
    # --allow-missing: a series without a measurement in this run, missing
    # or from a failed case, does not fail the gate; still said.
    text = twice(0, "compare", *how, "--allow-missing", CUR)
    assert "CASE FAILED" in text and "RESULT: OK" in text, text


rng = random.Random(14)
for i in range(8):
    expect_rc(0, "ingest", "--create", "--db", DB, "--run", f"r{i}", "--order", f"{i:03d}",
              write_log(f"h{i}.log", rng))
BASE = os.path.join(TMP, "base.json")
expect_rc(0, "save", "-o", BASE, *(os.path.join(TMP, f"h{i}.log") for i in range(4)))
CUR = write_log("cur.log", rng, fail_second=True)


def test_history_gate():
    check(("--db", DB))


def test_baseline_files():
    check(("--baseline", BASE))


def test_failed_case_without_series():
    """A case that failed before it reported anything: its history's series
    are CASE FAILED too (the report keeps every failed case), not MISSING."""
    lines = [ln for ln in open(CUR, encoding="utf-8").read().splitlines()]
    cut = lines.index("ok 1 fwd") + 1
    body = [ln for ln in lines[cut:] if "ktap-metric" not in ln]
    cur = os.path.join(TMP, "cur-bare.log")
    with open(cur, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:cut] + body) + "\n")
    for how in (("--db", DB), ("--baseline", BASE)):
        doc = json.loads(twice(1, "compare", *how, "--format", "json", cur))
        verdicts = {(r["case"], r["name"]): r["verdict"] for r in doc["rows"]}
        assert verdicts[("rev", "throughput")] == "case_failed", (how, verdicts)
        assert doc["result"] == "case_failed", doc


def test_a_regression_beside_it_is_one():
    """A real regression in another case still reads REGRESSION."""
    lines = open(CUR, encoding="utf-8").read().splitlines()
    out = []
    for ln in lines:
        if '"throughput"' in ln and '"value":' in ln and not out.count("ok 1 fwd"):
            v = float(ln.rsplit('"value":', 1)[1].rstrip("}"))
            ln = ln.rsplit('"value":', 1)[0] + f'"value":{v * 0.5:.6f}}}'
        out.append(ln)
    cur = os.path.join(TMP, "cur-drop.log")
    with open(cur, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    doc = json.loads(twice(1, "compare", "--db", DB, "--format", "json", cur))
    assert doc["result"] == "regression", doc
    verdicts = {(r["case"], r["name"]): r["verdict"] for r in doc["rows"]}
    assert verdicts[("fwd", "throughput")] == "regression", verdicts
    assert verdicts[("rev", "throughput")] == "case_failed", verdicts


def killed_logs():
    """Issue 40, item 6: the run killed (SIGTERM) inside rev, as the
    producer library writes it (its abort line, no result line, the plan
    unfinished); and the run cut between the cases (the log ends after
    fwd's result line, plan 1..2 unfinished, no abort line)."""
    lines = open(write_log("killed-src.log", random.Random(99)), encoding="utf-8").read()
    lines = lines.splitlines()
    fwd_end = lines.index("ok 1 fwd") + 1
    killed = lines[:-1] + ['# ktap-metric-abort-json: {"reason":"SIGTERM"}']
    paths = []
    for name, body in (("killed.log", killed), ("cut.log", lines[:fwd_end])):
        paths.append(os.path.join(TMP, name))
        with open(paths[-1], "w", encoding="utf-8") as f:
            f.write("\n".join(body) + "\n")
    return paths


def test_killed_run_is_not_a_regression():
    """A killed or crashed run is CASE FAILED (exit 1, --allow-missing 0,
    --bisect 125: the documented codes), never REGRESSION: the tracked
    series it never measured are CASE FAILED, not MISSING; its death is
    said once."""
    for log in killed_logs():
        for how in (("--db", DB), ("--baseline", BASE)):
            doc = json.loads(twice(1, "compare", *how, "--format", "json", log))
            verdicts = {(r["case"], r["name"]): r["verdict"] for r in doc["rows"]}
            assert verdicts[("rev", "throughput")] == "case_failed", (log, how, verdicts)
            assert verdicts[("fwd", "throughput")] == "no_change", (log, how, verdicts)
            assert doc["result"] == "case_failed", (log, how, doc)
            assert not [r for r in doc["rows"] if r["verdict"] == "missing" and r["fails"]]
            text = twice(1, "compare", *how, log)
            assert "RESULT: CASE FAILED" in text and "REGRESSION" not in text, text
            twice(125, "compare", *how, "--bisect", log)
            twice(0, "compare", *how, "--allow-missing", log)
        _, err = expect_rc(1, "compare", "--db", DB, log)
        warnings = [ln for ln in err.splitlines() if "warning" in ln]
        assert len(warnings) == 1, err
        assert ("ended abnormally (SIGTERM)" in err if "killed" in log else
                "the plan (1..2) at nesting level 0 ended at test 1: the run was cut short"
                in err), err


if __name__ == "__main__":
    try:
        sys.exit(cli_util.run_tests(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
