#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-metric ab (issue 22, paired A/B judging) on logs shaped like the
runners' A/B mode writes (repeats labelled variant=A|B and pair=N), with a
machine that drifts between pairs by up to 30 %: the pairs cancel it. A
10 % slower B fails, an A/A set passes, and over 200 A/A sets the run-level
false alarms stay near the 1 % asked for; within tolerance is no change, a
few pairs cannot tell, and a log without pairs is an error that says so.

usage: test_cli_ab.py KSFT_METRIC
"""

import json
import os
import random
import sys
import tempfile

import cli_util
from cli_util import expect_rc

cli_util.KSFT = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="ksft-metric-ab-")
POLICY = ('# ktap-metric-policy-json: {"display_label":"Gbps","name":"throughput",'
          '"regression":{"better":"higher","compare":"p50","relative_tolerance":0.05},'
          '"summarize":"p50"}\n')


def ab_log(name, ratio, seed, pairs=10, noise=0.01):
    """A/B log: each pair at its own machine level, 3 repeats a variant."""
    rnd = random.Random(seed)
    lines = ["KTAP version 1", "1..1", POLICY.rstrip("\n")]
    t = 0
    for p in range(pairs):
        level = 10 * (1 + 0.3 * rnd.random())
        order = ("A", "B") if rnd.random() < 0.5 else ("B", "A")
        for var in order:
            for _ in range(3):
                t += 1
                v = level * (ratio if var == "B" else 1.0) * (1 + rnd.gauss(0, noise))
                lines.append('# ktap-metric-json: {"host":"local","name":"throughput",'
                             f'"pair":{p},"shape":"scalar","time":{t},"value":{v!r},'
                             f'"variant":"{var}"}}')
    lines.append("ok 1 iperf.ab")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def test_slower_b_regresses():
    out, _ = expect_rc(1, "ab", ab_log("b90.ktap", 0.90, 1))
    row = [l for l in out.splitlines() if l.startswith("iperf.ab throughput")]
    assert len(row) == 1 and row[0].split()[2] == "10" and row[0].endswith("REGRESSION"), out
    assert "RESULT: REGRESSION" in out, out
    js, _ = expect_rc(1, "ab", "--format", "json", ab_log("b90.ktap", 0.90, 1))
    doc = json.loads(js)
    assert doc["result"] == "regression" and doc["rows"][0]["verdict"] == "regression", doc
    assert doc["rows"][0]["labels"] == {"host": "local"} and doc["rows"][0]["pairs"] == 10
    assert 0.88 < doc["rows"][0]["ratio"] < 0.92, doc


def test_a_a_passes_and_false_alarms():
    out, _ = expect_rc(0, "ab", ab_log("aa.ktap", 1.0, 2))
    assert "NO CHANGE" in out and "RESULT: OK" in out, out
    # 200 A/A sets with noisier repeats, each a fixed seed: the share failed
    # is the run-level rate at the default alpha 0.01 (exact signed-rank),
    # with no tolerance so that the test alone decides.
    fails = 0
    for seed in range(200):
        rc, _, err = cli_util.run("ab", "--tolerance", "0%",
                                  ab_log("aa-%d.ktap" % seed, 1.0, 1000 + seed,
                                         noise=0.05))
        assert rc in (0, 1), err
        fails += rc == 1
    print(f"A/A false alarms: {fails}/200")
    assert fails <= 6, fails


def test_within_tolerance_is_no_change():
    out, _ = expect_rc(0, "ab", "--tolerance", "15%", ab_log("b90t.ktap", 0.90, 3))
    assert "NO CHANGE" in out, out


def test_few_pairs_cannot_tell():
    out, _ = expect_rc(0, "ab", ab_log("b90-3.ktap", 0.90, 4, pairs=3))
    assert "TOO NOISY" in out, out


def test_no_pairs_is_an_error():
    path = os.path.join(TMP, "plain.ktap")
    with open(path, "w", encoding="utf-8") as f:
        f.write("KTAP version 1\n1..1\n" + POLICY +
                '# ktap-metric-json: {"name":"throughput","shape":"scalar","time":1,'
                '"value":10}\nok 1 plain\n')
    _, err = expect_rc(2, "ab", path)
    assert "no A/B pairs" in err and "--ab-a" in err, err


if __name__ == "__main__":
    sys.exit(cli_util.run_tests(globals()))
