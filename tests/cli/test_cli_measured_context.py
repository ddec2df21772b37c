#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One clock per comparison (issue 42): compare --baseline refuses, exit 2
naming the keys, to judge a run against a baseline measured otherwise (an
icount guest against a native run: clock, cpu_count, cpu_model, qemu,
qemu_cpu, icount_shift); under --bisect that is 128, which aborts `git
bisect run`; --allow-context-mismatch judges anyway and says the
difference in the text, the JSON and on stderr. Baselines and logs that
say nothing of their context are judged as before. Each verdict twice.

usage: test_cli_measured_context.py KSFT_METRIC
"""

import json
import os
import shutil
import sys
import tempfile

import cli_util
from cli_util import expect_rc

cli_util.KSFT = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="ksft-metric-measured-")

NATIVE = {"arch": "x86_64", "cpu_count": 4, "cpu_model": "AMD EPYC 7B13",
          "hostname": "desk", "kernel": "6.12.9"}
GUEST = {"arch": "x86_64", "clock": "icount", "cpu_count": 1,
         "cpu_model": "Westmere E56xx/L56xx/X56xx (Nehalem-C)", "hostname": "ksft-vm",
         "icount_shift": "0", "kernel": "6.12.9", "qemu": "7.2.22",
         "qemu_cpu": "Westmere-v1"}


def write_log(name, values, context):
    lines = ["KTAP version 1", "1..1"]
    if context is not None:
        lines.append("# ktap-metric-context-json: " + json.dumps(context))
    lines.append('# ktap-metric-policy-json: {"name":"rtt","regression":{"better":"lower",'
                 '"compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}')
    lines += ['# ktap-metric-json: {"name":"rtt","shape":"scalar","time":%d,"value":%r}'
              % (t + 1, v) for t, v in enumerate(values)]
    lines.append("ok 1 case")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def twice(want, *args):
    outs = [expect_rc(want, *args) for _ in range(2)]
    assert outs[0] == outs[1], outs
    return outs[0]


def save(name, log):
    path = os.path.join(TMP, name)
    expect_rc(0, "save", "-q", "-o", path, log)
    return path


def test_guest_against_native_is_refused():
    base = save("native.json", write_log("native.log", [20, 21, 22, 20, 21], NATIVE))
    with open(base, encoding="utf-8") as f:
        assert json.load(f)["runs"][0]["context"]["cpu_count"] == 4   # save keeps it
    guest = write_log("guest.log", [41, 42, 43, 41, 42], GUEST)
    out, err = twice(2, "compare", "--baseline", base, guest)
    assert out == "", out
    for key in ("clock none vs icount", "cpu_count 4 vs 1", "cpu_model", "qemu none vs 7.2.22",
                "qemu_cpu none vs Westmere-v1", "icount_shift none vs 0", "native.log"):
        assert key in err, (key, err)
    assert "hostname" not in err and "kernel" not in err, err   # not the instrument
    # Under git bisect run: 128 aborts the bisection, never "bad" (1).
    twice(128, "compare", "--bisect", "--baseline", base, guest)
    twice(2, "compare", "-f", "json", "--baseline", base, guest)


def test_override_says_the_difference():
    base = save("native2.json", write_log("native2.log", [20, 21, 22, 20, 21], NATIVE))
    guest = write_log("guest2.log", [41, 42, 43, 41, 42], GUEST)
    out, err = twice(1, "compare", "--allow-context-mismatch", "--baseline", base, guest)
    assert "clock none vs icount" in err and "clock none vs icount" in out, (out, err)
    assert "MEASURED OTHERWISE" in out and "RESULT: REGRESSION" in out, out
    out, _ = twice(1, "compare", "--allow-context-mismatch", "-f", "json", "--baseline",
                   base, guest)
    doc = json.loads(out)
    assert "cpu_count 4 vs 1" in doc["context_mismatch"], doc
    out, _ = twice(0, "compare", "-f", "json", "--baseline", base,
                   write_log("native3.log", [20, 21, 22, 20, 21], NATIVE))
    assert json.loads(out)["context_mismatch"] is None, out


def test_the_other_baseline_commands_refuse_too():
    """report, plot and html judge against --baseline files the same way."""
    base = save("native4.json", write_log("native4.log", [20, 21, 22, 20, 21], NATIVE))
    guest = write_log("guest7.log", [41, 42, 43, 41, 42], GUEST)
    for cmd in (["report"], ["plot", "-o", os.path.join(TMP, "p.svg")],
                ["html", "-o", os.path.join(TMP, "p.html")]):
        _, err = expect_rc(2, *cmd, "--baseline", base, guest)
        assert "clock none vs icount" in err, (cmd, err)
        expect_rc(0, *cmd, "--allow-context-mismatch", "--baseline", base, guest)


def test_same_instrument_or_unknown_is_judged():
    base = save("guest.json", write_log("guest4.log", [41, 42, 43, 41, 42], GUEST))
    other = dict(GUEST, hostname="other", kernel="6.1.0")     # the kernel may differ
    twice(1, "compare", "--baseline", base, write_log("guest5.log", [50, 51, 52, 50, 51], other))
    # No context line on a side: nothing to check, judged as before.
    twice(1, "compare", "--baseline", base, write_log("bare.log", [50, 51, 52, 50, 51], None))
    bare = save("bare.json", write_log("bare2.log", [20, 21, 22, 20, 21], None))
    twice(0, "compare", "--baseline", bare, write_log("guest6.log", [20, 21, 22, 20, 21], GUEST))


if __name__ == "__main__":
    try:
        sys.exit(cli_util.run_tests(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
