#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""compare --baseline FILE LOG reads the log first and the baseline as a
stream (issue 45): its output, exit status and messages are those of the
same baseline read whole (here: the same file re-indented, which the
stream does not take), and a broken baseline is said without the log's
warnings, as when it was read first. Each verdict twice.

usage: test_cli_baseline_stream.py KSFT_METRIC
"""

import json
import os
import shutil
import sys
import tempfile

import cli_util
from cli_util import expect_rc, run

cli_util.KSFT = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="ksft-metric-blstream-")


def write_log(name, values, context=None, junk=False):
    lines = ["KTAP version 1", "1..%d" % len(values)]
    if context:
        lines.append("# ktap-metric-context-json: " + json.dumps(context))
    for i, v in enumerate(values):
        lines.append('# ktap-metric-policy-json: {"name":"rtt","regression":{"better":"lower",'
                     '"compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}')
        lines.append('# ktap-metric-json: {"name":"rtt","shape":"scalar","value":%r}' % v)
        if junk and i == 0:
            lines.append('# ktap-metric-json: {"name":')      # a warning
        lines.append("ok %d case_%d" % (i + 1, i))
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def reindented(src, name):
    """The same runs, not as save writes them: read whole."""
    d = os.path.join(TMP, name)
    os.makedirs(d, exist_ok=True)
    dst = os.path.join(d, os.path.basename(src))
    with open(src, encoding="utf-8") as f:
        doc = json.load(f)
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
    return dst


def same_both_ways(want, base, log, *opts):
    whole = reindented(base, "whole")
    for _ in range(2):
        a = run("compare", *opts, "--baseline", base, log)
        b = run("compare", *opts, "--baseline", whole, log)
        assert a[0] == want, a
        assert a[0] == b[0] and a[1] == b[1], (a, b)
        assert a[2].replace(base, "B") == b[2].replace(whole, "B"), (a[2], b[2])
    return a


LOG = write_log("base.log", [100.0, 200.0, 300.0], context={"clock": "icount"})
BASE = os.path.join(TMP, "base.json")
expect_rc(0, "save", "-q", "-o", BASE, LOG)


def test_same_as_read_whole():
    same_both_ways(1, BASE, write_log("worse.log", [100.0, 250.0, 300.0],
                                      context={"clock": "icount"}))
    for fmt in ("text", "json", "csv", "reply"):
        same_both_ways(0, BASE, write_log("same.log", [100.0, 200.0, 301.0],
                                          context={"clock": "icount"}, junk=True),
                       "-f", fmt)
    # a case more and one less: read whole by the library, the same rows
    same_both_ways(0, BASE, write_log("more.log", [100.0, 200.0, 300.0, 400.0],
                                      context={"clock": "icount"}))
    same_both_ways(1, BASE, write_log("less.log", [100.0, 200.0],
                                      context={"clock": "icount"}))


def test_context_refused_after_warnings():
    log = write_log("tsc.log", [100.0, 200.0, 300.0], context={"clock": "tsc"}, junk=True)
    _, _, err = same_both_ways(2, BASE, log)
    assert "warning" in err and "clock" in err, err
    assert err.index("warning") < err.index("clock"), err


def test_broken_baseline_said_alone():
    with open(BASE, encoding="utf-8") as f:
        lines = f.read().split("\n")
    lines[-3] = lines[-3].replace('"samples":[', '"samples":["x",')   # the last series
    broken = os.path.join(TMP, "broken.json")
    with open(broken, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    log = write_log("junk.log", [100.0, 200.0, 300.0], context={"clock": "icount"}, junk=True)
    for _ in range(2):
        _, out, err = run("compare", "--baseline", broken, log)
        assert out == "" and "warning" not in err, err
        assert "samples must be numbers" in err and err.count("\n") == 1, err


if __name__ == "__main__":
    try:
        sys.exit(cli_util.run_tests(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
