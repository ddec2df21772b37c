# SPDX-License-Identifier: GPL-2.0
"""The guest's root as a newc cpio archive (the initramfs format the
kernel unpacks), built in memory."""
import os
import stat


def _pad4(n):
    return (4 - n % 4) % 4


class Cpio:
    """A newc archive built in memory; each path is written once, after
    its parents. seen maps a path to "dir", "file" or "link"."""

    def __init__(self):
        self.out = bytearray()
        self.seen = {}
        self.ino = 1

    def _entry(self, name, mode, data=b"", nlink=1):
        name = name.lstrip("/").encode("utf-8", "surrogateescape") + b"\0"
        hdr = b"070701" + b"".join(b"%08X" % v for v in (
            self.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(name), 0))
        self.ino += 1
        self.out += hdr + name
        self.out += b"\0" * _pad4(len(self.out))
        self.out += data
        self.out += b"\0" * _pad4(len(self.out))

    def has(self, path):
        return path in self.seen

    def dir(self, path):
        if path in ("", "/") or path in self.seen:
            return
        self.dir(os.path.dirname(path))
        self.seen[path] = "dir"
        self._entry(path, stat.S_IFDIR | 0o755, nlink=2)

    def file(self, path, data, mode=0o755):
        if path in self.seen:
            return
        self.dir(os.path.dirname(path))
        self.seen[path] = "file"
        self._entry(path, stat.S_IFREG | mode, data)

    def symlink(self, path, target):
        if path in self.seen:
            return
        self.dir(os.path.dirname(path))
        self.seen[path] = "link"
        self._entry(path, stat.S_IFLNK | 0o777, target.encode("utf-8", "surrogateescape"))

    def finish(self):
        self._entry("TRAILER!!!", 0)
        self.out += b"\0" * ((512 - len(self.out) % 512) % 512)
        return bytes(self.out)


def read_newc(data):
    """The entries of a newc archive as (name, mode, data), in order; the
    reader the tests and the stand-in QEMU check an archive with.
    ValueError on a malformed archive."""
    out, pos = [], 0
    while True:
        if data[pos:pos + 6] != b"070701":
            raise ValueError("newc: no magic at offset %d" % pos)
        f = [int(data[pos + 6 + 8 * i:pos + 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = f[1], f[6], f[11]
        pos += 110
        name = data[pos:pos + namesize - 1].decode("utf-8", "surrogateescape")
        pos += namesize
        pos += _pad4(pos)
        body = data[pos:pos + size]
        pos += size
        pos += _pad4(pos)
        if name == "TRAILER!!!":
            return out
        out.append((name, mode, body))
