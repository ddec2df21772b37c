#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judged in one run (doc/vm.rst, "Noise floor"), without QEMU: a guest
log (tests/fixtures/vm/icount-aa.log, its policies as the producers set
them under icount) with its instructions per byte raised 1 % fails
`compare --baseline` and `compare --db` on the first run; raised 0.4 %
(within the layout floor) passes both; unchanged passes. The history holds
the log five times, as five boots of one root are byte-identical. Each
verdict is asked twice.

usage: test_icount_gate.py KSFT_METRIC FIXTURE
"""
import json
import os
import subprocess
import sys
import tempfile

cli, fixture = sys.argv[1:3]
SERIES = "cpu.cost.test.best"


def scaled(src, dst, k):
    with open(src) as f, open(dst, "w") as g:
        for line in f:
            if line.startswith("# ktap-metric-json: ") and '"%s"' % SERIES in line:
                d = json.loads(line.split(": ", 1)[1])
                d["value"] *= k
                line = "# ktap-metric-json: " + json.dumps(d, separators=(",", ":")) + "\n"
            g.write(line)


def compare(args):
    outs = [subprocess.run([cli, "compare", "--quiet"] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, check=False) for _ in range(2)]
    if outs[0].returncode != outs[1].returncode or outs[0].stdout != outs[1].stdout:
        sys.exit("FAIL: compare %s: two verdicts differ" % args)
    return outs[0].returncode, outs[0].stdout.decode(errors="replace")


def check(cond, what, detail=""):
    if not cond:
        sys.exit("FAIL: %s\n%s" % (what, detail))
    print("ok:", what)


with open(fixture) as f:
    text = f.read()
check('"relative_tolerance":0.005' in text and '"name":"%s"' % SERIES in text,
      "the fixture carries the icount policy (0.5 %)")
with tempfile.TemporaryDirectory() as tmp:
    base, db = os.path.join(tmp, "base.json"), os.path.join(tmp, "h.db")
    subprocess.run([cli, "save", "--quiet", "-o", base, fixture], check=True)
    for i in range(5):
        subprocess.run([cli, "ingest", "--create", "--quiet", "--db", db, "--order", str(i), "--run",
                        "boot-%d" % i, fixture], check=True, stdout=subprocess.DEVNULL)
    for k, want_fail in ((1.0, False), (1.004, False), (1.01, True)):
        log = os.path.join(tmp, "x%g.log" % k)
        scaled(fixture, log, k)
        for how in (["--baseline", base], ["--db", db, "--order", "9"]):
            rc, out = compare(how + [log])
            what = "%+.1f %% instructions/byte: compare %s %s" % (
                100 * (k - 1), how[0], "fails" if want_fail else "passes")
            check((rc == 1) if want_fail else (rc == 0), what, out)
print("PASS")
