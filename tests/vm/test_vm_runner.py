#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-vm's plumbing in one boot each: --add files and the libraries of a
build-tree program, user text passed through unchanged (no shell sees it
unquoted), stdout/stderr/exit status carried out; and its failures: a
panic, a hang past --timeout, an image that is no kernel or does not boot
all exit 255 (ksft-vm's own failures) with the console's last lines,
never a hang.

usage: test_vm_runner.py KSFT_VM KSFT_METRIC BUILD_LIB_PROGRAM
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vm_util import check, kernel, run  # noqa: E402

vm, cli = sys.argv[1], sys.argv[2]
k = kernel()
tricky = ["a b", "$(touch /tmp/pwned)", "'", '"', "`id`", "x\ny", "*", "; exit 9", "\u00e9",
          "-- --kvm", ""]

with tempfile.TemporaryDirectory(prefix="ksft-vm-test.") as tmp:
    data = os.path.join(tmp, "data dir")
    os.mkdir(data)
    with open(os.path.join(data, "in.txt"), "w") as f:
        f.write("payload 42\n")
    script = os.path.join(tmp, "args.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\nfor a in \"$@\"; do printf '<%s>' \"$a\"; done\necho\n"
                "cat \"$DATA/in.txt\"\n"
                "[ -e /tmp/pwned ] && echo PWNED\n"
                "echo to-stderr >&2\n"
                "ksft-metric --version\n"
                "exit 7\n")
    os.chmod(script, 0o755)
    env = dict(os.environ, KSFT_VM_TEST="1")
    # The script by path; --add the data dir and ksft-metric, a build-tree
    # program whose libraries come from the build tree by rpath.
    rc, out, err = run(vm, ["--kernel", k, "--add", data, "--add", cli, "--add", script, "--",
                            "sh", "-c", 'export DATA="$1"; shift; exec "$0" "$@"', script, data] + tricky,
                       env=env)
    text = out.decode("utf-8", "replace")
    check(rc == 7, "COMMAND's exit status is ksft-vm's", "rc %d\n%s\n%s" % (rc, text, err))
    want = "".join("<%s>" % a for a in tricky)
    check(text.startswith(want + "\n"), "every argument arrives as given", text)
    check("payload 42" in text, "--add DIR: its files at the same path", text)
    check("PWNED" not in text, "no argument ran as shell code", text)
    check("ksft-metric" in text.split("payload 42", 1)[1],
          "--add PROGRAM: runs with its build-tree libraries, on PATH by name", text)
    check("to-stderr" in err and "to-stderr" not in text, "stderr stays stderr", err)

    # A panic: exit 255, named on its own line's words, then the console's
    # last lines (an oops trace can be longer than they are).
    rc, out, err = run(vm, ["--kernel", k, "--timeout", "120", "--",
                            "sh", "-c", "echo c > /proc/sysrq-trigger"])
    check(rc == 255 and "console's last lines" in err and
          "the guest's kernel panicked (Kernel panic - not syncing" in err,
          "a panic: exit 255 with the console", err)

    # A hang (a busy loop: guest sleeps cost no wall time under icount).
    rc, out, err = run(vm, ["--kernel", k, "--timeout", "60", "--",
                            "sh", "-c", "while :; do :; done"])
    check(rc == 255 and "--timeout 60" in err and "console's last lines" in err,
          "a hang past --timeout: exit 255 with the console", err)

    # Not a kernel; a kernel cut short (does not boot: the decompressor stops).
    rc, out, err = run(vm, ["--kernel", script, "--", "true"])
    check(rc == 255 and "not a bzImage" in err, "an image that is no kernel: exit 255", err)
    cut = os.path.join(tmp, "vmlinuz-cut")
    with open(k, "rb") as f, open(cut, "wb") as g:
        g.write(f.read()[: os.path.getsize(k) // 2])
    rc, out, err = run(vm, ["--kernel", cut, "--modules", "/nonexistent", "--", "true"])
    check(rc == 255 and "--modules" in err, "a missing --modules tree: exit 255", err)
    rc, out, err = run(vm, ["--kernel", cut, "--timeout", "30", "--", "true"])
    check(rc == 255 and "console's last lines" in err, "a kernel that does not boot: exit 255", err)
print("PASS")
