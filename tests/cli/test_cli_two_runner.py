#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A recorded two-runner CI loop, replayed as CI runs it (issue 40's
done-when, on real runs): two runners, each its own network namespace,
took turns with `iperf-selftest --loopback --time 2 --repeat 3` on a quiet
machine, 8 unchanged runs each, then 12 each capped by tbf at 65 % of the
runner's median (bench/record/record_two_runner.sh; the recording is
bench/corpus/two-runner-quiet-d35-2026-12-07.tar.xz, about -37 % on 8 %
run-to-run noise: 4.6-4.8 sd). Every run in time order is judged by
`compare --db` with its runner's context (twice: the same exit and rows),
then stored by `ingest`.

Asserted: no unchanged run fails; each runner's forward throughput is
flagged within its first 4 regressed runs (7 before issue 40's fifth
pass; before the held runs' pooled block, never in 12); once flagged, every later regressed run fails too;
and the regressed runs never enter that series' window (its baseline
is at most the runner's 8 unchanged runs: before the held-out rule went in
time order, the capped runs became most of the window and its level).

A second recording (two-runner-quiet2-d35, made for issue 40's fourth
pass and not tuned on) holds the issue's own loop on runner r2: -37 % on
2.9 % noise, 12.6 sd. Its FIRST_BY is given per runner: r2 by its 2nd
regressed run (before the fourth pass, the 9th: the mean of the repeat
variances took two halved repeats, which the p50 ignores, for noise, and
two capped runs 6 % apart made the recent-runs block a t with one degree
of freedom). Its r1 (-37 % on 8.2 % noise, 4.5 sd) by its 4th (the 6th
before the fifth pass shrank the drift's lag-1 correlation by its own
noise in the recent-runs test).

A third (two-runner-quiet3-d20, made for the fifth pass, not tuned on):
r2's -25 % at 6 sd of its own noise by the 2nd run (before: never in 12;
its window kept 7 runs and the held runs' pooling wanted 8). Its r1 (1.4
sd) is printed, not asserted (RUNNER=-): one run of it fails, on another
series, and the forward throughput stays unproven.

With $KSFTM_HISTORY_URL (tests/pg/history_pg.sh starts a real
PostgreSQL server) the loop is replayed on SQLite and on PostgreSQL, and
every run's exit and verdicts must be the same on both (the issue's loop
ran on both).

usage: test_cli_two_runner.py KSFT_METRIC RECORDING.tar.xz [RUNNER=FIRST_BY|-...]
"""

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

KM = os.path.abspath(sys.argv[1])
REC = os.path.abspath(sys.argv[2])
FIRST_BY = 7
PG = os.environ.get("KSFTM_HISTORY_URL")  # history_pg.sh starts a server
# RUNNER=- : that runner's alarms are printed, not asserted (its unchanged runs are).
FIRST_BY_RUNNER = dict((a.split("=")[0], None if a.split("=")[1] == "-" else int(a.split("=")[1]))
                       for a in sys.argv[3:])


def judge(db, log, runner, order):
    r = subprocess.run([KM, "compare", "--db", db, "--first-run", "--context",
                        "runner=" + runner, "--order", order, "--format", "json", log],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), (log, r.returncode, r.stderr)
    rows = json.loads(r.stdout)["rows"]
    return r.returncode, rows


def replay(rec, runs, db):
    """Judge each run in time order (twice), then ingest it; @return each
    runner's tallies and every run's (exit, verdict of each row)."""
    seen, verdicts = {}, []
    for nnn, runner, phase, _ in runs:
        log = os.path.join(rec, "%s-%s.log" % (nnn, runner))
        rc, rows = judge(db, log, runner, nnn)
        rc2, rows2 = judge(db, log, runner, nnn)
        assert (rc, rows) == (rc2, rows2), "%s: judged twice, two answers" % log
        verdicts.append((rc, [(r["case"], r["name"], r["verdict"]) for r in rows]))
        fwd = [r for r in rows if r["case"] == "iperf.forward" and r["name"] == "throughput"]
        assert len(fwd) == 1, fwd
        st = seen.setdefault(runner, {"unchanged": 0, "regressed": [], "first": None})
        if phase == "unchanged":
            assert rc == 0, "%s: an unchanged run failed: %s" % (log, [
                (r["case"], r["name"], r["verdict"]) for r in rows if r["fails"]])
            st["unchanged"] += 1
        else:
            st["regressed"].append((rc, fwd[0]["verdict"]))
            if rc == 1 and st["first"] is None:
                st["first"] = len(st["regressed"])
            # The capped runs stay out of the forward window (an
            # unchanged run that looked worse may be held out too).
            assert fwd[0]["baseline_runs"] <= st["unchanged"], (log, fwd[0]["baseline_runs"])
        subprocess.run([KM, "ingest", "--db", db, "--create", "--context", "runner=" + runner,
                        "--run", nnn, "--order", nnn, "-q", log], check=True,
                       capture_output=True)
    return seen, verdicts


def main():
    tmp = tempfile.mkdtemp(prefix="ksft-metric-two-runner-")
    try:
        with tarfile.open(REC) as t:
            t.extractall(tmp, filter="data") if hasattr(tarfile, "data_filter") else t.extractall(tmp)
        (top,) = os.listdir(tmp)
        rec = os.path.join(tmp, top)
        runs = [l.split() for l in open(os.path.join(rec, "index.tsv")) if not l.startswith("#")]
        assert len(runs) == 40, len(runs)
        seen, verdicts = replay(rec, runs, os.path.join(tmp, "h.sqlite"))
        if PG:
            # The same loop on a real PostgreSQL server: the same verdicts, run by run.
            _, verdicts_pg = replay(rec, runs, PG)
            assert verdicts_pg == verdicts, [
                (runs[i][0], a, b) for i, (a, b) in enumerate(zip(verdicts, verdicts_pg)) if a != b]
            print("PostgreSQL: the same %d verdicts as SQLite" % len(verdicts))
        for runner, st in sorted(seen.items()):
            print("%s: %d unchanged, first alarm at regressed run %s of %d: %s" % (
                runner, st["unchanged"], st["first"], len(st["regressed"]),
                " ".join(v for _, v in st["regressed"])))
            assert st["unchanged"] == 8 and len(st["regressed"]) == 12, st
            by = FIRST_BY_RUNNER.get(runner, FIRST_BY)
            if by is None:
                continue
            assert st["first"] is not None and st["first"] <= by, (runner, st["first"], by)
            later = st["regressed"][st["first"] - 1:]
            assert all(rc == 1 and v == "regression" for rc, v in later), (runner, later)
        print("ok: two recorded runners, each flagged within %s regressed runs, "
              "no unchanged run failed" % (FIRST_BY_RUNNER or FIRST_BY))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
