#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksftmetric.ksft_wiring, the package's wiring for an unchanged ksft.py
(issue 42), on the real 6.12 tree extracted by extract_upstream.sh: a
drivers/net-style test that imports ksft_run from drivers/net/lib/py
(which re-exports net/lib/py's) gets its cases' metrics with `python3 -m
ksftmetric.ksft_wiring TEST`, with install() before its imports and with
a late wire() after them; without the wiring the same test fails each
case (recording outside a case) and prints no metric line.

usage: test_ksft_wiring.py UPSTREAM_DIR KSFT_METRIC
"""

import json
import os
import subprocess
import sys
import tempfile

TREE, KSFT = (os.path.abspath(a) for a in sys.argv[1:3])
DRIVERS = os.path.join(TREE, "tools", "testing", "selftests", "drivers", "net")

# A test as a kernel developer writes it under drivers/net: ksft.py and
# drivers/net/lib/py are the kernel's, unchanged.
TEST = '''#!/usr/bin/env python3
import sys
{before}
from lib.py import ksft_run, ksft_exit, ksft_eq
from ksftmetric import ksft_metric, ksft_metric_aggregate
{after}

def test_rate():
    ksft_metric_aggregate("rate", summarize="distribution",
                          regression={{"compare": "p50", "better": "higher",
                                       "relative_tolerance": 0.05}})
    for v in (1.5, 2.5, 3.5):
        ksft_metric("rate", v, shape="scalar")

def test_other():
    ksft_metric("rate", 9.0, shape="scalar")
    ksft_eq(1, 1)

def main():
    ksft_run([test_rate, test_other])
    ksft_exit()

if __name__ == "__main__":
    main()
'''


def run(name, argv_of, before="", after="", want=0):
    """Write the test into drivers/net (the tree's own place for it), run
    it, remove it; its stdout."""
    path = os.path.join(DRIVERS, f"ksftm_wiring_{os.getpid()}_{name}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(TEST.format(before=before, after=after))
    try:
        p = subprocess.run(argv_of(path), capture_output=True, text=True, cwd=DRIVERS,
                           timeout=120)
    finally:
        os.unlink(path)
    assert p.returncode == want, (name, p.returncode, p.stdout, p.stderr)
    return p.stdout


def cases(out):
    """{case: [values]} as ksft-metric reads the output."""
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(out)
    try:
        p = subprocess.run([KSFT, "report", "-f", "json", f.name], capture_output=True,
                           text=True, check=True)
    finally:
        os.unlink(f.name)
    doc = json.loads(p.stdout)
    return {s["case"].rsplit(".", 1)[-1]: s["points"] for s in doc["series"]}


def check(out):
    lines = out.splitlines()
    results = [i for i, ln in enumerate(lines) if ln.startswith("ok ")]
    assert len(results) == 2, out
    # Each case's metric lines come right before its own result line.
    first = [i for i, ln in enumerate(lines) if "ktap-metric-json" in ln and "1.5" in ln]
    other = [i for i, ln in enumerate(lines) if "ktap-metric-json" in ln and "9.0" in ln]
    assert first and first[0] < results[0] < other[0] < results[1], out
    got = cases(out)
    assert got == {"test_rate": 3, "test_other": 1}, (got, out)


def test_module_runner():
    check(run("m", lambda t: [sys.executable, "-m", "ksftmetric.ksft_wiring", t]))


def test_install_before_the_imports():
    check(run("i", lambda t: [sys.executable, t],
              before="from ksftmetric import ksft_wiring\nksft_wiring.install()"))


def test_late_wire_reaches_the_re_export():
    check(run("w", lambda t: [sys.executable, t],
              after="import net.lib.py.ksft\nfrom ksftmetric import ksft_wiring\n"
                    "ksft_wiring.wire(net.lib.py.ksft)"))


def test_unwired_gets_no_metrics():
    """Before: the re-exported ksft_run opens no case, so recording fails
    every case ("called outside of a test case") and no metric is kept."""
    out = run("n", lambda t: [sys.executable, t], want=1)
    assert "ktap-metric-json" not in out and out.count("\nnot ok ") == 2, out
    assert "called outside of a test case" in out, out


if __name__ == "__main__":
    failed = 0
    for name, fn in sorted(globals().items()):
        if name.startswith("test_") and callable(fn):
            try:
                fn()
                print("ok", name)
            except Exception as e:  # pylint: disable=broad-except
                failed += 1
                print("FAIL", name, repr(e)[:4000])
    sys.exit(1 if failed else 0)
