#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One rule for the numbers of the text and the HTML case tables (issue
43, item 7; lib/report/export/text_fit.c): a series' value in 3-4
significant digits with its range (few points) or spread, then its unit.
The HTML table printed six digits and no spread ("1280.79 MB/s") where
the text printed "1281 (1250…1300) MB/s". Run twice: the same page.

usage: test_html_digits.py KSFT_METRIC
"""
import html
import os
import re
import subprocess
import sys
import tempfile

cli = sys.argv[1]
LOG = """KTAP version 1
1..1
# ktap-metric-policy-json: {"display_label":"MB/s","name":"copy.rate","summarize":"p50"}
# ktap-metric-policy-json: {"display_label":"test CPU ms/GB","display_scale":1000,"name":"cpu.cost","summarize":"p50"}
# ktap-metric-json: {"name":"copy.rate","shape":"scalar","time":1,"value":1250.123}
# ktap-metric-json: {"name":"copy.rate","shape":"scalar","time":2,"value":1300.456}
# ktap-metric-json: {"name":"copy.rate","shape":"scalar","time":3,"value":1280.789}
# ktap-metric-json: {"name":"cpu.cost","shape":"scalar","time":1,"value":5.63263}
ok 1 receive
"""


def fail(what, detail):
    print("FAIL: %s\n%s" % (what, detail))
    sys.exit(1)


with tempfile.TemporaryDirectory(prefix="html-digits.") as tmp:
    log = os.path.join(tmp, "run.log")
    with open(log, "w") as f:
        f.write(LOG)
    text = subprocess.run([cli, "report", log], stdout=subprocess.PIPE, check=True,
                          env=dict(os.environ, COLUMNS="120")).stdout.decode()
    pages = []
    for i in range(2):
        out = os.path.join(tmp, "r%d.html" % i)
        subprocess.run([cli, "html", "-o", out, log], check=True)
        with open(out, encoding="utf-8") as f:
            pages.append(f.read())
    if pages[0] != pages[1]:
        fail("two html runs differ", "")
    cells = [html.unescape(c) for c in re.findall(r'<td class="num">([^<]*)</td>', pages[0])]
    for metric, want in (("copy.rate", "1281 (1250\u20261300) MB/s"),
                         ("cpu.cost", "5633 test CPU ms/GB")):
        row = next((ln for ln in text.splitlines() if ln.strip().startswith(metric)), None)
        if row is None:
            fail("text: no row for %s" % metric, text)
        cols = re.split(r"\s{2,}", row.strip())
        if " ".join(cols[2:]) != want:
            fail("text: %s reads %r" % (metric, cols[2:]), text)
        if want not in cells:
            fail("html: %s's cell is not %r" % (metric, want), cells)
        print("ok: %s: text and html both read %r" % (metric, want))
print("PASS")
