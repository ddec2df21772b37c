# SPDX-License-Identifier: GPL-2.0
"""What the tests of ksft-vm without QEMU share: a stand-in
qemu-system-x86_64 first in PATH (standin/), a file with a bzImage setup
header that names a release (no kernel in it), running ksft-vm."""
import json
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STANDIN = os.path.join(HERE, "standin")
PKGDIR = os.path.join(HERE, "..", "..", "tools", "vm")


def fake_kernel(directory, release, banner_rest=" (test@stand-in) #1 SMP"):
    """@directory/boot/vmlinuz-RELEASE: a setup header ("HdrS", the
    version pointer at 0x20E) and its version string; its path."""
    os.makedirs(os.path.join(directory, "boot"), exist_ok=True)
    data = bytearray(0x600)
    data[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", data, 0x20E, 0x300 - 0x200)
    text = (release + banner_rest).encode() + b"\0"
    data[0x300:0x300 + len(text)] = text
    path = os.path.join(directory, "boot", "vmlinuz-" + release)
    with open(path, "wb") as f:
        f.write(bytes(data))
    return path


def env(spec, extra_path=None, **more):
    """The environment for a run against the stand-in guest @spec."""
    e = dict(os.environ)
    e["PATH"] = os.pathsep.join(([extra_path] if extra_path else []) + [STANDIN, e.get("PATH", "")])
    e["KSFT_VM_STANDIN"] = json.dumps(spec)
    e["KSFT_VM_PKGDIR"] = os.path.abspath(PKGDIR)
    e.update(more)
    return e


def run(prog, args, spec, cwd=None, extra_path=None, **more):
    """@prog (a launcher) ARGS under the stand-in; (status, stdout, stderr) as text."""
    r = subprocess.run([sys.executable, prog] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env(spec, extra_path, **more), cwd=cwd, check=False)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")
