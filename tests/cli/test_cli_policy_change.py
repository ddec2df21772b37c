#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A policy that changes its compare statistic (issue 31, item 6): runs
stored while the policy compared p50 are judged as p90 once it compares
p90 (from their stored summaries), never a new p90 against stored p50s.
At ingest and in compare --db, on SQLite and on the PostgreSQL server in
$KSFTM_HISTORY_URL (its batched window). Each verdict is judged twice.

usage: test_cli_policy_change.py KSFT_METRIC
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
TMP = tempfile.mkdtemp(prefix="ksft-metric-policy-change-")
DB = os.environ.get("KSFTM_HISTORY_URL") or os.path.join(TMP, "history.sqlite")


def write_log(name, rng, compare, scale=1.0):
    """Latency, lower is better: 8 samples around 100 and a slow tail of 2
    around 160 (p50 about 100, p90 about 160)."""
    lines = ["KTAP version 1", "1..1",
             '# ktap-metric-policy-json: {"name":"latency","regression":{"better":"lower",'
             f'"compare":"{compare}","relative_tolerance":0.05}},"summarize":"distribution"}}']
    values = [100 * (1 + 0.005 * rng.gauss(0, 1)) for _ in range(8)]
    values += [160 * (1 + 0.005 * rng.gauss(0, 1)) for _ in range(2)]
    for t, v in enumerate(values):
        lines.append('# ktap-metric-json: {"name":"latency","shape":"scalar",'
                     f'"time":{t + 1},"value":{v * scale:.6f}}}')
    lines.append("ok 1 rpc")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def ingest(runner, i, path):
    expect_rc(0, "ingest", "--create", "--db", DB, "--run", f"{runner}-{i:03d}", "--order", f"{i:03d}",
              "--context", f"runner={runner}", path)


def judged(rc, runner, path):
    outs = [expect_rc(rc, "compare", "--db", DB, "--context", f"runner={runner}",
                      "--format", "json", path)[0] for _ in range(2)]
    assert outs[0] == outs[1], outs
    return json.loads(outs[0])["rows"][0]


def test_p50_to_p90():
    rng = random.Random(6)
    r = "op"
    for i in range(12):
        ingest(r, i, write_log(f"o{i}.log", rng, "p50"))
    same = write_log("same.log", rng, "p90")
    row = judged(0, r, same)
    assert row["compare"] == "p90" and row["verdict"] == "no_change", row
    assert 150 < row["baseline"] < 170, row        # the stored runs' p90, not their p50
    # A real rise of the tail under the new policy is still a regression.
    row = judged(1, r, write_log("slow.log", rng, "p90", scale=2.0))
    assert row["verdict"] == "regression", row
    # Ingested under p90, the run is stored as judged: no change.
    ingest(r, 12, same)
    out, _ = expect_rc(0, "history", "--db", DB, "--context", f"runner={r}",
                       "--format", "json")
    pts = json.loads(out)["series"][0]["points"]
    assert pts[-1]["state"] == "no_change", pts[-1]
    # Back to p50: the p90 run is read as its p50.
    row = judged(0, r, write_log("back.log", rng, "p50"))
    assert row["verdict"] == "no_change" and 95 < row["baseline"] < 105, row


if __name__ == "__main__":
    try:
        sys.exit(cli_util.run_tests(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
