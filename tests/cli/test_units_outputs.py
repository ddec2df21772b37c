#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One unit and one scale per series in every output (issue 34): the same
log through report (text, JSON, CSV, NIPA, KCIDB), compare, the history
(text, JSON, CSV) and python/ksft_metric_reader.py says the same unit
and scale for each series; the author's unit is kept (MB/s never becomes
GB/s); a value shown with display_scale is the same number everywhere
(history's 0.6188 is compare's 618.8 test CPU ms/GB); KCIDB paths are
readable and valid for KCIDB's path rule.

usage: test_units_outputs.py KSFT_METRIC SOURCE_ROOT
"""

import csv
import io
import json
import os
import re
import shutil
import sys
import tempfile

import cli_util
from cli_util import expect_rc

KSFT, ROOT = (os.path.abspath(a) for a in sys.argv[1:3])
cli_util.KSFT = KSFT
TMP = tempfile.mkdtemp(prefix="ksft-metric-units-")

POLICIES = [
    '{"display_label":"MB/s","name":"copy.rate","regression":{"better":"higher",'
    '"compare":"p50","relative_tolerance":0.05},"summarize":"p50"}',
    '{"display_label":"test CPU ms/GB","display_scale":1000,"name":"cpu.usec_per_mb",'
    '"regression":{"better":"lower","compare":"p50","relative_tolerance":0.1},'
    '"summarize":"p50"}',
    '{"display_label":"Gbps","name":"throughput","summarize":"p50"}',
    '{"aggregation":"busy-core-equivalents","display_label":"Percent of one CPU",'
    '"display_scale":100,"name":"cpu.time.usr","summarize":"p90","transform":"rate"}',
]

# name -> (unit, scale): the one rule (doc/consumer.rst, "Units").
WANT = {
    "copy.rate": ("MB/s", 1.0),
    "cpu.usec_per_mb": ("test CPU ms/GB", 1000.0),
    "throughput": ("Gbps", 1.0),
    "cpu.time.usr": ("busy cores", 1.0),
    "bare": (None, 1.0),
}


def write_log(name, shift):
    """One case "receive" with every kind of series; @shift moves copy.rate."""
    lines = ["KTAP version 1", "1..1"]
    lines += [f"# ktap-metric-policy-json: {p}" for p in POLICIES]
    for t, (rate, cost, tput) in enumerate(((1250, 0.61, 4.70), (1300, 0.6188, 4.71),
                                            (1280, 0.63, 4.69)), 1):
        lines.append('# ktap-metric-json: {"name":"copy.rate","shape":"scalar",'
                     f'"time":{t},"value":{rate + shift}}}')
        lines.append('# ktap-metric-json: {"mode":"copy","name":"cpu.usec_per_mb",'
                     f'"shape":"scalar","time":{t},"value":{cost}}}')
        lines.append('# ktap-metric-json: {"name":"throughput","shape":"scalar",'
                     f'"time":{t},"value":{tput}}}')
        lines.append('# ktap-metric-json: {"name":"cpu.time.usr","shape":"per-cpu",'
                     f'"time":{t},"value":[{t},{2 * t}]}}')
    lines.append('# ktap-metric-json: {"name":"bare","shape":"scalar","time":1,"value":7}')
    lines.append("ok 1 receive")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


LOG = write_log("run1.log", 0)
LOG2 = write_log("run2.log", 10)
KCIDB = ("--origin", "ci", "--build-id", "ci:b1", "--start-time", "2026-12-01T07:55:00Z")


def line_of(text, word):
    rows = [ln for ln in text.splitlines() if word in ln]
    assert rows, (word, text)
    return rows[0]


def row_of(text, word):
    """line_of() with its cells: a table too wide for one line a row puts
    the name alone on a line, its cells on the next."""
    lines = text.splitlines()
    i = lines.index(line_of(text, word))
    return lines[i] + (" " + lines[i + 1] if " " not in lines[i].strip() and
                       i + 1 < len(lines) else "")


def test_json():
    doc = json.loads(expect_rc(0, "report", "-f", "json", LOG)[0])
    got = {s["name"]: (s["unit"], s["scale"]) for s in doc["series"]}
    assert got == WANT, got


def test_csv():
    out = expect_rc(0, "report", "-f", "csv", LOG)[0]
    rows = list(csv.DictReader(io.StringIO(out)))
    got = {r["name"]: (r["unit"] or None, float(r["scale"])) for r in rows}
    assert got == WANT, got
    # One unit for every element of an array series.
    assert len({(r["unit"], r["scale"]) for r in rows if r["name"] == "cpu.time.usr"}) == 1


def nipa_units(doc):
    return {m["name"]: (m["unit"], m["scale"])
            for r in doc["results"] for m in r["metrics"]}


def test_nipa_and_reader():
    doc = json.loads(expect_rc(0, "report", "-f", "nipa", LOG)[0])
    assert nipa_units(doc) == WANT, nipa_units(doc)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import ksft_metric_reader
    assert nipa_units(ksft_metric_reader.read(LOG).nipa()) == WANT


def test_kcidb():
    doc = json.loads(expect_rc(0, "report", "-f", "kcidb", *KCIDB, LOG)[0])
    # KCIDB's path rule, as tests/cli/kcidb-v5.schema.json has it.
    with open(os.path.join(ROOT, "tests", "cli", "kcidb-v5.schema.json")) as f:
        rule = json.load(f)["definitions"]["test"]["properties"]["path"]["pattern"]
    tests = {t["misc"]["ksft_metric"]["name"]: t for t in doc["tests"]}
    got = {n: (t["misc"]["ksft_metric"].get("unit"), t["misc"]["ksft_metric"]["scale"])
           for n, t in tests.items()}
    assert got == WANT, got
    for name, t in tests.items():
        m = t["misc"]["ksft_metric"]
        if "number" in t:     # the compare value in the series' unit
            assert t["number"].get("unit") == WANT[name][0], t["number"]
            if m["compare"] in m["summary"]:
                want = m["summary"][m["compare"]] * WANT[name][1]
                assert abs(t["number"]["value"] - want) <= 1e-12 * abs(want), (t, want)
            assert "prefix" not in t["number"], t["number"]
        assert t["path"] and re.search(rule, t["path"]), (rule, t["path"])
    cost = tests["cpu.usec_per_mb"]
    assert cost["number"] == {"value": 618.8, "unit": "test CPU ms/GB"}, cost["number"]
    assert tests["copy.rate"]["number"] == {"value": 1280.0, "unit": "MB/s"}
    # Readable: no "_2e"/"_5f" escapes (issue 34's cpu_2eusec_5fper_5fmb).
    assert cost["path"] == "receive.cpu_usec_per_mb-mode-copy", cost["path"]


def test_text_report_and_compare():
    out = expect_rc(0, "report", LOG)[0]
    row = line_of(out, "copy.rate")
    assert re.search(r"\b1280\b", row) and "MB/s" in out, row
    assert "GB/s" not in out and "Gbit/s" not in out, out     # the author's units
    assert "618.8" in line_of(out, "cpu.usec_per_mb") and "test CPU ms/GB" in out, out
    base = os.path.join(TMP, "base.json")
    expect_rc(0, "save", "-o", base, LOG)
    out = expect_rc(0, "compare", "--baseline", base, LOG2)[0]
    row = row_of(out, "copy.rate")
    assert re.search(r"\b1280\b", row) and re.search(r"\b1290\b", row), row
    assert "GB/s" not in out, out
    assert "618.8" in row_of(out, "mode=copy"), out     # (the title may be shortened)


def test_compare_json():
    """compare --format json rows say their unit and scale (issue 40 item
    12): before, none; an array series' every element the same."""
    base = os.path.join(TMP, "base_json.json")
    expect_rc(0, "save", "-o", base, LOG)
    for _ in range(2):
        doc = json.loads(expect_rc(0, "compare", "-f", "json", "--baseline", base, LOG2)[0])
        got = {r["name"]: (r["unit"], r["scale"]) for r in doc["rows"]}
        assert got == WANT, got
        assert len({(r["unit"], r["scale"]) for r in doc["rows"]
                    if r["name"] == "cpu.time.usr"}) == 1, doc


def test_history():
    db = os.path.join(TMP, "h.db")
    for i, log in enumerate((LOG, LOG2), 1):
        expect_rc(0, "ingest", "--create", "-q", "--db", db, "--run", f"r{i}", "--order", f"00{i}", log)
    doc = json.loads(expect_rc(0, "history", "--db", db, "-f", "json")[0])
    got = {s["metric"]: (s["unit"], s["scale"]) for s in doc["series"]}
    want = {k: v for k, v in WANT.items() if k in got}
    assert got == want and "cpu.usec_per_mb" in got and "copy.rate" in got, got
    out = expect_rc(0, "history", "--db", db, "cpu.usec_per_mb")[0]
    # compare's number, not the stored 0.6188; the unit said once.
    assert "618.8" in out and "0.6188" not in out and "test CPU ms/GB" in out, out
    rows = list(csv.DictReader(io.StringIO(
        expect_rc(0, "history", "--db", db, "-f", "csv", "copy.rate")[0])))
    assert rows and {(r["unit"], r["scale"]) for r in rows} == {("MB/s", "1.0")}, rows


def main():
    try:
        return cli_util.run_tests(globals())
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
