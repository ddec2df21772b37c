#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""compare --format reply (issue 41, item 8): the A/B summary to paste into
a mailing-list reply. One header naming both kernels by their full
release, QEMU, the icount clock, the CPU model, the vCPUs, the layout
seeds and "bit-identical per seed" (from the contexts `save` keeps in the
baseline file and the log's), then `old -> new (+x.x %)` a tracked series
under its case, with its verdict; a long series name on its own line;
never a line over 72 columns. Each summary twice, byte-identical.

usage: test_cli_compare_reply.py KSFT_METRIC
"""

import json
import os
import shutil
import sys
import tempfile

import cli_util
from cli_util import expect_rc

cli_util.KSFT = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="ksft-metric-reply-")

GUEST = {"arch": "x86_64", "clock": "icount", "cpu_count": 1,
         "cpu_model": "Westmere E56xx/L56xx/X56xx (Nehalem-C)", "hostname": "ksft-vm",
         "icount_shift": "0", "kernel": "6.1.0-57-cloud-amd64", "qemu": "7.2.22",
         "qemu_cpu": "Westmere-v1", "vm_kernel": "6.1.0-57-cloud-amd64"}
NEW = "6.12.118+deb12-cloud-amd64-g0123456789ab"
LONG = "cpu.cost.test.instructions.per.byte.best.repeat"
LONG_LABELS = {"host": "both", "direction": "forward", "flow": "single-stream-tcp"}


def metric(name, value, t, labels=None):
    m = {"name": name, "shape": "scalar", "time": t, "value": value}
    m.update(labels or {})          # labels: the other keys
    return "# ktap-metric-json: " + json.dumps(m)


def write_log(name, context, rtt, tput, cost, untracked):
    lines = ["KTAP version 1", "1..2",
             "# ktap-metric-context-json: " + json.dumps(context),
             '# ktap-metric-policy-json: {"name":"rtt","regression":{"better":"lower",'
             '"compare":"p50","relative_tolerance":0.05},"summarize":"distribution",'
             '"display_label":"us"}',
             '# ktap-metric-policy-json: {"name":"throughput","regression":{"better":'
             '"higher","compare":"p50","relative_tolerance":0.05},"summarize":"distribution",'
             '"display_scale":1e-9,"display_label":"virtual Gbit/s (icount proxy)"}']
    lines += [metric("rtt", v, t + 1) for t, v in enumerate(rtt)]
    lines += [metric("throughput", v, t + 1, {"host": "local"}) for t, v in enumerate(tput)]
    lines += [metric("dropped", untracked, 1)]
    lines.append("ok 1 net.forward")
    lines.append('# ktap-metric-policy-json: {"name":"%s","regression":{"better":"lower",'
                 '"compare":"p50","relative_tolerance":0.05},"summarize":"distribution",'
                 '"display_label":"test instructions/byte, best repeat"}' % LONG)
    lines += [metric(LONG, v, t + 1, LONG_LABELS) for t, v in enumerate(cost)]
    lines.append("ok 2 net.cost")
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def test_reply_names_both_kernels_in_72_columns():
    old = write_log("old.log", GUEST, [20.0, 20.1, 19.9, 20.05, 19.95],
                    [9.104e9, 9.11e9, 9.10e9, 9.105e9, 9.103e9], [1.34, 1.341, 1.339, 1.3405, 1.3395], 0)
    base = os.path.join(TMP, "old.json")
    expect_rc(0, "save", "-q", "-o", base, old)
    new = write_log("new.log", dict(GUEST, vm_kernel=NEW, kernel=NEW),
                    [25.0, 25.1, 24.9, 25.05, 24.95], [10.108e9, 10.11e9, 10.10e9, 10.105e9, 10.107e9],
                    [1.0282, 1.0283, 1.0281, 1.02825, 1.02815], 3)
    outs = [expect_rc(1, "compare", "--format", "reply", "--baseline", base, new)
            for _ in range(2)]
    assert outs[0] == outs[1], outs
    text = outs[0][0]
    lines = text.splitlines()
    assert all(len(x) <= 72 for x in lines), text
    head = " ".join(lines[:lines.index("")])
    for word in ("6.1.0-57-cloud-amd64 -> " + NEW, "QEMU 7.2.22", "TCG icount shift 0",
                 "Westmere-v1", "1 vCPU,", "1 boot a kernel (no layout seeds)",
                 "bit-identical per seed"):
        assert word in head, (word, text)
    assert "net.forward" in lines and "net.cost" in lines, text
    for want in ("20.00 -> 25.00 (+25.0 %) REGRESSION",
                 "9.104 -> 10.11 (+11.0 %) improvement",
                 "1.340 -> 1.028 (-23.3 %) improvement"):
        assert any(x.endswith(want) for x in lines), (want, text)
    assert "  rtt, us" in text and "  throughput{host=local}, virtual Gbit/s" in text, text
    # Gbit/s: the policy's display_scale (bit/s in the log).
    # The long name on its own line(s), its values right-aligned below it.
    at = next(i for i, x in enumerate(lines) if LONG in x)
    assert lines[at].startswith("  " + LONG) and "->" not in lines[at], text
    assert "dropped" not in text, text       # untracked: not a result
    _, err = expect_rc(2, "compare", "--format", "rply", "--baseline", base, new)
    assert "unknown --format 'rply' (text, json, csv, reply)" in err, err
    # The text table still judges the same run the same way.
    expect_rc(1, "compare", "--baseline", base, new)


def test_seeds_are_counted():
    """One log a seed (ksft-vm --seed): the header counts them."""
    olds = [write_log("old-s%d.log" % k, dict(GUEST, seed=str(k)),
                      [20.0 + k / 10, 20.1, 19.9, 20.05, 19.95], [9.1e9] * 5, [1.34] * 5, 0)
            for k in (1, 2, 3)]
    news = [write_log("new-s%d.log" % k, dict(GUEST, seed=str(k), vm_kernel=NEW),
                      [20.0 + k / 10, 20.1, 19.9, 20.05, 19.95], [9.1e9] * 5, [1.34] * 5, 0)
            for k in (1, 2, 3)]
    base = os.path.join(TMP, "seeds.json")
    expect_rc(0, "save", "-q", "-o", base, *olds)
    outs = [expect_rc(0, "compare", "-f", "reply", "--baseline", base, *news)
            for _ in range(2)]
    assert outs[0] == outs[1], outs
    lines = outs[0][0].splitlines()
    head = " ".join(lines[:lines.index("")])
    assert "3 layout seeds a kernel, bit-identical per seed" in head, outs[0][0]
    assert all(len(x) <= 72 for x in lines), outs[0][0]


def test_unknown_context_says_so():
    """Logs without a context: the header says "?", nothing refused."""
    old = write_log("bare-old.log", {}, [20.0, 20.1, 19.9, 20.05, 19.95],
                    [9.1] * 5, [1.34] * 5, 0)
    base = os.path.join(TMP, "bare.json")
    expect_rc(0, "save", "-q", "-o", base, old)
    out, _ = expect_rc(0, "compare", "-f", "reply", "--baseline", base, old)
    lines = out.splitlines()
    assert lines[0].startswith("? -> ?, QEMU ? native"), out
    assert all(len(x) <= 72 for x in lines), out
    assert any(x.endswith("20.00 -> 20.00 (+0.0 %)") for x in lines), out


if __name__ == "__main__":
    try:
        sys.exit(cli_util.run_tests(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
