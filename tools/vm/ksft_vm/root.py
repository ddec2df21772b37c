# SPDX-License-Identifier: GPL-2.0
"""The guest's root: host paths copied to the same paths with the shared
libraries of every program, host symlinks (merged /usr: /lib -> usr/lib)
kept as symlinks so every name works."""
import os
import re
import shutil
import stat
import subprocess
import sys

from .cpio import Cpio
from .errors import VmError

# Where programs are looked up besides $PATH (ip, tc, nft live in sbin).
SBIN_PATH = ":/usr/local/sbin:/usr/sbin:/sbin"


def find_program(name, env_path=None):
    """A program as the shell finds it: a name with a slash is a path
    (relative to the current directory), a bare name is looked up in PATH
    (and the sbin directories). Its absolute path, or None."""
    if "/" in name:
        p = os.path.abspath(name)
        return p if os.path.isfile(p) else None
    if env_path is None:
        env_path = os.environ.get("PATH", "")
    p = shutil.which(name, path=env_path + SBIN_PATH)
    return os.path.abspath(p) if p else None


def find_add(name):
    """An --add PATH: the path as given when it exists (relative to the
    current directory), else a bare name found in PATH like COMMAND."""
    if os.path.lexists(name):
        return os.path.abspath(name)
    if "/" not in name:
        p = find_program(name)
        if p:
            return p
    raise VmError("--add %s: no such file or directory%s" % (
        name, "" if "/" in name else " (nor a program in PATH)"))


class Root:
    """The guest's root being packed. warn(text) says what was packed
    differently from the host (a dangling link)."""

    def __init__(self, warn=None):
        self.cpio = Cpio()
        self.libs_done = set()
        self.walked = set()     # paths copied with all their contents
        self.bin_dirs = []
        self.warn = warn or (lambda text: sys.stderr.write("ksft-vm: warning: %s\n" % text))

    def parents(self, path):
        """Create @path's parent directories, mirroring host symlinks."""
        parts = path.strip("/").split("/")[:-1]
        cur = ""
        for p in parts:
            cur += "/" + p
            if self.cpio.has(cur):	# a directory, or a link already followed
                continue
            if os.path.islink(cur):
                target = os.readlink(cur)
                self.cpio.symlink(cur, target)
                real = os.path.normpath(os.path.join(os.path.dirname(cur), target))
                self.dir(real)
            else:
                self.cpio.dir(cur)

    def dir(self, path):
        """An empty directory @path (and its parents)."""
        self.parents(path + "/x")

    def guest_real(self, path):
        """@path with the host's directory symlinks resolved (the archive
        holds each file once, under its real directory)."""
        return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))

    def add(self, path, depth=0, skip=None):
        """Copy host file, directory (all of it) or symlink @path (absolute)
        into the root. A directory created earlier only as some file's
        parent is still walked: walked, not the archive, says what is done.
        skip(path) true: a path inside a directory left out (and not
        marked walked)."""
        if depth > 40:
            raise VmError("%s: too many levels of symbolic links" % path)
        path = os.path.normpath(path)
        self.parents(path)
        real = self.guest_real(path)
        if real in self.walked:
            return
        try:
            st = os.lstat(path)
        except OSError as e:
            raise VmError("--add %s: %s" % (path, e.strerror)) from None
        self.walked.add(real)
        if stat.S_ISLNK(st.st_mode):
            target = os.readlink(path)
            self.cpio.symlink(real, target)
            dest = os.path.join(os.path.dirname(path), target)
            if os.path.exists(dest):
                self.add(dest, depth + 1)
            else:
                self.warn("%s: a dangling symbolic link (to %s), packed as it is" % (path, target))
        elif stat.S_ISDIR(st.st_mode):
            self.cpio.dir(real)
            try:
                names = sorted(os.listdir(path))
            except OSError as e:
                raise VmError("--add %s: %s" % (path, e.strerror)) from None
            for name in names:
                sub = os.path.join(path, name)
                if not (skip and skip(sub)):
                    self.add(sub, depth, skip)
        elif stat.S_ISREG(st.st_mode):
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                raise VmError("--add %s: %s" % (path, e.strerror)) from None
            self.cpio.file(real, data, stat.S_IMODE(st.st_mode))
            # programs, and shared objects (Python's extension modules are
            # not executable but need libffi, libssl...)
            if st.st_mode & 0o111 or re.search(r"\.so(\.|$)", os.path.basename(path)):
                self.add_libs(path, data)
        # devices, sockets, fifos: nothing a test can carry in

    def add_libs(self, path, data):
        """The shared libraries (ldd) or script interpreter @path needs."""
        if data[:2] == b"#!":
            words = data[2:].split(b"\n", 1)[0].split()
            if words:
                interp = os.fsdecode(words[0])
                if os.path.basename(interp) == "env" and len(words) > 1:
                    interp = shutil.which(os.fsdecode(words[1])) or interp
                if os.path.isabs(interp) and os.path.exists(interp):
                    self.add(interp)
            return
        if data[:4] != b"\x7fELF" or path in self.libs_done:
            return
        self.libs_done.add(path)
        try:
            res = subprocess.run(["ldd", path], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, check=False)
        except OSError:
            return
        for line in res.stdout.decode("utf-8", "surrogateescape").splitlines():
            m = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
            if "not found" in line:
                raise VmError("%s needs %s, which ldd does not find" % (path, line.split()[0]))
            if m:
                self.add(m.group(1))

    def program(self, name):
        """Pack a program found as the shell would (find_program()); its
        directory joins the guest's PATH. Its path, or None."""
        p = find_program(name)
        if not p:
            return None
        self.add(p)
        self.on_path(p)
        return p

    def on_path(self, p):
        d = os.path.dirname(p)
        if d not in self.bin_dirs:
            self.bin_dirs.append(d)
