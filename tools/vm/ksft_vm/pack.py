# SPDX-License-Identifier: GPL-2.0
"""The guest's whole root: busybox and its applets, the host's network
tools, COMMAND and every --add path (with a Python COMMAND's world, or a
kselftest install's when COMMAND is its run_kselftest.sh), the image's
network modules, /init."""
import os
import re
import shutil
import subprocess

from . import guest_init, kselftest_run, python_env, seed
from .errors import VmError
from .modules import pack_modules
from .root import Root, find_add

# Host tools a network selftest expects, taken from the host when present
# (busybox's ip/tc lack netns and qdisc details); busybox fills the rest.
HOST_TOOLS = ("ip", "tc", "nft", "iperf3", "ethtool", "ss", "bridge")
# Environment variables passed into the guest (by name prefix).
ENV_PREFIXES = ("KSFTMETRIC_", "KSFT_")
GUEST_BUSYBOX = "/usr/lib/ksft-vm/busybox"


def find_busybox():
    bb = shutil.which("busybox") or "/bin/busybox"
    if not os.path.isfile(bb):
        raise VmError("busybox not found (install busybox-static)")
    return bb


def passed_env(environ):
    """The variables of @environ the guest gets: KSFT_*, KSFTMETRIC_*."""
    return {k: v for k, v in environ.items()
            if k.startswith(ENV_PREFIXES) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k)}


class Packed:
    """The packed root: the archive's bytes and what went in."""

    def __init__(self, data, modules):
        self.data = data
        self.modules = modules


def build_root(command, adds, kernel, stage, environ=None, cwd=None, warn=None, seed_s=0):
    """Pack the root for @command (argv) with the @adds paths and @kernel's
    modules (stage: a scratch directory for them), its /init seeded with
    @seed_s (seed.py). A Packed."""
    environ = os.environ if environ is None else environ
    cwd = cwd or os.getcwd()
    root = Root(warn)
    bb = find_busybox()
    for t in HOST_TOOLS:
        root.program(t)
    py = python_env.find(command, environ, cwd)
    # a bare interpreter name is packed as what it really runs (not a shim)
    if not (py and not py.shebang) and not root.program(command[0]):
        raise VmError("COMMAND %s: not found on the host" % command[0])
    applets = subprocess.run([bb, "--list-full"], stdout=subprocess.PIPE,
                             check=True).stdout.decode().split()
    names = {os.path.basename(a) for a in applets}
    py_env = py.pack(root, warn or root.warn, names) if py else {}
    install = kselftest_run.install_of(command, environ.get("PATH", ""))
    if install:
        py_env.update(kselftest_run.pack(root, install, command, environ, warn or root.warn,
                                         names))
    for a in adds:
        p = find_add(a)
        root.add(p)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            root.on_path(p)
    # busybox, and its applets wherever the host has no program of that name
    with open(bb, "rb") as f:
        root.cpio.file(GUEST_BUSYBOX, f.read())
    for a in applets:
        guest = "/" + a
        root.parents(guest)
        real = root.guest_real(guest)
        if not root.cpio.has(real) and not (os.path.basename(a) in HOST_TOOLS and
                                            shutil.which(os.path.basename(a))):
            root.cpio.symlink(real, GUEST_BUSYBOX)
    for d in ("/sbin", "/usr/sbin", "/bin", "/usr/bin"):
        root.dir(d)
    nmod = 0
    if kernel.moddir:
        nmod = pack_modules(root, kernel.moddir, kernel.release, stage, bb)
    path = root.bin_dirs + ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
                            "/usr/bin", "/sbin", "/bin"]
    root.dir(cwd)
    env = dict(passed_env(environ), **py_env)
    env.update(seed.env(seed_s))
    init = guest_init.render(path, env, cwd, command, seed.init_lines(seed_s))
    root.cpio.file("/init", init.encode("utf-8", "surrogateescape"))
    return Packed(root.cpio.finish(), nmod)
