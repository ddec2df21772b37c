#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile names in the CLI's outputs (issue 19, items 12 and 13):

- CSV: case, metric, run and order texts that start a spreadsheet formula
  (= + - @ tab CR) come out of report, compare and history CSV as text
  cells behind a single quote (OWASP), and the files still read back with
  Python's csv module to the same cells;
- SVG and HTML: a --title, case or metric name with invalid UTF-8 or XML
  1.0 control characters still gives a well-formed XML document (parsed
  with xml.etree), the bad bytes as U+FFFD.

usage: test_cli_hostile_text.py KSFT_METRIC
"""

import csv
import html.parser
import io
import json
import os
import re
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET

import cli_util
from cli_util import expect_rc

cli_util.KSFT = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="ksft-metric-hostile-")

FORMULAS = ["=cmd|'/C calc'!A0", "+1+2", "-2+3", "@SUM(A1)"]
# KTAP trims a case name's blanks; a metric name (JSON) keeps a tab.
METRICS = ['=HYPERLINK("http://x","y")', "@m", "+m", "-m", "\t=1"]


def log_with(cases, metrics, value=1.0):
    lines = ["KTAP version 1", f"1..{len(cases)}"]
    for i, case in enumerate(cases, 1):
        for m in metrics:
            lines.append(f'# ktap-metric-json: {{"name":{json.dumps(m)},"shape":"scalar",'
                         f'"time":1,"value":{value}}}')
        lines.append(f"ok {i} {case}")
    return "\n".join(lines) + "\n"


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    return path


def rows(text):
    return list(csv.reader(io.StringIO(text, newline="")))


def assert_no_formula(text, col_names, want):
    """Every cell of @col_names in CSV @text starts with no formula
    character; the cells that held one in @want are there behind a '."""
    table = rows(text)
    head, body = table[0], table[1:]
    seen = set()
    for row in body:
        for col in col_names:
            cell = row[head.index(col)]
            assert not cell or cell[0] not in "=+-@\t\r", (col, cell, text)
            if cell.startswith("'"):
                seen.add(cell[1:])
    missing = [w for w in want if w not in seen]
    assert not missing, (missing, text)


def test_report_csv():
    path = write("report.log", log_with(FORMULAS[:4], METRICS))
    out, _ = expect_rc(0, "report", "--format", "csv", path)
    assert_no_formula(out, ["case", "name"], FORMULAS[:4] + METRICS)


def test_compare_csv():
    base_log = write("base.log", log_with(["=case"], METRICS, 1.0))
    cur_log = write("cur.log", log_with(["=case"], METRICS, 1.0))
    base = os.path.join(TMP, "base.json")
    expect_rc(0, "save", "-o", base, base_log)
    out, _ = expect_rc(0, "compare", "--baseline", base, "--format", "csv", cur_log)
    assert_no_formula(out, ["case", "name"], ["=case"] + METRICS)


def test_history_csv():
    db = os.path.join(TMP, "h.sqlite")
    path = write("h.log", log_with(["@case"], ["=HYPERLINK(1)"]))
    for i, run in enumerate(["=run1", "+run2", "-run3"], 1):
        expect_rc(0, "ingest", "--create", "--db", db, "--run", run, "--order", f"@{i:04d}",
                  "--context", "runner=hostile", path)
    out, _ = expect_rc(0, "history", "--db", db, "--context", "runner=hostile",
                       "--format", "csv")
    table = rows(out)
    head = table[0]
    cols = [c for c in ("series", "run", "order") if c in head]
    assert cols == ["series", "run", "order"], head
    assert_no_formula(out, cols, ["=run1", "+run2", "-run3", "@0001"])


BAD = os.fsdecode(b"bad\xff \xc0\xaf end\x01\x1b[2J \xef\xbf\xbf")


def parse_xml(path):
    with open(path, "rb") as f:
        data = f.read()
    data.decode("utf-8")            # strict: every byte valid UTF-8
    return ET.fromstring(data), data


def test_plot_svg_title():
    path = write("plot.log", log_with(["c"], ["m"]))
    svg = os.path.join(TMP, "plot.svg")
    expect_rc(0, "plot", "-o", svg, "--title", BAD, path)
    root, data = parse_xml(svg)
    title = root.find("{http://www.w3.org/2000/svg}title").text
    assert title.startswith("bad\ufffd \ufffd\ufffd end?"), ascii(title)
    assert "\ufffd" in title and "\uffff" not in title, ascii(title)
    assert b"\xff" not in data and b"\x1b" not in data


def test_plot_and_html_hostile_names():
    # A case name with bytes that are not UTF-8 (metric JSON must be).
    text = log_with(["case\udcff\x02 \udcc0\udcaf"], ["m"]).encode("utf-8", "surrogateescape")
    path = os.path.join(TMP, "names.log")
    with open(path, "wb") as f:
        f.write(text)
    svg = os.path.join(TMP, "names.svg")
    expect_rc(0, "plot", "-o", svg, path)
    parse_xml(svg)
    page = os.path.join(TMP, "names.html")
    expect_rc(0, "html", "-o", page, "--title", BAD, path)
    with open(page, "rb") as f:
        data = f.read()
    data.decode("utf-8")
    # The page's inline SVG charts are XML too.
    start = 0
    while (start := data.find(b"<svg", start)) >= 0:
        end = data.index(b"</svg>", start) + len(b"</svg>")
        ET.fromstring(data[start:end])
        start = end


# ESC/BEL (an OSC window title), an erase, and the 8-bit CSI U+009B.
TERM_ESCAPES = "h\x1b]0;pwn\x07\x1b[2J\u009b31m"
RAW_CONTROLS = (b"\x1b", b"\x07", b"\xc2\x9b")


def context_log(name, context, value, case="tcp"):
    return write(name, "KTAP version 1\n1..1\n"
                 f"# ktap-metric-context-json: {json.dumps(context)}\n"
                 '# ktap-metric-policy-json: {"name":"m","regression":{"better":"higher",'
                 '"compare":"p50","relative_tolerance":0.05}}\n'
                 f'# ktap-metric-json: {{"name":"m","shape":"scalar","time":1,"value":{value}}}\n'
                 f"ok 1 {case}\n")


def test_context_controls_never_reach_the_terminal():
    """Issue 33 item 6: a log's context values with terminal escapes come
    out of compare's "other contexts" error and report's context line with
    every control as '?' (run twice: the same bytes each time)."""
    db = os.path.join(TMP, "ctx.sqlite")
    for i in range(3):
        expect_rc(0, "ingest", "--create", "--db", db, "--run", f"r{i}", "--order", f"{i:03d}",
                  context_log(f"ctx{i}.log", {"hostname": TERM_ESCAPES,
                                              "commit": f"c{i}\x1b[0m"}, 10 + i))
    cur = context_log("ctxcur.log", {"hostname": "good", "commit": "c9"}, 10)
    seen = []
    for _ in range(2):
        rc, out, err = cli_util.run("compare", "--db", db, cur)
        assert rc == 2 and "under other contexts" in err, (rc, err)
        assert "hostname=h?]0;pwn??[2J?31m" in err, ascii(err)
        for text in (out, err):
            raw = text.encode("utf-8", "surrogateescape")
            assert not any(c in raw for c in RAW_CONTROLS), ascii(text)
        seen.append(err)
    assert seen[0] == seen[1]
    out, _ = expect_rc(0, "report", "-q", os.path.join(TMP, "ctx0.log"))
    assert "hostname=h?]0;pwn??[2J?31m" in out, ascii(out)
    assert not any(c in out.encode("utf-8", "surrogateescape") for c in RAW_CONTROLS), \
        ascii(out)


# Markup that would hide a row or fake a verdict if written raw.
HTML_EVIL = 'x"><i style="display:none" onmouseover="y">EVIL</i><b'


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.bad = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name.startswith("on") or (name == "style" and value == "display:none"):
                self.bad.append((tag, name, value))
        if tag in ("i", "b"):
            self.bad.append((tag, attrs))


def html_evil_log(name, value, case):
    ctx = {"hostname": HTML_EVIL, HTML_EVIL: "k", "runner": "evil"}
    pol = {"name": "m", "display_label": HTML_EVIL, "display_scale": 1,
           "regression": {"better": "higher", "compare": "p50", "relative_tolerance": 0.05}}
    lines = ["KTAP version 1", "1..1", f"# ktap-metric-context-json: {json.dumps(ctx)}",
             f"# ktap-metric-policy-json: {json.dumps(pol)}"]
    for t in range(3):
        lines.append("# ktap-metric-json: " + json.dumps(
            {"name": "m", "shape": "scalar", "time": t, "value": value,
             "evil": HTML_EVIL, HTML_EVIL: 1}))
    lines.append(f"ok 1 {case}")
    return write(name, "\n".join(lines) + "\n")


def assert_escaped(path):
    with open(path, encoding="utf-8") as f:
        page = f.read()
    p = _Tags()
    p.feed(page)
    assert not p.bad, (path, p.bad)
    assert "<i style" not in page and '" onmouseover' not in page, path
    # The hostile text is shown, escaped (so the test would see it raw).
    assert "&lt;i style=" in page, path
    return page


def test_html_pages_escape_every_field():
    """Issue 33 item 5: a display_label, case, metric labels and context
    with markup come out escaped on every page kind: html, html with a
    baseline, html --db, and the site's index and series pages (twice:
    the same pages each time)."""
    case = "evil<i style=display:none>case</i>"
    logs = [html_evil_log(f"evil{i}.log", 10 + i * 0.01, case) for i in range(6)]
    cur = html_evil_log("evilcur.log", 5, case)
    db = os.path.join(TMP, "evil.sqlite")
    for i, log in enumerate(logs):
        expect_rc(0, "ingest", "--create", "--db", db, "--run", f"r{i}", "--order", f"{i:03d}", log)
    base = os.path.join(TMP, "evil-base.json")
    expect_rc(0, "save", "-q", "-o", base, logs[0])
    first = None
    for _ in range(2):
        pages = []
        plain = os.path.join(TMP, "evil-plain.html")
        expect_rc(0, "html", "-q", "-o", plain, cur)
        pages.append(assert_escaped(plain))
        judged = os.path.join(TMP, "evil-base.html")
        rc, _, err = cli_util.run("html", "-q", "--baseline", base, "-o", judged, cur)
        assert rc in (0, 1), err
        page = assert_escaped(judged)
        assert "REGRESSION" in page, judged
        pages.append(page)
        hist = os.path.join(TMP, "evil-db.html")
        rc, _, err = cli_util.run("html", "-q", "--db", db, "-o", hist, cur)
        assert rc in (0, 1), err
        pages.append(assert_escaped(hist))
        site = os.path.join(TMP, "evil-site")
        expect_rc(0, "site", "-q", "--db", db, "-o", site)
        names = sorted(os.listdir(site))
        assert "index.html" in names and len([n for n in names if n.endswith(".html")]) == 2, \
            names
        for n in names:
            if n.endswith(".html"):
                pages.append(assert_escaped(os.path.join(site, n)))
        if first is None:
            first = pages
        assert pages == first


# A parent name brute-forced (about 2^32 FNV-1a trials) so that its nested
# "tcp m" had the top-level "tcp m"'s slug and 32-bit hash: one page file,
# one anchor for both before issue 33 item 7.
COLLIDING_PARENT = "pokfu9hb"


def colliding_log(name, value):
    return write(name, "KTAP version 1\n1..2\n"
                 '# ktap-metric-policy-json: {"name":"m","regression":{"better":"higher",'
                 '"compare":"p50","relative_tolerance":0.05}}\n'
                 f'# ktap-metric-json: {{"name":"m","shape":"scalar","time":1,"value":{value}}}\n'
                 "ok 1 tcp\n"
                 "    KTAP version 1\n"
                 f"    # Subtest: {COLLIDING_PARENT}\n"
                 "    1..1\n"
                 '    # ktap-metric-policy-json: {"name":"m","regression":{"better":"higher",'
                 '"compare":"p50","relative_tolerance":0.05}}\n'
                 f'    # ktap-metric-json: {{"name":"m","shape":"scalar","time":1,'
                 f'"value":{value * 100}}}\n'
                 "    ok 1 tcp\n"
                 f"ok 2 {COLLIDING_PARENT}\n")


def test_colliding_identities_get_their_own_pages():
    """Issue 33 item 7: the site writes one page per identity and links
    each index row to its own; html gives each its own anchor (twice: the
    same names each time)."""
    db = os.path.join(TMP, "collide.sqlite")
    for i in range(3):
        expect_rc(0, "ingest", "--create", "--db", db, "--run", f"r{i}", "--order", f"{i:03d}",
                  colliding_log(f"collide{i}.log", 10 + i))
    first = None
    for k in range(2):
        site = os.path.join(TMP, f"collide-site{k}")
        expect_rc(0, "site", "-q", "--db", db, "-o", site)
        pages = sorted(n for n in os.listdir(site) if n.endswith(".html") and n != "index.html")
        assert len(pages) == 2, pages
        with open(os.path.join(site, "index.html"), encoding="utf-8") as f:
            index = f.read()
        links = sorted(set(re.findall(r'href="(s-[a-z0-9-]+\.html)"', index)))
        assert links == pages, (links, pages)
        titles = []
        for n in pages:
            with open(os.path.join(site, n), encoding="utf-8") as f:
                titles.append(re.search(r"<title>([^<]*)</title>", f.read()).group(1))
        assert len([t for t in titles if COLLIDING_PARENT in t]) == 1, titles
        page = os.path.join(TMP, f"collide{k}.html")
        expect_rc(0, "html", "-q", "-o", page, os.path.join(TMP, "collide0.log"))
        with open(page, encoding="utf-8") as f:
            ids = re.findall(r'<tr id="(s-tcp-m-[a-z0-9-]+)"', f.read())
        assert len(ids) == 2 and ids[0] != ids[1], ids
        if first is None:
            first = (pages, ids)
        assert (pages, ids) == first


if __name__ == "__main__":
    try:
        rc = cli_util.run_tests(globals())
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(rc)
