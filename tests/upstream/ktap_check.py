# SPDX-License-Identifier: GPL-2.0
"""Reading KTAP output for the upstream suite: which metric lines precede
which result line (at every run_kselftest.sh nesting depth), the kernel's
own kunit_parser counts, and our consumer's view of the same log."""

import io
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

RESULT = re.compile(r"(not )?ok (\d+)(?: - | |$)(.*)$")
METRIC = re.compile(r"ktap-metric(-policy|-abort|-stream)?-json: (.*)$")
HEADER = re.compile(r"K?TAP version \d+$")
METRIC_LINE = re.compile(r"^(# )*# ktap-metric(-policy|-abort|-stream)?-json: ")


class Case:
    """One result line and the metric lines that preceded it at its depth."""

    def __init__(self, depth, lineno, ok, num, rest):
        self.depth, self.lineno, self.ok, self.num = depth, lineno, ok, num
        if rest.startswith("# "):
            desc, directive = "", rest[2:]
        else:
            desc, _, directive = rest.partition(" # ")
        self.desc = desc.strip()
        self.directive = directive.strip()
        word = self.directive.split(" ")[0].upper()
        if not ok:
            self.status = "fail"
        elif word in ("SKIP", "XFAIL"):
            self.status = word.lower()
        else:
            self.status = "pass"
        self.observations, self.policies = [], []
        self.abort = None           # reason of a ktap-metric-abort-json line
        self.frames = []            # write-through frames: "begin", "end"
        self.lines = []             # (lineno, text) of everything in between

    def __repr__(self):
        return f"<{self.desc!r} {self.status} line {self.lineno}>"


def _depth(line):
    depth = 0
    while line.startswith("# "):
        line = line[2:]
        depth += 1
    return depth, line


def parse(text):
    """Return (cases in output order, orphaned metric lines, problems).

    A metric line "# "*(d+1) belongs to the next result line "# "*d at its
    depth, as consumers read it. Orphans are metric lines with no result
    line of their own (cut off by an outer result, a header or the end).
    """
    cases, orphans, problems = [], [], []
    pending = defaultdict(list)     # depth -> [(lineno, kind, obj)]
    between = defaultdict(list)     # depth -> [(lineno, text)]

    def drop(depth_min):
        for d in [d for d in pending if d >= depth_min]:
            orphans.extend(pending.pop(d))

    for lineno, line in enumerate(text.splitlines(), 1):
        depth, body = _depth(line)
        m = METRIC.match(body)
        if m and depth >= 1:
            try:
                obj = json.loads(m.group(2))
            except ValueError as exc:
                problems.append(f"line {lineno}: bad JSON ({exc}): {line}")
                continue
            if m.group(2) != json.dumps(obj, sort_keys=True, separators=(",", ":")):
                problems.append(f"line {lineno}: not canonical JSON: {line}")
            kind = {"-policy": "policy", "-abort": "abort",
                    "-stream": "stream"}.get(m.group(1), "obs")
            if pending[depth - 1] and pending[depth - 1][-1][1] == "abort":
                problems.append(f"line {lineno}: metric line after an abort line")
            pending[depth - 1].append((lineno, kind, obj))
            between[depth - 1].append((lineno, line))
            continue
        if HEADER.match(body):
            drop(depth)
            between[depth] = []
            continue
        r = RESULT.match(body)
        if not r:
            for d in range(depth + 1):
                between[d].append((lineno, line))
            continue
        case = Case(depth, lineno, not r.group(1), int(r.group(2)), r.group(3))
        drop(depth + 1)
        for _, kind, obj in pending.pop(depth, []):
            if kind == "obs":
                case.observations.append(obj)
            elif kind == "policy":
                case.policies.append(obj)
            elif kind == "stream":
                case.frames.append(obj.get("state"))
            else:
                case.abort = obj.get("reason")
        case.lines, between[depth] = between[depth], []
        cases.append(case)
    drop(0)
    return cases, orphans, problems


def strip_metrics(text):
    """The same output without any of our lines."""
    return "".join(l for l in text.splitlines(True) if not METRIC_LINE.match(l))


def kunit_counts(tree, text):
    """The kernel's kunit_parser on @text: (passed, failed, crashed, skipped,
    errors) of the top-level test."""
    kunit = os.path.join(tree, "tools", "testing", "kunit")
    if kunit not in sys.path:
        sys.path.insert(0, kunit)
    import kunit_parser          # pylint: disable=import-outside-toplevel
    import kunit_printer         # pylint: disable=import-outside-toplevel
    kunit_parser.stdout = kunit_printer.Printer(io.StringIO())   # quiet
    test = kunit_parser.parse_run_tests(text.splitlines())
    c = test.counts
    return (c.passed, c.failed, c.crashed, c.skipped, c.errors)


def consumer_report(ksft_metric, text, tmpdir):
    """ksft-metric report -f json of @text: (series, stderr)."""
    with tempfile.NamedTemporaryFile("w", suffix=".log", dir=tmpdir,
                                     delete=False) as f:
        f.write(text)
    try:
        proc = subprocess.run([ksft_metric, "report", "-f", "json", f.name],
                              capture_output=True, text=True, timeout=120,
                              check=False)
    finally:
        os.unlink(f.name)
    if proc.returncode != 0:
        raise AssertionError(f"ksft-metric report: exit {proc.returncode}\n"
                             f"{proc.stderr}")
    return json.loads(proc.stdout)["series"], proc.stderr
