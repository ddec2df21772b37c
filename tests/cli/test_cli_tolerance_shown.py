#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A tolerance that follows the measurement (issue 42): a change the
samples show is printed with its size whatever the verdict (+3.40% (5%
allowed)), ~ only for no change beyond the floor; --max-tolerance
tightens every series, a policy's too, and never loosens one. Each
verdict twice.

usage: test_cli_tolerance_shown.py KSFT_METRIC
"""

import json
import os
import shutil
import sys
import tempfile

import cli_util
from cli_util import expect_rc

cli_util.KSFT = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="ksft-metric-tolshown-")


def write_log(name, values):
    lines = ["KTAP version 1", "1..1",
             '# ktap-metric-policy-json: {"name":"rtt","regression":{"better":"lower",'
             '"compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}']
    lines += ['# ktap-metric-json: {"name":"rtt","shape":"scalar","time":%d,"value":%r}'
              % (t + 1, v) for t, v in enumerate(values)]
    lines.append("ok 1 case")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def twice(want, *args):
    outs = [expect_rc(want, *args) for _ in range(2)]
    assert outs[0] == outs[1], outs
    return outs[0][0]


BASE = os.path.join(TMP, "base.json")
expect_rc(0, "save", "-q", "-o", BASE, write_log("base.log", [100.0, 100.1, 99.9, 100.2, 99.8]))
UP = write_log("up.log", [103.4, 103.5, 103.3, 103.6, 103.2])        # +3.4 %, apart
SAME = write_log("same.log", [100.1, 99.9, 100.0, 100.2, 99.8])      # overlapping


def row_line(text):
    return next(ln for ln in text.splitlines() if ln.strip().startswith("rtt"))


def test_change_within_tolerance_is_shown():
    out = twice(0, "compare", "--baseline", BASE, UP)
    line = row_line(out)
    assert "+3.40% (5% allowed)" in line and "NO CHANGE" in line, out
    doc = json.loads(twice(0, "compare", "-f", "json", "--baseline", BASE, UP))
    row = doc["rows"][0]
    assert row["verdict"] == "no_change" and row["beyond_floor"] is True, row
    out = twice(0, "compare", "--baseline", BASE, SAME)
    assert " ~ " in row_line(out) and "allowed" not in row_line(out), out
    doc = json.loads(twice(0, "compare", "-f", "json", "--baseline", BASE, SAME))
    assert doc["rows"][0]["beyond_floor"] is False, doc


def test_max_tolerance_tightens_a_policy():
    out = twice(1, "compare", "--max-tolerance", "2%", "--baseline", BASE, UP)
    assert "REGRESSION" in row_line(out), out
    doc = json.loads(twice(1, "compare", "--max-tolerance", "2", "-f", "json",
                           "--baseline", BASE, UP))
    assert abs(doc["rows"][0]["allowance"] - 2.0) < 1e-9, doc      # 2 % of 100
    # Never loosens: the policy's 5 % stays.
    doc = json.loads(twice(0, "compare", "--max-tolerance", "50", "-f", "json",
                           "--baseline", BASE, UP))
    assert abs(doc["rows"][0]["allowance"] - 5.0) < 1e-9, doc
    _, err = expect_rc(2, "compare", "--max-tolerance", "0", "--baseline", BASE, UP)
    assert "above 0" in err, err
    _, err = expect_rc(2, "compare", "--max-tolerance", "2", "--db", os.path.join(TMP, "h.db"), UP)
    assert "--max-tolerance is for --baseline" in err, err


if __name__ == "__main__":
    try:
        sys.exit(cli_util.run_tests(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
