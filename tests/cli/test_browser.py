#!/usr/bin/env python3
"""ksft-metric html and plot in a real browser (headless Chromium through
Selenium): the page's structure (one verdict row per regression and
improvement, one chart per drawn series, zero series as text, single
values as numbers), no two text labels of a chart overlapping (bounding
boxes from the live page), no console errors, a screenshot that is not
blank; plot's SVG gets the same label check and must render with
rsvg-convert. Heatmaps are checked at 2 and 256 CPUs.

usage: test_browser.py KSFT_METRIC GEN_CPUS_PY [RSVG_CONVERT]
Exits 77 (skipped) when chromium, chromedriver or selenium is missing.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77


def find_selenium():
    try:
        import selenium  # noqa: F401
        return True
    except ImportError:
        pass
    # Debian's python3-selenium belongs to the system interpreter.
    if os.path.exists("/usr/bin/python3") and \
            os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
            not os.environ.get("KSFTM_BROWSER_REEXEC"):
        os.environ["KSFTM_BROWSER_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    return False


KSFT, GEN = sys.argv[1], sys.argv[2]
RSVG = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else shutil.which("rsvg-convert")
TMP = tempfile.mkdtemp(prefix="ksft-metric-browser-")

# Text boxes of one chart (an <svg> of the page, a g.chart of plot's SVG)
# that intersect by more than a hair.
OVERLAPS_JS = """
const groups = arguments[0] === 'html'
    ? Array.from(document.querySelectorAll('figure.chart svg'))
    : Array.from(document.querySelectorAll('g.chart')).concat([document.documentElement]);
const bad = [];
for (const g of groups) {
  let texts = Array.from(g.querySelectorAll('text'));
  if (g === document.documentElement)   // texts outside every chart
    texts = texts.filter(t => !t.closest('g.chart'));
  const boxes = texts.map(t => [t.textContent, t.getBoundingClientRect()]);
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i][1], b = boxes[j][1];
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 0.5 && h > 0.5)
        bad.push([boxes[i][0], boxes[j][0], w, h]);
    }
}
return [groups.length, bad];
"""


def run(*args):
    p = subprocess.run([KSFT, *args], capture_output=True, timeout=300)
    assert p.returncode == 0, f"ksft-metric {args}: {p.returncode}\n{p.stderr.decode()}"
    return p.stdout.decode()


def gen(path, *args):
    with open(path, "w") as f:
        subprocess.run([sys.executable, GEN, *args], stdout=f, check=True, timeout=120)
    return path


def png_pixels(data):
    """Decode an 8-bit RGB(A) PNG: (width, height, bytes per pixel, rows)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, rows, prev = zlib.decompress(idat), [], bytearray(w * bpp)
    stride = w * bpp + 1
    for y in range(h):
        f, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
        for i in range(len(line)):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def assert_not_blank(png, what):
    w, h, bpp, rows = png_pixels(png)
    colours, inked = set(), 0
    for row in rows[::4]:
        for x in range(0, w * bpp, bpp * 4):
            px = row[x:x + 3]
            colours.add(px)
            inked += px != b"\xff\xff\xff"
    samples = len(rows[::4]) * len(range(0, w * bpp, bpp * 4))
    assert len(colours) >= 8 and inked > samples * 0.01, \
        f"{what}: looks blank ({len(colours)} colours, {inked}/{samples} inked)"


def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu",
              "--disable-dev-shm-usage", "--window-size=1100,1400",
              "--hide-scrollbars"):
        opts.add_argument(a)
    opts.binary_location = shutil.which("chromium")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)


def check_no_overlap(d, kind, what):
    groups, bad = d.execute_script(OVERLAPS_JS, kind)
    assert groups > 0, f"{what}: no chart found"
    assert not bad, f"{what}: overlapping labels: {bad[:10]}"
    return groups


def console_errors(d):
    return [e for e in d.get_log("browser") if e["level"] == "SEVERE"]


def check_page(d, cpus):
    base_log = gen(os.path.join(TMP, f"base{cpus}.log"), "--cpus", str(cpus))
    cur_log = gen(os.path.join(TMP, f"cur{cpus}.log"), "--cpus", str(cpus),
                  "--gbps", "20", "--latency-us", "50", "--seed", "2")
    base = os.path.join(TMP, f"base{cpus}.json")
    run("save", "-q", "-o", base, base_log)
    cmp = json.loads(subprocess.run([KSFT, "compare", "-f", "json", "--baseline", base,
                                     cur_log], capture_output=True).stdout)
    want_verdicts = [r for r in cmp["rows"] if r["verdict"] in ("regression", "improvement")]
    assert len(want_verdicts) == 2, cmp   # the fixture's design
    page = os.path.join(TMP, f"report{cpus}.html")
    run("html", "-o", page, "--baseline", base, cur_log)
    text = open(page, encoding="utf-8").read()
    for bad in ("<script", "http://", "https://", "@import", "src="):
        if bad == "http://":   # the SVG namespace is a name, not a fetch
            text_wo_ns = text.replace('xmlns="http://www.w3.org/2000/svg"', "")
            assert bad not in text_wo_ns, bad
        else:
            assert bad not in text, bad
    d.get("file://" + page)
    what = f"html, {cpus} CPUs"
    # Verdicts: regressions first, each with value, baseline, change (the
    # unit in the values: no Unit column), N and P (issue 34).
    rows = d.execute_script("""return Array.from(document.querySelectorAll(
        'table.verdicts tbody tr:not(.explain)')).map(r => [r.className,
        Array.from(r.cells).map(c => c.textContent)]);""")
    # Every gated series is listed, the worst first (issue 23).
    assert [r[0] for r in rows][:2] == ["regression", "improvement"], (what, rows)
    assert all(r[0] in ("missing", "too_noisy", "no_change", "new", "not_comparable") for r in rows[2:]), rows
    assert rows[0][1][2].endswith(" Gbit/s") and rows[0][1][3].endswith(" Gbit/s"), rows
    assert abs(float(rows[0][1][2].split()[0]) - 20.1) < 0.3 and rows[0][1][4].startswith("-"), rows
    assert rows[0][1][5] == "20/20" and float(rows[0][1][6]) < 0.001, rows
    assert rows[1][1][2].endswith(" us"), rows
    # Every verdict links to a row of the series' case section.
    for href in d.execute_script("""return Array.from(document.querySelectorAll(
            'table.verdicts a')).map(a => a.getAttribute('href'));"""):
        assert d.execute_script("return !!document.getElementById(arguments[0]);",
                                href[1:]), href
    # One chart per drawn series: 2 heatmaps, the busy-core total, the
    # throughput and the latency; each figure holds one SVG.
    figs = d.execute_script("""return Array.from(document.querySelectorAll(
        'figure.chart')).map(f => [f.id, f.querySelectorAll('svg').length,
        f.querySelector('svg').getBoundingClientRect().height]);""")
    summary = d.find_element("id", "summary")
    assert len(figs) == 5 == int(summary.get_attribute("data-charts")), (what, figs)
    assert all(n == 1 for _, n, _ in figs), figs
    assert sum(f[0].startswith("h-") for f in figs) == 2, figs
    # Never leaves 0: one line of text, no chart; one point: a number.
    zero = d.find_element("css selector", "p.zero").text
    assert "nic.tx.dropped" in zero, zero
    assert not any("dropped" in f[0] or "connect" in f[0] for f in figs), figs
    single = d.execute_script("""return Array.from(document.querySelectorAll(
        'table.numbers tr')).filter(r => r.cells[0].textContent == 'connect_time')
        .map(r => [r.cells[3].textContent, r.cells[4].textContent]);""")
    # the unit once, in the value (no Unit column: issue 34), then the
    # points; 3-4 digits as in the text tables (issue 43)
    assert single == [["1.234 ms", "1"]], single
    # Heatmaps legible: whole-pixel rows of at least 1 px, at least 28 px
    # for the whole map, CPU 0 and the last labelled row inside it.
    cells = d.execute_script("""return Array.from(document.querySelectorAll(
        'figure.chart[id^="h-"] svg g[shape-rendering] rect')).map(
        r => r.getBBox().height);""")
    assert cells and min(cells) >= 1, (what, min(cells) if cells else None)
    labels = d.execute_script("""const f = document.querySelector('figure.chart[id^="h-"] svg');
        return Array.from(f.querySelectorAll('text')).map(t => t.textContent);""")
    assert "0" in labels and "CPU" in labels, labels
    if cpus >= 256:
        assert "128" in labels and "CPU" in labels, labels
    if cpus == 2:
        assert "1" in labels, labels
    check_no_overlap(d, "html", what)
    errors = console_errors(d)
    assert not errors, (what, errors)
    assert_not_blank(d.get_screenshot_as_png(), what)
    # A link straight to one series (what a CI comment would use).
    d.get("file://" + page + "#" + figs[0][0])
    assert d.execute_script("return document.querySelector(':target').id") == figs[0][0]
    print(f"ok html {cpus} CPUs: {len(figs)} charts, {len(rows)} verdicts")
    # The plot of the same: labels apart in the browser, rendered by rsvg.
    svg = os.path.join(TMP, f"plot{cpus}.svg")
    run("plot", "-o", svg, "--baseline", base, cur_log)
    d.get("file://" + svg)
    check_no_overlap(d, "svg", f"plot, {cpus} CPUs")
    charts = d.execute_script("return document.querySelectorAll('g.chart:not(.text-list)').length")
    lists = d.execute_script("""return Array.from(document.querySelectorAll(
        'g.text-list')).map(g => g.textContent);""")
    assert charts == 5, charts
    assert any("always 0:" in t and "nic.tx.dropped" in t for t in lists), lists
    assert any("connect_time = 1.2345 ms" in t for t in lists), lists
    assert not console_errors(d)
    if RSVG:
        png = svg + ".png"
        subprocess.run([RSVG, "-o", png, svg], check=True, timeout=120)
        with open(png, "rb") as f:
            assert_not_blank(f.read(), f"rsvg plot, {cpus} CPUs")
    print(f"ok plot {cpus} CPUs")


def check_history(d):
    """--db: verdicts from the history gate, each with a sparkline whose
    change point is marked; per series a trend over the runs with the
    change point and hover text naming run, context and value."""
    db = os.path.join(TMP, "history.db")
    for i in range(1, 17):
        log = gen(os.path.join(TMP, f"run{i}.log"), "--cpus", "4", "--seed", str(i),
                  "--gbps", "30" if i <= 10 else "20")
        run("ingest", "--create", "-q", "--db", db, "--order", "%03d" % i, "--context",
            f"ci=build{i}", log)
    cur = gen(os.path.join(TMP, "cur.log"), "--cpus", "4", "--seed", "99", "--gbps", "20")
    page = os.path.join(TMP, "history.html")
    run("html", "-o", page, "--db", db, cur)
    d.get("file://" + page)
    what = "html --db"
    rows = d.execute_script("""return Array.from(document.querySelectorAll(
        'table.verdicts tbody tr:not(.explain)')).map(r => [r.className,
        r.cells[2].textContent.split(' ').slice(1).join(' '),
        r.querySelectorAll('td.spark circle.change').length]);""")
    assert rows[0] == ["regression", "Gbit/s", 1], (what, rows)
    # Issue 34: N and P columns, no Unit column (the values carry it).
    heads = d.execute_script("""return Array.from(document.querySelectorAll(
        'table.verdicts thead th')).map(t => t.textContent);""")
    assert "N" in heads and "P" in heads and "Unit" not in heads, heads
    assert all(r[0] in ("too_noisy", "no_change", "new", "not_comparable") for r in rows[1:]), rows
    # Issue 22: a too-noisy row says what it would need, visible, in the
    # table's one vocabulary (a history of 3 runs is too short to judge the
    # drop); issue 34: in a row of its own right under it, spanning the
    # table, at a readable width (it sat in a column 8 characters wide,
    # 20 lines a row), and the series' name is not broken inside a word.
    young = os.path.join(TMP, "young.db")
    for i in range(1, 4):
        run("ingest", "--create", "-q", "--db", young, "--order", "%03d" % i,
            os.path.join(TMP, f"run{i}.log"))
    run("html", "-o", page, "--db", young, cur)
    d.get("file://" + page)
    needs = d.execute_script("""return Array.from(document.querySelectorAll(
        'table.verdicts tr.too_noisy:not(.explain)')).map(r => {
        const e = r.nextElementSibling, n = e && e.querySelector('td.explain div.needs');
        if (!n) return null;
        const b = n.getBoundingClientRect(), t = r.closest('table').getBoundingClientRect();
        const s = r.cells[0], a = s.querySelector('a');
        const lh = parseFloat(getComputedStyle(n).lineHeight);
        return [r.cells[1].textContent, n.textContent, b.height > 0,
                e.cells.length, e.cells[0].colSpan, r.cells.length, b.width, t.width,
                Math.round(b.height / lh), a.getClientRects().length,
                a.textContent.split(' ').length];});""")
    assert needs, (what, rows)
    for n in needs:
        assert n and n[0] == "TOO NOISY" and n[2], (what, needs)
        assert n[1].startswith("noise ") or n[1].startswith("the history is too short"), n
        # one cell spanning the row's cells, about as wide as the table
        assert n[3] == 1 and n[4] == n[5] and n[6] >= 0.8 * n[7] and n[6] >= 400, n
        # a sentence of at most 3 lines (it was 20), a name of whole words:
        # no more lines than words
        assert n[8] <= 3 and n[9] <= n[10], n
    check_no_overlap(d, "html", what + ", too noisy")
    run("html", "-o", page, "--db", db, cur)
    d.get("file://" + page)
    # The history above the cases: runs on the axis, this run marked.
    order = d.execute_script("""return Array.from(document.querySelectorAll(
        'section')).map(s => s.id);""")
    assert order.index("history") < order.index("cases"), order
    labels = d.execute_script("""const f = document.querySelector(
        'figure.trend[id^="t-cpus-throughput"]');
        return Array.from(f.querySelectorAll('text')).map(t => t.textContent);""")
    assert "this run" in labels and "ci=build" not in labels, labels
    assert d.execute_script("""return document.querySelectorAll(
        'figure.trend circle.current').length""") >= 1
    trend = d.execute_script("""const f = document.querySelector(
        'figure.trend[id^="t-cpus-throughput"]');
        return f && [f.querySelectorAll('line.change').length,
                     f.querySelectorAll('circle.point').length,
                     f.querySelector('line.change title').textContent,
                     Array.from(f.querySelectorAll('circle.point title')).map(
                         t => t.textContent)];""")
    assert trend and trend[0] == 1 and trend[1] == 16, (what, trend)
    assert "30" in trend[2] and "20" in trend[2] and "Gbit/s" in trend[2], trend[2]
    assert trend[3][0].startswith("run ") and "ci=build1:" in trend[3][0] and \
        "Gbit/s" in trend[3][0], trend[3][0]
    # The band is the gate's for this run: its level is the verdict row's
    # baseline, and the run (a 33 % drop) is beyond its alarm line.
    band = d.execute_script("""const b = document.querySelector(
        'figure.trend[id^="t-cpus-throughput"] rect.band');
        return b && [b.dataset.level, b.dataset.worse].map(parseFloat);""")
    p = subprocess.run([KSFT, "compare", "--db", db, "--format", "json", cur],
                       capture_output=True, timeout=300)
    assert p.returncode == 1, p.stderr     # the regression fails the run
    rows = json.loads(p.stdout)["rows"]
    row = [r for r in rows if r["name"] == "throughput" and r["verdict"] == "regression"][0]
    assert band and abs(band[0] - row["baseline"] * 1e-9) <= 1e-9 * band[0], (what, band, row)
    assert row["current"] * 1e-9 < band[1] < band[0], (what, band, row["current"])
    # A series that never left 0 gets no trend either.
    assert not d.execute_script(
        "return document.querySelector('figure.trend[id*=\"dropped\"]')")
    check_no_overlap(d, "html", what)
    assert not console_errors(d)
    print("ok html --db")


def site_history(db, runs=30):
    """A 30-run history of the fixture: a 20 % throughput drop at run 19,
    accepted at run 24, run 28 pinned; each run with a date and commit."""
    for i in range(1, runs + 1):
        log = gen(os.path.join(TMP, f"site{i}.log"), "--cpus", "4", "--seed", str(i),
                  "--gbps", "30" if i <= 18 else "24")
        run("ingest", "--create", "-q", "--db", db, "--run", f"r{i}", "--order",
            "2026-11-%02dT08:00" % i, "--context", f"commit={0xc0ffee00 + i:x}",
            "--context", f"kernel=6.12.{i}", log)
        if i == 24:
            run("accept", "--db", db, "r24")
    run("pin", "--db", db, "r28")


def check_gate_band(d, db, what):
    """The shaded band is the gate's (the history JSON's "gate", gate_band.c):
    its edges and the alarm line sit where the chart's own value axis puts
    the values where the latest run alone alarms, and its hover says so."""
    doc = json.loads(run("history", "--db", db, "--format", "json"))
    series = [s for s in doc["series"] if s["series"].endswith("throughput{host=local}")][0]
    gate, sc = series["gate"], series.get("display_scale", 1.0)
    assert gate["judged"] and gate["applies_to"] == "latest", gate
    got = d.execute_script("""const f = document.querySelector('figure.trend svg');
        const b = f.querySelector('rect.band'), a = f.querySelector('line.alarm');
        return [Array.from(f.querySelectorAll('circle.point')).map(
                    c => parseFloat(c.getAttribute('cy'))),
                parseFloat(b.getAttribute('y')), parseFloat(b.getAttribute('height')),
                a ? parseFloat(a.getAttribute('y1')) : null,
                b.querySelector('title').textContent,
                [b.dataset.level, b.dataset.worse, b.dataset.better].map(parseFloat),
                Array.from(f.querySelectorAll('g.key text')).map(t => t.textContent)];""")
    cy, top, height, alarm, title, data, legend = got
    values = [p["value"] * sc for p in series["points"]]
    assert len(cy) == len(values), (what, len(cy), len(values))
    # The chart's value axis from its own points: y = a + b v.
    i, j = values.index(min(values)), values.index(max(values))
    slope = (cy[j] - cy[i]) / (values[j] - values[i])
    def y(v):
        return cy[i] + slope * (v - values[i])
    worse, better = gate["alarm_worse"] * sc, gate["alarm_better"] * sc
    for got_v, want in zip(data, (gate["level"] * sc, worse, better)):
        assert abs(got_v - want) <= 1e-9 * abs(want), (what, data, gate)
    assert abs(top - y(max(worse, better))) <= 0.6, (what, top, y(max(worse, better)))
    assert abs(top + height - y(min(worse, better))) <= 0.6, (what, height, gate)
    assert alarm is not None and abs(alarm - y(worse)) <= 0.6, (what, alarm, y(worse))
    assert title.startswith("gate: a run beyond this line alarms on its own; noise sigma = "), \
        title
    assert f"h = {gate['h']:.2f}" in title and f"z = {gate['z_alarm']:.2f}" in title, title
    assert any(t.startswith("gate: a run beyond alarms alone (noise sigma = ") for t in legend), \
        legend


def check_site(d):
    """ksft-metric site over a 30-run history: every page opens without a
    console error, its links resolve, no two texts of a chart overlap,
    the series page shows runs, change point, accepted level and pin."""
    db = os.path.join(TMP, "site.db")
    site_history(db)
    out = os.path.join(TMP, "site")
    run("site", "-q", "--db", db, "-o", out, "--title", "ksft-metric history (30 runs)")
    d.get("file://" + os.path.join(out, "index.html"))
    rows = d.execute_script("""return Array.from(document.querySelectorAll(
        'table.index tbody tr')).map(r => [r.cells[0].textContent,
        r.querySelector('a').getAttribute('href'), r.cells[3].textContent,
        r.querySelectorAll('td.spark svg').length]);""")
    assert len(rows) >= 5 and all(r[3] == 1 for r in rows), rows
    assert not console_errors(d)
    shot = d.get_screenshot_as_png()
    assert_not_blank(shot, "site index")
    for name, href, _, _ in rows:
        assert os.path.exists(os.path.join(out, href)), href
    tput = [r for r in rows if "throughput" in r[0]][0]
    d.get("file://" + os.path.join(out, tput[1]))
    what = "site series page"
    marks = d.execute_script("""const f = document.querySelector('figure.trend svg');
        return [f.querySelectorAll('circle.point').length,
                f.querySelectorAll('line.change').length,
                f.querySelectorAll('line.level').length,
                f.querySelectorAll('g.pin:not(.key)').length,
                f.querySelectorAll('rect.band').length,
                f.querySelectorAll('circle.current:not(.key *)').length,
                Array.from(f.querySelectorAll('text')).map(t => t.textContent)];""")
    assert marks[0] == 30 and marks[1] >= 1 and marks[2] >= 1 and marks[3] == 1, (what, marks[:6])
    assert marks[4] == 1 and marks[5] == 1, (what, marks[:6])
    assert "r30" in marks[6] and "2026-11-30" in marks[6] and "c0ffee1e" in marks[6], marks[6]
    check_gate_band(d, db, what)
    check_no_overlap(d, "html", what)
    assert not console_errors(d)
    page_shot = d.get_screenshot_as_png()
    assert_not_blank(page_shot, what)
    d.get("file://" + os.path.join(out, "index.html") + "#" + tput[1][:-5])
    assert d.execute_script("return document.querySelector(':target').id") == tput[1][:-5]
    # The picture in doc/run-history.rst (scripts/site-screenshot.sh).
    dest = os.environ.get("KSFTM_SITE_SCREENSHOT")
    if dest:
        with open(dest, "wb") as f:
            f.write(page_shot)
        with open(dest.replace(".png", "-index.png"), "wb") as f:
            f.write(shot)
    print(f"ok site: {len(rows)} series, series page marks {marks[:6]}")


def check_main_like(d):
    """Many cases and wide arrays: the page says what it left out."""
    log = gen(os.path.join(TMP, "many.log"), "--cpus", "512", "--cases", "600")
    page = os.path.join(TMP, "many.html")
    run("html", "-o", page, log)
    d.get("file://" + page)
    summary = d.find_element("id", "summary").text
    assert "of 602 cases shown" in summary, summary
    assert d.find_element("id", "more-cases").text.startswith("202 more cases"), \
        d.find_element("id", "more-cases").text
    check_no_overlap(d, "html", "html, 512 CPUs, 602 cases")
    assert not console_errors(d)
    print("ok html 512 CPUs, 602 cases")


def main():
    if not shutil.which("chromium") or not shutil.which("chromedriver"):
        print("SKIP: chromium or chromedriver not installed")
        return SKIP
    if not find_selenium():
        print("SKIP: python3-selenium not installed")
        return SKIP
    d = driver()
    try:
        for cpus in () if os.environ.get("KSFTM_SITE_ONLY") else (2, 256):
            check_page(d, cpus)
        if not os.environ.get("KSFTM_SITE_ONLY"):
            check_main_like(d)
            check_history(d)
        check_site(d)
    finally:
        d.quit()
        shutil.rmtree(TMP, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
