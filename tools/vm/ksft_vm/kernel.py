# SPDX-License-Identifier: GPL-2.0
"""Finding the kernel: the image (--kernel or the newest /boot/vmlinuz-*),
its release from the bzImage setup header, its config and module tree."""
import glob
import hashlib
import os
import re
import struct

from .errors import VmError


def version_key(p):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", p)]


def setup_version(hdr_and_text):
    """The kernel version string of a bzImage's first bytes (at least the
    setup header and the string it points to): the whole banner
    ("6.1.0-57-cloud-amd64 (debian-kernel@...) #1 SMP ... Debian 6.1.192-3
    ..."), or None when it is no bzImage (no "HdrS" magic)."""
    data = hdr_and_text
    if len(data) < 0x210 or data[0x202:0x206] != b"HdrS":
        return None
    off, = struct.unpack_from("<H", data, 0x20E)
    text = data[off + 0x200:off + 0x200 + 256]
    text = text.split(b"\0")[0].decode("ascii", "replace")
    return text or None


def read_version(image):
    """setup_version() of the file @image; None when it is no bzImage."""
    try:
        with open(image, "rb") as f:
            data = f.read(0x10400)  # the header points up to 64 KiB in
    except OSError as e:
        raise VmError("--kernel %s: %s" % (image, e.strerror)) from None
    return setup_version(data)


def release_of(version):
    """The release (uname -r) of a version banner: its first word."""
    return version.split(" ")[0]


def default_kernel():
    imgs = glob.glob("/boot/vmlinuz-*")
    return sorted(imgs, key=version_key)[-1] if imgs else None


def config_of(image, release):
    """The image's .config: beside it (a Debian package's boot/, or an
    extracted one), /boot, or the kernel tree's for arch/x86/boot/bzImage."""
    d = os.path.dirname(os.path.abspath(image))
    for c in (os.path.join(d, "config-" + release), "/boot/config-" + release,
              os.path.join(d, "..", "..", "..", ".config")):
        if os.path.isfile(c):
            return c
    return None


def config_hash(image, release):
    """The first 16 hex digits of the SHA-256 of the image's config."""
    cfg = config_of(image, release)
    if not cfg:
        return "unknown"
    with open(cfg, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def modules_of(image, release, given):
    """The module tree: --modules, else ../lib/modules/RELEASE beside the
    image (an unpacked Debian package), else /lib/modules/RELEASE; None
    when there is none."""
    if given:
        if not os.path.isdir(os.path.join(given, "kernel")):
            raise VmError("--modules %s: no kernel/ module tree there" % given)
        return given
    d = os.path.dirname(os.path.abspath(image))
    for c in (os.path.join(d, "..", "lib", "modules", release), "/lib/modules/" + release):
        if os.path.isdir(os.path.join(c, "kernel")):
            return os.path.normpath(c)
    return None


class Kernel:
    """The image to boot: path, banner, release, config hash, modules."""

    def __init__(self, image, version, moddir, cfg_hash):
        self.image = image
        self.version = version
        self.release = release_of(version)
        self.moddir = moddir
        self.config_hash = cfg_hash


def find_kernel(image, modules):
    """The Kernel for --kernel @image (None: the newest /boot/vmlinuz-*)
    and --modules @modules (None: found beside it)."""
    image = image or default_kernel()
    if not image:
        raise VmError("no --kernel and no /boot/vmlinuz-*")
    if not os.path.isfile(image):
        raise VmError("--kernel %s: no such file" % image)
    image = os.path.abspath(image)
    version = read_version(image)
    if not version:
        raise VmError("--kernel %s: not a bzImage (no Linux setup header)" % image)
    release = release_of(version)
    return Kernel(image, version, modules_of(image, release, modules), config_hash(image, release))
