#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Byte-for-byte check of two ksft-metric builds on the test data and the
fuzz corpora: `report` in every format and name style (and -o FILE, and of
several inputs joined), `save`, `compare` of every baseline x log pair
(text, JSON, CSV, reply, --all at 80 columns) and `report` with verdicts
(NIPA, KCIDB), each run's stdout, stderr and exit code, plus any file it
wrote. Prints the number of runs and every difference; exit 1 on any.

usage: diff_cli_outputs.py OLD_KSFT_METRIC NEW_KSFT_METRIC SRCDIR [LOG...]
       (LOG...: more inputs, e.g. bench_cli.py's 20,000-case log)
"""
import glob
import os
import subprocess
import sys
import tempfile


def inputs(src):
    pats = ["tests/cli/data/*", "tests/fuzz/corpus/ktap/*", "tests/fuzz/corpus/metric_line/*",
            "tests/fuzz/corpus/metric_json/*", "tests/fuzz/corpus/zperf/*",
            "tests/fuzz/corpus/twister/*", "tests/fuzz/regressions/ktap/*"]
    out = []
    for p in pats:
        out += sorted(f for f in glob.glob(os.path.join(src, p)) if os.path.isfile(f))
    return out


def run(tool, argv, outfile, env):
    if outfile and os.path.exists(outfile):
        os.unlink(outfile)
    p = subprocess.run([tool, *argv], capture_output=True, env=env)
    wrote = b""
    if outfile and os.path.exists(outfile):
        with open(outfile, "rb") as f:
            wrote = f.read()
    return p.returncode, p.stdout, p.stderr, wrote


def main():
    old, new, src = sys.argv[1:4]
    logs = inputs(src) + sys.argv[4:]
    tmp = tempfile.mkdtemp(prefix="diffcli")
    env = dict(os.environ, COLUMNS="120")
    env80 = dict(os.environ, COLUMNS="80")
    runs = diffs = 0

    def check(argv, outfile=None, e=env, tag=""):
        nonlocal runs, diffs
        a = run(old, argv, outfile, e)
        b = run(new, argv, outfile, e)
        runs += 1
        if a != b:
            diffs += 1
            what = [n for n, x, y in zip(("rc", "stdout", "stderr", "file"), a, b) if x != y]
            print("DIFF %s %s: %s" % (tag, " ".join(argv), ", ".join(what)))

    bases = []
    for i, log in enumerate(logs):
        for fmt in ("text", "json", "csv", "openmetrics", "nipa"):
            check(["report", "-f", fmt, log])
            check(["report", "-f", fmt, "--name-style", "nipa", log])
        check(["report", "-v", log])
        check(["report", log], e=env80)
        check(["report", "-f", "kcidb", "--origin", "o", "--build-id", "o:b", log])
        # several inputs: the same series joined, another input's added
        nxt = logs[(i + 1) % len(logs)]
        check(["report", "-f", "json", log, log])
        check(["report", "-f", "json", log, nxt])
        check(["report", log, nxt, log])
        check(["report", "-f", "json", "-o", os.path.join(tmp, "r.json"), log],
              outfile=os.path.join(tmp, "r.json"))
        # save: both builds write one path (stderr names it); the new
        # build's file is kept for the comparisons
        bn = os.path.join(tmp, "b%d.json" % i)
        a = run(old, ["save", "-o", bn, log], bn, env)
        b = run(new, ["save", "-o", bn, log], bn, env)
        runs += 1
        if a != b:
            diffs += 1
            print("DIFF save %s" % log)
        if b[0] == 0 and os.path.exists(bn):
            bases.append(bn)
    for base in bases:
        for log in logs:
            for fmt in ("text", "json", "csv", "reply"):
                check(["compare", "-t", "5", "-f", fmt, "--baseline", base, log])
            check(["compare", "--all", "--baseline", base, log], e=env80)
        check(["report", "-f", "nipa", "--baseline", base, *logs[:3]])
        check(["report", "-f", "kcidb", "--origin", "o", "--build-id", "o:b",
               "--baseline", base, *logs[:3]])
    print("%d runs, %d differences (%d inputs, %d baselines)" % (runs, diffs, len(logs), len(bases)))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
