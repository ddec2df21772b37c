# SPDX-License-Identifier: GPL-2.0
"""The image's network modules packed into the guest, with what they
depend on (read from each module's .modinfo), for busybox modprobe."""
import glob
import lzma
import os
import shutil
import struct
import subprocess

from . import profile
from .errors import VmError

# Module subtrees packed from the image's tree (plus their dependencies):
# what network selftests load; hardware drivers are left out. The
# profile's qemu_fw_cfg is in every root, profiled or not (profile.py).
# Out-of-tree modules (make M=DIR modules_install puts them in updates/,
# DKMS in updates/ or extra/) are packed whole: they were built to be
# loaded, e.g. netdevsim for a kernel built without it (doc/vm.rst).
OUT_OF_TREE = ("extra", "updates")          # depmod's order: updates wins
MODULE_GLOBS = ("kernel/net/**/*.ko*", "kernel/drivers/net/*.ko*",
                "kernel/drivers/net/bonding/*.ko*", "kernel/drivers/net/team/*.ko*",
                "kernel/drivers/net/netdevsim/*.ko*") + profile.MODULE_GLOBS + \
    tuple(d + "/**/*.ko*" for d in OUT_OF_TREE)


def modinfo(data):
    """The .modinfo section of a module's ELF64 image as (key, value)
    pairs; [] for anything else (not ELF64, no such section). A section
    table that points outside the image raises ValueError."""
    if data[:4] != b"\x7fELF" or len(data) < 0x40 or data[4] != 2:
        return []
    try:
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

        def sec(i):
            b = shoff + i * shentsize
            name, = struct.unpack_from("<I", data, b)
            off, size = struct.unpack_from("<QQ", data, b + 0x18)
            return name, off, size

        _, stroff, _ = sec(shstrndx)
        for i in range(shnum):
            name, off, size = sec(i)
            end = data.index(b"\0", stroff + name)
            if data[stroff + name:end] == b".modinfo":
                if off + size > len(data):
                    raise ValueError(".modinfo past the end of the image")
                out = []
                for item in data[off:off + size].split(b"\0"):
                    if b"=" in item:
                        k, v = item.split(b"=", 1)
                        out.append((k.decode("utf-8", "replace"), v.decode("utf-8", "replace")))
                return out
    except struct.error as e:
        raise ValueError("ELF section table: %s" % e) from None
    return []


def depends(data):
    """The module names a module's .modinfo says it depends on."""
    out = []
    for k, v in modinfo(data):
        if k == "depends":
            out += [d for d in v.split(",") if d]
    return out


def pack_modules(root, moddir, release, stage, busybox):
    """Pack the network modules of @moddir and everything they depend on,
    decompressed, indexed by busybox depmod in @stage. Their number."""
    by_name = {}
    for sub in ("kernel",) + OUT_OF_TREE:
        for p in sorted(glob.glob(os.path.join(moddir, sub, "**", "*.ko*"), recursive=True)):
            name = os.path.basename(p).split(".ko")[0].replace("-", "_")
            by_name[name] = p
    todo = []
    for g in MODULE_GLOBS:
        todo += sorted(glob.glob(os.path.join(moddir, g), recursive=True))
    dst_root = os.path.join(stage, "lib", "modules", release)
    done = set()
    while todo:
        p = todo.pop()
        name = os.path.basename(p).split(".ko")[0].replace("-", "_")
        if p in done or by_name.get(name, p) != p:      # an out-of-tree one replaces it
            continue
        done.add(p)
        with open(p, "rb") as f:
            data = f.read()
        if p.endswith(".xz"):
            data = lzma.decompress(data)
        elif p.endswith(".zst") or p.endswith(".gz"):
            raise VmError("%s: only plain and .xz modules are supported" % p)
        rel = os.path.relpath(p, moddir)
        rel = rel[:rel.index(".ko") + 3]
        out = os.path.join(dst_root, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(data)
        try:
            deps = depends(data)
        except ValueError as e:
            raise VmError("%s: %s" % (p, e)) from None
        for d in deps:
            if d.replace("-", "_") in by_name:
                todo.append(by_name[d.replace("-", "_")])
    os.makedirs(dst_root, exist_ok=True)
    for f in ("modules.builtin", "modules.order", "modules.builtin.modinfo"):
        if os.path.exists(os.path.join(moddir, f)):
            shutil.copy(os.path.join(moddir, f), dst_root)
    res = subprocess.run([busybox, "depmod", "-b", stage, release], stderr=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, check=False)
    if res.returncode:
        raise VmError("busybox depmod over %s: %s" % (dst_root, res.stderr.decode(errors="replace")))
    n = 0
    for dirpath, dirs, files in os.walk(dst_root):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(dirpath, name)
            with open(full, "rb") as f:
                root.cpio.file("/" + os.path.relpath(full, stage), f.read(), 0o644)
            n += name.endswith(".ko")
    return n
