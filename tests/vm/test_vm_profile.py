#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-vm --profile on a real boot (doc/vm.rst, "Profiling a guest"):
a library selftest of two cases, booted once plain and once profiled.
The profiled boot's KTAP log is byte-identical to the plain one's; it
writes the case windows summed, each case and the whole run in
cachegrind's format (cg_annotate reads them), the windows are paired,
hold less than the whole run and name kernel functions from the guest's
own symbol table; --profile with --kvm is refused.

usage: test_vm_profile.py KSFT_VM METRIC_SELFTEST
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vm_util import check, kernel, run  # noqa: E402

vm, prog = sys.argv[1:3]
k = kernel()


def summary(path):
    with open(path) as f:
        text = f.read()
    return int(re.search(r"^summary: (\d+)$", text, re.M).group(1)), text


with tempfile.TemporaryDirectory(prefix="ksft-vm-profile.") as tmp:
    prof = os.path.join(tmp, "p.prof")
    rc, plain, err = run(vm, ["--kernel", k, "--add", prog, "--", prog])
    check(rc == 0, "a plain boot runs the selftest", err)
    rc, profiled, err = run(vm, ["--kernel", k, "--add", prog, "--profile", prof, "--", prog])
    check(rc == 0, "a profiled boot runs it", err)
    check(profiled == plain, "the profiled boot's KTAP log is the plain one's, byte for byte",
          profiled.decode(errors="replace"))
    files = sorted(os.listdir(tmp))
    check(files == ["p.prof", "p.prof.case1", "p.prof.case2", "p.prof.whole"],
          "the cases summed, each case, the whole run", files)
    total, text = summary(prof)
    whole, wtext = summary(prof + ".whole")
    c1, _ = summary(prof + ".case1")
    c2, _ = summary(prof + ".case2")
    check(0 < total == c1 + c2 < whole, "the windows hold part of the run: %d + %d of %d" %
          (c1, c2, whole))
    check("desc: markers: nested=0 stray=0 open=0" in text, "begin and end markers paired", text)
    check("fl=[kernel]\n" in wtext and "fn=start_kernel\n" in wtext and "fl=[user]\n" in wtext,
          "the kernel named by the guest's kallsyms; user space one entry")
    if shutil.which("cg_annotate"):
        r = subprocess.run(["cg_annotate", prof + ".whole"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, check=False)
        check(r.returncode == 0 and "[kernel]:" in r.stdout.decode(), "cg_annotate reads it",
              r.stdout.decode(errors="replace")[-2000:])
    # 255: ksft-vm's own failures (a bad option among them), never COMMAND's
    rc, _, err = run(vm, ["--kernel", k, "--kvm", "--profile", prof, "--", "true"])
    check(rc == 255 and "--profile needs TCG" in err, "--profile with --kvm is refused", err)
print("PASS")
