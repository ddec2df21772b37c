#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-sysmon, the CLI: KTAP shape, result and exit code from COMMAND's
status, relayed output, failures to start or to sample, and the whole output
on a fixture root against a golden file (time values masked).

Usage: cli_test.py KSFT_SYSMON FIXTURE_DIR   (no root needed)
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

EXE, FIXTURES = sys.argv[1], sys.argv[2]
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                      "cli_fixture.txt")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"# FAIL: {what}")


def make_root(stat="stat_2cpu_a", ifname="eth0", nic=(1, 2, 3)):
    root = tempfile.mkdtemp(prefix="ksft-sysmon-cli-")
    os.makedirs(os.path.join(root, "proc"))
    shutil.copy(os.path.join(FIXTURES, stat), os.path.join(root, "proc", "stat"))
    stats = os.path.join(root, "sys", "class", "net", ifname, "statistics")
    os.makedirs(stats)
    for name, value in zip(("rx_dropped", "rx_missed_errors", "tx_dropped"), nic):
        with open(os.path.join(stats, name), "w") as f:
            f.write(f"{value}\n")
    return root


def run(*args):
    p = subprocess.run([EXE, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def ktap_ok(out):
    """Every line is KTAP: header, plan, result or a '# ' diagnostic."""
    lines = out.splitlines()
    return (lines[:2] == ["TAP version 13", "1..1"] and
            all(l.startswith("# ") or re.match(r"(not )?ok 1 ", l)
                for l in lines[2:]) and
            sum(1 for l in lines if re.match(r"(not )?ok 1 ", l)) == 1)


def mask(out, root):
    out = re.sub(r'"time":[0-9.e+-]+', '"time":T', out)
    return out.replace(root, "ROOT")


def test_golden():
    root = make_root()
    cmd = (f"cp {FIXTURES}/stat_2cpu_b {root}/proc/stat.new && "
           f"mv {root}/proc/stat.new {root}/proc/stat && "
           f"echo 9 > {root}/sys/class/net/eth0/statistics/tx_dropped && "
           "echo hello; echo to-stderr >&2; printf 'no newline'")
    rc, out, _ = run("--root", root, "--ifname", "eth0", "--interval", "3600",
                     "--", "sh", "-c", cmd)
    got = mask(out, root)
    shutil.rmtree(root)
    check(rc == 0, f"golden run exit status {rc}")
    check(ktap_ok(out), "golden run is KTAP")
    if os.environ.get("SYSMON_UPDATE_GOLDEN"):
        with open(GOLDEN, "w") as f:
            f.write(got)
    with open(GOLDEN) as f:
        want = f.read()
    if got != want:
        sys.stdout.writelines("# " + l for l in difflib.unified_diff(
            want.splitlines(True), got.splitlines(True), "golden", "got"))
    check(got == want, "output differs from golden/cli_fixture.txt")


def test_results():
    root = make_root()
    base = ["--root", root, "--interval", "3600", "--"]
    rc, out, _ = run(*base, "true")
    check(rc == 0 and "\nok 1 true\n" in out, "true: ok 1")
    check("# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0" in out, "true: totals")
    rc, out, _ = run(*base, "false")
    check(rc == 1 and "\nnot ok 1 false # exit status 1\n" in out, "false: not ok 1")
    check("# Totals: pass:0 fail:1 " in out, "false: totals")
    rc, out, _ = run(*base, "sh", "-c", "exit 4")
    check(rc == 4 and "\nok 1 sh # SKIP\n" in out, "exit 4: SKIP")
    rc, out, _ = run(*base, "sh", "-c", "kill -9 $$")
    check(rc == 1 and "\nnot ok 1 sh # killed by signal 9\n" in out, "signal: not ok")
    rc, out, _ = run("--name", "net.iperf#1", *base, "true")
    check("\nok 1 net.iperf_1\n" in out, "--name, '#' replaced")
    rc, out, _ = run(*base, "/nonexistent/bench")
    check(rc == 1 and "# ksft-sysmon: cannot run /nonexistent/bench: No such file or "
          "directory\n" in out and "\nnot ok 1 bench\n" in out, "missing COMMAND")
    check(ktap_ok(out), "KTAP with a missing COMMAND")
    shutil.rmtree(root)


def test_usage_errors():
    for args in (["--bogus", "--", "true"], ["--interval", "0", "--", "true"],
                 ["--ifname"], ["--remote", "--", "true"], ["--ifname", "lo"]):
        rc, out, err = run(*args)
        check(rc == 2 and out == "" and "usage: ksft-sysmon" in err,
              f"usage error for {args}: {rc} {err!r}")


def test_monitor_failures():
    rc, out, _ = run("--ifname", "nonexistent9", "--", "true")
    check(rc == 1 and "# ksft-sysmon: cannot start the monitor: netlink: interface "
          "nonexistent9: no such device\n" in out and
          "\nnot ok 1 true # monitor failed to start\n" in out, f"bad ifname: {out}")
    check(ktap_ok(out), "bad ifname: KTAP")

    root = make_root()
    rc, out, _ = run("--root", root, "--interval", "0.01", "--", "sh", "-c",
                     f"printf 'cpu0 1 2\\n' > {root}/proc/stat; sleep 0.2")
    check(rc == 1 and f"# ksft-sysmon: monitor failed: {root}/proc/stat line 1: cpu0 has 2 "
          "fields, expected at least 8\n" in out and "\nnot ok 1 sh\n" in out,
          f"sampler error: {out}")
    check(ktap_ok(out), "sampler error: KTAP")
    shutil.rmtree(root)

    rc, out, _ = run("--remote", "sh", "-c", "echo 'Permission denied (publickey).' >&2; "
                     "exit 255", "--interval", "1", "--", "true")
    check(rc == 1 and "sampler exited with status 255 (stderr: 'Permission denied "
          "(publickey).')" in out, f"remote fails: {out}")


def test_remote_words():
    """--remote takes words up to the next option; both hosts are reported."""
    root, rroot = make_root(), make_root("stat_hotplug_0", "eth1")
    rc, out, _ = run("--remote", "env", "LC_ALL=C", "--remote-ifname", "eth1",
                     "--remote-root", rroot, "--root", root, "--ifname", "eth0",
                     "--interval", "0.05", "--", "sleep", "0.3")
    check(rc == 0, f"remote run: {rc} {out}")
    check('"host":"remote","name":"cpu.time.usr","shape":"per-cpu"' in out and
          '"host":"remote","name":"nic.tx.dropped","shape":"scalar"' in out and
          '"host":"local","name":"nic.rx.dropped"' in out, "remote metrics present")
    n = out.count('"host":"local","name":"cpu.time.usr"')
    check(4 <= n <= 8, f"{n} local samples in 0.3 s at 20 Hz")
    shutil.rmtree(root)
    shutil.rmtree(rroot)


def main():
    for t in (test_golden, test_results, test_usage_errors, test_monitor_failures,
              test_remote_words):
        t()
    print(f"# {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
