#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-metric accept and pin end to end (issue 31, items 5 and 16): what
they say they changed, the marks `history` shows, and the rule when both
apply to a series (the accepted level wins over an older pin: the window
is never left empty). Against a SQLite file, or the PostgreSQL server in
$KSFTM_HISTORY_URL. Each test keeps to its own runner=... context.

usage: test_cli_triage.py KSFT_METRIC
"""

import json
import os
import random
import shutil
import sys
import tempfile

import cli_util
from cli_util import expect_rc

KSFT = os.path.abspath(sys.argv[1])
cli_util.KSFT = KSFT
TMP = tempfile.mkdtemp(prefix="ksft-metric-triage-")
DB = os.environ.get("KSFTM_HISTORY_URL") or os.path.join(TMP, "history.sqlite")

POLICY = ('# ktap-metric-policy-json: {"name":"throughput","regression":{"better":'
          '"higher","compare":"p50","relative_tolerance":0.05},'
          '"summarize":"distribution"}')
POLICY2 = POLICY.replace("throughput", "latency").replace('"higher"', '"lower"')


def write_log(name, level, rng, latency=None):
    """Case tcp: throughput around @level (3 repeats, 2 % noise), and a
    latency series around @latency when given."""
    lines = ["KTAP version 1", "1..1", POLICY]
    if latency is not None:
        lines.append(POLICY2)
    for k in range(3):
        v = level * (1 + 0.02 * rng.gauss(0, 1))
        lines.append('# ktap-metric-json: {"name":"throughput","shape":"scalar",'
                     f'"time":{k + 1},"value":{v:.6f}}}')
        if latency is not None:
            v = latency * (1 + 0.02 * rng.gauss(0, 1))
            lines.append('# ktap-metric-json: {"name":"latency","shape":"scalar",'
                         f'"time":{k + 1},"value":{v:.6f}}}')
    lines.append("ok 1 tcp")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def ingest(runner, i, path):
    expect_rc(0, "ingest", "--create", "--db", DB, "--run", f"{runner}-{i:03d}", "--order", f"{i:03d}",
              "--context", f"runner={runner}", path)


def compare_twice(want_rc, runner, path):
    """A verdict, judged twice: the same both times."""
    outs = [expect_rc(want_rc, "compare", "--db", DB, "--context", f"runner={runner}",
                      "--format", "json", path)[0] for _ in range(2)]
    assert outs[0] == outs[1], outs
    return {r["name"]: r for r in json.loads(outs[0])["rows"]}


def history_points(runner, series):
    out, _ = expect_rc(0, "history", "--db", DB, "--context", f"runner={runner}",
                       "--format", "json", series)
    return json.loads(out)["series"][0]["points"]


def test_pin_then_accept():
    """Item 5: pin an old run, accept a later level: later runs are judged
    against the new level (not NOT COMPARABLE, window empty), and a 60 %
    drop below it fails the gate."""
    rng = random.Random(5)
    r = "pinacc"
    for i in range(10):
        ingest(r, i, write_log(f"pa{i}.log", 100, rng))
    out, _ = expect_rc(0, "pin", "--db", DB, f"{r}-004")
    assert f"pinned run {r}-004" in out, out
    ingest(r, 10, write_log("pa10.log", 70, rng))
    said, _ = expect_rc(0, "accept", "--db", DB, f"{r}-010")
    for i in range(11, 18):
        ingest(r, i, write_log(f"pa{i}.log", 70, rng))
    states = [p["state"] for p in history_points(r, "throughput")]
    assert "not_comparable" not in states, states
    assert states[11:] == ["no_change"] * 7, states
    rows = compare_twice(1, r, write_log("pa-drop.log", 28, rng))
    row = rows["throughput"]
    assert row["verdict"] == "regression" and row["baseline_runs"] == 8, row
    rows = compare_twice(0, r, write_log("pa-same.log", 70, rng))
    assert rows["throughput"]["verdict"] == "no_change", rows
    assert "new level of 1 series" in said and "the level wins" in said, said


def test_accept_then_pin_older():
    """Item 5, the other order: accept, then pin a run before the level.
    The same rule (the level wins), and pin says so."""
    rng = random.Random(55)
    r = "accpin"
    for i in range(8):
        ingest(r, i, write_log(f"ap{i}.log", 100, rng))
    ingest(r, 8, write_log("ap8.log", 60, rng))
    expect_rc(0, "accept", "--db", DB, f"{r}-008")
    for i in range(9, 15):
        ingest(r, i, write_log(f"ap{i}.log", 60, rng))
    out, _ = expect_rc(0, "pin", "--db", DB, f"{r}-003")
    assert "except 1 series whose accepted level starts after it" in out, out
    rows = compare_twice(0, r, write_log("ap-same.log", 60, rng))
    assert rows["throughput"]["verdict"] == "no_change", rows
    rows = compare_twice(1, r, write_log("ap-drop.log", 24, rng))
    assert rows["throughput"]["verdict"] == "regression", rows
    # A pin at the new level holds: the window ends there.
    out, _ = expect_rc(0, "pin", "--db", DB, f"{r}-012")
    assert "except" not in out, out
    doc = compare_twice(1, r, write_log("ap-drop2.log", 24, rng))
    assert doc["throughput"]["baseline_runs"] == 5, doc


def test_accept_says_what_changed():
    """Item 16: accept says how many series it re-levelled (not "0
    regression results" while it re-levelled them), and history marks
    where each level starts and which run is pinned."""
    rng = random.Random(16)
    r = "feedback"
    for i in range(8):
        ingest(r, i, write_log(f"fb{i}.log", 100, rng, latency=10))
    # A level shift no single run flagged: accepted by naming the series.
    for i in range(8, 12):
        ingest(r, i, write_log(f"fb{i}.log", 100, rng, latency=10.3))
    out, _ = expect_rc(0, "accept", "--db", DB, f"{r}-008", "tcp")
    assert "accepted run feedback-008 as the new level of 2 series" in out, out
    out, _ = expect_rc(0, "accept", "--db", DB, f"{r}-009")
    assert "nothing changed" in out and "no series regressed" in out, out
    out, _ = expect_rc(0, "accept", "--db", DB, f"{r}-009", "no-such-series")
    assert "nothing changed" in out and "matches SERIES" in out, out
    out, _ = expect_rc(0, "pin", "--db", DB, f"{r}-010")
    assert out.startswith(f"pinned run {r}-010: windows"), out
    pts = history_points(r, "latency")
    assert [p["run"] for p in pts if p.get("level")] == [f"{r}-008"], pts
    assert [p["run"] for p in pts if p.get("pinned")] == [f"{r}-010"], pts
    out, _ = expect_rc(0, "history", "--db", DB, "--context", f"runner={r}", "-v", "latency")
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.strip().startswith(r)}
    assert lines[f"{r}-008"].endswith(", level starts"), out
    assert lines[f"{r}-010"].endswith(", pinned"), out
    assert "level starts" not in lines[f"{r}-009"] and "pinned" not in lines[f"{r}-009"], out
    out, _ = expect_rc(0, "pin", "--db", DB, "--unpin", f"{r}-010")
    assert f"unpinned run {r}-010" in out, out
    assert not [p for p in history_points(r, "latency") if p.get("pinned")]


def test_no_window_is_said():
    """Item 5's other half: a series the gate has no window for says why
    (here: born after the pinned run), in text and JSON, never a bare NOT
    COMPARABLE read as "a debug kernel"."""
    rng = random.Random(50)
    r = "nowin"
    for i in range(6):
        ingest(r, i, write_log(f"nw{i}.log", 100, rng))
    expect_rc(0, "pin", "--db", DB, f"{r}-003")
    for i in range(6, 10):
        ingest(r, i, write_log(f"nw{i}.log", 100, rng, latency=10))
    cur = write_log("nw-cur.log", 100, rng, latency=10)
    rows = compare_twice(0, r, cur)
    assert rows["latency"]["verdict"] == "not_comparable", rows
    assert "pinned run" in rows["latency"]["why"], rows
    assert "why" not in rows["throughput"], rows
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", f"runner={r}", cur)
    assert "NOT COMPARABLE: tcp latency: no usable run up to the pinned run" in out, out


if __name__ == "__main__":
    try:
        sys.exit(cli_util.run_tests(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
