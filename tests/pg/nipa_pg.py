#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""doc/consumer.rst's SQL for a NIPA sidecar, as written, against a real
PostgreSQL server (pg_server.sh): load a sidecar with verdicts twice (the
second load adds nothing), then join it to a stand-in for NIPA's results.

usage: nipa_pg.py PG_SERVER_SH KSFT_METRIC SOURCE_ROOT
Exit 77 (skip) without PostgreSQL or psql.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import doc_blocks  # noqa: E402  (tests/doc_blocks.py)

SERVER, KSFT, ROOT = (os.path.abspath(a) for a in sys.argv[1:4])


def literal_block(text, first_line):
    return doc_blocks.literal_block(text, first_line, "doc/consumer.rst")


def main():
    psql = shutil.which("psql")
    if not psql:
        print("psql is not installed")
        return 77
    doc = open(os.path.join(ROOT, "doc", "consumer.rst"), encoding="utf-8").read()
    load = literal_block(doc, "-- load.sql: a ksft-metric NIPA sidecar into ksft_metrics (idempotent)")
    query = literal_block(doc, 'SELECT n.result, m.subtest, m.metric, m.labels->>\'host\' AS host,')
    tmp = tempfile.mkdtemp(prefix="ksftm-nipa-")
    # Its own directory: the server runs as "postgres", which cannot enter tmp.
    pgdir = tempfile.mkdtemp(prefix="ksftm-pg-")
    p = subprocess.run(["bash", SERVER, "start", pgdir], capture_output=True, text=True)
    if p.returncode:
        print(p.stderr)
        shutil.rmtree(tmp, ignore_errors=True)
        return p.returncode
    url = p.stdout.strip()
    try:
        seed = os.path.join(ROOT, "tests", "cli", "data", "seed.log")
        base = os.path.join(tmp, "base.json")
        subprocess.run([KSFT, "save", "-o", base, seed], check=True)
        sidecar = os.path.join(tmp, "metrics.json")
        subprocess.run([KSFT, "report", "-f", "nipa", "--baseline", base, "-o", sidecar,
                        seed], check=True)
        with open(os.path.join(tmp, "load.sql"), "w") as f:
            f.write(load)

        def sql(*args, stdin=None):
            r = subprocess.run([psql, url, "-X", "-q", "-A", "-t", "-F", "|",
                                "-v", "ON_ERROR_STOP=1", *args], input=stdin,
                               capture_output=True, text=True, cwd=tmp)
            assert r.returncode == 0, r.stderr
            return r.stdout

        for _ in range(2):
            sql("-v", "run=run-1", "-v", "file=" + sidecar, "-f", "load.sql")
        # The sidecar's series, once each, whatever the number of loads.
        n = json.load(open(sidecar))
        want = sum(len(r["metrics"]) for r in n["results"])
        assert want == 6, n
        assert sql("-c", "SELECT count(*) FROM ksft_metrics").strip() == str(want)
        sql(stdin="CREATE TABLE nipa_results (run text, \"group\" text, test text, result text);"
                  "INSERT INTO nipa_results VALUES"
                  " ('run-1', 'selftests-drivers-net-hw', 'iperf-py', 'pass'),"
                  " ('run-1', 'selftests-drivers-net-hw', 'devmem-py', 'pass');")
        rows = [l.split("|") for l in sql(stdin=query).splitlines() if l]
        print("\n".join("|".join(r) for r in rows))
        assert rows[0] == ["pass", "devmem-check-kperf", "tcp.retransmits", "local", "0",
                           "untracked"], rows
        assert ["pass", "iperf-test-iperf", "throughput", "local", "32.62285180182741",
                "no_change"] in rows, rows
        assert len(rows) == 6, rows
    finally:
        subprocess.run(["bash", SERVER, "stop", pgdir])
        shutil.rmtree(tmp, ignore_errors=True)
    print("nipa sidecar SQL: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
