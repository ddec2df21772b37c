#!/usr/bin/env python3
"""A case left open when a selftest leaves through the real kselftest.h's
exit helpers: where its metric lines land in the report.

kselftest.h prints the result line (ksft_exit_skip) or "Bail out!"
(ksft_exit_fail_msg) and the Totals, then calls exit(); our exit hook runs
after that. The marker it writes carries the exit status, so the consumer
files the lines of ksft_exit_skip()'s case under that case's SKIP result,
and keeps a bailed-out case's lines as incomplete with reason "exit".

The header comes from the kernel source package at test time (never copied
into the tree); without the package the real-header part is skipped (77).

Usage: check_exit_with_case.py KSFT_METRIC LIBDIR INCLUDEDIR SRC WORKDIR CC [CFLAG...]
"""
import json
import os
import subprocess
import sys

TARBALL = "/usr/src/linux-source-6.12.tar.xz"
MEMBER = "tools/testing/selftests/kselftest.h"


def report(ksft_metric, text):
    """Series of the JSON report for @text, and the warnings."""
    p = subprocess.run([ksft_metric, "report", "-f", "json", "-"], input=text,
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)["series"], p.stderr


def by_name(series):
    return {s["name"]: s for s in series}


def check_synthetic(ksft_metric):
    """The consumer's rule on hand-written logs (no kernel source needed)."""
    log = ("TAP version 13\n1..2\n"
           "# ktap-metric-json: {\"name\":\"a\",\"shape\":\"scalar\",\"time\":0.1,\"value\":1}\n"
           "ok 1 first\n"
           "ok 2 # SKIP no device\n"
           "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0\n"
           "# ktap-metric-json: {\"name\":\"b\",\"shape\":\"scalar\",\"time\":0.2,\"value\":2}\n"
           "# ktap-metric-abort-json: {\"reason\":\"exit\",\"status\":4}\n")
    s = by_name(report(ksft_metric, log)[0])
    assert s["a"]["case"] == "first" and s["a"]["status"] == "pass", s["a"]
    assert s["b"]["status"] == "skip" and "abort" not in s["b"], s["b"]
    # Nested by run_kselftest.sh: one more "# " on each line.
    nested = ("TAP version 13\n1..1\n# selftests: dev: dev_test\n" +
              "".join("# " + line + "\n" for line in log.splitlines()) +
              "ok 1 selftests: dev: dev_test # SKIP\n")
    s = by_name(report(ksft_metric, nested)[0])
    assert s["b"]["status"] == "skip" and "abort" not in s["b"], s["b"]
    assert s["b"]["path"] == ["selftests: dev: dev_test"], s["b"]
    # Any other exit: no result line of its own, so incomplete, as before.
    for status in ("0", "1"):
        s = by_name(report(ksft_metric, log.replace('"status":4', '"status":' + status))[0])
        assert s["b"]["status"] == "incomplete" and s["b"]["abort"] == "exit", s["b"]
    # The last result is not a SKIP: its lines are not taken for it.
    s = by_name(report(ksft_metric, log.replace("ok 2 # SKIP no device", "ok 2 second"))[0])
    assert s["b"]["status"] == "incomplete", s["b"]
    # A SKIP in an earlier document does not take them either.
    s = by_name(report(ksft_metric, log.replace("# Totals", "TAP version 13\n# Totals"))[0])
    assert s["b"]["status"] == "incomplete", s["b"]
    # Lines the signal path had to leave out are reported.
    _, warnings = report(ksft_metric, log.replace('"reason":"exit","status":4',
                                                  '"dropped":2,"reason":"SIGTERM"'))
    assert "2 metric lines were too long" in warnings, warnings
    print("synthetic logs: ok")


def main():
    ksft_metric, libdir, incdir, src, workdir, *cc = sys.argv[1:]
    check_synthetic(ksft_metric)
    if not os.path.exists(TARBALL):
        print(f"{TARBALL} not installed (package linux-source-6.12): real kselftest.h part skipped")
        return 77
    os.makedirs(workdir, exist_ok=True)
    hdr = os.path.join(workdir, "kselftest.h")
    if not os.path.exists(hdr):
        subprocess.run(["tar", "-xJf", TARBALL, "-C", workdir, "--strip-components=4",
                        "--wildcards", "*/" + MEMBER], check=True)
    exe = os.path.join(workdir, "exit_with_case")
    subprocess.run(cc + ["-o", exe, src, "-I", workdir, "-I", incdir, "-L", libdir,
                         "-Wl,-rpath," + libdir, "-lksftmetric"], check=True)

    def run(mode):
        p = subprocess.run([exe, mode], capture_output=True, text=True)
        sys.stdout.write(f"--- {mode}: exit {p.returncode}\n{p.stdout}")
        return p.returncode, p.stdout

    # ksft_exit_skip() with a plan: "ok 3 # SKIP no device", Totals, then ours.
    rc, out = run("skip")
    assert rc == 4, rc
    assert out.index("# SKIP no device") < out.index("second_ns"), "lines come after the result"
    s = by_name(report(ksft_metric, out)[0])
    assert s["first_ns"]["case"] == "first" and s["first_ns"]["status"] == "pass", s
    assert s["second_ns"]["status"] == "skip", s["second_ns"]
    assert s["second_ns"]["points"] == 2 and "abort" not in s["second_ns"], s["second_ns"]

    # ksft_exit_fail_msg(): "Bail out!", no result line for the case.
    rc, out = run("fail_msg")
    assert rc == 1, rc
    s = by_name(report(ksft_metric, out)[0])
    assert s["first_ns"]["status"] == "pass", s
    assert s["second_ns"]["status"] == "incomplete" and s["second_ns"]["abort"] == "exit", s

    # ksft_exit_skip() before any plan or result: "1..0 # SKIP", no case line.
    rc, out = run("skip_noplan")
    assert rc == 4, rc
    s = by_name(report(ksft_metric, out)[0])
    assert s["probe_ns"]["status"] == "incomplete", s
    print("real kselftest.h: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
