#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-vm: run a selftest in a QEMU guest whose clock counts instructions.

Boots a kernel image under TCG with -icount (virtual time advances by
executed instructions, never by the host's clock), from a RAM-only root
packed here: busybox, COMMAND and every --add file with their shared
libraries at their host paths, and the image's network modules. The
command's output stays in guest RAM until it exits, then leaves over a
second serial port, so nothing the host does during the run reaches the
guest's clock. doc/vm.rst says why each setting is what it is.

Exit status: COMMAND's own; 2 when the guest panics, hangs past --timeout
or does not boot (with the console's last lines on stderr).
"""
import argparse
import glob
import hashlib
import lzma
import os
import re
import shlex
import shutil
import stat
import struct
import subprocess
import sys
import tempfile

# --- profile hook (issue 43): ksft_vm_profile.py beside this file (build
# tree) or in libexec/ksftmetric (installed).
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_HERE, os.path.join(_HERE, "..", "libexec", "ksftmetric")]
import ksft_vm_profile  # noqa: E402
# --- end profile hook

PROG = "ksft-vm"
QEMU = "qemu-system-x86_64"
DEFAULT_CPU = "Westmere-v1"   # a named model TCG implements fully (no warnings)
ICOUNT_SHIFT = 0              # 1 ns of guest time per instruction
SEED = 1                      # QEMU's guest RNG (RDRAND, virtio-rng) seed
RTC_BASE = "2026-01-01T00:00:00"
# Host tools a network selftest expects, taken from the host when present
# (busybox's ip/tc lack netns and qdisc details); busybox fills the rest.
HOST_TOOLS = ("ip", "tc", "nft", "iperf3", "ethtool", "ss", "bridge")
# Module subtrees packed from the image's tree (plus their dependencies):
# what network selftests load; hardware drivers are left out.
MODULE_GLOBS = ("kernel/net/**/*.ko*", "kernel/drivers/net/*.ko*",
                "kernel/drivers/net/bonding/*.ko*", "kernel/drivers/net/team/*.ko*",
                "kernel/drivers/net/netdevsim/*.ko*") + ksft_vm_profile.MODULE_GLOBS  # profile hook
OUT_MARK = b"KSFT-VM-RESULT"


def die(msg, code=2):
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.exit(code)


class Cpio:
    """A newc archive built in memory; paths are added once, parents first."""

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
        self.out += b"\0" * ((4 - len(self.out) % 4) % 4)
        self.out += data
        self.out += b"\0" * ((4 - len(self.out) % 4) % 4)

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


class Root:
    """The guest's root: host paths copied to the same paths, host symlinks
    (merged /usr: /lib -> usr/lib) kept as symlinks so every name works."""

    def __init__(self):
        self.cpio = Cpio()
        self.libs_done = set()
        self.bin_dirs = []

    def _parents(self, path):
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
        self._parents(path + "/x")

    def _guest_real(self, path):
        """@path with the host's directory symlinks resolved (the archive
        holds each file once, under its real directory)."""
        return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))

    def add(self, path, depth=0):
        """Copy host file/dir/symlink @path (absolute) into the root."""
        if depth > 40:
            die("%s: too many levels of symbolic links" % path)
        path = os.path.normpath(path)
        self._parents(path)
        real = self._guest_real(path)
        if self.cpio.has(real):
            return
        try:
            st = os.lstat(path)
        except OSError as e:
            die("--add %s: %s" % (path, e.strerror))
        if stat.S_ISLNK(st.st_mode):
            target = os.readlink(path)
            self.cpio.symlink(real, target)
            self.add(os.path.join(os.path.dirname(path), target), depth + 1)
        elif stat.S_ISDIR(st.st_mode):
            self.cpio.dir(real)
            for name in sorted(os.listdir(path)):
                self.add(os.path.join(path, name), depth)
        elif stat.S_ISREG(st.st_mode):
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                die("--add %s: %s" % (path, e.strerror))
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
                die("%s needs %s, which ldd does not find" % (path, line.split()[0]))
            if m:
                self.add(m.group(1))

    def program(self, name):
        """A program by name (PATH) or path; its guest name, or None."""
        if "/" in name:
            p = os.path.abspath(name)
        else:
            p = shutil.which(name, path=os.environ.get("PATH", "") +
                             ":/usr/local/sbin:/usr/sbin:/sbin")
            if not p:
                return None
            p = os.path.abspath(p)
        if not os.path.isfile(p):
            return None
        self.add(p)
        d = os.path.dirname(p)
        if d not in self.bin_dirs:
            self.bin_dirs.append(d)
        return p


def modinfo(data):
    """The .modinfo section of a module's ELF image as (key, value) pairs."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return []
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
            out = []
            for item in data[off:off + size].split(b"\0"):
                if b"=" in item:
                    k, v = item.split(b"=", 1)
                    out.append((k.decode(), v.decode("utf-8", "replace")))
            return out
    return []


def pack_modules(root, moddir, release, stage):
    """The network modules and everything they depend on, decompressed
    (busybox modprobe in the guest), indexed by busybox depmod here."""
    by_name = {}
    for p in glob.glob(os.path.join(moddir, "kernel", "**", "*.ko*"), recursive=True):
        name = os.path.basename(p).split(".ko")[0].replace("-", "_")
        by_name[name] = p
    todo = []
    for g in MODULE_GLOBS:
        todo += sorted(glob.glob(os.path.join(moddir, g), recursive=True))
    dst_root = os.path.join(stage, "lib", "modules", release)
    done = set()
    while todo:
        p = todo.pop()
        if p in done:
            continue
        done.add(p)
        with open(p, "rb") as f:
            data = f.read()
        if p.endswith(".xz"):
            data = lzma.decompress(data)
        elif p.endswith(".zst") or p.endswith(".gz"):
            die("%s: only plain and .xz modules are supported" % p)
        rel = os.path.relpath(p, moddir)
        rel = rel[:rel.index(".ko") + 3]
        out = os.path.join(dst_root, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(data)
        for k, v in modinfo(data):
            if k == "depends":
                for d in filter(None, v.split(",")):
                    if d.replace("-", "_") in by_name:
                        todo.append(by_name[d.replace("-", "_")])
    for f in ("modules.builtin", "modules.order", "modules.builtin.modinfo"):
        if os.path.exists(os.path.join(moddir, f)):
            shutil.copy(os.path.join(moddir, f), dst_root)
    bb = shutil.which("busybox") or "/bin/busybox"
    res = subprocess.run([bb, "depmod", "-b", stage, release], stderr=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, check=False)
    if res.returncode:
        die("busybox depmod over %s: %s" % (dst_root, res.stderr.decode(errors="replace")))
    n = 0
    for dirpath, _, files in os.walk(dst_root):
        for name in sorted(files):
            full = os.path.join(dirpath, name)
            with open(full, "rb") as f:
                root.cpio.file("/" + os.path.relpath(full, stage), f.read(), 0o644)
            n += name.endswith(".ko")
    return n


def kernel_release(image):
    """The release string in a bzImage's setup header."""
    try:
        with open(image, "rb") as f:
            hdr = f.read(0x400)
            if hdr[0x202:0x206] != b"HdrS":
                return None
            off, = struct.unpack_from("<H", hdr, 0x20E)
            f.seek(off + 0x200)
            text = f.read(256)
    except OSError:
        return None
    return text.split(b" ")[0].split(b"\0")[0].decode("ascii", "replace")


def kernel_config(image, release):
    """The image's .config: beside it (a Debian package's boot/, or an
    extracted one), or the kernel tree's for arch/x86/boot/bzImage."""
    d = os.path.dirname(os.path.abspath(image))
    for c in (os.path.join(d, "config-" + release), "/boot/config-" + release,
              os.path.join(d, "..", "..", "..", ".config")):
        if os.path.isfile(c):
            return c
    return None


def qemu_version():
    try:
        out = subprocess.run([QEMU, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=False).stdout.decode()
    except OSError:
        die("%s not found (install qemu-system-x86)" % QEMU)
    m = re.search(r"version (\d+\.\d+\.\d+)", out)
    return m.group(1) if m else "unknown"


INIT = r"""#!/bin/sh
# ksft-vm's /init: the guest's whole life, one command.
export PATH=%(path)s HOME=/root LANG=C.UTF-8 TERM=dumb
mkdir -p /proc /sys /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm /run /tmp /var /root /sys/fs/cgroup
chmod 1777 /tmp
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# The root is already RAM: /tmp and /run stay as packed (--add files there).
[ -e /var/run ] || ln -s /run /var/run
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo /sbin/modprobe > /proc/sys/kernel/modprobe
%(profile_before)shostname ksft-vm
ip link set lo up
%(env)s
mkdir -p /run/ksft-vm %(cwd)s
cd %(cwd)s
set -- %(argv)s
echo "ksft-vm: running $1" > /dev/kmsg
"$@" > /run/ksft-vm/out 2> /run/ksft-vm/err < /dev/null
rc=$?
cd /
stty -F /dev/ttyS1 raw -echo
{
	echo "%(mark)s $rc $(wc -c < /run/ksft-vm/out) $(wc -c < /run/ksft-vm/err)"
	cat /run/ksft-vm/out /run/ksft-vm/err
	echo "%(mark)s-END"
} > /dev/ttyS1
%(profile_after)s
sync
reboot -f
"""


def build_root(args, release, moddir, stage):
    root = Root()
    bb = shutil.which("busybox") or "/bin/busybox"
    if not os.path.isfile(bb):
        die("busybox not found (install busybox-static)")
    for t in HOST_TOOLS:
        root.program(t)
    argv0 = args.command[0]
    prog = root.program(argv0)
    if not prog:
        die("COMMAND %s: not found on the host" % argv0)
    for a in args.add:
        p = os.path.abspath(a)
        if not os.path.lexists(p):
            die("--add %s: no such file or directory" % a)
        root.add(p)
        if os.path.isfile(p) and os.access(p, os.X_OK) and os.path.dirname(p) not in root.bin_dirs:
            root.bin_dirs.append(os.path.dirname(p))
    # busybox, and its applets wherever the host has no program of that name
    root.cpio.file("/usr/lib/ksft-vm/busybox", open(bb, "rb").read())
    applets = subprocess.run([bb, "--list-full"], stdout=subprocess.PIPE,
                             check=True).stdout.decode().split()
    for a in applets:
        guest = "/" + a
        root._parents(guest)
        real = root._guest_real(guest)
        if not root.cpio.has(real) and not (os.path.basename(a) in HOST_TOOLS and shutil.which(os.path.basename(a))):
            root.cpio.symlink(real, "/usr/lib/ksft-vm/busybox")
    for d in ("/sbin", "/usr/sbin", "/bin", "/usr/bin"):
        root.dir(d)
    nmod = pack_modules(root, moddir, release, stage) if moddir else 0
    path = ":".join(root.bin_dirs + ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
                                     "/usr/bin", "/sbin", "/bin"])
    cwd = os.getcwd()
    root.dir(cwd)
    env = []
    for k in sorted(os.environ):
        if k.startswith(("KSFTMETRIC_", "KSFT_")) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k):
            env.append("export %s=%s" % (k, shlex.quote(os.environ[k])))
    init = INIT % {
        "path": shlex.quote(path), "env": "\n".join(env), "cwd": shlex.quote(cwd),
        "argv": " ".join(shlex.quote(a) for a in args.command), "mark": OUT_MARK.decode(),
        # profile hook: the same in every boot, profiled or not
        "profile_before": ksft_vm_profile.INIT_BEFORE, "profile_after": ksft_vm_profile.INIT_SEND_SYMBOLS,
    }
    root.cpio.file("/init", init.encode("utf-8", "surrogateescape"))
    return root.cpio.finish(), nmod


def default_kernel():
    imgs = glob.glob("/boot/vmlinuz-*")
    if not imgs:
        return None

    def key(p):
        return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", p)]
    return sorted(imgs, key=key)[-1]


def parse(argv):
    ap = argparse.ArgumentParser(
        prog=PROG, usage="%(prog)s [--kernel IMAGE] [--modules DIR] [--add PATH]... "
        "[--smp N] [--memory MB] [--timeout S] [--kvm] [--profile FILE] -- COMMAND [ARG]...",
        description="Run COMMAND in a QEMU guest whose clock counts instructions "
        "(TCG, -icount shift=0,sleep=off): its times and rates are a deterministic "
        "function of the instructions executed. COMMAND's output on stdout/stderr, "
        "its exit status as ours; 2 when the guest panics, hangs or does not boot.")
    ap.add_argument("--kernel", metavar="IMAGE", help="bzImage to boot (default: the newest /boot/vmlinuz-*)")
    ap.add_argument("--modules", metavar="DIR", help="its module tree (default: beside IMAGE "
                    "as an extracted package has it, else /lib/modules/RELEASE)")
    ap.add_argument("--add", metavar="PATH", action="append", default=[],
                    help="a file or directory to copy in at the same path (with its libraries)")
    ap.add_argument("--smp", metavar="N", type=int, default=1, help="vCPUs, 1 or 2 (default 1)")
    ap.add_argument("--memory", metavar="MB", type=int, default=1024, help="guest RAM (default 1024)")
    ap.add_argument("--timeout", metavar="S", type=float, default=900,
                    help="wall-clock limit of the whole boot (default 900)")
    ap.add_argument("--cpu", metavar="MODEL", default=DEFAULT_CPU,
                    help="QEMU CPU model (default %s)" % DEFAULT_CPU)
    ap.add_argument("--kvm", action="store_true",
                    help="KVM instead of icount: fast, functional, NOT deterministic")
    ap.add_argument("--console", metavar="FILE", help="keep the guest's console log in FILE")
    # --- profile hook
    ap.add_argument("--profile", metavar="FILE",
                    help="write an exact instruction profile (cachegrind format) to FILE, "
                    "FILE.whole and FILE.caseN (doc/vm.rst)")
    ap.add_argument("--profile-mode", choices=("block", "insn"), default="block",
                    help=argparse.SUPPRESS)
    # --- end profile hook
    ap.add_argument("command", nargs=argparse.REMAINDER, metavar="COMMAND")
    args = ap.parse_args(argv)
    if args.command and args.command[0] == "--":
        args.command = args.command[1:]
    if not args.command:
        ap.error("no COMMAND (ksft-vm [options] -- COMMAND [ARG]...)")
    if args.smp not in (1, 2):
        ap.error("--smp must be 1 or 2 (2 runs round-robin on one host thread)")
    if args.memory < 128:
        ap.error("--memory must be at least 128 (MB)")
    if args.timeout <= 0:
        ap.error("--timeout must be positive")
    if args.profile and args.kvm:  # profile hook
        ap.error("--profile needs TCG (QEMU's plugins do not see KVM's instructions)")
    if not re.match(r"^[A-Za-z0-9._-]+$", args.cpu):
        ap.error("--cpu %s: not a CPU model name" % args.cpu)
    return args


def tail(path, n=30):
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return "(no console output)"
    return "\n".join(lines[-n:]) if lines else "(no console output)"


def main(argv):
    args = parse(argv)
    image = args.kernel or default_kernel()
    if not image:
        die("no --kernel and no /boot/vmlinuz-*")
    if not os.path.isfile(image):
        die("--kernel %s: no such file" % image)
    release = kernel_release(image)
    if not release:
        die("--kernel %s: not a bzImage (no Linux setup header)" % image)
    moddir = args.modules
    if not moddir:
        d = os.path.dirname(os.path.abspath(image))
        for c in (os.path.join(d, "..", "lib", "modules", release), "/lib/modules/" + release):
            if os.path.isdir(c):
                moddir = os.path.normpath(c)
                break
    if moddir and not os.path.isdir(os.path.join(moddir, "kernel")):
        die("--modules %s: no kernel/ module tree there" % moddir)
    cfg = kernel_config(image, release)
    cfg_hash = "unknown"
    if cfg:
        with open(cfg, "rb") as f:
            cfg_hash = hashlib.sha256(f.read()).hexdigest()[:16]
    qver = qemu_version()
    clock = "kvm" if args.kvm else "icount"
    with tempfile.TemporaryDirectory(prefix="ksft-vm.") as tmp:
        initrd, nmod = build_root(args, release, moddir, os.path.join(tmp, "stage"))
        with open(os.path.join(tmp, "initrd"), "wb") as f:
            f.write(initrd)
        console = args.console or os.path.join(tmp, "console")
        result = os.path.join(tmp, "result")
        # Context keys the library adds to the run context line from
        # /proc/cmdline (lib/metric/run_context.c): how this was measured.
        ctx = ["ksftm.clock=" + clock, "ksftm.qemu=" + qver, "ksftm.qemu_cpu=" + args.cpu, "ksftm.vm_kernel=" + release,
               "ksftm.vm_kernel_config=" + cfg_hash]
        if not args.kvm:
            ctx.append("ksftm.icount_shift=%d" % ICOUNT_SHIFT)
        cmdline = ["console=ttyS0", "panic=-1", "oops=panic", "nokaslr", "random.trust_cpu=off",
                   "random.trust_bootloader=off", "loglevel=4", "tsc=reliable",
                   "no_timer_check", "rdinit=/init"] + ctx
        cmd = [QEMU, "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
               "-m", str(args.memory), "-smp", str(args.smp),
               "-kernel", image, "-initrd", os.path.join(tmp, "initrd"),
               "-append", " ".join(cmdline),
               "-chardev", "file,id=con,path=" + console, "-serial", "chardev:con",
               "-chardev", "file,id=res,path=" + result, "-serial", "chardev:res"]
        if args.kvm:
            # The same named model: the kernel takes the same CPUID code
            # paths as under icount (and "host" passes MSRs a nested KVM
            # refuses).
            cmd += ["-accel", "kvm", "-cpu", args.cpu]
            sys.stderr.write("%s: --kvm: a functional run; its times are the host's, "
                             "not deterministic\n" % PROG)
        else:
            cmd += ["-accel", "tcg", "-cpu", args.cpu,
                    "-icount", "shift=%d,sleep=off,align=off" % ICOUNT_SHIFT,
                    "-rtc", "base=%s,clock=vm" % RTC_BASE, "-seed", str(SEED)]
            # --- profile hook: the guest's flag in every icount boot; the plugin
            cmd += ksft_vm_profile.fw_cfg_args(bool(args.profile))
            if args.profile:
                try:
                    plugin = ksft_vm_profile.find_plugin()
                    ksft_vm_profile.check_plugin(QEMU, plugin)
                except ksft_vm_profile.ProfileError as e:
                    die("--profile: %s" % e)
                cmd += ksft_vm_profile.plugin_args(plugin, os.path.join(tmp, "profile.dump"),
                                                   args.profile_mode)
            # --- end profile hook
        if os.environ.get("KSFT_VM_VERBOSE"):
            sys.stderr.write("%s: %s (%d modules, %d KiB root)\n" % (
                PROG, " ".join(shlex.quote(c) for c in cmd), nmod, len(initrd) // 1024))
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT)
        except OSError as e:
            die("%s: %s" % (QEMU, e.strerror))
        try:
            qout, _ = proc.communicate(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            die("guest still running after --timeout %g s; console's last lines:\n%s" %
                (args.timeout, tail(console)))
        try:
            with open(result, "rb") as f:
                res = f.read()
        except OSError:
            res = b""
        m = re.search(rb"(?m)^" + OUT_MARK + rb" (\d+) (\d+) (\d+)\n", res)
        if not m:
            q = qout.decode("utf-8", "replace").strip()
            die("guest ended without COMMAND's result (QEMU exit %d%s); console's last "
                "lines:\n%s" % (proc.returncode, (": " + q) if q else "", tail(console)))
        rc, nout, nerr = (int(x) for x in m.groups())
        body = res[m.end():]
        if len(body) < nout + nerr:
            die("guest's result cut short (%d of %d bytes); console's last lines:\n%s" %
                (len(body), nout + nerr, tail(console)))
        sys.stdout.buffer.write(body[:nout])
        sys.stdout.buffer.flush()
        sys.stderr.buffer.write(body[nout:nout + nerr])
        sys.stderr.buffer.flush()
        if args.profile:  # --- profile hook
            try:
                with open(os.path.join(tmp, "profile.dump")) as f:
                    dump = f.read()
                ksft_vm_profile.write_profiles(args.profile, dump, res,
                                               " ".join(args.command))
            except (OSError, ksft_vm_profile.ProfileError) as e:
                die("--profile: %s" % e)
        return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
