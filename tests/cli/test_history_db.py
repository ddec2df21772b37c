#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The history's database layer against its backends (issue 19): no
credential in any message (C API, CLI, Python), PostgreSQL ingests that
queue like SQLite's, readers that neither wait for a writer nor need to
write (a 0444 history as another user), no libpq notice on stderr, and
a history without NOT NULL constraints (or with malformed JSON) that gives
a clear error naming table, column and row instead of a crash.

On SQLite (a temporary file) or on the PostgreSQL server in
$KSFTM_HISTORY_URL (history_pg.sh starts one); tests that need the other
backend return early.

usage: test_history_db.py KSFT_METRIC
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import urllib.parse

import cli_util
from cli_util import expect_rc, run

KSFT = os.path.abspath(sys.argv[1])
cli_util.KSFT = KSFT
TMP = tempfile.mkdtemp(prefix="ksft-metric-hdb-")
PG = os.environ.get("KSFTM_HISTORY_URL")
DB = PG or os.path.join(TMP, "history.sqlite")

LOG = ("KTAP version 1\n1..1\n"
       '# ktap-metric-policy-json: {"name":"throughput","regression":{"better":'
       '"higher","compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}\n'
       '# ktap-metric-json: {"name":"throughput","shape":"scalar","time":1,"value":100}\n'
       '# ktap-metric-json: {"name":"throughput","shape":"scalar","time":2,"value":101}\n'
       '# ktap-metric-json: {"name":"throughput","shape":"scalar","time":3,"value":99}\n'
       "ok 1 tcp\n")


def log_file():
    path = os.path.join(TMP, "run.log")
    with open(path, "w", encoding="utf-8") as f:
        f.write(LOG)
    return path


def psql(url, sql):
    """One statement through psql (the server's own client)."""
    bindir = sorted(os.listdir("/usr/lib/postgresql"))[-1]
    p = subprocess.run([f"/usr/lib/postgresql/{bindir}/bin/psql", "-X", "-q", "-At",
                        "-v", "ON_ERROR_STOP=1", url, "-c", sql],
                       capture_output=True, text=True, timeout=120, check=True)
    return p.stdout


def pg_with_db(name):
    """$KSFTM_HISTORY_URL naming database @name (created empty)."""
    psql(PG, f"DROP DATABASE IF EXISTS {name}")
    psql(PG, f"CREATE DATABASE {name}")
    return PG.replace("/ksftm_test?", f"/{name}?")


def python_history():
    env_lib = os.environ.get("KSFTMETRIC_LIBRARY")
    if not env_lib:
        return None
    from ksftmetric import report  # the binding over the library just built
    return report


def test_no_credentials():
    """A password in the URL (user info, ?password=, a percent-encoded
    key, a token libpq quotes back) is in no message."""
    if not PG:
        return
    secrets = ("S3cretUser", "S3cretQuery", "S3cretSsl", "S3cretEnc", "S3cretBad")
    host = PG.split("?", 1)[1]
    url = (f"postgresql://postgres:{secrets[0]}@/ksftm_test?{host}&password={secrets[1]}"
           f"&sslpassword={secrets[2]}")
    log = log_file()
    expect_rc(0, "ingest", "--create", "--db", url, "--run", "cred-1", "--order", "1",
              "--context", "runner=cred", log)
    # The id again with other content (another commit): refused, the
    # database named without its credentials.
    _, err = expect_rc(2, "ingest", "--create", "--db", url, "--run", "cred-1", "--order", "1",
                       "--context", "runner=cred", "--context", "commit=other", log)
    assert "already in the history" in err and "***" in err, err
    bad = [url,
           f"postgresql://postgres:{secrets[0]}@/no_such_db?{host}&password={secrets[1]}",
           f"postgresql:///ksftm_test?{host}&pass%77ord={secrets[3]}&bogus=1",
           f"postgresql:///ksftm_test?{host}&password=x%zz{secrets[4]}"]
    for u in bad[1:]:
        _, err = expect_rc(2, "history", "--db", u)
        for s in secrets:
            assert s not in err, f"{s} in: {err}"
    report = python_history()
    if report:
        for u in bad:
            try:
                h = report.History(u)
                h.ingest(report.Report.read(log), run_id="cred-1", order="1",
                         context={"runner": "cred", "commit": "other"})
            except OSError as e:
                for s in secrets:
                    assert s not in str(e), f"{s} in: {e}"
            else:
                raise AssertionError(f"{u}: no error")
        buf = __import__("ctypes").create_string_buffer(512)
        shown = report._c["ksft_metric_report_history_redact"](
            f"host=/tmp password='a b\\' {secrets[1]}' dbname=x".encode(), buf, 512).decode()
        assert secrets[1] not in shown and "password=***" in shown, shown


def pg_holder(url, sql):
    """A psql session holding @sql's locks in an open transaction."""
    bindir = sorted(os.listdir("/usr/lib/postgresql"))[-1]
    holder = subprocess.Popen([f"/usr/lib/postgresql/{bindir}/bin/psql", "-X", "-q", "-At",
                               url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    holder.stdin.write(f"BEGIN; {sql} SELECT 'held';\n")
    holder.stdin.flush()
    while holder.stdout.readline().strip() != "held":
        pass
    return holder


def pg_release(holder):
    holder.stdin.write("ROLLBACK;\n")
    holder.stdin.close()
    holder.wait(timeout=60)


def ingest_proc(url, run_id, order, log):
    return subprocess.Popen([KSFT, "ingest", "--create", "--db", url, "--run", run_id, "--order", order,
                             "--context", "runner=conc", log],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_concurrent_first_seen():
    """8 concurrent first ingests with ascending orders of a new series:
    each ends judged against the runs ordered before it, whichever commits
    first (without a lock on PostgreSQL all 8 read an empty window: 'new')."""
    log = log_file()
    url = pg_with_db("ksftm_conc2") if PG else os.path.join(TMP, "conc2.sqlite")
    if not PG:
        # A reader never creates a history file (issue 22): make the
        # database, then let a reader set up its tables.
        import sqlite3
        con = sqlite3.connect(url)
        con.execute("PRAGMA journal_mode=WAL")
        con.close()
    expect_rc(0, "history", "--db", url)
    holder = None
    if PG:
        # Let every ingest read what it reads before it inserts, then let
        # them go together: a lock that blocks INSERT into ksftm_runs, not
        # reading. Without the writers' lock all 8 read an empty window.
        holder = pg_holder(url, "LOCK TABLE ksftm_runs IN SHARE MODE;")
    procs = [ingest_proc(url, f"e{k}", f"{k:02d}", log) for k in range(8)]
    if holder:
        while psql(url, "SELECT count(*) FROM pg_locks WHERE NOT granted").strip() != "8":
            pass    # until all 8 wait (on the table, or on the writers' lock)
        pg_release(holder)
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    q = ("SELECT r.id, r.run_order, res.verdict FROM ksftm_runs r JOIN ksftm_results res"
         " ON res.run_id = r.id ORDER BY r.id")
    if PG:
        rows = [tuple(r.split("|")) for r in psql(url, q).split()]
    else:
        con = sqlite3.connect(url)
        rows = [tuple(str(c) for c in r) for r in con.execute(q).fetchall()]
        con.close()
    # Whatever order the 8 committed in, the verdicts are those of the run
    # order (issue 31): a run stored before later ones has them judged
    # again, so the first run is new and every later one judged.
    first = min(order for _, order, _ in rows)
    for _, order, verdict in rows:
        assert verdict == ("new" if order == first else "no_change"), rows


def test_reader_not_blocked():
    """history and compare --db read while a writer holds the write lock
    (held here, in this process: no timing)."""
    log = log_file()
    if PG:
        url = pg_with_db("ksftm_lock")
        expect_rc(0, "ingest", "--create", "--db", url, "--run", "l1", "--order", "1", log)
        holder = pg_holder(url, "SELECT pg_advisory_xact_lock(1802724980);"
                           " LOCK TABLE ksftm_runs IN SHARE ROW EXCLUSIVE MODE;")
    else:
        url = os.path.join(TMP, "lock.sqlite")
        expect_rc(0, "ingest", "--create", "--db", url, "--run", "l1", "--order", "1", log)
        holder = sqlite3.connect(url, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("UPDATE ksftm_runs SET pinned = 0")
    try:
        out, _ = expect_rc(0, "history", "--db", url, "-v")
        assert "l1" in out, out
        out, _ = expect_rc(0, "compare", "--db", url, log)
        assert "ok" in out.lower(), out
    finally:
        if PG:
            pg_release(holder)
        else:
            holder.execute("ROLLBACK")
            holder.close()


def test_read_only_other_user():
    """A 0444 history another user owns reads (history, compare --db), in
    a directory the reader may not write (no -shm/-wal possible) and in
    one it may; writing it says it is read-only."""
    if PG or os.geteuid() != 0 or not shutil.which("runuser"):
        return
    log = log_file()
    for dir_mode in (0o755, 0o777):
        d = tempfile.mkdtemp(prefix="ksft-metric-ro-")
        os.chmod(d, dir_mode)
        url = os.path.join(d, "h.sqlite")
        expect_rc(0, "ingest", "--create", "--db", url, "--run", "ro1", "--order", "1", log)
        assert not os.path.exists(url + "-wal"), os.listdir(d)
        os.chmod(url, 0o444)
        shutil.copy(log, os.path.join(d, "run.log"))
        os.chmod(os.path.join(d, "run.log"), 0o444)
        as_nobody = ["runuser", "-u", "nobody", "--", KSFT]
        p = subprocess.run(as_nobody + ["history", "--db", url, "-v"], capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0 and "ro1" in p.stdout and not p.stderr, p
        p = subprocess.run(as_nobody + ["compare", "--db", url, os.path.join(d, "run.log")],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0 and not p.stderr, p
        p = subprocess.run(as_nobody + ["pin", "--db", url, "ro1"], capture_output=True,
                           text=True, timeout=300)
        assert p.returncode != 0 and "read-only" in p.stderr, p
        shutil.rmtree(d)


def test_no_notices():
    """A CLI command that succeeds prints nothing on stderr, also where
    PostgreSQL has a notice to give (a ksftm_meta table made by hand:
    'relation already exists, skipping')."""
    if not PG:
        return
    url = pg_with_db("ksftm_notice")
    psql(url, "CREATE TABLE ksftm_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    log = log_file()
    for args in (["ingest", "--create", "--db", url, "--run", "n1", "--order", "1", log],
                 ["history", "--db", url], ["compare", "--db", url, log],
                 ["pin", "--db", url, "n1"]):
        _, err = expect_rc(0, *args)
        assert err == "", f"{args}: {err!r}"


# Columns a history without NOT NULL may hold NULL in, and the commands
# that read each: every one a clear error (or read), never a crash.
NULLABLE = [("ksftm_series", "path"), ("ksftm_series", "case_name"),
            ("ksftm_series", "metric"), ("ksftm_series", "labels"),
            ("ksftm_runs", "run_key"), ("ksftm_runs", "run_order"),
            ("ksftm_runs", "context"), ("ksftm_runs", "comparable"),
            ("ksftm_results", "status"), ("ksftm_results", "summary"),
            ("ksftm_results", "run_order"), ("ksftm_results", "comparable"),
            ("ksftm_levels", "run_order")]


def unconstrained(name):
    """A history of two runs (one accepted level) whose tables lack every
    NOT NULL constraint; @return its URL."""
    log = log_file()
    if PG:
        url = pg_with_db(name)
    else:
        url = os.path.join(TMP, name + ".sqlite")
        if os.path.exists(url):
            os.unlink(url)
    for k in (1, 2):
        expect_rc(0, "ingest", "--create", "--db", url, "--run", f"u{k}", "--order", str(k), log)
    expect_rc(0, "accept", "--db", url, "u2", "throughput")
    if PG:
        for table, column in NULLABLE:
            psql(url, f"ALTER TABLE {table} ALTER COLUMN {column} DROP NOT NULL")
        return url
    con = sqlite3.connect(url, isolation_level=None)
    con.execute("PRAGMA foreign_keys=OFF")
    con.execute("PRAGMA writable_schema=ON")
    for name_, sql in con.execute("SELECT name, sql FROM sqlite_master WHERE type='table'"
                                  " AND name LIKE 'ksftm_%'").fetchall():
        con.execute("UPDATE sqlite_master SET sql = ? WHERE name = ?",
                    (sql.replace(" NOT NULL", ""), name_))
    con.execute("PRAGMA writable_schema=OFF")
    con.close()
    return url


def set_sql(url, sql):
    if PG:
        psql(url, sql)
    else:
        con = sqlite3.connect(url, isolation_level=None)
        con.execute(sql)
        con.close()


def test_nulls_and_bad_json():
    log = log_file()
    base = unconstrained("ksftm_nulls")
    cases = [(t, c, "NULL") for t, c in NULLABLE] + \
            ([] if PG else [("ksftm_levels", "series_id", "NULL")]) + \
            [("ksftm_runs", "context", "'{bad'"), ("ksftm_series", "path", "'[1]'"),
             ("ksftm_series", "labels", "'{'"), ("ksftm_results", "summary", "'nope'")]
    for k, (table, column, value) in enumerate(cases):
        name = f"ksftm_nulls_{k}"
        if PG:
            psql(PG, f"DROP DATABASE IF EXISTS {name}")
            psql(PG, f"CREATE DATABASE {name} TEMPLATE ksftm_nulls")
            url = PG.replace("/ksftm_test?", f"/{name}?")
        else:
            url = os.path.join(TMP, name + ".sqlite")
            shutil.copy(base, url)
        set_sql(url, f"UPDATE {table} SET {column} = {value}")
        for args in (["history", "--db", url], ["compare", "--db", url, log],
                     ["accept", "--db", url, "u2", "throughput"],
                     ["ingest", "--create", "--db", url, "--run", "u9", "--order", "9", log]):
            rc, out, err = run(*args)
            assert rc in (0, 1, 2), f"{table}.{column}={value} {args[0]}: rc {rc}\n{err}"
            if rc == 2:
                assert "out of memory" not in err, f"{table}.{column}={value} {args[0]}: {err}"
                assert f"{table}.{column}" in err or value != "NULL" or \
                    "run u2 is not in the history" in err or "already" in err, \
                    f"{table}.{column} {args[0]}: {err}"
        if PG:
            psql(PG, f"DROP DATABASE {name}")
    # The message names the row.
    url = os.path.join(TMP, "named.sqlite") if not PG else None
    if url:
        shutil.copy(base, url)
        set_sql(url, "UPDATE ksftm_runs SET context = '{bad' WHERE run_key = 'u1'")
        _, err = expect_rc(2, "history", "--db", url)
        assert "ksftm_runs.context in the row with ksftm_runs.run_key = u1 is not JSON" \
            in err, err


def run_log(name, values):
    """A run log whose throughput samples are @values."""
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(LOG.split("# ktap-metric-json")[0])
        for t, v in enumerate(values):
            f.write('# ktap-metric-json: {"name":"throughput","shape":"scalar",'
                    f'"time":{t + 1},"value":{v}}}\n')
        f.write("ok 1 tcp\n")
    return path


def db_exec(url, sql):
    """One statement on the history, through the backend's own client;
    the rows as tuples of text."""
    if PG:
        return [tuple(r.split("|")) for r in psql(url, sql).split()]
    con = sqlite3.connect(url, isolation_level=None)
    rows = [tuple(str(c) for c in r) for r in con.execute(sql).fetchall()]
    con.close()
    return rows


def test_old_verdict_codes_read():
    """Issue 23: a history whose rows hold the verdict codes from before
    (ok, noise, incomparable) judges and shows exactly as one holding
    today's (no_change, too_noisy, not_comparable); new rows are stored
    in today's codes. A slow debug-kernel run (not comparable) is left out
    of the gate's recent runs under either spelling: under a third one it
    is not, and the judgement changes (so the spelling is what is read)."""
    url = pg_with_db("ksftm_oldcodes") if PG else os.path.join(TMP, "oldcodes.sqlite")
    for k in range(8):
        v = 100 + (k % 3) - 1
        expect_rc(0, "ingest", "--create", "--db", url, "--run", f"o{k}", "--order", f"{k:02d}",
                  run_log(f"old{k}.log", (v, v + 1, v - 1)))
    expect_rc(0, "ingest", "--create", "--db", url, "--run", "dbg", "--order", "08",
              "--context", "debug_kernel=1", run_log("dbg.log", (40, 41, 39)))
    cur = run_log("cur.log", (93, 94, 92))
    stored = {r[0] for r in db_exec(url, "SELECT DISTINCT verdict FROM ksftm_results")}
    assert "not_comparable" in stored and "no_change" in stored, stored
    assert not stored & {"ok", "noise", "incomparable"}, stored

    def judged():
        rc, out, _ = run("compare", "--db", url, "--format", "json", cur)
        hist, _ = expect_rc(0, "history", "--db", url, "--format", "json")
        text, _ = expect_rc(0, "history", "--db", url, "-v")	# each run's verdict
        return out, hist, text, rc

    new = judged()
    db_exec(url, "UPDATE ksftm_results SET verdict = CASE verdict WHEN 'no_change' THEN 'ok'"
            " WHEN 'too_noisy' THEN 'noise' WHEN 'not_comparable' THEN 'incomparable'"
            " ELSE verdict END")
    stored = {r[0] for r in db_exec(url, "SELECT DISTINCT verdict FROM ksftm_results")}
    assert "incomparable" in stored and "ok" in stored, stored
    old = judged()
    assert old == new, (old, new)
    states = {p["state"] for s in json.loads(new[1])["series"] for p in s["points"]}
    assert states == {"new", "no_change", "not_comparable"}, states
    assert "NO CHANGE" in new[2] and "NOT COMPARABLE" in new[2], new[2]
    assert not any(w in new[0] for w in ('"ok"', '"noise"', '"incomparable"')), new[0]
    # The debug run under a spelling nobody writes: it counts, and the
    # judgement changes.
    db_exec(url, "UPDATE ksftm_results SET verdict = 'other' WHERE verdict = 'incomparable'")
    assert judged()[0] != new[0], new[0]

def index_names(url):
    if PG:
        sql = "SELECT indexname FROM pg_indexes WHERE tablename = 'ksftm_results'"
    else:
        sql = "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ksftm_results'"
    return {r[0] for r in db_exec(url, sql)}


def test_read_indexes_added_by_writer():
    """Issue 25: a history written before the covering read indexes (version
    1's ksftm_results_window and ksftm_results_run) judges the same; readers
    leave it as it is, and its next writer swaps the indexes in."""
    url = pg_with_db("ksftm_oldidx") if PG else os.path.join(TMP, "oldidx.sqlite")
    # (ksftm_results_run_series, the second, is not needed since issue 45:
    # the results are keyed by (run_id, series_id).)
    new_idx = {"ksftm_results_window_op"}
    for k in range(6):
        v = 100 + (k % 3) - 1
        expect_rc(0, "ingest", "--create", "--db", url, "--run", f"i{k}", "--order", f"{k:02d}",
                  run_log(f"idx{k}.log", (v, v + 1, v - 1)))
    assert new_idx <= index_names(url), index_names(url)
    cur = run_log("idxcur.log", (70, 71, 69))
    today, _ = expect_rc(1, "compare", "--db", url, "--format", "json", cur)
    db_exec(url, "DROP INDEX ksftm_results_window_op")
    db_exec(url, "DROP INDEX IF EXISTS ksftm_results_run_series")
    db_exec(url, "CREATE INDEX ksftm_results_window"
            " ON ksftm_results (series_id, comparable, usable, run_order)")
    db_exec(url, "CREATE INDEX ksftm_results_run ON ksftm_results (run_id)")
    before, _ = expect_rc(1, "compare", "--db", url, "--format", "json", cur)
    assert before == today, (before, today)
    expect_rc(0, "history", "--db", url)
    names = index_names(url)
    assert not new_idx & names and "ksftm_results_window" in names, names
    expect_rc(0, "ingest", "--create", "--db", url, "--run", "i6", "--order", "06",
              run_log("idx6.log", (100, 101, 99)))
    names = index_names(url)
    assert new_idx <= names and not names & {"ksftm_results_window", "ksftm_results_run"}, names

def test_values_read_back_exactly():
    """A stored value reads back as the double that was ingested, on both
    backends (SQLite's own text of a REAL has 15 digits: 1/3 came back as
    0.333333333333333, a different double)."""
    url = pg_with_db("ksftm_exact") if PG else os.path.join(TMP, "exact.sqlite")
    third = 1 / 3
    expect_rc(0, "ingest", "--create", "--db", url, "--run", "x0", "--order", "00",
              run_log("exact.log", (third, third, third)))
    out, _ = expect_rc(0, "history", "--db", url, "--format", "json")
    values = [p["value"] for s in json.loads(out)["series"] for p in s["points"]]
    assert values == [third], (values, third)


if __name__ == "__main__":
    try:
        rc = cli_util.run_tests(globals())
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(rc)
