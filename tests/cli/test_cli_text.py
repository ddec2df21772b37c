#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Issue 34: the text tables people read at a glance. On a fixture with
long metric names and long units, report, compare (--baseline and --db),
history and ab fit 120 columns (80 with COLUMNS=80, going vertical),
show every metric name whole and each row's unit once, print ~ for no
change, a few points' range and a spread for many; history puts tracked
series first under VERDICT in one row each; the comparability error
names contexts by the comparability keys only.

    test_cli_text.py KSFT_METRIC
"""

import os
import random
import re
import sys
import tempfile

import cli_util
from cli_util import expect_rc

TMP = tempfile.mkdtemp(prefix="ksft-metric-text-")
LONG_UNIT = "% of the time waiting for a CPU"
# Metric names as long as the main job's longest (issue 34: cut in the
# middle before), and one wider than an 80-column row's first cell.
NAMES = ("throughput", "interference.involuntary_switches", "tcp.retransmits",
         "interference.runq_wait")


def write_log(name, seed, scale=1.0, context=None):
    """Two cases of four series: throughput (tracked, Gbps, 3 points),
    the rest untracked; runq_wait 12 points in a long unit."""
    rng = random.Random(seed)
    ctx = context or {"hostname": "box", "kernel": "6.12", "governor": "performance"}
    lines = ["KTAP version 1", "1..2"]
    import json
    lines.append("# ktap-metric-context-json: " + json.dumps(ctx, sort_keys=True))
    for i, case in enumerate(("iperf.forward_with_a_long_case_name", "iperf.reverse"), 1):
        lines += [
            '# ktap-metric-policy-json: {"display_label":"Gbps","display_scale":1e-9,'
            '"name":"throughput","regression":{"better":"higher","compare":"p50",'
            '"relative_tolerance":0.05},"summarize":"p50"}',
            '# ktap-metric-policy-json: {"display_label":"involuntary switches/s",'
            '"name":"interference.involuntary_switches","summarize":"distribution"}',
            '# ktap-metric-policy-json: {"display_label":"%s",'
            '"name":"interference.runq_wait","summarize":"distribution"}' % LONG_UNIT,
        ]
        for t in range(3):
            v = 9.4e9 * scale * (1 + 0.01 * rng.gauss(0, 1))
            lines.append('# ktap-metric-json: {"host":"local","name":"throughput",'
                         '"shape":"scalar","time":%d,"value":%r}' % (t, v))
            lines.append('# ktap-metric-json: {"host":"remote","name":'
                         '"interference.involuntary_switches","shape":"scalar",'
                         '"time":%d,"value":%r}' % (t, 80 + rng.random()))
            lines.append('# ktap-metric-json: {"host":"remote","name":"tcp.retransmits",'
                         '"shape":"scalar","time":%d,"value":%d}' % (t, 30000 + t))
        for t in range(12):
            lines.append('# ktap-metric-json: {"host":"remote","name":"interference.runq_wait",'
                         '"shape":"scalar","time":%d,"value":%r}' % (t, 40 + rng.random()))
        lines.append(f"ok {i} {case}")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


BASE_LOG = write_log("base.log", 1)
SAME_LOG = write_log("same.log", 2)
SLOW_LOG = write_log("slow.log", 3, scale=0.7)
DB = os.path.join(TMP, "h.sqlite")


def outputs(columns=None):
    """Every text table of the fixture: {name: (rc, text)}."""
    base = os.path.join(TMP, "base.json")
    if not os.path.exists(base):
        expect_rc(0, "save", "-o", base, BASE_LOG)
    if not os.path.exists(DB):
        for i in range(6):
            expect_rc(0, "ingest", "--create", "--db", DB, "--run", f"r{i}", "--order", f"{i:03d}",
                      write_log(f"h{i}.log", 10 + i))
    got = {}
    for name, args in (("report", ["report", SAME_LOG]),
                       ("report -v", ["report", "-v", SAME_LOG]),
                       ("compare", ["compare", "--all", "--baseline", base, SAME_LOG]),
                       ("compare slow", ["compare", "--alpha", "0", "--baseline", base, SLOW_LOG]),
                       ("compare --db", ["compare", "--all", "--db", DB, SAME_LOG]),
                       ("history", ["history", "--db", DB]),
                       ("history -v", ["history", "-v", "--db", DB])):
        rc, out, err = cli_util.run(*args, columns=columns)
        assert rc in (0, 1), (name, rc, err)
        got[name] = out
    return got


def test_fits_120_and_80_columns():
    """Every line of every table within 120 columns, and within 80 with
    COLUMNS=80 (rows go vertical); the same bytes twice."""
    for cols, width in ((None, 120), (80, 80), (200, 120)):
        first = outputs(cols)
        assert first == outputs(cols)
        for name, text in first.items():
            for line in text.splitlines():
                assert len(line) <= width, (name, cols, len(line), line)
    # 80 columns: the name on its line, its cells under their heads below.
    narrow = outputs(80)["report"]
    assert re.search(r"^  throughput\{host=local\}\n +3  9\.\d+ \(", narrow, re.M), narrow


def test_metric_names_whole():
    """Every metric name with its labels appears unbroken in each table,
    at either width; none is cut with '...'."""
    for cols in (None, 80):
        for name, text in outputs(cols).items():
            if name == "compare slow":	# tracked rows only
                continue
            for metric in NAMES:
                assert re.search(re.escape(metric) + r"\{host=(local|remote)\}", text), \
                    (name, cols, metric, text)
            assert "..." not in text, (name, text)


def row_of(text, name):
    """The rows naming @name, each with its continuation: the line after
    a name alone (a table too wide for one line per row puts the name on
    its own line, the cells under their heads)."""
    lines = text.splitlines()
    rows = []
    for i, line in enumerate(lines):
        if name in line:
            rows.append(line + (" " + lines[i + 1] if line.strip() == name and
                                i + 1 < len(lines) else ""))
    return rows


def test_unit_once_per_row():
    """The unit in its column, once per row: never after each statistic."""
    texts = outputs()
    for name in ("report", "compare", "compare --db", "history"):
        rows = row_of(texts[name], "throughput{host=local}")
        assert rows, (name, texts[name])
        for row in rows:
            assert row.count("Gbps") == 1 and row.rstrip().endswith("Gbps"), (name, row)
        # A long unit once per row (it wraps in its column, never repeats).
        rows = len(row_of(texts[name], "runq_wait{host=remote}"))
        flat = re.sub(r"\s+", " ", texts[name])	# the unit's own wrap undone
        assert rows and flat.count("waiting for") == rows, (name, texts[name])
    assert "p90=" not in texts["report"] and "p99=" not in texts["report"], texts["report"]


def test_value_spread_and_digits():
    """3 points: the median and their range; 12: the median ± a robust
    spread; 3-4 significant digits, big counts whole."""
    text = outputs()["report"]
    row = [l for l in text.splitlines() if "throughput{host=local}" in l][0]
    assert re.search(r"\s3\s+9\.\d{2,3} \(9\.\d+\u20269\.\d+\)\s+Gbps$", row), row
    row = [l for l in text.splitlines() if "runq_wait{host=remote}" in l][0]
    assert re.search(r"\s12\s+40\.\d{1,2} \u00b1 \d+(\.\d)?%\s", row), row
    row = [l for l in text.splitlines() if "tcp.retransmits{host=remote}" in l][0]
    assert re.search(r"\s3\s+30001 \(30000\u202630002\)$", row), row


def test_compare_value_spread():
    """compare's BASELINE and CURRENT (--baseline and --db) each a value
    with its spread, as report shows one: a 3-point baseline and a
    3-point current both with their range (min…max), 12 points with ±
    a robust spread; the unit once, in its column; the same bytes twice."""
    def rng(d):
        return r"%s\.\d+ \(%s\.\d+\u2026%s\.\d+\)" % (d, d, d)
    spread = r"40\.\d+ \u00b1 \d+(\.\d)?%"
    for cols in (None, 80):
        texts = outputs(cols)
        assert texts == outputs(cols)
        # Wide: the cells side by side; 80 columns: "HEAD value" items.
        sep = r"\s+CURRENT " if cols else r"\s+"
        for name, cur in (("compare", "9"), ("compare slow", "6"), ("compare --db", "9")):
            rows = row_of(texts[name], "throughput{host=local}")
            assert len(rows) == 2, (name, cols, texts[name])
            for row in rows:
                assert re.search(rng("9") + sep + rng(cur), row), (name, cols, row)
                # (vertical rows go on past the line row_of() joins)
                assert cols or row.count("Gbps") == 1, (name, cols, row)
        rows = row_of(texts["compare"], "interference.runq_wait{host=remote}")
        assert len(rows) == 2 and all(re.search(spread + sep + spread, r) for r in rows), rows


def test_tilde_for_no_change():
    """An unchanged pair reads ~ in CHANGE (benchstat's mark), twice the
    same; a real drop shows its percentage and REGRESSION."""
    for _ in range(2):
        text = outputs()["compare"]
        rows = row_of(text, "throughput{host=local}") + row_of(text, "throughput{host=remote}")
        assert rows and all(re.search(r"\s~\s.*NO CHANGE", r) for r in rows), text
    text = outputs()["compare slow"]
    rows = row_of(text, "throughput{host=local}") + row_of(text, "throughput{host=remote}")
    assert rows and all(re.search(r"\s-3\d\.\d%\s.*REGRESSION", r) for r in rows), text


def test_context_folded():
    """The run context line shows the keys that say where it ran; -v all."""
    texts = outputs()
    first = texts["report"].splitlines()[0]
    assert first.startswith("run context: hostname=box kernel=6.12"), first
    assert "governor" not in first and "1 more key: -v" in first, first
    assert "governor=performance" in texts["report -v"].splitlines()[0], texts["report -v"]


def test_history_tracked_first_verdict_few_lines():
    """Tracked series first, a VERDICT column (never STATE), one row per
    series: far fewer lines than one per run per series; -v each run."""
    texts = outputs()
    text = texts["history"]
    assert text.index("Tracked series") < text.index("Untracked series"), text
    assert "VERDICT" in text and "STATE" not in text, text
    series, runs = 8, 6
    # One row a series (plus a few headings and the legend), where one
    # line a run was (runs + 2) * series.
    assert len(text.splitlines()) < 2 * series + 16, text
    assert len(texts["history -v"].splitlines()) > series * runs, texts["history -v"]
    assert "STATE" not in texts["history -v"], texts["history -v"]


def test_comparability_error_names_comparability_keys():
    """No stored run comparable (another hostname): the error lists the
    contexts found by the comparability keys, not by a governor or a
    commit that differ too."""
    db = os.path.join(TMP, "ctx.sqlite")
    for i in range(2):
        expect_rc(0, "ingest", "--create", "--db", db, "--run", f"c{i}", "--order", f"{i:03d}",
                  write_log(f"c{i}.log", 20 + i, context={
                      "hostname": "old", "governor": "powersave", "commit": f"c{i}"}))
    cur = write_log("cur.log", 30, context={"hostname": "new", "governor": "performance",
                                             "commit": "c9"})
    for _ in range(2):
        _, err = expect_rc(2, "compare", "--db", db, cur)
        assert "hostname=old (2 runs)" in err, err
        assert "governor" not in err and "commit" not in err, err


if __name__ == "__main__":
    cli_util.KSFT = os.path.abspath(sys.argv[1])
    sys.exit(cli_util.run_tests(globals()))
