# SPDX-License-Identifier: GPL-2.0
"""What the guest runner's tests share: finding QEMU and a kernel (exit 77
without them), running ksft-vm."""
import glob
import os
import re
import shutil
import subprocess
import sys

SKIP = 77


def kernel():
    """$KSFT_VM_KERNEL, else the newest 6.1 cloud image that
    scripts/install-deps.sh unpacked; skip the test without one or QEMU."""
    if not shutil.which("qemu-system-x86_64"):
        print("SKIP: qemu-system-x86_64 not installed (scripts/install-deps.sh)")
        sys.exit(SKIP)
    k = os.environ.get("KSFT_VM_KERNEL")
    if not k:
        cache = os.environ.get("KSFT_VM_KERNELS", "/var/cache/ksft-vm-kernels")
        found = glob.glob(os.path.join(cache, "linux-image-6.1.0-*", "boot", "vmlinuz-*"))

        def key(p):
            return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", p)]
        k = sorted(found, key=key)[-1] if found else None
    if not k or not os.path.isfile(k):
        print("SKIP: no kernel image (KSFT_VM_KERNEL, or scripts/install-deps.sh's cache)")
        sys.exit(SKIP)
    return k


def run(vm, args, **kw):
    """ksft-vm ARGS; (exit status, stdout bytes, stderr text)."""
    r = subprocess.run([sys.executable, vm] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False, **kw)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "replace")


def check(cond, what, detail=""):
    if not cond:
        print("FAIL: %s\n%s" % (what, detail))
        sys.exit(1)
    print("ok: %s" % what)
