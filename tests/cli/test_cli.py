#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-metric end to end: golden outputs, exit codes, bad input, --base-dir
attacks, SVG rendering, and a report/save/compare round trip of a realistic
log written by our own producer library (tests/cli/make_log.c).

usage: test_cli.py KSFT_METRIC MAKE_LOG SOURCE_DIR [RSVG_CONVERT [KSFT_SYSMON]]
Set KSFT_METRIC_UPDATE_GOLDEN=1 to rewrite the golden files (then review
the diff by hand: the numbers in them are hand-checked).
"""

import ctypes
import difflib
import errno
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

import cli_util
from cli_util import expect_rc, run

KSFT, MAKE_LOG, SRC = (os.path.abspath(a) for a in sys.argv[1:4])
RSVG = sys.argv[4] if len(sys.argv) > 4 else ""
SYSMON = sys.argv[5] if len(sys.argv) > 5 else ""
DATA = os.path.join(SRC, "data")
GOLDEN = os.path.join(SRC, "golden")
UPDATE = os.environ.get("KSFT_METRIC_UPDATE_GOLDEN") == "1"
TMP = tempfile.mkdtemp(prefix="ksft-metric-test-")
cli_util.KSFT = KSFT


def case_rows(out, case):
    """The rows of @case's table in a text output (issue 34: the case once,
    "path / case" above its series, then the head row)."""
    for block in out.split("\n\n"):
        lines = block.splitlines()
        title = lines[0].split(":")[0] if lines and ": pass" in lines[0] else \
            lines[0] if lines else ""
        if title == case or title.endswith(" / " + case):
            return lines[2:]
    return []


def golden(name, text):
    path = os.path.join(GOLDEN, name)
    if UPDATE:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return
    with open(path, encoding="utf-8", newline="") as f:
        want = f.read()
    if text != want:
        diff = "".join(difflib.unified_diff(
            want.splitlines(True), text.splitlines(True),
            f"golden/{name}", "output"))
        raise AssertionError(f"output differs from golden/{name}:\n{diff}")


def data(name):
    return os.path.join(DATA, name)


def make_log(path, *args):
    with open(path, "wb") as f:
        subprocess.run([MAKE_LOG, *args], stdout=f, check=True, timeout=120)
    return path


# ---- tests ---------------------------------------------------------------

def test_help_and_usage():
    for cmd in ("report", "save", "compare", "plot", "html"):
        out, _ = expect_rc(0, cmd, "--help")
        assert out.startswith(f"usage: ksft-metric {cmd}"), out
    out, _ = expect_rc(0, "--help")
    assert "Exit status" in out
    expect_rc(2)
    expect_rc(2, "frobnicate")
    expect_rc(2, "report", "--format", "xml", data("seed.log"))
    expect_rc(2, "report")
    expect_rc(2, "report", "--bogus", data("seed.log"))
    expect_rc(2, "save", data("seed.log"))
    expect_rc(2, "compare", data("seed.log"))
    expect_rc(2, "compare", "--baseline", data("seed.log"), "--alpha", "2",
              data("seed.log"))
    expect_rc(2, "compare", "--baseline", data("seed.log"), "--tolerance", "x",
              data("seed.log"))
    expect_rc(2, "plot", data("seed.log"))
    _, err = expect_rc(2, "html", data("seed.log"))
    assert "html needs -o OUT.html" in err, err
    _, err = expect_rc(2, "html", "-o", os.path.join(TMP, "x.html"), "--baseline",
                       data("seed.log"), data("seed.log"))
    assert "seed.log" in err, err



def test_judging_choice():
    """--baseline or --db: one rule, both given is an error everywhere."""
    base = os.path.join(TMP, "choice-base.json")
    db = os.path.join(TMP, "choice.db")
    expect_rc(0, "save", "-o", base, data("seed.log"))
    for cmd in (["compare"], ["report"], ["html", "-o", os.path.join(TMP, "c.html")],
                ["plot", "-o", os.path.join(TMP, "c.svg")]):
        _, err = expect_rc(2, *cmd, "--baseline", base, "--db", db, data("seed.log"))
        assert f"{cmd[0]} needs --baseline files or --db, not both" in err, err
    # plot draws no run history: --db is refused by name, not ignored.
    _, err = expect_rc(2, "plot", "-o", os.path.join(TMP, "c.svg"), "--db", db,
                       data("seed.log"))
    assert "plot judges against --baseline files only: --db is not supported" in err, err
    assert not os.path.exists(os.path.join(TMP, "c.svg"))
    _, err = expect_rc(2, "compare", data("seed.log"))
    assert "compare needs either --baseline files or --db" in err, err


def test_context_rule_once():
    """A bad --context value: the same library message from ingest and report."""
    bad = os.fsdecode(b"k=\xff")
    db = os.path.join(TMP, "ctx-rule.db")
    _, err1 = expect_rc(2, "ingest", "--create", "--db", db, "--context", bad, data("seed.log"))
    _, err2 = expect_rc(2, "report", "-f", "nipa", "--context", bad, data("seed.log"))
    for err in (err1, err2):
        assert "context entry 1 'k=" in err and "the value is not UTF-8 text" in err, err

def test_seed_goldens():
    for fmt, ext in (("text", "txt"), ("json", "json"), ("csv", "csv"),
                     ("openmetrics", "om")):
        out, err = expect_rc(0, "report", "--format", fmt, data("seed.log"))
        assert err == "", err
        golden(f"seed.report.{ext}", out)
    json.loads(expect_rc(0, "report", "-f", "json", data("seed.log"))[0])


def test_pipeline_golden():
    out, _ = expect_rc(0, "report", data("pipeline.log"))
    golden("pipeline.report.txt", out)
    doc = json.loads(expect_rc(0, "report", "-f", "json", data("pipeline.log"))[0])
    by = {s["name"]: s for s in doc["series"]}
    # Hand-computed (see data/pipeline.log and test_report_pipeline.c).
    assert by["counter"]["summary"] == {"p50": 5.0, "p90": 9.0, "p99": 9.9,
                                        "max": 10.0}, by["counter"]
    assert by["counter"]["processed"] == 3
    assert by["cpu.time.usr"]["summary"] == {"p90": 4.8}
    assert by["cpu.raw"]["summary"] == [{"max": 2.0}, {"max": 3.0}, None,
                                        {"max": 2.0}]
    assert by["cpu.utilization"]["summary"] == {"total": 1.75}
    # numpy.percentile([4, 1, 3, 2, 10], 90) is 7.6000000000000005 too.
    assert by["plain"]["summary"] == {"p50": 3.0, "p90": 7.6000000000000005, "p99": 9.76,
                                      "max": 10.0}


UNITS_LOG = """KTAP version 1
1..1
# ktap-metric-policy-json: {"display_label":"Gbit/s","display_scale":1e-9,"name":"tput","regression":{"better":"higher","compare":"p50","relative_tolerance":0.05},"summarize":"p50"}
# ktap-metric-policy-json: {"name":"bare","summarize":"last"}
# ktap-metric-json: {"name":"tput","shape":"scalar","time":0,"value":%s}
# ktap-metric-json: {"name":"bare","shape":"scalar","time":0,"value":7}
ok 1 units
"""


def test_units():
    """Tables show values times display_scale with display_label as the
    unit; a metric without display_* gets a bare number, no invented unit."""
    fast = os.path.join(TMP, "units-fast.log")
    slow = os.path.join(TMP, "units-slow.log")
    with open(fast, "w") as f:
        f.write(UNITS_LOG % "32500000000")
    with open(slow, "w") as f:
        f.write(UNITS_LOG % "20000000000")
    out, _ = expect_rc(0, "report", fast)
    # Issue 34: the unit once, in its column; the value alone in VALUE.
    assert re.search(r"^  tput\s+1\s+32\.5\s+Gbit/s$", out, re.M), out
    assert re.search(r"^  bare\s+1\s+7$", out, re.M), out
    base = os.path.join(TMP, "units-base.json")
    expect_rc(0, "save", "-o", base, fast)
    out, _ = expect_rc(1, "compare", "--all", "--baseline", base, slow)
    row = [line for line in out.splitlines() if "tput" in line][0]
    assert re.search(r"32\.5\s+20\s+-38\.5%\s+1\.625\s.*\sGbit/s$", row), row
    assert row.count("Gbit/s") == 1, row
    row = [line for line in out.splitlines() if "bare" in line][0]
    assert "Gbit" not in row and re.search(r"\s7\s+7\s", row), row
    cmp = json.loads(expect_rc(1, "compare", "-f", "json", "--baseline", base,
                               slow)[0])
    # Machine formats keep the metric's own units.
    assert [r["current"] for r in cmp["rows"] if r["name"] == "tput"] == [2e10]


def test_openmetrics_syntax():
    log = os.path.join(TMP, "om.log")
    with open(log, "w") as f:
        f.write('# ktap-metric-json: {"9bad key":"a\\"b\\\\c","case":"x",'
                '"name":"1weird.name-x","shape":"scalar","time":1,"value":2}\n'
                'ok 1 case "quoted"\n')
    out, _ = expect_rc(0, "report", "-f", "openmetrics", log)
    lines = out.splitlines()
    assert lines[-1] == "# EOF", lines
    assert lines[0] == "# TYPE ksft_metric_1weird_name_x gauge", lines
    sample = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*\{([a-zA-Z_][a-zA-Z0-9_]*='
                        r'"(?:[^"\\\n]|\\.)*",?)*\} \S+$')
    for line in lines[1:-1]:
        assert sample.match(line), line
    assert 'label_case="x"' in out and '_9bad_key="a\\"b\\\\c"' in out, out
    assert 'case="case \\"quoted\\""' in out, out


# Strict OpenMetrics parsing: prometheus_client's parser, from whichever
# python has it (Debian's python3-prometheus-client), plus the rules it
# does not enforce (a label set once per family, a family name once).
OM_CHECK = r"""
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = [(f.name, f.type, [(s.name, sorted(s.labels.items())) for s in f.samples])
        for f in text_string_to_metric_families(sys.stdin.read())]
print(json.dumps(fams))
"""


def om_parse_strict(text):
    for py in (sys.executable, "/usr/bin/python3"):
        if not os.path.exists(py):
            continue
        p = subprocess.run([py, "-c", "import prometheus_client"],
                           capture_output=True)
        if p.returncode:
            continue
        p = subprocess.run([py, "-c", OM_CHECK], input=text.encode(),
                           capture_output=True, timeout=300)
        assert p.returncode == 0, \
            f"OpenMetrics parser rejected the output:\n{p.stderr.decode()}\n{text}"
        fams = json.loads(p.stdout)
        names = [f[0] for f in fams]
        assert len(names) == len(set(names)), names
        for name, _, samples in fams:
            sets = [(n, tuple(map(tuple, lab))) for n, lab in samples]
            assert len(sets) == len(set(sets)), f"repeated label set in {name}"
        # The parser turns a repeated label name into an error, but check
        # the raw text too: it is what other parsers see.
        for line in text.splitlines():
            if line.startswith("#"):
                continue
            keys = re.findall(r'[{,]([a-zA-Z_][a-zA-Z0-9_]*)="', line)
            assert len(keys) == len(set(keys)), line
        return fams
    print("note: no python with prometheus_client; strict parse skipped")
    return None


def test_openmetrics_unique_names():
    """Sanitized label names, families and label sets never repeat."""
    log = os.path.join(TMP, "om-clash.log")
    m = ('# ktap-metric-json: {%s"name":"%s","shape":"scalar","time":1,'
         '"value":%d}\n')
    with open(log, "w") as f:
        f.write(m % ('"a.b":"dot","a_b":"under","a-b":"dash",', "m", 1))
        f.write(m % ('"case":"x","label_case":"y","series":"s",', "m", 2))
        f.write(m % ('"":"empty","_":"under","__x":"r",', "m", 3))
        f.write(m % ('"v":1,', "m", 4))
        f.write(m % ('"v":"1",', "m", 5))
        f.write(m % ('', "m.x", 6))
        f.write(m % ('', "m_x", 7))
        f.write("ok 1 c\n")
        # Path ["a / b"] and path ["a", "b"] join to the same text.
        f.write("# # ktap-metric-json: " + json.dumps(
            {"name": "p", "shape": "scalar", "time": 1, "value": 8}) + "\n")
        f.write("# ok 1 c\nok 2 a / b\n")
        f.write("# # # ktap-metric-json: " + json.dumps(
            {"name": "p", "shape": "scalar", "time": 1, "value": 9}) + "\n")
        f.write("# # ok 1 c\n# ok 1 b\nok 3 a\n")
    out, _ = expect_rc(0, "report", "-f", "openmetrics", log)
    assert out.count("# TYPE ksft_metric_m_x gauge") == 1, out
    # Valid keys keep their names; the others, in key order, get a suffix.
    assert 'metric="m",a_b_2="dash",a_b_3="dot",a_b="under",summary=' in out, out
    assert 'label_case_2="x",label_case="y",label_series="s",' in out, out
    assert 'label_="empty",_="under",label___x="r",' in out, out
    # Label values 1 and "1" print alike: the second set is told apart.
    assert 'v="1",summary=' in out and 'v="1",series="2",summary=' in out, out
    fams = om_parse_strict(out)
    if fams is not None:
        total = sum(len(f[2]) for f in fams)
        assert total == 9, (total, out)
    assert 'case="c",path="a / b",metric="p",summary=' in out, out
    assert 'case="c",path="a / b",metric="p",series="2",summary=' in out, out
    # The same output twice: deterministic.
    again, _ = expect_rc(0, "report", "-f", "openmetrics", log)
    assert again == out


# ---- KCIDB ---------------------------------------------------------------

SCHEMA_CHECK = r"""
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
errs = sorted(v.iter_errors(json.load(sys.stdin)), key=lambda e: list(e.path))
for e in errs:
    print("/".join(map(str, e.path)) + ": " + e.message)
sys.exit(1 if errs else 0)
"""


def schema_errors(text, schema="kcidb-v5.schema.json"):
    """Errors of @text against our schema of the KCIDB v5 rules (python3-jsonschema)."""
    for py in (sys.executable, "/usr/bin/python3"):
        if not os.path.exists(py) or subprocess.run(
                [py, "-c", "import jsonschema"], capture_output=True).returncode:
            continue
        p = subprocess.run([py, "-c", SCHEMA_CHECK, os.path.join(SRC, schema)],
                           input=text.encode(), capture_output=True, timeout=300)
        assert p.returncode in (0, 1), p.stderr.decode()
        return p.stdout.decode().splitlines()
    raise AssertionError("python3-jsonschema is needed (scripts/install-deps.sh)")


def kcidb_part(text, keep_dash):
    """doc/consumer.rst's readable path part: letters and digits (and "-"
    outside the metric part) stay, every run of other bytes is one "_",
    none at the ends; nothing left is "_"."""
    ok = rb"[A-Za-z0-9-]+" if keep_dash else rb"[A-Za-z0-9]+"
    return "_".join(w.decode() for w in re.findall(ok, text.encode())) or "_"


def kcidb_path(path, case, name, labels):
    """The KCIDB path of a series' identity (doc/consumer.rst)."""
    metric = kcidb_part(name, False)
    for k in sorted(labels):
        v = labels[k]
        v = v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
        metric += "-" + kcidb_part(k, False) + "-" + kcidb_part(v, False)
    return ".".join([kcidb_part(p, True) for p in path + [case]] + [metric])


KCIDB = ("--origin", "ksftm_ci", "--build-id", "ksftm_ci:build-1",
         "--start-time", "2026-12-01T07:55:00Z")


def test_kcidb():
    log = os.path.join(TMP, "kcidb.log")
    with open(log, "w") as f:
        f.write('# ktap-metric-context-json: {"hostname":"vm","kernel":"6.12.9"}\n')
        f.write("# selftests: drivers/net/hw: devmem.py\n# TAP version 13\n# 1..1\n")
        f.write('# # ktap-metric-policy-json: {"display_label":"Gbps","name":"throughput",'
                '"regression":{"better":"higher","compare":"p50","relative_tolerance":0.05},'
                '"summarize":"distribution"}\n')
        f.write('# # ktap-metric-policy-json: {"aggregation":"busy-core-equivalents",'
                '"display_label":"Percent of one CPU","display_scale":100,'
                '"name":"cpu.time.usr","summarize":"p90","transform":"rate"}\n')
        f.write('# # ktap-metric-policy-json: {"display_label":"Latency (us)",'
                '"name":"rtt","summarize":"p50"}\n')
        for t, v in ((1, 30.5), (2, 31.5), (3, 32.5)):
            f.write('# # ktap-metric-json: {"host":"local","name":"throughput",'
                    '"shape":"scalar","time":%d,"value":%s}\n' % (t, v))
        for t in (1, 2, 3):
            f.write('# # ktap-metric-json: {"host":"local","name":"cpu.time.usr",'
                    '"shape":"per-cpu","time":%d,"value":[%d,%d]}\n' % (t, t, 2 * t))
            f.write('# # ktap-metric-json: {"name":"rtt","shape":"scalar","time":%d,'
                    '"value":%d,"a.b":"x-y_z","n":1,"":""}\n' % (t, 10 * t))
        f.write('# # ktap-metric-json: {"name":"raw","shape":"per-cpu","time":1,"value":[1,2]}\n')
        f.write("# ok 1 devmem.check_kperf\nok 1 selftests: drivers/net/hw: devmem.py\n")
    out, _ = expect_rc(0, "report", "-f", "kcidb", *KCIDB, "--context", "commit=abc",
                       "--context", "hostname=runner", log)
    assert schema_errors(out) == [], schema_errors(out)
    doc = json.loads(out)
    assert doc["version"] == {"major": 5, "minor": 0}
    tests = {t["misc"]["ksft_metric"]["name"]: t for t in doc["tests"]}
    assert len(doc["tests"]) == 4, doc
    for t in doc["tests"]:
        assert t["status"] == "DONE" and t["origin"] == "ksftm_ci", t
        assert t["build_id"] == "ksftm_ci:build-1" and t["start_time"] == KCIDB[-1]
        # The caller's context wins over the log's; the log's is kept.
        assert t["misc"]["context"] == {"commit": "abc", "hostname": "runner",
                                        "kernel": "6.12.9"}, t["misc"]
        m = t["misc"]["ksft_metric"]
        assert t["path"] == kcidb_path(m["path"], m["case"], m["name"],
                                       m["labels"]), (t["path"], m)
        # One unit and scale per series: number.value is the compare value
        # times misc's scale, in misc's unit (model/units.c).
        if "number" in t:
            assert t["number"].get("unit") == m.get("unit"), (t["number"], m)
            assert "prefix" not in t["number"], t["number"]   # we chose the scale
            want = m["summary"][m["compare"]] * m["scale"]
            assert abs(t["number"]["value"] - want) <= 1e-12 * abs(want), (t, m)
        assert t["id"].startswith("ksftm_ci:ksftm-"), t["id"]
    th = tests["throughput"]
    # Readable: the names' words, a "_" for each run of other bytes (issue 34).
    assert th["path"] == ("selftests_drivers_net_hw_devmem_py."
                          "devmem_check_kperf.throughput-host-local"), th["path"]
    # The gate's value: p50 of the three repeats, in the author's unit.
    assert th["number"] == {"value": 31.5, "unit": "Gbps"}, th["number"]
    # A label for scaled per-CPU values says nothing of the aggregate: its
    # values are busy cores, unscaled.
    assert tests["cpu.time.usr"]["number"] == {"value": 3.0, "unit": "busy cores"}, \
        tests["cpu.time.usr"]
    assert tests["cpu.time.usr"]["misc"]["ksft_metric"]["scale"] == 1.0
    assert tests["rtt"]["number"] == {"value": 20.0, "unit": "Latency (us)"}
    assert tests["rtt"]["path"].endswith(".rtt-_-_-a_b-x_y_z-n-1"), tests["rtt"]
    assert "unit" not in tests["raw"]["misc"]["ksft_metric"]     # none: null dropped
    assert "number" not in tests["raw"], tests["raw"]    # an array: misc only
    assert tests["raw"]["misc"]["ksft_metric"]["summary"] == [{"last": 1.0}, {"last": 2.0}]
    # Deterministic ids: the same logs again give the same document...
    again, _ = expect_rc(0, "report", "-f", "kcidb", *KCIDB, "--context", "commit=abc",
                         "--context", "hostname=runner", log)
    assert again == out
    # ... another build or another run of the same build, other ids.
    ids = {t["id"] for t in doc["tests"]}
    other = json.loads(expect_rc(0, "report", "-f", "kcidb", "--origin", "ksftm_ci",
                                 "--build-id", "ksftm_ci:build-2", log)[0])
    assert not ids & {t["id"] for t in other["tests"]}
    run2 = json.loads(expect_rc(0, "report", "-f", "kcidb", *KCIDB, "--run-id", "2", log)[0])
    assert not ids & {t["id"] for t in run2["tests"]}
    assert len({t["id"] for t in run2["tests"]}) == 4
    # NIPA's names make readable paths.
    nipa = json.loads(expect_rc(0, "report", "-f", "kcidb", *KCIDB, "--name-style",
                                "nipa", log)[0])
    assert nipa["tests"][0]["path"] == \
        "selftests-drivers-net-hw.devmem-py.devmem-check-kperf.throughput-host-local"
    assert schema_errors(json.dumps(nipa)) == []
    # Verdicts against a baseline, without a null anywhere.
    base = os.path.join(TMP, "kcidb-base.json")
    expect_rc(0, "save", "-o", base, log)
    doc = json.loads(expect_rc(0, "report", "-f", "kcidb", *KCIDB, "--baseline", base,
                               log)[0])
    v = {t["misc"]["ksft_metric"]["name"]: t["misc"]["ksft_metric"]["verdicts"]
         for t in doc["tests"]}
    assert [r["verdict"] for r in v["throughput"]] == ["no_change"], v
    assert schema_errors(json.dumps(doc)) == []
    # Bad options: exit 2, the field and why.
    for args, want in ((("--origin", "Bad-Origin", "--build-id", "x:1"), "KCIDB origin 'Bad-Origin'"),
                       (("--origin", "o", "--build-id", "nocolon"), "KCIDB build id 'nocolon'"),
                       (("--origin", "o", "--build-id", "o:1", "--start-time", "yesterday"),
                        "KCIDB start time 'yesterday'"),
                       (("--origin", "o", "--build-id", "o:1", "--context", "=v"),
                        "--context '=v' is not KEY=VALUE"),
                       (("--origin", "o",), "needs --origin and --build-id")):
        _, err = expect_rc(2, "report", "-f", "kcidb", *args, log)
        assert want in err, err


def test_kcidb_schema_rejects():
    """The schema can fail: each broken rule is caught."""
    good = {"version": {"major": 5, "minor": 0}, "tests": [
        {"id": "o:1", "build_id": "o:b", "origin": "o", "path": "a.b-c_d",
         "status": "DONE", "number": {"value": 1.5, "unit": "s", "prefix": "metric"},
         "start_time": "2026-12-01T07:55:00Z", "misc": {"a": [None, {"b": 1}]}}]}
    assert schema_errors(json.dumps(good)) == []
    for field, value in (("status", "OK"), ("path", "a..b"), ("path", "a.b c"),
                         ("id", "1"), ("origin", "O"), ("build_id", "b"),
                         ("number", {"unit": "s"}), ("number", {"value": 1, "prefix": "si"}),
                         ("misc", {"a": {"b": None}}), ("start_time", "today"),
                         ("extra", 1)):
        bad = json.loads(json.dumps(good))
        bad["tests"][0][field] = value
        assert schema_errors(json.dumps(bad)), (field, value)
    bad = json.loads(json.dumps(good))
    del bad["tests"][0]["build_id"]
    assert schema_errors(json.dumps(bad))
    assert schema_errors(json.dumps({"version": {"major": 4}, "tests": []}))


# ---- NIPA ----------------------------------------------------------------

def test_nipa():
    log = os.path.join(TMP, "nipa.log")
    with open(log, "w") as f:
        f.write("# selftests: net/forwarding: a..b.sh\n# TAP version 13\n# 1..2\n")
        f.write('# # ktap-metric-json: {"name":"x","shape":"scalar","time":1,"value":1}\n')
        f.write("# ok 1 .under_score..\n")
        f.write('# # ktap-metric-json: {"name":"x","shape":"scalar","time":1,"value":2}\n')
        f.write("# ok 2 ...\n")
        f.write("ok 1 selftests: net/forwarding: a..b.sh\n")
        # A program run on its own: no group, no test known.
        f.write('# ktap-metric-json: {"name":"y","shape":"scalar","time":1,"value":3}\n')
        f.write("ok 2 plain_case\n")
    doc = json.loads(expect_rc(0, "report", "-f", "nipa", "--context", "k=v", log)[0])
    assert doc["format"] == "ksft-metric-nipa" and doc["context"] == {"k": "v"}
    got = [(r["group"], r["test"], r["subtest"]) for r in doc["results"]]
    # namify(): runs of other characters -> "-", a trailing one dropped.
    assert got == [("selftests-net-forwarding", "a-b-sh", "-under-score"),
                   ("selftests-net-forwarding", "a-b-sh", "no-name"),
                   (None, None, "plain-case")], got
    for r in doc["results"]:
        assert set(r) == {"group", "test", "subtest", "case", "path", "ktap_status",
                          "metrics"}, r
    assert doc["results"][0]["metrics"][0]["value"] == 1.0
    # --name-style nipa renames in every format.
    # (a CSV cell starting with "-" is quoted behind a ': no formula)
    out, _ = expect_rc(0, "report", "--name-style", "nipa", "-f", "csv", log)
    assert out.splitlines()[1].startswith(
        '"\'-under-score","[""selftests-net-forwarding"",""a-b-sh""]",x,'), out
    expect_rc(2, "report", "--name-style", "kernelci", log)


def test_nipa_verdicts():
    base = os.path.join(TMP, "nipa-base.json")
    expect_rc(0, "save", "-o", base, data("seed.log"))
    cur = os.path.join(TMP, "nipa-cur.log")
    with open(data("seed.log")) as f:
        text = f.read()
    # iperf's throughput drops by half; devmem's retransmit series vanishes.
    text = text.replace('"value":32.62285180182741', '"value":16.0')
    text = "\n".join(l for l in text.splitlines()
                     if not ('"host":"local","name":"tcp.retransmits"' in l
                             and "20.457998" in l)) + "\n"
    with open(cur, "w") as f:
        f.write(text)
    doc = json.loads(expect_rc(0, "report", "-f", "nipa", "--baseline", base, cur)[0])
    iperf = doc["results"][0]
    assert (iperf["group"], iperf["test"], iperf["subtest"]) == \
        ("selftests-drivers-net-hw", "iperf-py", "iperf-test-iperf"), iperf
    tput = iperf["metrics"][0]
    assert tput["name"] == "throughput" and tput["value"] == 16.0, tput
    assert [v["verdict"] for v in tput["verdicts"]] == ["regression"], tput
    assert tput["verdicts"][0]["baseline"] == 32.62285180182741
    assert [(m["name"], m["labels"]["host"]) for m in doc["results"][1]["metrics"]] == \
        [("throughput", "remote"), ("tcp.retransmits", "remote"), ("throughput", "local")]
    assert [(m["subtest"], m["name"], m["verdict"]["verdict"]) for m in doc["missing"]] == \
        [("devmem-check-kperf", "tcp.retransmits", "missing")], doc["missing"]


def test_openmetrics_help_and_unit():
    """# HELP from display_label; # UNIT only where the family name ends in it."""
    log = os.path.join(TMP, "om-unit.log")
    pol = '# ktap-metric-policy-json: {"display_label":%s,"name":"%s","summarize":"max"%s}\n'
    pt = '# ktap-metric-json: {"name":"%s","shape":"scalar","time":1,"value":%s}\n'
    with open(log, "w") as f:
        f.write(pol % ('"s"', "wait_seconds", ""))
        f.write(pol % ('"seconds"', "rtt", ""))
        f.write(pol % ('"B"', "buf_bytes", ',"display_scale":8'))
        f.write(pol % ('"Line \\\\ one\\nand \\"two\\""', "odd", ""))
        for name in ("wait_seconds", "rtt", "buf_bytes", "odd"):
            f.write(pt % (name, 1.5))
        f.write("ok 1 c\n")
    out, _ = expect_rc(0, "report", "-f", "openmetrics", log)
    lines = out.splitlines()
    i = lines.index("# TYPE ksft_metric_wait_seconds gauge")
    assert lines[i + 1:i + 3] == ["# UNIT ksft_metric_wait_seconds seconds",
                                  "# HELP ksft_metric_wait_seconds s"], lines
    # rtt is in seconds too, but its family name does not say so: no UNIT.
    assert "# HELP ksft_metric_rtt seconds" in lines and \
        not any(l.startswith("# UNIT ksft_metric_rtt") for l in lines), lines
    # A scaled label describes other numbers than the ones printed.
    assert not any(l.startswith("# UNIT ksft_metric_buf_bytes") for l in lines), lines
    # (the reader turned the newline into "?"; backslash and quote are escaped)
    assert '# HELP ksft_metric_odd Line \\\\ one?and \\"two\\"' in lines, lines
    # UNIT and HELP are where strict parsers are strictest: the parser is
    # required here (python3-prometheus-client, scripts/install-deps.sh).
    fams = om_parse_strict(out)
    assert fams is not None, "python3-prometheus-client is needed"
    assert sorted(f[0] for f in fams) == ["ksft_metric_buf_bytes", "ksft_metric_odd",
                                          "ksft_metric_rtt", "ksft_metric_wait_seconds"]



def test_nipa_history_verdicts():
    """report --db: the verdicts of the history gate, as compare --db gives them."""
    import random
    rng = random.Random(3)
    db = os.path.join(TMP, "nipa-history.sqlite")
    pol = ('# ktap-metric-policy-json: {"name":"throughput","regression":{"better":'
           '"higher","compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}\n')

    def log(name, level):
        path = os.path.join(TMP, name)
        with open(path, "w") as f:
            f.write("KTAP version 1\n1..1\n" + pol)
            for k in range(3):
                f.write('# ktap-metric-json: {"name":"throughput","shape":"scalar",'
                        '"time":%d,"value":%.6f}\n' % (k + 1, level * (1 + 0.03 * rng.gauss(0, 1))))
            f.write("ok 1 tcp\n")
        return path

    for i in range(12):
        expect_rc(0, "ingest", "--create", "--db", db, "--run", f"r{i:02d}", "--order", f"{i:02d}",
                  "--context", "runner=nipa", log(f"nh{i}.log", 100))
    slow = log("nh-slow.log", 80)
    doc = json.loads(expect_rc(0, "report", "-f", "nipa", "--db", db, "--context",
                               "runner=nipa", slow)[0])
    v = doc["results"][0]["metrics"][0]["verdicts"]
    assert [x["verdict"] for x in v] == ["regression"] and v[0]["baseline_runs"] == 12, v
    assert doc["context"] == {"runner": "nipa"}, doc["context"]
    kc = json.loads(expect_rc(0, "report", "-f", "kcidb", *KCIDB, "--db", db,
                              "--context", "runner=nipa", slow)[0])
    assert kc["tests"][0]["misc"]["ksft_metric"]["verdicts"][0]["verdict"] == "regression"
    assert schema_errors(json.dumps(kc)) == []
    _, err = expect_rc(2, "report", "-f", "nipa", "--db", db, "--baseline", slow, slow)
    assert "not both" in err, err
    # Issue 40 item 9: the CI's natural order, ingest then report: the
    # dashboard shows the gate's verdict, the run judged against the runs
    # before it, never against a window holding itself; twice the same.
    expect_rc(0, "ingest", "--db", db, "--run", "a12", "--order", "12", "--context",
              "runner=nipa", slow)
    hist = json.loads(expect_rc(0, "history", "--db", db, "--context", "runner=nipa",
                                "--format", "json")[0])
    assert hist["series"][0]["points"][-1]["state"] == "regression", hist
    for _ in range(2):
        doc = json.loads(expect_rc(0, "report", "-f", "nipa", "--db", db, "--context",
                                   "runner=nipa", slow)[0])
        v = doc["results"][0]["metrics"][0]["verdicts"]
        assert [x["verdict"] for x in v] == ["regression"] and v[0]["baseline_runs"] == 12, v
        kc = json.loads(expect_rc(0, "report", "-f", "kcidb", *KCIDB, "--db", db,
                                  "--context", "runner=nipa", slow)[0])
        v = kc["tests"][0]["misc"]["ksft_metric"]["verdicts"]
        assert [x["verdict"] for x in v] == ["regression"] and v[0]["baseline_runs"] == 12, v
        out, _ = expect_rc(1, "compare", "--db", db, "--context", "runner=nipa", slow)
        assert "RESULT: REGRESSION" in out, out
        # At its own order too: its id "a12" sorts before its content key
        # there, yet it is never in its own window.
        doc = json.loads(expect_rc(0, "report", "-f", "nipa", "--db", db, "--context",
                                   "runner=nipa", "--order", "12", slow)[0])
        v = doc["results"][0]["metrics"][0]["verdicts"]
        assert [x["verdict"] for x in v] == ["regression"] and v[0]["baseline_runs"] == 12, v


def test_kcidb_start_time_from_the_log():
    """Issue 40 item 9: KCIDB's start_time is the log's (its context's
    time), else left out; never the conversion's clock: two conversions
    of one log are the same bytes."""
    args = ["report", "-f", "kcidb", "--origin", "ci", "--build-id", "ci:1"]
    plain = data("seed.log")
    timed = os.path.join(TMP, "timed.log")
    with open(plain, encoding="utf-8") as f:
        text = f.read()
    with open(timed, "w", encoding="utf-8") as f:
        f.write(text.replace("TAP version 13\n", 'TAP version 13\n# ktap-metric-context-json: '
                             '{"time":"2026-12-07T10:40:50.423167Z"}\n', 1))
    for log, want in ((plain, None), (timed, "2026-12-07T10:40:50.423167Z")):
        first, _ = expect_rc(0, *args, log)
        time.sleep(1.1)     # a clock would have moved on
        second, _ = expect_rc(0, *args, log)
        assert first == second, (first, second)
        doc = json.loads(first)
        assert [t.get("start_time") for t in doc["tests"]] == [want] * len(doc["tests"]), doc
        assert schema_errors(first) == []


def test_stdin_and_several_files():
    with open(data("seed.log"), "rb") as f:
        text = f.read()
    a, _ = expect_rc(0, "report", "-f", "json", "-", stdin=text)
    b, _ = expect_rc(0, "report", "-f", "json", data("seed.log"))
    assert a == b
    # Two copies of the same log: every series twice as long.
    doc = json.loads(expect_rc(0, "report", "-f", "json", data("seed.log"), "-",
                               stdin=text)[0])
    assert all(s["points"] == 2 for s in doc["series"]), doc
    expect_rc(2, "report", "-", "-", stdin=text)


def test_bad_input():
    out, err = expect_rc(0, "report", data("bad.log"))
    golden("bad.report.txt", out)
    golden("bad.stderr.txt", err.replace(DATA + "/", ""))
    junk = os.path.join(TMP, "junk.bin")
    with open(junk, "wb") as f:
        f.write(bytes(range(256)) * 64 + b"\n# ktap-metric-json: {\x00\xff\n")
    _, err = expect_rc(2, "report", junk)
    assert f"no metrics found in {junk}: it is a binary file" in err, err
    # byte 10 is a newline: 64 junk lines, then the bad metric line.
    assert "junk.bin:66: warning: malformed metric JSON" in err, err
    _, err = expect_rc(2, "report", os.path.join(TMP, "does-not-exist.log"))
    assert "No such file" in err, err
    _, err = expect_rc(2, "report", TMP)
    assert "is a directory" in err, err
    # A line of megabytes (over the 16 MiB limit) is skipped, the rest read.
    big = os.path.join(TMP, "big.log")
    with open(big, "w") as f:
        f.write('# ktap-metric-json: {"name":"m","shape":"scalar","time":1,"value":1}\n')
        f.write('# ktap-metric-json: {"pad":"' + "x" * (17 << 20) + '"}\n')
        f.write('# ktap-metric-json: {"name":"m","shape":"scalar","time":2,"value":2}\n'
                "ok 1 t\n")
    out, err = expect_rc(0, "report", "-f", "json", big)
    assert "big.log:2: warning: line longer than 16777216 bytes skipped" in err, err
    assert json.loads(out)["series"][0]["points"] == 2
    # Truncated file: the cut-off last line is a warning, the rest is used.
    with open(data("seed.log"), "rb") as f:
        text = f.read()
    cut = os.path.join(TMP, "cut.log")
    with open(cut, "wb") as f:
        f.write(text[:text.index(b"321.16499")])
    out, err = expect_rc(0, "report", cut)
    assert "cut.log:22: warning: malformed metric JSON" in err, err
    assert "incomplete" in out, out


def test_killed_case():
    """Our producer killed with a case open: the abort line's case is kept
    as incomplete with its reason; the case before it is unaffected."""
    log = os.path.join(TMP, "killed.log")
    with open(log, "wb") as f:
        p = subprocess.run([MAKE_LOG, "--samples", "5", "--killed"], stdout=f,
                           timeout=120)
    assert p.returncode == -signal.SIGTERM, p.returncode
    with open(log, encoding="utf-8") as f:
        text = f.read()
    assert text.endswith('# # ktap-metric-abort-json: {"reason":"SIGTERM"}\n'), text[-300:]
    n_lines = text.split("# ok 1 devmem.check_rx")[1].count("ktap-metric-json:")
    abort_at = text.count("\n")
    out, err = expect_rc(0, "report", "-f", "json", log)
    rep = json.loads(out)
    died = [s for s in rep["series"] if s["status"] == "incomplete"]
    done = [s for s in rep["series"] if s["status"] != "incomplete"]
    assert died and done and len(died) == len(done), rep["series"]
    assert all(s["abort"] == "SIGTERM" and s["case"] == "incomplete" and
               s["path"] == ["selftests: drivers/net/hw: devmem.py"] for s in died), died
    assert all("abort" not in s and s["status"] == "pass" and
               s["case"] == "iperf.test_iperf" for s in done), done
    # Every point flushed at the kill is kept: as many as the finished case's.
    key = lambda s: (s["name"], json.dumps(s["labels"], sort_keys=True))
    assert {key(s): s["points"] for s in died} == \
        {key(s): s["points"] for s in done}, (died, done)
    assert all(s["points"] >= 5 for s in died if s["name"] != "tcp.retransmits"), died
    # Its policies came along: throughput is summarized as the seed says.
    tput = [s for s in died if s["name"] == "throughput"]
    assert tput and tput[0]["policy"] is not None, tput
    want = (f"killed.log:{abort_at}: warning: test case ended abnormally (SIGTERM); "
            f"its {n_lines} metric lines are kept as incomplete")
    assert want in err.replace(TMP + "/", ""), err
    assert "without a result line" not in err, err
    assert [w["line"] for w in rep["warnings"]
            if "ended abnormally" in w["reason"]] == [abort_at], rep["warnings"]
    # The text report marks them incomplete, as for any dead test.
    out, _ = expect_rc(0, "report", log)
    assert "incomplete" in out, out


def test_zperf_and_twister():
    out, _ = expect_rc(0, "report", data("twister.json"))
    golden("twister.report.txt", out)
    base = os.path.join(TMP, "zperf-base.json")
    expect_rc(0, "save", "-o", base, data("twister.json"))
    out, _ = expect_rc(0, "compare", "--baseline", base, data("console.log"))
    golden("zperf.compare.txt", out)
    slow = os.path.join(TMP, "slow-console.log")
    with open(data("console.log")) as f:
        text = f.read()
    with open(slow, "w") as f:
        f.write(text.replace("udp4_mbps=13.099", "udp4_mbps=12.100"))
    out, _ = expect_rc(1, "compare", "--baseline", base, "--tolerance", "5", slow)
    assert any(re.search(r"^  udp4_mbps .* -7\.63% .* REGRESSION", r)
               for r in case_rows(out, "zperf")), out
    expect_rc(0, "compare", "--baseline", base, "--tolerance", "8", slow)
    # The baseline zperf_regression.py --save writes is accepted as is.
    flat = os.path.join(TMP, "zperf-flat.json")
    with open(flat, "w") as f:
        json.dump({"tcp4_mbps": 5.97, "udp4_mbps": 13.099}, f, indent=4,
                  sort_keys=True)
    out, _ = expect_rc(1, "compare", "--baseline", flat, "--tolerance", "5", slow)
    assert "NEW" in out and "REGRESSION" in out, out


def test_round_trip():
    a = make_log(os.path.join(TMP, "a.log"), "--seed", "1")
    b = make_log(os.path.join(TMP, "b.log"), "--seed", "2")
    slow = make_log(os.path.join(TMP, "slow.log"), "--seed", "3",
                    "--throughput", "8000")
    died = make_log(os.path.join(TMP, "died.log"), "--seed", "4", "--die")
    doc = json.loads(expect_rc(0, "report", "-f", "json", a)[0])
    assert len(doc["series"]) == 32 and not doc["warnings"], doc["warnings"]
    by = {(s["case"], s["name"], s["labels"].get("host")): s for s in doc["series"]}
    usr = by[("iperf.test_iperf", "cpu.time.usr", "local")]
    assert usr["path"] == ["selftests: drivers/net/hw: iperf.py"]
    # 2.5 busy cores, 60 % of it user time: 1.5. The rates divide by the
    # library's own timestamps, so scheduling jitter on a busy runner moves
    # single points; the exact arithmetic is checked by the unit tests.
    assert 1.0 < usr["summary"]["p90"] < 3.0, usr
    util = by[("devmem.check_kperf", "cpu.utilization", "remote")]
    assert util["summary"] == {"p90": 3.75}, util
    tput = by[("iperf.test_iperf", "throughput", "local")]
    assert tput["points"] == 10 and set(tput["summary"]) == {"p50", "p90", "p99", "max"}
    base = os.path.join(TMP, "base.json")
    _, err = expect_rc(0, "save", "-o", base, a)
    assert "saved 32 series as run 1" in err, err
    _, err = expect_rc(0, "save", "--append", "-o", base, b)
    assert "as run 2" in err, err
    with open(base) as f:
        saved = json.load(f)
    assert saved["format"] == "ksft-metric-baseline" and saved["version"] == 1
    assert [r["sources"] for r in saved["runs"]] == [[a], [b]]
    out, _ = expect_rc(0, "compare", "--baseline", base, a)
    assert "RESULT: OK" in out, out
    out, _ = expect_rc(1, "compare", "--baseline", base, "--alpha", "0.01", slow)
    rows = [line for line in out.splitlines() if " throughput{host=local}" in line]
    assert len(rows) == 2 and all(r.endswith("REGRESSION") for r in rows), out
    # 10 current samples against 2 runs x 10 pooled: a tiny p-value.
    assert all(re.search(r"\s20/10\s+\S+e-0\d\s+REGRESSION$", r) for r in rows), rows
    # 30 untracked rows counted, not shown: the table fits 120 columns
    assert "30 untracked series (no regression policy) not shown" in out, out
    assert max(len(line) for line in out.splitlines()) <= 120, out
    cmp = json.loads(expect_rc(1, "compare", "-f", "json", "--baseline", base, slow)[0])
    assert cmp["result"] == "regression" and cmp["failing"] == 2
    # The test died: its series move to "incomplete"; the gated one its
    # baseline has is not a lost series but one that never ran: CASE
    # FAILED, never a regression (issue 40).
    out, _ = expect_rc(1, "compare", "--baseline", base, died)
    assert any(re.search(r"^  throughput\{host=local\} .* CASE FAILED", r)
               for r in case_rows(out, "devmem.check_kperf")), out
    assert "RESULT: CASE FAILED" in out and "REGRESSION" not in out, out
    # ... and those of the case that died are no measurement: not judged.
    assert any(re.search(r"^  throughput\{host=local\} .* CASE FAILED", r)
               for r in case_rows(out, "incomplete")), out
    expect_rc(0, "compare", "--allow-missing", "--baseline", base, died)
    rep = json.loads(expect_rc(0, "report", "-f", "json", died)[0])
    assert {s["status"] for s in rep["series"]} == {"pass", "incomplete"}
    svg = os.path.join(TMP, "round.svg")
    expect_rc(0, "plot", "-o", svg, "--baseline", base, slow)
    check_svg(svg)


def test_sysmon_round_trip():
    """A log of the project's system monitor (examples/sysmon), if built."""
    if not SYSMON:
        print("note: ksft-sysmon not built, its round trip skipped", file=sys.stderr)
        return
    logs = []
    # Its own suites check it under the sanitizers; here it only writes a log.
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", TSAN_OPTIONS="report_bugs=0")
    for i in range(2):
        path = os.path.join(TMP, f"sysmon{i}.log")
        with open(path, "wb") as f:
            subprocess.run([SYSMON, "--ifname", "lo", "--interval", "0.1",
                            "--", "sleep", "0.5"], stdout=f, env=env,
                           check=True, timeout=60)
        logs.append(path)
    doc = json.loads(expect_rc(0, "report", "-f", "json", logs[0])[0])
    names = {(s["name"], s["shape"]) for s in doc["series"]}
    for want in (("cpu.time.usr", "per-cpu"), ("cpu.utilization", "per-cpu"),
                 ("nic.rx.dropped", "scalar")):
        assert want in names, names
    for s in doc["series"]:
        assert s["status"] == "pass" and s["policy"], s
        if s["name"].startswith("cpu."):
            assert s["policy"]["aggregation"] == "busy-core-equivalents", s
            # A summary of busy cores: between 0 and the number of CPUs.
            assert 0 <= s["summary"]["p90"] <= os.cpu_count() + 1, s
    base = os.path.join(TMP, "sysmon-base.json")
    expect_rc(0, "save", "-o", base, logs[0])
    out, _ = expect_rc(0, "compare", "--all", "--baseline", base, logs[1])
    assert "RESULT: OK" in out and "UNTRACKED" in out, out
    svg = os.path.join(TMP, "sysmon.svg")
    expect_rc(0, "plot", "-o", svg, "--baseline", base, logs[1])
    check_svg(svg)


def check_svg(path):
    with open(path, "rb") as f:
        raw = f.read()
    root = ET.fromstring(raw)
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    text = raw.decode()
    for bad in ("<script", "@font-face", "@import", "xlink:href", " href="):
        assert bad not in text, bad
    if RSVG:
        png = path + ".png"
        subprocess.run([RSVG, "-o", png, path], check=True, timeout=120)
        with open(png, "rb") as f:
            head = f.read(8)
        assert head == b"\x89PNG\r\n\x1a\n" and os.path.getsize(png) > 1000
    else:
        print("note: rsvg-convert not found, SVG only parsed", file=sys.stderr)


def run_counted(*args):
    """Run ksft-metric under the counting shim: (rc, stderr, counts, maxrss KB)."""
    shim = os.environ.get("KSFT_COUNT_SHIM", "")
    counts_path = os.path.join(TMP, "counts.txt")
    env = dict(os.environ, KSFT_COUNT_OUT=counts_path)
    if os.path.exists(counts_path):
        os.unlink(counts_path)
    if shim:
        env["LD_PRELOAD"] = shim
        # Sanitizer builds: their runtime need not come first for this.
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + \
            ":verify_asan_link_order=0"
    p = subprocess.Popen([KSFT, *args], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, env=env)
    err = p.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    counts = {}
    if os.path.exists(counts_path):
        with open(counts_path) as f:
            counts = {k: int(v) for k, v in (line.split() for line in f)}
    return p.returncode, err, counts, usage.ru_maxrss


def test_plot_scales_linearly():
    """Plot work and memory follow the input, not points x width or
    series x series; crowded plots say what they left out. Counted (calls,
    values fetched, peak RSS), never timed."""
    shim = os.environ.get("KSFT_COUNT_SHIM", "")
    # 3000 cases, one series each (3000 charts wanted), a group of 25
    # series and a 10,000-point series.
    log = os.path.join(TMP, "many.log")
    n_cases, values = 3000, 0
    line = ('# ktap-metric-json: {%s"name":"%s","shape":"scalar",'
            '"time":%d,"value":%d}\n')
    with open(log, "w") as f:
        f.write("TAP version 13\n")
        # Two points each: a single point is shown as a number, not a chart.
        for i in range(n_cases):
            f.write(line % ("", "tput", i, i) + line % ("", "tput", i + 1, i + 1)
                    + f"ok {i + 1} case_{i}\n")
        values += 2 * n_cases
        for h in range(25):
            f.write(line % (f'"host":"h{h}",', "crowd", 0, h) +
                    line % (f'"host":"h{h}",', "crowd", 1, h + 1))
        for t in range(10000):
            f.write(line % ("", "long", t, t % 97))
        values += 50 + 10000
        f.write(f"ok {n_cases + 1} crowded\n")
    n_series = n_cases + 25 + 1
    svg = os.path.join(TMP, "many.svg")
    rc, err, counts, _ = run_counted("plot", "-o", svg, log)
    assert rc == 0, err
    wanted = n_cases + 2
    msg = f"drew 100 of {wanted} charts (at most 100 per plot)"
    assert msg in err, err
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    ET.fromstring(text)
    assert msg in text
    assert len(text) < 4 << 20, len(text)
    print(f"many-case plot: {counts}, {n_series} series, {values} values")
    if counts:
        assert counts["series_get"] <= 8 * n_series + 100, (counts, n_series)
        assert counts["values"] <= 4 * values, (counts, values)
    # The crowded group comes after the 100 charts drawn: plot it alone
    # to see the per-chart caps.
    crowd = os.path.join(TMP, "crowd.log")
    with open(log) as f, open(crowd, "w") as g:
        g.write("".join(l for l in f if "case_" not in l and '"tput"' not in l))
    rc, err, _, _ = run_counted("plot", "-o", svg, crowd)
    assert rc == 0, err
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    assert "drew 20 of 25 series" in text, text[:2000]
    assert "5 series left out" in err, err
    polylines = re.findall(r'<polyline[^>]*points="([^"]*)"', text)
    assert polylines and max(len(p.split()) for p in polylines) <= 2000, \
        max(len(p.split()) for p in polylines)
    # One 20,000-wide point among 20,000 narrow ones: 2 MB of log.
    wide = os.path.join(TMP, "wide.log")
    entries = 0
    with open(wide, "w") as f:
        f.write("TAP version 13\n")
        for t in range(20000):
            w = 20000 if t == 0 else 4
            entries += w
            f.write('# ktap-metric-json: {"name":"cpu","shape":"per-cpu",'
                    f'"time":{t},"value":[' + ",".join(["1.5"] * w) + "]}\n")
        f.write("ok 1 wide\n")
    size = os.path.getsize(wide)
    rc, err, counts, rss_kb = run_counted("plot", "-o", svg, wide)
    assert rc == 0, err
    print(f"wide plot: {counts}, {entries} entries, {size} bytes of log")
    if counts:
        assert counts["values"] <= 4 * entries, (counts, entries)
    # Peak RSS: the padded matrix alone would be 3.2 GB. A child forked
    # from this Python inherits its RSS high-water mark (kept across exec),
    # so the baseline is the same measurement of a command that reads
    # nothing; sanitizer builds add their shadow memory, hence the slack.
    _, _, _, idle_kb = run_counted("report", "--help")
    grown = max(0, rss_kb - idle_kb) * 1024
    print(f"wide plot: peak RSS {rss_kb} KB, {idle_kb} KB for --help")
    assert grown <= 128 * 2**20 + 20 * size, (rss_kb, idle_kb, size)
    if not shim:
        print("note: no counting shim; counts not checked")


def test_html_page():
    """Without a browser: the page is one document, escapes what it shows,
    fetches nothing, lists regressions with units and anchors every series."""
    fast = os.path.join(TMP, "html-fast.log")
    slow = os.path.join(TMP, "html-slow.log")
    with open(fast, "w") as f:
        f.write((UNITS_LOG % "32500000000").replace("ok 1 units", "ok 1 <b>&units"))
    with open(slow, "w") as f:
        f.write((UNITS_LOG % "20000000000").replace("ok 1 units", "ok 1 <b>&units"))
    base = os.path.join(TMP, "html-base.json")
    expect_rc(0, "save", "-o", base, fast)
    page = os.path.join(TMP, "page.html")
    _, err = expect_rc(0, "html", "-o", page, "--title", "</title><script>",
                       "--baseline", base, slow)
    assert err == "", err
    with open(page, encoding="utf-8") as f:
        text = f.read()
    assert "<script" not in text and "&lt;/title&gt;&lt;script&gt;" in text
    assert "&lt;b&gt;&amp;units" in text and "<b>&units" not in text
    assert "default-src 'none'" in text
    rows = re.findall(r'<tr class="(regression|improvement)" id="v-(s-[^"]+)">(.*?)</tr>',
                      text)
    assert len(rows) == 1 and rows[0][0] == "regression", rows
    cells = re.findall(r"<td[^>]*>(.*?)</td>", rows[0][2])
    # The unit in the values, once (no Unit column), then N and P (issue 34).
    assert cells[1:7] == ["REGRESSION", "20 Gbit/s", "32.5 Gbit/s", "-38.46%",
                          "1/1", "-"], cells
    assert f'<tr id="{rows[0][1]}">' in text, rows[0][1]     # the link's target
    ids = re.findall(r' id="([^"]+)"', text)
    assert len(ids) == len(set(ids)), "duplicate ids"
    # The same series gets the same anchor in another page.
    page2 = os.path.join(TMP, "page2.html")
    expect_rc(0, "html", "-o", page2, fast)
    with open(page2, encoding="utf-8") as f:
        text2 = f.read()
    assert f'<tr id="{rows[0][1]}">' in text2, rows[0][1]
    assert "No baseline given" in text2


def test_html_history():
    """html --db: the history gate's verdict with a sparkline, trends with
    the change point; an unreadable --db is an error naming it."""
    db = os.path.join(TMP, "html-history.db")
    for i in range(1, 15):
        log = os.path.join(TMP, f"hist{i}.log")
        with open(log, "w") as f:
            noise = ((i * 7) % 5 - 2) * 10**8      # +-0.2 Gbit/s
            f.write(UNITS_LOG % ("%d" % ((32 if i <= 8 else 20) * 10**9 + noise)))
        expect_rc(0, "ingest", "--create", "-q", "--db", db, "--run", f"r{i}", "--order", "%03d" % i, log)
    cur = os.path.join(TMP, "hist-cur.log")
    with open(cur, "w") as f:
        f.write(UNITS_LOG % "20000000000")
    page = os.path.join(TMP, "hist.html")
    expect_rc(0, "html", "-o", page, "--db", db, cur)
    with open(page, encoding="utf-8") as f:
        text = f.read()
    row = re.search(r'<tr class="regression"[^>]*>.*?</tr>', text).group(0)
    assert "Gbit/s" in row and 'circle class="change"' in row, row
    trends = re.findall(r'<figure class="chart trend" id="(t-[^"]+)">', text)
    assert any("tput" in t for t in trends) and any("bare" in t for t in trends), trends
    assert text.count('line class="change"') == 1, text.count('line class="change"')
    # Issue 23 item 5: the history above the cases; runs named on the axis,
    # this run marked, the gate's band and tolerance drawn.
    assert text.index('<section id="history">') < text.index('<section id="cases">')
    tput = re.search(r'<figure class="chart trend" id="t-[^"]*tput[^"]*">.*?</figure>',
                     text, re.S).group(0)
    assert re.search(r">r1?[0-9]</text>", tput) and ">this run</text>" in tput, tput[-3000:]
    assert 'circle class="current"' in tput and 'rect class="band"' in tput, tput[-3000:]
    assert tput.count('line class="tolerance"') == 2, tput.count('line class="tolerance"')
    # Accepted and pinned: the level and the pin drawn; with nothing
    # regressed the table still lists every gated series (no change).
    expect_rc(0, "accept", "--db", db, "r9")
    expect_rc(0, "pin", "--db", db, "r14")
    expect_rc(0, "html", "-o", page, "--db", db, cur)
    with open(page, encoding="utf-8") as f:
        text = f.read()
    listed = re.findall(r'<tr class="([a-z_]+)" id="v-', text)
    assert listed and "regression" not in listed and "no_change" in listed, listed
    assert "No regression and no improvement (every gated series above)" in text
    assert 'line class="level"' in text and 'class="pin"' in text, "no level or pin"
    expect_rc(0, "pin", "--db", db, "--unpin", "r14")
    _, err = expect_rc(2, "html", "-o", page, "--db", os.path.join(TMP, "no/such/dir/x.db"), cur)
    assert "no/such/dir" in err, err


def test_identical_lines():
    """Two series with the same points in one chart (local and remote cost
    on one host, issue 23): the later line dashed, the legend says so."""
    log = os.path.join(TMP, "same.log")
    lines = ["KTAP version 1", "1..1"]
    for t in range(5):
        for host in ("local", "remote"):
            lines.append('# ktap-metric-json: {"name":"cost","shape":"scalar","time":%d,'
                         '"value":%d,"host":"%s"}' % (t, 10 + t % 2, host))
    lines.append("ok 1 same")
    with open(log, "w") as f:
        f.write("\n".join(lines) + "\n")
    page = os.path.join(TMP, "same.html")
    expect_rc(0, "html", "-o", page, log)
    text = open(page, encoding="utf-8").read()
    assert text.count('<g class="same" stroke-dasharray') == 1, text.count('class="same"')
    assert ">= line 1, dashed: host=remote</text>" in text, "no legend note"


def test_html_repeated_case():
    """A case repeated in one log (tcp_mmap: one case per connection, each
    a point at its own in-case time) is drawn by repeat, as points: no line
    joins repeats against in-case time (issue 34); the report counts the
    repeats; a case that does not repeat keeps its line."""
    log = os.path.join(TMP, "repeated.log")
    lines = ["KTAP version 1", "1..6"]
    for k in range(5):
        for name, v in (("throughput", 10 + (k * 37 % 7) / 3), ("cost", 900 + k * 7)):
            lines.append('# ktap-metric-json: {"name":"%s","shape":"scalar","time":%r,'
                         '"value":%r,"mode":"copy"}' % (name, 1 + (k * 13 % 5) / 10, v))
        lines.append(f"ok {k + 1} receive")
    for t in range(4):
        lines.append('# ktap-metric-json: {"name":"rate","shape":"scalar","time":%d,'
                     '"value":%d}' % (t, 5 + t % 2))
    lines.append("ok 6 once")
    with open(log, "w") as f:
        f.write("\n".join(lines) + "\n")
    for _ in range(2):      # the same page both times
        page = os.path.join(TMP, "repeated.html")
        expect_rc(0, "html", "-o", page, log)
        text = open(page, encoding="utf-8").read()
        figs = dict(re.findall(r'<figure class="chart" id="([^"]+)">(.*?)</figure>', text, re.S))
        rep = {k: v for k, v in figs.items() if k.startswith("g-receive-")}
        once = {k: v for k, v in figs.items() if k.startswith("g-once-")}
        assert len(rep) == 2 and len(once) == 1, list(figs)
        for fig in rep.values():
            assert fig.count('<circle class="rep"') == 5 and "<polyline" not in fig, fig
            assert ">repeat (the case&apos;s instances in the log)</text>" in fig, fig
            xs = [float(x) for x in re.findall(r'<circle class="rep" cx="([0-9.]+)"', fig)]
            assert xs == sorted(xs) and len(set(xs)) == 5, xs   # repeat 1..5 in order
        assert all("<polyline" in f and 'class="rep"' not in f for f in once.values()), once


def test_site():
    """ksft-metric site (issue 23 item 5): index and one page per series,
    names stable across builds, self-contained; refuses a non-empty
    directory that is not a site; never writes through a symlink."""
    db = os.path.join(TMP, "site-history.db")
    for i in range(1, 13):
        log = os.path.join(TMP, f"site{i}.log")
        with open(log, "w") as f:
            noise = ((i * 7) % 5 - 2) * 10**8
            f.write(UNITS_LOG % ("%d" % ((32 if i <= 7 else 20) * 10**9 + noise)))
        expect_rc(0, "ingest", "--create", "-q", "--db", db, "--run", f"r{i}", "--order", "%03d" % i,
                  "--context", f"commit=abc{i}", log)
    expect_rc(0, "pin", "--db", db, "r11")
    out = os.path.join(TMP, "site")
    outside = os.path.join(TMP, "site-outside.txt")
    with open(outside, "w") as f:
        f.write("keep")
    _, err = expect_rc(0, "site", "--db", db, "-o", out)
    assert "index.html and" in err, err
    # A previous site whose index became a symlink out of it: replaced, not followed.
    os.unlink(os.path.join(out, "index.html"))
    os.symlink(outside, os.path.join(out, "index.html"))
    expect_rc(0, "site", "-q", "--db", db, "-o", out)
    assert open(outside).read() == "keep", "wrote through a symlink"
    assert not os.path.islink(os.path.join(out, "index.html"))
    names = sorted(os.listdir(out))
    pages = [n for n in names if n.startswith("s-") and n.endswith(".html")]
    assert len(pages) >= 2 and ".ksft-metric-site" in names, names
    index = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    for p in pages:
        assert f'href="{p}"' in index, p
        text = open(os.path.join(out, p), encoding="utf-8").read()
        assert "<script" not in text and "https://" not in text and "src=" not in text
        assert 'href="index.html#' in text
    tput = [p for p in pages if "tput" in p][0]
    text = open(os.path.join(out, tput), encoding="utf-8").read()
    assert 'line class="change"' in text and 'class="pin"' in text, tput
    assert ">abc12</text>" in text and "circle class=\"point current\"" in text
    # Values in the policy's display units, as compare shows them.
    assert re.search(r'<td class="num">[0-9.]+ [kMGT]?bit/s</td>', text), text[-3000:]
    assert re.search(r'<td class="num">[0-9.]+ [kMGT]?bit/s</td>', index), index[-3000:]
    assert re.search(r'<td class="verdict regression">REGRESSION</td>', index), index[-2000:]
    # Rebuilt: the same names (stable links); into a foreign directory: refused.
    expect_rc(0, "site", "-q", "--db", db, "-o", out)
    assert sorted(os.listdir(out)) == names
    foreign = os.path.join(TMP, "site-foreign")
    os.mkdir(foreign)
    with open(os.path.join(foreign, "notes.txt"), "w") as f:
        f.write("mine")
    _, err = expect_rc(2, "site", "--db", db, "-o", foreign)
    assert "site-foreign: not empty" in err and "--force" in err, err
    assert os.listdir(foreign) == ["notes.txt"]
    expect_rc(0, "site", "-q", "--force", "--db", db, "-o", foreign)
    assert "index.html" in os.listdir(foreign)
    _, err = expect_rc(2, "site", "--db", db)
    assert "-o DIR" in err, err


def test_plot_escaping():
    log = os.path.join(TMP, "nasty.log")
    with open(log, "w") as f:
        f.write('# ktap-metric-policy-json: {"display_label":"<b>&amp;\\u0001",'
                '"name":"m<&>","summarize":"max"}\n'
                '# ktap-metric-json: {"host":"a\\"<script>\\u0002","name":"m<&>",'
                '"shape":"scalar","time":1,"value":1}\n'
                '# ktap-metric-json: {"host":"a\\"<script>\\u0002","name":"m<&>",'
                '"shape":"scalar","time":2,"value":3}\n'
                "ok 1 <case> & 'quotes' \"x\"\n")
    svg = os.path.join(TMP, "nasty.svg")
    expect_rc(0, "plot", "-o", svg, "--title", "</svg><script>", log)
    check_svg(svg)
    svg2 = os.path.join(TMP, "seed.svg")
    base = os.path.join(TMP, "seed-base.json")
    expect_rc(0, "save", "-o", base, data("seed.log"))
    expect_rc(0, "plot", "-o", svg2, "--baseline", base, data("seed.log"),
              data("pipeline.log"))
    check_svg(svg2)


def test_base_dir():
    root = os.path.join(TMP, "confine")
    inside, outside = os.path.join(root, "in"), os.path.join(root, "out")
    os.makedirs(os.path.join(inside, "sub"))
    os.makedirs(outside)
    shutil.copy(data("seed.log"), os.path.join(inside, "sub", "seed.log"))
    shutil.copy(data("seed.log"), os.path.join(outside, "secret.log"))
    os.symlink(os.path.join(outside, "secret.log"), os.path.join(inside, "link.log"))
    os.symlink(outside, os.path.join(inside, "dirlink"))
    # Symlinks are never followed beneath --base-dir, even ones that stay inside.
    os.symlink("sub/seed.log", os.path.join(inside, "in-link.log"))
    victim = os.path.join(outside, "victim.json")
    with open(victim, "w") as f:
        f.write("precious\n")
    os.symlink(victim, os.path.join(inside, "evil.json"))
    base = ["--base-dir", inside]
    # Allowed: paths under the directory, ".." that stays inside.
    expect_rc(0, "report", *base, os.path.join(inside, "sub", "seed.log"))
    expect_rc(0, "report", *base, "sub/../sub/./seed.log", cwd=inside)
    expect_rc(0, "report", *base, "seed.log", cwd=os.path.join(inside, "sub"))
    expect_rc(0, "report", *base, "../in/sub/seed.log", cwd=outside)
    expect_rc(0, "report", *base, "./../../in/sub/seed.log",
              cwd=os.path.join(inside, "sub"))
    expect_rc(0, "save", *base, "-o", "sub/b.json", "sub/seed.log", cwd=inside)
    expect_rc(0, "compare", *base, "--baseline", "sub/b.json", "sub/seed.log",
              cwd=inside)
    # Attacks: "..", absolute paths, symlinks out, for reading and writing.
    attacks = [
        ("report", "../out/secret.log"),
        ("report", os.path.join(outside, "secret.log")),
        ("report", "sub/../../out/secret.log"),
        ("report", "link.log"),
        ("report", "dirlink/secret.log"),
        ("report", "/etc/passwd"),
        ("report", "in-link.log"),
        ("report", "sub/../in-link.log"),
        ("save", "-o", "in-link.log", "sub/seed.log"),
        ("save", "-o", "../out/new.json", "sub/seed.log"),
        ("save", "-o", "dirlink/new.json", "sub/seed.log"),
        ("save", "-o", "evil.json", "sub/seed.log"),
        ("save", "-o", os.path.join(outside, "new.json"), "sub/seed.log"),
        ("report", "-o", "../out/report.txt", "sub/seed.log"),
        ("compare", "--baseline", "link.log", "sub/seed.log"),
        ("compare", "--baseline", "sub/b.json", "-o", "evil.json", "sub/seed.log"),
        ("plot", "-o", "dirlink/x.svg", "sub/seed.log"),
        ("plot", "--baseline", "../out/secret.log", "-o", "x.svg", "sub/seed.log"),
        ("html", "-o", "dirlink/x.html", "sub/seed.log"),
        ("html", "-o", "x.html", "../out/secret.log"),
    ]
    for args in attacks:
        _, err = expect_rc(2, args[0], *base, *args[1:], cwd=inside)
        assert "refusing to access" in err and "--base-dir" in err, (args, err)
    with open(victim) as f:
        assert f.read() == "precious\n", "a symlink let a write escape"
    assert sorted(os.listdir(outside)) == ["secret.log", "victim.json"]
    # Without --base-dir nothing is confined.
    expect_rc(0, "report", "../out/secret.log", cwd=inside)
    _, err = expect_rc(2, "report", "--base-dir", os.path.join(root, "nope"),
                       "x.log", cwd=inside)
    assert "--base-dir" in err, err



# ---- --base-dir against a racing attacker, file modes, concurrent appends --

LIBC = ctypes.CDLL(None, use_errno=True)
RENAME_EXCHANGE = 2
SYS_OPENAT2 = 437       # the same number on every architecture


def no_openat2():
    """preexec_fn: openat2() fails with ENOSYS in the child, as on kernels
    before 5.6 or under container seccomp profiles; the tool must walk."""
    class SockFilter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte),
                    ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort),
                    ("filter", ctypes.POINTER(SockFilter))]

    prog = (SockFilter * 4)(
        SockFilter(0x20, 0, 0, 0),                      # ld [nr]
        SockFilter(0x15, 0, 1, SYS_OPENAT2),            # jeq openat2
        SockFilter(0x06, 0, 0, 0x00050000 | errno.ENOSYS),  # ret ERRNO
        SockFilter(0x06, 0, 0, 0x7fff0000))             # ret ALLOW
    fprog = SockFprog(4, prog)
    if LIBC.prctl(38, 1, 0, 0, 0) or \
            LIBC.prctl(22, 2, ctypes.byref(fprog), 0, 0):   # NO_NEW_PRIVS, SECCOMP
        os._exit(99)


def run_plain(*args, fallback=False):
    p = subprocess.run([KSFT, *args], capture_output=True, timeout=300,
                       preexec_fn=no_openat2 if fallback else None)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode != 99, "cannot install the seccomp filter"
    for marker in ("ERROR: AddressSanitizer", "runtime error:",
                   "WARNING: ThreadSanitizer"):
        assert marker not in err, err
    return p.returncode, p.stdout.decode("utf-8", "replace"), err


def race_beneath(fallback):
    """A directory component is swapped with a symlink to the outside
    (renameat2 RENAME_EXCHANGE, in a loop) while the tool reads and writes
    through it: nothing outside is ever read or written."""
    root = os.path.join(TMP, "race-walk" if fallback else "race")
    base, outside = os.path.join(root, "base"), os.path.join(root, "outside")
    d, s = os.path.join(base, "d"), os.path.join(base, "s")
    os.makedirs(d)
    os.makedirs(outside)
    shutil.copy(data("seed.log"), os.path.join(d, "in.log"))
    shutil.copy(data("seed.log"), os.path.join(base, "top.log"))
    with open(data("seed.log")) as f:
        secret = f.read().replace("iperf.test_iperf", "SECRET.outside")
    with open(os.path.join(outside, "in.log"), "w") as f:
        f.write(secret)
    os.symlink(outside, s)
    racer = subprocess.Popen([sys.executable, "-c", f"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
d, s = {os.fsencode(d)!r}, {os.fsencode(s)!r}
while True:
    libc.renameat2(-100, d, -100, s, {RENAME_EXCHANGE})
"""])
    reads = writes = refused = 0
    try:
        for i in range(150):
            rc, out, err = run_plain("report", "--base-dir", base,
                                     os.path.join(d, "in.log"), fallback=fallback)
            assert "SECRET" not in out, "read a file outside --base-dir"
            if rc == 0:
                reads += 1
            else:
                assert rc == 2 and "refusing to access" in err, (rc, err)
                refused += 1
            rc, _, err = run_plain("save", "--base-dir", base, "-o",
                                   os.path.join(d, f"out{i % 3}.json"),
                                   os.path.join(base, "top.log"), fallback=fallback)
            if rc == 0:
                writes += 1
            else:
                assert rc == 2 and "refusing to access" in err, (rc, err)
                refused += 1
            assert os.listdir(outside) == ["in.log"], os.listdir(outside)
    finally:
        racer.kill()
        racer.wait()
    with open(os.path.join(outside, "in.log")) as f:
        assert f.read() == secret
    print(f"# race{' (no openat2)' if fallback else ''}: {reads} reads, "
          f"{writes} writes, {refused} refused, nothing outside")
    assert reads + writes > 0


def test_base_dir_race():
    race_beneath(False)


def test_base_dir_race_without_openat2():
    # The filter works: openat2 itself fails with ENOSYS in such a child.
    p = subprocess.run([sys.executable, "-c",
                        "import ctypes, sys; l = ctypes.CDLL(None, use_errno=True); "
                        f"r = l.syscall({SYS_OPENAT2}, -100, b'.', None, 0); "
                        "sys.exit(0 if r == -1 and ctypes.get_errno() == 38 else 1)"],
                       preexec_fn=no_openat2, timeout=60)
    assert p.returncode == 0, "openat2 not blocked"
    race_beneath(True)
    # The walk enforces the same rules as openat2.
    root = os.path.join(TMP, "walk")
    inside = os.path.join(root, "in")
    os.makedirs(os.path.join(inside, "sub"))
    shutil.copy(data("seed.log"), os.path.join(inside, "sub", "seed.log"))
    os.symlink("sub", os.path.join(inside, "link"))
    base = ["--base-dir", inside]
    rc, _, err = run_plain("report", *base, os.path.join(inside, "sub/../sub/./seed.log"),
                           fallback=True)
    assert rc == 0, err
    for path in ("link/seed.log", "sub/../../in/sub/seed.log", "..", "/etc/passwd"):
        rc, _, err = run_plain("report", *base, os.path.join(inside, path), fallback=True)
        assert rc == 2 and "refusing to access" in err, (path, err)
    rc, _, err = run_plain("save", *base, "-o", os.path.join(inside, "link", "x.json"),
                           os.path.join(inside, "sub", "seed.log"), fallback=True)
    assert rc == 2 and "symbolic link" in err, err
    assert not os.path.exists(os.path.join(inside, "sub", "x.json"))


def test_output_keeps_mode():
    root = os.path.join(TMP, "modes")
    os.makedirs(root)
    for mode in (0o640, 0o600, 0o604):
        for cmd in (["save", "-o"], ["report", "-o"]):
            out = os.path.join(root, f"{cmd[0]}-{mode:o}.out")
            with open(out, "w") as f:
                f.write("old\n")
            os.chmod(out, mode)
            # save replaces a file that is not a baseline only with --force
            expect_rc(0, *cmd, out, *(["--force"] if cmd[0] == "save" else []),
                      data("seed.log"))
            st = os.stat(out)
            assert stat.S_IMODE(st.st_mode) == mode, (cmd, oct(st.st_mode))
            with open(out) as f:
                assert f.read() != "old\n"
    # Confined too, and with --append.
    shutil.copy(data("seed.log"), os.path.join(root, "seed.log"))
    out = os.path.join(root, "base.json")
    expect_rc(0, "save", "-o", out, os.path.join(root, "seed.log"))
    os.chmod(out, 0o640)
    expect_rc(0, "save", "--append", "--base-dir", root, "-o", out,
              os.path.join(root, "seed.log"))
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640
    # A new file gets 0666 minus the umask.
    new = os.path.join(root, "new.json")
    old_mask = os.umask(0o027)
    try:
        p = subprocess.run([KSFT, "save", "-o", new, data("seed.log")],
                           capture_output=True, timeout=60)
    finally:
        os.umask(old_mask)
    assert p.returncode == 0, p.stderr
    assert stat.S_IMODE(os.stat(new).st_mode) == 0o640
    assert not [n for n in os.listdir(root) if n.startswith(".ksft-metric-")]


def test_concurrent_appends():
    root = os.path.join(TMP, "appends")
    os.makedirs(root)
    logs = []
    for i in range(8):
        logs.append(os.path.join(root, f"run{i}.log"))
        shutil.copy(data("seed.log"), logs[-1])
    for rnd in range(3):
        out = os.path.join(root, f"base{rnd}.json")
        procs = [subprocess.Popen([KSFT, "save", "--append", "--base-dir", root,
                                   "-o", out, log], stderr=subprocess.PIPE)
                 for log in logs]
        for p in procs:
            _, err = p.communicate(timeout=300)
            assert p.returncode == 0, err
        with open(out) as f:
            runs = json.load(f)["runs"]
        assert sorted(r["sources"][0] for r in runs) == sorted(logs), \
            f"round {rnd}: {len(runs)} of {len(logs)} runs kept"


def main():
    try:
        return cli_util.run_tests(globals())
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
