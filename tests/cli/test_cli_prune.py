#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-metric prune (issue 45, retention): on a 100-run history with a
level shift, an accepted level, a pinned run, a series that runs one run
in ten and a second machine, pruning to the newest 63 deletes old runs
but leaves the verdicts of judging a next run (compare --db, twice, and
ingest) byte for byte the same; a --keep under what the gate reads is
refused and deletes nothing. SQLite, or the PostgreSQL server in
$KSFTM_HISTORY_URL (history_pg.sh starts one).

usage: test_cli_prune.py KSFT_METRIC
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
TMP = tempfile.mkdtemp(prefix="ksft-metric-prune-")
URL = os.environ.get("KSFTM_HISTORY_URL")
DB = URL or os.path.join(TMP, "history.sqlite")
RUNS = 100
POLICY = ('# ktap-metric-policy-json: {"name":"%s","regression":{"better":'
          '"higher","compare":"p50","relative_tolerance":0.05},'
          '"summarize":"distribution"}')


def write_log(name, i, rng):
    """Run @i: throughput (a step down at run 60), a rare series every
    tenth run, latency in every run."""
    lines = ["KTAP version 1", "1..1"]
    series = [("throughput", 100 if i < 60 else 80), ("latency", 5)]
    if i % 10 == 0:
        series.append(("rare", 40))
    for metric, level in series:
        lines.append(POLICY % metric)
        for k in range(3):
            v = level * (1 + 0.03 * rng.gauss(0, 1))
            lines.append('# ktap-metric-json: {"name":"%s","shape":"scalar",'
                         '"time":%d,"value":%.6f}' % (metric, k + 1, v))
    lines.append("ok 1 tcp")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def ingest(db, runner, i, path):
    # --create with the first run: ingest starts a history only when asked
    expect_rc(0, "ingest", "-q", "--db", db, "--run", f"{runner}-{i:03d}",
              "--order", f"{i:03d}", "--context", f"runner={runner}",
              *(["--create"] if i == 0 else []), path)


def judge(db, runner, path):
    """compare --db of the next run, as JSON, judged twice (same verdict)."""
    outs = []
    for _ in range(2):
        rc, out, err = cli_util.run("compare", "--db", db, "--context", f"runner={runner}",
                                    "--order", f"{RUNS:03d}", "--format", "json", path)
        assert rc in (0, 1), (rc, err)
        outs.append(out)
    assert outs[0] == outs[1]
    return outs[0]


def points(db, runner, series):
    out, _ = expect_rc(0, "history", "--db", db, "--context", f"runner={runner}",
                       "--format", "json", "--last", "1000", series)
    doc = json.loads(out)
    return sum(len(s["points"]) for s in doc["series"])


def build(db, runner, pin):
    rng = random.Random(45)
    for i in range(RUNS):
        ingest(db, runner, i, write_log(f"{runner}{i}.log", i, rng))
        if i < 5:       # another machine, five runs only
            ingest(db, runner + "-b", i, write_log(f"{runner}b{i}.log", i, rng))
        if i == 62:     # the step at 60 is intended
            expect_rc(0, "accept", "--db", db, f"{runner}-062")
    if pin:
        expect_rc(0, "pin", "--db", db, f"{runner}-090")
    return write_log(f"{runner}-next.log", RUNS, rng)


def prune_keeps_verdicts(runner, pin):
    db = URL or os.path.join(TMP, f"{runner}.sqlite")
    nxt = build(db, runner, pin)
    copy = None
    if not URL:
        copy = os.path.join(TMP, f"{runner}-unpruned.sqlite")
        shutil.copyfile(db, copy)
    before = judge(db, runner, nxt)
    n_tp, n_rare = points(db, runner, "throughput"), points(db, runner, "rare")
    assert n_tp == RUNS and n_rare == RUNS // 10, (n_tp, n_rare)

    # Under what the gate reads: refused, nothing deleted.
    _, err = expect_rc(2, "prune", "--db", db, "--keep", "62")
    assert "keep at least 63" in err, err
    _, err = expect_rc(2, "prune", "--db", db, "--keep", "63", "--window", "100")
    assert "keep at least 100" in err, err
    assert points(db, runner, "throughput") == RUNS

    out, _ = expect_rc(0, "prune", "--db", db, "--keep", "63", "--dry-run")
    assert out.startswith("would prune "), out
    would = int(out.split()[2])
    assert points(db, runner, "throughput") == RUNS
    out, _ = expect_rc(0, "prune", "--db", db, "--keep", "63")
    assert out.startswith("pruned "), out
    pruned = int(out.split()[1])
    assert pruned == would and pruned > 0, (pruned, would, out)
    # What stays: the newest 63 usable throughput results (runs 60 and 61
    # regressed, unusable, so they reach back to run 35; up to the pin at
    # run 90 back to run 26) and the rare series' own results (one run in
    # ten): 65 + runs 0, 10, 20, 30, or 74 + runs 0, 10, 20.
    after_tp = points(db, runner, "throughput")
    assert after_tp == (77 if pin else 69), after_tp
    assert points(db, runner, "rare") == n_rare
    assert points(db, runner + "-b", "throughput") == 5

    after = judge(db, runner, nxt)
    assert after == before, f"verdicts changed by prune:\n{before}\n---\n{after}"
    # A second prune finds nothing more to delete.
    out, _ = expect_rc(0, "prune", "--db", db, "--keep", "63")
    assert out.startswith("pruned 0 runs"), out

    if copy:    # ingest of the next run stores the same verdicts
        for d in (db, copy):
            ingest(d, runner, RUNS, nxt)
        got = []
        for d in (db, copy):
            out, _ = expect_rc(0, "history", "--db", d, "--context", f"runner={runner}",
                               "--format", "json", "--last", "1", "throughput")
            got.append(json.loads(out)["series"][0]["points"][-1])
        assert got[0] == got[1], got


def test_prune_keeps_verdicts():
    prune_keeps_verdicts("prune", False)


def test_prune_keeps_verdicts_pinned():
    prune_keeps_verdicts("prunepin", True)


def test_prune_usage():
    out, _ = expect_rc(0, "prune", "--help")
    assert out.startswith("usage: ksft-metric prune"), out
    expect_rc(2, "prune", "--keep", "63")               # no --db
    expect_rc(2, "prune", "--db", DB)                   # no --keep
    expect_rc(2, "prune", "--db", DB, "--keep", "0")


if __name__ == "__main__":
    try:
        sys.exit(cli_util.run_tests(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
