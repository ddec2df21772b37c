#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-metric ingest / history / compare --db / accept / pin end to end,
against a SQLite file, or the PostgreSQL server in $KSFTM_HISTORY_URL
(history_pg.sh starts one): the loop a CI runs, exit statuses, the
history's change points, refusals that write nothing, --host-context and
--base-dir. Each test keeps to its own runner=... context, so the tests
share one database without seeing each other's runs.

usage: test_cli_history.py KSFT_METRIC MAKE_LOG
"""

import json
import re
import os
import random
import shutil
import subprocess
import sys
import tempfile

import cli_util
from cli_util import expect_rc

KSFT, MAKE_LOG = (os.path.abspath(a) for a in sys.argv[1:3])
cli_util.KSFT = KSFT
TMP = tempfile.mkdtemp(prefix="ksft-metric-history-")
DB = os.environ.get("KSFTM_HISTORY_URL") or os.path.join(TMP, "history.sqlite")

POLICY = ('# ktap-metric-policy-json: {"name":"throughput","regression":{"better":'
          '"higher","compare":"p50","relative_tolerance":0.05},'
          '"summarize":"distribution"}\n')



def unwrap(out):
    """The text's lines, a verdict's sentence joined with its continuation
    lines (issue 34: wrapped to the width, indented by two)."""
    lines = []
    for ln in out.splitlines():
        if ln.startswith("  ") and lines and re.match(r"[A-Z ]+: ", lines[-1]):
            lines[-1] += " " + ln.strip()
        else:
            lines.append(ln)
    return lines

def write_log(name, level, rng, repeats=3, status="ok", case="tcp"):
    """A KTAP log with @repeats throughput points around @level (3% noise)."""
    lines = ["KTAP version 1", "1..1", POLICY.rstrip("\n")]
    for k in range(repeats):
        v = level * (1 + 0.03 * rng.gauss(0, 1))
        lines.append('# ktap-metric-json: {"name":"throughput","shape":"scalar",'
                     f'"time":{k + 1},"value":{v:.6f}}}')
    lines.append(f"{status} 1 {case}")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def ingest(runner, run_id, path, *extra):
    out, _ = expect_rc(0, "ingest", "--create", "--db", DB, "--run", f"{runner}-{run_id}",
                       "--order", run_id, "--context", f"runner={runner}", *extra, path)
    return out


def history_json(runner, series="throughput"):
    out, _ = expect_rc(0, "history", "--db", DB, "--context", f"runner={runner}",
                       "--format", "json", series)
    return json.loads(out)


def test_help():
    for cmd in ("ingest", "history", "accept", "pin"):
        out, _ = expect_rc(0, cmd, "--help")
        assert out.startswith(f"usage: ksft-metric {cmd}"), out
    expect_rc(2, "ingest", "--create", write_log("h.log", 100, random.Random(1)))     # no --db
    expect_rc(2, "history")
    expect_rc(2, "accept", "--db", DB)
    expect_rc(2, "pin", "--db", DB, "a", "b")
    # --baseline and --db are either-or
    log = write_log("h.log", 100, random.Random(1))
    expect_rc(2, "compare", "--db", DB, "--baseline", log, log)
    _, err = expect_rc(2, "compare", "--db", DB, "--window", "0", log)
    assert "--window" in err, err
    _, err = expect_rc(2, "compare", "--db", DB, "--fdr", "0.9", log)
    assert "--fdr" in err, err


def test_ci_loop():
    """Unchanged runs say no change; a 25% drop is a regression (exit 1)
    that stays out of the baseline until accepted. (With 12 runs of history
    and the residuals' heavy tail, GATE_TAIL_DF, a 20% drop at 2.6% noise
    is only "too noisy": p 0.0125; issue 22.)"""
    rng = random.Random(7)
    r = "loop"
    for i in range(12):
        out = ingest(r, f"{i:03d}", write_log(f"loop{i}.log", 100, rng))
        assert f"ingested run {r}-{i:03d}: 1 series" in out, out
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", f"runner={r}",
                       write_log("cur.log", 100, rng))
    assert "NO CHANGE" in out and "RESULT: OK" in out, out
    slow = write_log("slow.log", 75, rng)
    out, _ = expect_rc(1, "compare", "--db", DB, "--context", f"runner={r}", slow)
    assert "REGRESSION" in out, out
    out, _ = expect_rc(1, "compare", "--db", DB, "--context", f"runner={r}",
                       "--format", "json", slow)
    row = json.loads(out)["rows"][0]
    assert row["verdict"] == "regression" and row["baseline_runs"] == 12, row
    assert -30 < row["change_pct"] < -20, row
    # Stored: judged a regression, and not a baseline for the next run.
    ingest(r, "012", slow)
    ingest(r, "013", write_log("slow2.log", 75, rng))
    doc = history_json(r)
    states = [p["state"] for p in doc["series"][0]["points"]]
    assert states[-2:] == ["regression", "regression"], states
    expect_rc(1, "compare", "--db", DB, "--context", f"runner={r}",
              write_log("slow3.log", 75, rng))
    out, _ = expect_rc(0, "accept", "--db", DB, f"{r}-012")
    assert f"accepted run {r}-012 as the new level of 1 series" in out, out
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", f"runner={r}",
                       write_log("slow4.log", 75, rng))
    # two runs at the new level: too few to know its noise, never a failure
    assert "REGRESSION" not in out and "RESULT: OK" in out, out
    _, err = expect_rc(2, "accept", "--db", DB, "no-such-run")
    assert "no-such-run is not in the history" in err, err


def missing_db():
    """A history path (or URL) that holds nothing: a file never written, or
    on the server a database that does not exist."""
    if "://" in DB:
        return DB.replace("/ksftm_test?", "/ksftm_no_such_db?")
    return os.path.join(TMP, "no-such-history.sqlite")


def empty_db():
    """A history with its tables and no run: what a fresh database holds
    after a reader opened it."""
    if "://" in DB:
        bindir = sorted(os.listdir("/usr/lib/postgresql"))[-1]
        psql = [f"/usr/lib/postgresql/{bindir}/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", DB]
        subprocess.run(psql + ["-c", "DROP DATABASE IF EXISTS ksftm_empty"], check=True,
                       capture_output=True, timeout=120)
        subprocess.run(psql + ["-c", "CREATE DATABASE ksftm_empty"], check=True,
                       capture_output=True, timeout=120)
        url = DB.replace("/ksftm_test?", "/ksftm_empty?")
    else:
        import sqlite3
        url = os.path.join(TMP, "empty.sqlite")
        con = sqlite3.connect(url)
        con.execute("CREATE TABLE unrelated (x INTEGER)")
        con.commit()
        con.close()
    # Reading a database without a history sets up its (empty) tables.
    expect_rc(0, "history", "--db", url)
    return url


def test_fail_loudly_missing_history():
    """A mistyped --db fails every reading command (exit 2, the path named)
    and creates nothing; --first-run judges all NEW, still creating nothing."""
    db = missing_db()
    log = write_log("loud.log", 100, random.Random(5))
    page = os.path.join(TMP, "loud.html")
    for args in (["compare", "--db", db, log], ["history", "--db", db],
                 ["html", "-o", page, "--db", db, log], ["report", "--db", db, log],
                 ["accept", "--db", db, "run-1"], ["pin", "--db", db, "run-1"]):
        _, err = expect_rc(2, *args)
        assert ("no-such" in err or "no_such" in err) and ("no run history there" in err or
                                     "does not exist" in err), (args, err)
    if "://" not in DB:
        assert not os.path.exists(db), db
    assert not os.path.exists(page)
    out, _ = expect_rc(2, "compare", "--db", db, "--format", "json", log)
    doc = json.loads(out)
    assert doc["result"] == "error" and [r["verdict"] for r in doc["rows"]] == ["no_history"], doc
    if "://" in DB:
        return      # a server's missing database cannot be a first run's
    out, _ = expect_rc(0, "compare", "--db", db, "--first-run", log)
    assert "NEW" in out and "RESULT: OK" in out, out
    expect_rc(0, "html", "-o", page, "--db", db, "--first-run", log)
    assert not os.path.exists(db), db


def test_fail_loudly_empty_history():
    db = empty_db()
    log = write_log("loud.log", 100, random.Random(5))
    _, err = expect_rc(2, "compare", "--db", db, "--context", "runner=first", log)
    assert "holds no run" in err and "--first-run" in err, err
    out, _ = expect_rc(0, "compare", "--db", db, "--context", "runner=first", "--first-run", log)
    assert "NEW" in out, out


def test_fail_loudly_wrong_context():
    """The history holds the series under runner=loud: a mistyped context
    fails, naming the one found; the right one judges; --first-run says NEW."""
    rng = random.Random(13)
    r = "loud"
    for i in range(3):
        ingest(r, f"{i:03d}", write_log(f"loud{i}.log", 100, rng))
    log = write_log("loudcur.log", 100, rng)
    _, err = expect_rc(2, "compare", "--db", DB, "--context", "runner=laud", log)
    assert "is comparable with this run" in err and "runner=loud (3 runs)" in err, err
    out, _ = expect_rc(2, "compare", "--db", DB, "--context", "runner=laud", "--format", "json",
                       log)
    doc = json.loads(out)
    assert doc["result"] == "error" and "runner=loud (3 runs)" in doc["error"], doc
    assert [r["verdict"] for r in doc["rows"]] == ["no_history"], doc
    _, err = expect_rc(2, "report", "--db", DB, "--context", "runner=laud", log)
    assert "runner=loud (3 runs)" in err, err
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", "runner=laud", "--first-run", log)
    assert "NEW" in out and "RESULT: OK" in out, out
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", f"runner={r}", log)
    assert "NO CHANGE" in out, out
    # --tolerance and --alpha belong to --baseline files: with --db they
    # would be ignored, so they are refused, and nothing is judged.
    for cmd, opt in (("compare", ["--tolerance", "1%"]), ("compare", ["--alpha", "0.05"]),
                     ("report", ["-t", "5"]), ("html", ["-o", os.path.join(TMP, "t.html"),
                                                       "--alpha", "0.05"])):
        out, err = expect_rc(2, cmd, "--db", DB, "--context", f"runner={r}", *opt, log)
        assert "is for --baseline files" in err and not out, (cmd, out, err)
        assert not os.path.exists(os.path.join(TMP, "t.html"))


def test_mis_set_ingest_refused():
    """Issue 40, item 7: ingest never starts a history without --create (a
    mistyped --db), refuses a run whose context lacks the runner= key every
    other run of its series has (a forgotten or mistyped --context key)
    unless --new-context, and says a new machine aloud; a compare that
    forgot --context is refused (exit 2) even when an orphan run of its
    bare context was stored, instead of judging against that orphan."""
    rng = random.Random(40)
    log = write_log("orph.log", 100, rng, case="orphcase")
    # A mistyped path: refused, nothing created; --create starts one.
    if "://" in DB:
        db = empty_db()
    else:
        db = os.path.join(TMP, "orph-typo.sqlite")
    _, err = expect_rc(2, "ingest", "--db", db, "--context", "runner=x", log)
    assert "--create" in err and ("no run history there" in err or "holds no run" in err), err
    if "://" not in DB:
        assert not os.path.exists(db), db
    expect_rc(0, "ingest", "--db", db, "--create", "--context", "runner=x", log)
    r = "orph"
    for i in range(6):
        ingest(r, f"{i:03d}", write_log(f"orph{i}.log", 100, rng, case="orphcase"))
    for args in ([], ["--context", "runenr=orph"]):
        _, err = expect_rc(2, "ingest", "--db", DB, *args, log)
        assert "this run's context has no runner" in err and "runner=orph (6 runs)" in err \
            and "--new-context" in err, err
    out, _ = expect_rc(0, "history", "--db", DB, "--format", "json", "orphcase")
    assert len(json.loads(out)["series"][0]["points"]) == 6, out
    # Said to be intended: stored, and the other machine named.
    _, err = expect_rc(0, "ingest", "--db", DB, "--new-context", log)
    assert "warning: this run's context has no runner" in err, err
    # A compare that forgot --context does not judge against that orphan.
    cur = write_log("orphcur.log", 100, rng, case="orphcase")
    for _ in range(2):
        out, err = expect_rc(2, "compare", "--db", DB, cur)
        assert "this run's context has no runner" in err and "1 run there is comparable" in err \
            and "runner=orph (6 runs)" in err, err
        out, _ = expect_rc(2, "compare", "--db", DB, "--format", "json", cur)
        assert json.loads(out)["result"] == "error", out
        out, _ = expect_rc(0, "compare", "--db", DB, "--context", f"runner={r}", cur)
        assert "RESULT: OK" in out, out
    # A mistyped value looks like a new machine: stored, said aloud.
    _, err = expect_rc(0, "ingest", "--db", DB, "--context", "runner=orhp", cur)
    assert "warning: no run in history" in err and "runner=orph (6 runs)" in err, err


def test_bisect_exit_status():
    """compare --bisect: 0 no regression, 1 regression, 125 cannot tell
    (here: a series that is NEW, or too few runs), 128 an error."""
    rng = random.Random(17)
    r = "bisect"
    for i in range(12):
        ingest(r, f"{i:03d}", write_log(f"bis{i}.log", 100, rng))
    ctx = ["--db", DB, "--context", f"runner={r}", "--bisect"]
    expect_rc(0, "compare", *ctx, write_log("bisgood.log", 100, rng))
    expect_rc(1, "compare", *ctx, write_log("bisbad.log", 70, rng))
    expect_rc(125, "compare", "--db", DB, "--context", "runner=bisect-new", "--first-run",
              "--bisect", write_log("bisnew.log", 100, rng))
    expect_rc(128, "compare", *ctx, os.path.join(TMP, "no-such.log"))
    expect_rc(128, "compare", "--db", missing_db(), "--bisect", write_log("bisx.log", 100, rng))
    # against baseline files too
    base = os.path.join(TMP, "bis-base.json")
    expect_rc(0, "save", "-o", base, write_log("bisbase.log", 100, rng, repeats=5))
    expect_rc(0, "compare", "--baseline", base, "--bisect",
              write_log("bisgood2.log", 100, rng, repeats=5))
    expect_rc(1, "compare", "--baseline", base, "--bisect",
              write_log("bisbad2.log", 50, rng, repeats=5))


FAR_POLICY = ('# ktap-metric-policy-json: {"name":"throughput","regression":{"better":'
              '"higher","compare":"p50","relative_tolerance":0.05},"summarize":"p50"}\n'
              '# ktap-metric-policy-json: {"name":"cost","regression":{"better":"lower",'
              '"compare":"p50","relative_tolerance":0.10},"summarize":"p50"}\n')


def write_far(name, tput, cost):
    """One run of a very noisy throughput and its CPU cost per byte."""
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("KTAP version 1\n1..1\n" + FAR_POLICY)
        for n, v in (("throughput", tput), ("cost", cost)):
            f.write('# ktap-metric-json: {"name":"%s","shape":"scalar","time":1,'
                    '"value":%r}\n' % (n, v))
        f.write("ok 1 tcp\n")
    return path


def test_far_outside_and_blind():
    """Issue 31 items 11 and 12. A loaded VM's 15 runs (throughput 0.8-20
    Gbit/s, cost 0.3-1.17 s/GB): a run costing 3.7 s/GB, far beyond the
    worst the series has shown, is a regression whatever the noise model
    says (exit 1, --bisect 1); the throughput, which no run could fail, is
    named CANNOT BE GATED in text, JSON and HTML, and what it would need
    is said without an impossible change. Twice, the same verdicts."""
    rng = random.Random(3)
    r = "far"
    tput = [0.8, 20] + [rng.uniform(0.8, 20) for _ in range(13)]
    rng.shuffle(tput)
    for i, t in enumerate(tput):
        # cost: runs cheap or four times dearer, the worst 1.17
        c = 1.17 if i == 4 else rng.choice([0.2, 0.25, 1.0, 1.17])
        ingest(r, f"{i:03d}", write_far(f"far{i}.log", t, c))
    ctx = ["--db", DB, "--context", f"runner={r}"]
    for _ in range(2):
        out, _ = expect_rc(1, "compare", *ctx, write_far("far-bad.log", 9.0, 3.7))
        # Issue 34: the case once above its rows, the metric whole in its row.
        assert re.search(r"^tcp$", out, re.M) and re.search(r"^  cost .* REGRESSION", out, re.M), out
        expect_rc(1, "compare", *ctx, "--bisect", write_far("far-bad.log", 9.0, 3.7))
        # An unchanged run: nothing fails, but the page is not green.
        out, _ = expect_rc(0, "compare", *ctx, write_far("far-ok.log", 9.0, 0.8))
        blind = [ln for ln in unwrap(out) if ln.startswith("CANNOT BE GATED: tcp throughput")]
        assert blind and "no run can fail it here" in blind[0], out
        assert "RESULT: OK, BUT 1 SERIES CANNOT BE GATED HERE" in out, out
        for line in out.splitlines():
            # Issue 31 item 12: never a drop of 100 % or more, never "no number of".
            assert "no number of" not in line, line
            for m in re.findall(r"-(\d+(?:\.\d+)?)%", line):
                assert float(m) < 100, line
        assert re.search(r"a lasting -5\.0% (needs about \d+ runs|would not show)", blind[0]), out
        out, _ = expect_rc(0, "compare", *ctx, "--format", "json",
                           write_far("far-ok.log", 9.0, 0.8))
        doc = json.loads(out)
        assert doc["cannot_gate"] == 1, doc
        row = [x for x in doc["rows"] if x["name"] == "throughput"][0]
        assert row["needs"]["blind"] is True and row["needs"]["smallest_change_pct"] is None, row
        assert row["needs"]["text"] in blind[0], row
        cost = [x for x in doc["rows"] if x["name"] == "cost"][0]
        assert cost["needs"]["blind"] is False and cost["needs"]["smallest_change_pct"] > 0, cost
        html = os.path.join(TMP, "far.html")
        expect_rc(0, "html", *ctx, "-o", html, write_far("far-ok.log", 9.0, 0.8))
        with open(html, encoding="utf-8") as f:
            page = f.read()
        assert '<div class="needs blind">CANNOT BE GATED: ' in page, page[-3000:]
        assert '<p class="blind">1 series cannot be gated here' in page
        assert 'class="good"' not in page


def test_history_change_points():
    rng = random.Random(11)
    r = "cp"
    for i in range(30):
        ingest(r, f"{i:03d}", write_log(f"cp{i}.log", 100 if i < 20 else 70, rng))
    doc = history_json(r)
    assert doc["format"] == "ksft-metric-history", doc
    s = doc["series"][0]
    assert s["better"] == "higher" and s["compare"] == "p50", s
    assert len(s["points"]) == 30, len(s["points"])
    assert [c["run"] for c in s["changes"]] == [f"{r}-020"], s["changes"]
    assert -35 < s["changes"][0]["change_pct"] < -25, s["changes"]
    out, _ = expect_rc(0, "history", "--db", DB, "--context", f"runner={r}", "throughput")
    assert f"change point at run {r}-020" in out, out
    out, _ = expect_rc(0, "history", "--db", DB, "--context", f"runner={r}", "--format",
                       "csv", "--last", "5", "throughput")
    rows = out.strip().split("\r\n")
    assert rows[0] == "series,run,order,value,status,state,change_point,unit,scale", rows[0]
    assert len(rows) == 6, rows
    out, _ = expect_rc(0, "history", "--db", DB, "--context", "runner=nobody")
    assert "no series in the history match" in out, out


def test_refusals_write_nothing():
    rng = random.Random(3)
    r = "refuse"
    ingest(r, "000", write_log("ok.log", 100, rng))
    _, err = expect_rc(2, "ingest", "--create", "--db", DB, "--run", f"{r}-000", "--context",
                       f"runner={r}", write_log("again.log", 100, rng))
    assert f"run {r}-000 is already in the history" in err, err
    _, err = expect_rc(2, "ingest", "--create", "--db", DB, "--run", f"{r}-001", "--context",
                       "=novalue", write_log("x.log", 100, rng))
    assert "--context '=novalue' is not KEY=VALUE" in err, err
    _, err = expect_rc(2, "ingest", "--create", "--db", DB, "--run", f"{r}-001", "--context",
                       f"runner={r}", os.path.join(TMP, "missing.log"))
    assert "missing.log" in err, err
    doc = history_json(r)
    assert len(doc["series"][0]["points"]) == 1, doc


def test_failed_cases_do_not_feed_baselines():
    rng = random.Random(5)
    r = "failing"
    for i in range(8):
        ingest(r, f"{i:03d}", write_log(f"f{i}.log", 100, rng))
    for i in range(8, 12):     # failing cases at a broken level
        ingest(r, f"{i:03d}", write_log(f"f{i}.log", 10, rng, status="not ok"))
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", f"runner={r}", "--format",
                       "json", write_log("fcur.log", 100, rng))
    row = json.loads(out)["rows"][0]
    assert row["verdict"] == "no_change" and row["baseline_runs"] == 8, row
    doc = history_json(r)
    assert len(doc["series"][0]["points"]) == 8      # passed ones only by default
    out, _ = expect_rc(0, "history", "--db", DB, "--context", f"runner={r}",
                       "--all-status", "--format", "json")
    assert len(json.loads(out)["series"][0]["points"]) == 12


def test_pin():
    rng = random.Random(9)
    r = "pin"
    for i in range(8):
        ingest(r, f"{i:03d}", write_log(f"p{i}.log", 100, rng))
    out, _ = expect_rc(0, "pin", "--db", DB, f"{r}-007")
    assert out.startswith(f"pinned run {r}-007: windows"), out
    for i in range(8, 40):
        ingest(r, f"{i:03d}", write_log(f"p{i}.log", 130, rng))
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", f"runner={r}",
                       write_log("pcur.log", 130, rng))
    assert "IMPROVEMENT" in out, out
    expect_rc(0, "pin", "--db", DB, "--unpin", f"{r}-007")
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", f"runner={r}",
                       write_log("pcur2.log", 130, rng))
    assert "NO CHANGE" in out, out


def test_not_comparable():
    rng = random.Random(13)
    r = "debug"
    for i in range(8):
        ingest(r, f"{i:03d}", write_log(f"d{i}.log", 100, rng))
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", f"runner={r}", "--context",
                       "debug_kernel=true", write_log("dcur.log", 50, rng))
    assert "NOT COMPARABLE" in out and "RESULT: OK" in out, out



def test_placement_is_comparable_context():
    """Runs pinned elsewhere are another quantity: a run whose placement
    differs from every stored run's has no baseline (issue 21)."""
    rng = random.Random(17)
    r = "place"
    for i in range(8):
        ingest(r, f"{i:03d}", write_log(f"pl{i}.log", 100, rng), "--context",
               "placement=server:1,client:0")
    out, _ = expect_rc(1, "compare", "--db", DB, "--context", f"runner={r}", "--context",
                       "placement=server:1,client:0", write_log("plcur.log", 50, rng))
    assert "REGRESSION" in out, out
    # No comparable run, the series stored under another placement: an
    # error naming it (issue 22), unless this placement's history starts here.
    _, err = expect_rc(2, "compare", "--db", DB, "--context", f"runner={r}", "--context",
                       "placement=none", write_log("plcur2.log", 50, rng))
    assert "placement=server:1,client:0 (8 runs)" in err, err
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", f"runner={r}", "--context",
                       "placement=none", "--first-run", write_log("plcur2.log", 50, rng))
    assert "REGRESSION" not in out and "RESULT: OK" in out, out

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def write_twister(name, mbps):
    """tests/cli/data/twister.json with udp4_mbps recorded as @mbps."""
    with open(os.path.join(DATA, "twister.json"), encoding="utf-8") as f:
        doc = json.load(f)
    doc["testsuites"][0]["recording"][0] = {"udp4_mbps": f"{mbps:.4f}"}
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path


def write_zperf(name, mbps):
    """tests/cli/data/console.log with udp4_mbps=@mbps (no KTAP status)."""
    with open(os.path.join(DATA, "console.log"), encoding="utf-8") as f:
        text = f.read()
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace("udp4_mbps=13.099", f"udp4_mbps={mbps:.4f}"))
    return path


def udp4_row(out):
    return next(r for r in json.loads(out)["rows"] if r["name"] == "udp4_mbps")


def test_twister_default_tolerance():
    """zperf/twister series without a policy are gated within the 5 %
    compare --baseline applies: a 0.008 % drop against steady runs is no
    regression, a 10 % one is."""
    r = "twister"
    for i in range(8):
        ingest(r, f"{i:03d}", write_twister(f"tw{i}.json", 13.099))
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", f"runner={r}", "--format",
                       "json", write_twister("twc.json", 13.098))
    row = udp4_row(out)
    assert row["verdict"] == "no_change" and row["baseline_runs"] == 8, row
    assert abs(row["allowance"] - 0.05 * 13.099) < 1e-9, row
    # the same allowance compare --baseline gives
    base = os.path.join(TMP, "twb.json")
    expect_rc(0, "save", "-o", base, write_twister("twb-run.json", 13.099))
    out, _ = expect_rc(0, "compare", "--baseline", base, "--format", "json",
                       write_twister("twc2.json", 13.098))
    assert abs(udp4_row(out)["allowance"] - row["allowance"]) < 1e-12, out
    out, _ = expect_rc(1, "compare", "--db", DB, "--context", f"runner={r}",
                       write_twister("twd.json", 13.099 * 0.9))
    assert "REGRESSION" in out, out


def test_zperf_results_feed_the_history():
    """zperf console results (status none) are measurements: they make the
    window, so a 50 % drop fails the gate."""
    r = "zperf"
    for i in range(8):
        ingest(r, f"{i:03d}", write_zperf(f"zp{i}.log", 13.0 + 0.01 * i))
    out, _ = expect_rc(1, "compare", "--db", DB, "--context", f"runner={r}", "--format",
                       "json", write_zperf("zpc.log", 6.5))
    row = udp4_row(out)
    assert row["verdict"] == "regression" and row["baseline_runs"] == 8, row
    # `history` shows them by default too
    doc = history_json(r, "udp4_mbps")
    assert len(doc["series"][0]["points"]) == 8, doc


def test_ids_must_be_text():
    """Run ids and orders that are not valid UTF-8 or hold control
    characters are refused (naming the field and byte, quoting them
    neutralised), by ingest, accept and pin; nothing is written."""
    rng = random.Random(23)
    r = "ids"
    ingest(r, "000", write_log("ids0.log", 100, rng))
    log = write_log("ids1.log", 100, rng)
    bad_utf8 = "r-bad\udcff"       # the byte 0xff on the command line
    cases = [
        (("--run", "r\x1b[2J", "--order", "001"), 'run id "r?[2J": control character 0x1b at byte 1'),
        (("--run", bad_utf8, "--order", "001"), 'run id "r-bad?": not valid UTF-8 at byte 5'),
        (("--run", f"{r}-001", "--order", "00\udcc3"), 'order "00?": not valid UTF-8 at byte 2'),
        (("--run", f"{r}-001", "--order", "0\u009b1"), 'order "0?1": control character 0x9b at byte 1'),
        (("--run", f"{r}-001", "--order", "0\n1"), 'order "0?1": control character 0x0a at byte 1'),
    ]
    for args, msg in cases:
        _, err = expect_rc(2, "ingest", "--create", "--db", DB, *args, "--context", f"runner={r}", log)
        assert msg in err, (args, err)
        assert "\x1b" not in err, err
    _, err = expect_rc(2, "accept", "--db", DB, "r\x1b[2J")
    assert 'run id "r?[2J": control character 0x1b at byte 1' in err, err
    _, err = expect_rc(2, "pin", "--db", DB, bad_utf8)
    assert 'run id "r-bad?": not valid UTF-8 at byte 5' in err, err
    assert len(history_json(r)["series"][0]["points"]) == 1


def test_foreign_ids_shown_neutralised():
    """A history another tool wrote with such ids: every run is shown
    (none dropped), the escapes as '?'."""
    if "://" in DB:
        return      # written with sqlite3 below
    import sqlite3
    db = os.path.join(TMP, "foreign.sqlite")
    rng = random.Random(29)
    for i in range(3):
        expect_rc(0, "ingest", "--create", "--db", db, "--run", f"run{i}", "--order", f"{i:03d}",
                  write_log(f"fo{i}.log", 100, rng))
    con = sqlite3.connect(db)
    con.text_factory = bytes
    con.execute("UPDATE ksftm_runs SET run_key = ? WHERE run_key = 'run1'", (b"r\x1b[2Jx",))
    con.execute("UPDATE ksftm_runs SET run_key = ? WHERE run_key = 'run2'", (b"bad\xff",))
    con.execute("UPDATE ksftm_results SET run_order = ? WHERE run_order LIKE '002%'", (b"002\xff",))
    con.commit()
    con.close()
    out, _ = expect_rc(0, "history", "--db", db, "-v")	# -v: each run, by its id
    assert "\x1b" not in out and "r?[2Jx" in out and "bad?" in out, out
    out, _ = expect_rc(0, "history", "--db", db, "--format", "json")
    runs = [p["run"] for p in json.loads(out)["series"][0]["points"]]
    assert runs == ["run0", "r?[2Jx", "bad?"], runs
    assert json.loads(out)["series"][0]["points"][2]["order"] == "002?", out


def test_real_producer_log_twice():
    """The issue's new user: the same realistic log (our producer's) judged
    against its own history says no change, never a regression."""
    log = os.path.join(TMP, "make.log")
    with open(log, "wb") as f:
        subprocess.run([MAKE_LOG], stdout=f, check=True, timeout=120)
    r = "producer"
    ingest(r, "000", log)
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", f"runner={r}", log)
    assert "REGRESSION" not in out and "RESULT: OK" in out, out


def test_host_context():
    rng = random.Random(17)
    r = "host"
    ingest(r, "000", write_log("host.log", 100, rng), "--host-context")
    p = history_json(r)["series"][0]["points"][0]
    assert p["context"]["hostname"] == os.uname().nodename, p
    assert p["context"]["runner"] == r, p
    # the default reads nothing of the ingesting host
    ingest(r, "001", write_log("host2.log", 100, rng))
    p = history_json(r)["series"][0]["points"][1]
    assert "hostname" not in p["context"], p


def write_cases(name, prefix, n, level):
    """A KTAP log of @n cases @prefix0.. with one throughput series each."""
    lines = ["KTAP version 1", f"1..{n}"]
    for k in range(n):
        lines += [POLICY.rstrip("\n"),
                  '# ktap-metric-json: {"name":"throughput","shape":"scalar",'
                  f'"time":1,"value":{level + k % 7}}}', f"ok {k + 1} {prefix}{k}"]
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def html_counted(*args):
    """ksft-metric html under the counting shim: (page, rows read from the
    database), rows None without the shim (run by hand)."""
    shim = os.environ.get("KSFT_COUNT_SHIM", "")
    counts = os.path.join(TMP, "counts.txt")
    page = os.path.join(TMP, "bound.html")
    env = dict(os.environ, KSFT_COUNT_OUT=counts)
    if shim:
        env["LD_PRELOAD"] = shim
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"
    if os.path.exists(counts):
        os.unlink(counts)
    p = subprocess.run([KSFT, "html", "-q", "-o", page, *args], env=env,
                       capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr
    rows = None
    if shim:
        with open(counts) as f:
            rows = dict(line.split() for line in f)["db_rows"]
        rows = int(rows)
    with open(page, encoding="utf-8") as f:
        return f.read(), rows


def test_last_counts_the_runs_shown():
    """Issue 40: history --context R --last N shows R's last N runs, even
    when other machines' runs came in between (--last used to count the
    runs read before the context filter); without --context, the trends
    that pool two machines say so (text NOTE, JSON "pooled_contexts", a
    warning and a note from site)."""
    rng = random.Random(41)
    for i in range(8):
        for r in ("lastA", "lastB"):
            expect_rc(0, "ingest", "--create", "--db", DB, "--run", f"{r}-{i:03d}", "--order",
                      f"{i:03d}{r}", "--context", f"runner={r}",
                      write_log(f"last{r}{i}.log", 100, rng, case="lastcase"))
    for _ in range(2):
        out, _ = expect_rc(0, "history", "--db", DB, "--context", "runner=lastA", "--last",
                           "5", "--format", "json", "lastcase")
        doc = json.loads(out)
        runs = [p["run"] for p in doc["series"][0]["points"]]
        assert runs == [f"lastA-{i:03d}" for i in range(3, 8)], runs
        assert doc["pooled_contexts"] == [], doc["pooled_contexts"]
        out, _ = expect_rc(0, "history", "--db", DB, "--context", "runner=lastA", "--last",
                           "5", "lastcase")
        assert "NOTE" not in out and re.search(r"throughput +5 ", out), out
    out, _ = expect_rc(0, "history", "--db", DB, "--last", "6", "--format", "json",
                       "lastcase")
    doc = json.loads(out)
    assert len(doc["series"][0]["points"]) == 6, doc
    assert doc["pooled_contexts"] == [{"runner": "lastA"}, {"runner": "lastB"}] or \
        doc["pooled_contexts"] == [{"runner": "lastB"}, {"runner": "lastA"}], doc
    out, _ = expect_rc(0, "history", "--db", DB, "lastcase")
    assert out.startswith("NOTE: these trends pool the runs of 2 machines (runner=last"), out
    assert "--context KEY=VALUE shows one machine's runs" in " ".join(out.split()), out
    if "://" in DB:
        return      # site draws every series of the shared server's history
    db = os.path.join(TMP, "pooled.sqlite")
    for i in range(3):
        for r in ("poolA", "poolB"):
            expect_rc(0, "ingest", "--db", db, "--create", "--run", f"{r}-{i}", "--context",
                      f"runner={r}", write_log(f"pool{r}{i}.log", 100, rng))
    site = os.path.join(TMP, "pooled-site")
    _, err = expect_rc(0, "site", "--db", db, "-o", site)
    assert "warning: the trends pool the runs of 2 machines (runner=pool" in err, err
    index = open(os.path.join(site, "index.html"), encoding="utf-8").read()
    assert "Note: these trends pool the runs of 2 machines" in index, index[:3000]
    _, err = expect_rc(0, "site", "--db", db, "--context", "runner=poolA", "-o", site,
                       "--force")
    assert "pool" not in err.replace("pooled-site", ""), err


def test_site_pages():
    """ksft-metric site on this backend (SQLite file or PostgreSQL): the
    runner's series get their pages, the pinned run is marked, the latest
    verdict is in the index (issue 23)."""
    r = "siterunner"
    rng = random.Random(23)
    for i in range(8):
        ingest(r, f"{i:03d}", write_log(f"site{i}.log", 100 if i < 6 else 70, rng),
               "--context", f"commit=feed{i}", "--context", "lab=rack1")
    expect_rc(0, "pin", "--db", DB, f"{r}-005")
    out = os.path.join(TMP, "site")
    expect_rc(0, "site", "-q", "--db", DB, "--context", f"runner={r}", "-o", out)
    pages = [n for n in os.listdir(out) if n.startswith("s-tcp-throughput")]
    assert len(pages) == 1, os.listdir(out)
    page = open(os.path.join(out, pages[0]), encoding="utf-8").read()
    assert page.count('<circle class="point') == 8 and 'class="pin"' in page, pages
    assert ">feed7</text>" in page and ">NO CHANGE, pinned" in page, page[-1500:]
    # Issue 34: a run's row shows only the context keys that differ between
    # runs; those every run shares are said once above the table.
    runs = re.findall(r'<tr id="run-\d+">.*?</tr>', page)
    assert len(runs) == 8, page[-3000:]
    for k, row in enumerate(runs):
        ctx = re.findall(r'<td class="meta">([^<]*)</td>', row)
        assert ctx == [f"commit=feed{7 - k}"], row
    common = re.search(r'<p class="meta common">Every run: ([^<]*)</p>', page)
    assert common and "lab=rack1" in common.group(1) and f"runner={r}" in common.group(1) \
        and "commit=" not in common.group(1), page[-3000:]
    index = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    assert f'href="{pages[0]}"' in index and 'class="verdict regression"' in index, index[-1500:]
    # The band is the gate's (history JSON "gate", gate_band.c): the level
    # and the lines where the latest run alone alarms, at the series' budget.
    gate = history_json(r)["series"][0]["gate"]
    assert gate["judged"] and gate["applies_to"] == "latest", gate
    assert gate["runs"] == 6 and gate["fresh"], gate    # windows end at the pin
    assert gate["alarm_worse"] < gate["level"] < gate["alarm_better"], gate
    assert 70 * 0.9 < 70 * 1.1 < gate["alarm_worse"], gate    # r7 (70) is beyond it
    band = re.search(r'<rect class="band"[^>]* data-level="([^"]+)" data-worse="([^"]+)" '
                     r'data-better="([^"]+)"><title>gate: a run beyond this line alarms on '
                     r'its own; noise sigma = ([0-9.]+) %', page)
    assert band, page[:3000]
    for got, key in zip(band.groups()[:3], ("level", "alarm_worse", "alarm_better")):
        assert abs(float(got) - gate[key]) <= 1e-9 * abs(gate[key]), (got, key, gate)
    assert abs(float(band.group(4)) - gate["sigma_pct"]) <= 0.01 * gate["sigma_pct"], gate
    assert "a run beyond alarms alone (noise sigma = " in page, page[-3000:]
    expect_rc(0, "pin", "--db", DB, "--unpin", f"{r}-005")
    # Too few runs: no band, and the chart says why.
    young = "siteyoung"
    for i in range(3):
        ingest(young, f"{i:03d}", write_log(f"young{i}.log", 100, rng))
    out = os.path.join(TMP, "site-young")
    expect_rc(0, "site", "-q", "--db", DB, "--context", f"runner={young}", "-o", out)
    page = open(os.path.join(out, pages[0]), encoding="utf-8").read()
    assert 'class="band"' not in page and 'class="key noband"' in page, page[-2000:]
    assert "gate: no band: 2 runs in the gate&apos;s window; it judges from 5 on" in page, \
        page[-2000:]


def test_site_band_only_in_view():
    """The band is shaded only where it says something (issue 34): on a
    steady series whose alarm lines lie far beyond its points, no shading
    over the plot, the gate's level line alone (its numbers in data-*), and
    the legend says no run in view alarms alone; shading never reaches
    past a line in view to the plot's edge."""
    r = "bandfar"
    rng = random.Random(5)
    for i in range(12):
        ingest(r, f"{i:03d}", write_log(f"far{i}.log", 100, rng))
    out = os.path.join(TMP, "site-far")
    for _ in range(2):      # the same page both times
        expect_rc(0, "site", "-q", "--db", DB, "--context", f"runner={r}", "-o", out)
        gate = history_json(r)["series"][0]["gate"]
        values = [p["value"] for p in history_json(r)["series"][0]["points"]]
        lo, hi = min(values), max(values)
        span = hi - lo
        assert gate["judged"], gate
        # the precondition: both lines beyond the points by more than half their span
        assert gate["alarm_worse"] < lo - span / 2 and gate["alarm_better"] > hi + span / 2, \
            (gate, lo, hi)
        page = [n for n in os.listdir(out) if n.startswith("s-tcp-throughput")][0]
        page = open(os.path.join(out, page), encoding="utf-8").read()
        assert '<rect class="band"' not in page and 'class="alarm"' not in page, page[:3000]
        level = re.search(r'<line class="gate-level"[^>]* data-level="([^"]+)"', page)
        assert level and abs(float(level.group(1)) - gate["level"]) <= 1e-9 * gate["level"], page
        assert 'class="key gatefar"' in page and "gate: no run in view alarms alone" in page


def test_band_skips_not_comparable_runs():
    """The band's inputs leave out a run from a debug kernel, stored as
    not_comparable (the gate does: such a run is no measurement of the
    code; issue 23's codes are what the history JSON reads back)."""
    rng = random.Random(29)
    r = "banddebug"
    for i in range(6):
        ingest(r, f"{i:03d}", write_log(f"bd{i}.log", 100, rng))
    before = history_json(r)["series"][0]["gate"]
    ingest(r, "006", write_log("bd6.log", 20, rng), "--context", "debug_kernel=true")
    series = history_json(r)["series"][0]
    assert series["points"][-1]["state"] == "not_comparable", series["points"][-1]
    after = series["gate"]
    assert after["runs"] == before["runs"], (before, after)
    assert after["level"] == before["level"] and after["sigma_pct"] == before["sigma_pct"], \
        (before, after)
    # And once a comparable run follows, the debug run is not in its window.
    ingest(r, "007", write_log("bd7.log", 100, rng))
    later = history_json(r)["series"][0]["gate"]
    assert later["runs"] == before["runs"] + 1, (before, later)


def test_html_context_and_gate_band():
    """html --db --context: the charts show the runs the gate compared the
    run with (comparable with the run's context), not every runner's; the
    band's level is the gate's baseline of the verdict row."""
    rng = random.Random(5)
    for i in range(6):
        ingest("bandA", f"{i:03d}", write_log(f"bandA{i}.log", 100, rng))
        ingest("bandB", f"{i:03d}", write_log(f"bandB{i}.log", 50, rng))
    cur = write_log("bandcur.log", 101, rng)
    page = os.path.join(TMP, "band.html")
    expect_rc(0, "html", "-q", "--db", DB, "--context", "runner=bandA", "-o", page, cur)
    text = open(page, encoding="utf-8").read()
    trend = text[text.index('<figure class="chart trend"'):]
    trend = trend[:trend.index("</figure>")]
    assert trend.count('<circle class="point') == 6, trend.count('<circle class="point')
    out, _ = expect_rc(0, "compare", "--db", DB, "--context", "runner=bandA",
                       "--format", "json", cur)
    row = [x for x in json.loads(out)["rows"] if x["name"] == "throughput"][0]
    # The gate's level line carries the band's numbers whether or not its
    # alarm lines are in view (issue 34: shaded only where it says something).
    level = float(re.search(r'<line class="gate-level"[^>]* data-level="([^"]+)"', trend).group(1))
    assert abs(level - row["baseline"]) <= 1e-9 * row["baseline"], (level, row)
    worse = float(re.search(r'data-worse="([^"]+)"', trend).group(1))
    assert 50 < worse < level, (worse, level)
    assert "noise sigma = " in trend and "this run: worse than" in trend, trend[-2000:]


def test_html_reads_the_page_series_only():
    """Issue 19 item 10: html --db reads the history of the page's series
    (the run's) only, each its last 200 runs: 1,590 more series in the
    history (another runner's) read no more rows and change nothing on the
    page. Counted (rows the database returned), never timed."""
    r = "pagebound"
    log = write_cases("page.log", "pagecase", 10, 100)
    for i in range(5):
        ingest(r, f"{i:03d}", log)
    ctx = ("--db", DB, "--context", f"runner={r}", log)
    page, rows = html_counted(*ctx)
    # The page's ten series, each with its trend of the five runs.
    trends = page.count('<figure class="chart trend"')
    assert trends == 10, trends
    assert page.count('<circle class="point"') == 50, page.count('<circle class="point"')
    other = write_cases("other.log", "othercase", 1590, 50)
    for i in range(2):
        ingest(f"{r}-other", f"{i:03d}", other)
    page2, rows2 = html_counted(*ctx)
    assert page2 == page, "the page changed with series that are not on it"
    if rows is None:
        print("note: KSFT_COUNT_SHIM not set, rows not counted", file=sys.stderr)
        return
    # Bounded by the page: per series its lookup, <= 200 chart points, the
    # gate's window (30) and level-shift values (63), plus the run's own.
    assert rows <= 10 * (1 + 200 + 30 + 63 + 2) + 100, rows
    assert rows2 == rows, (rows, rows2)


def test_base_dir():
    if "://" in DB:
        return      # a server, not a path
    base = os.path.join(TMP, "confined")
    os.mkdir(base)
    log = write_log("confined/c.log", 100, random.Random(1))
    _, err = expect_rc(2, "ingest", "--create", "--base-dir", base, "--db", os.path.join(TMP, "out.sqlite"),
                       log)
    assert "out.sqlite" in err, err
    assert not os.path.exists(os.path.join(TMP, "out.sqlite"))
    expect_rc(0, "ingest", "--create", "--base-dir", base, "--db", os.path.join(base, "in.sqlite"), log)


if __name__ == "__main__":
    try:
        sys.exit(cli_util.run_tests(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
