# SPDX-License-Identifier: GPL-2.0
"""ksft-vm's command line and main(): find the kernel, pack the root,
build QEMU's argv, run it, read the result. Only main() exits."""
import argparse
import math
import os
import shlex
import shutil
import subprocess
import sys

from . import process, profile
from .errors import EXIT_VM, GuestError, Interrupted, TimedOut, UsageError, VmError
from .kernel import find_kernel
from .pack import build_root
from .qemu import DEFAULT_CPU, QEMU, VmConfig, qemu_argv, qemu_version
from .result import decode, stats_line
from .seed import context_words as seed_words

PROG = "ksft-vm"
# Under --kvm a guest prints its first console line within a second or two;
# an empty console this long after the start is a host whose KVM guests
# print nothing (nested), not a slow boot.
KVM_SILENCE_S = 20
CONSOLE_TAIL = 30

USAGE = ("%(prog)s [--kernel IMAGE] [--modules DIR] [--add PATH]... [--smp N] [--memory MB]\n"
         "               [--timeout S] [--kvm] [--cpu MODEL] [--console FILE] [--profile FILE]\n"
         "               [--seed S] -- COMMAND [ARG]...\n"
         "       %(prog)s --tree DIR [--config FRAGMENT]... [--jobs N] [OPTION]... -- COMMAND [ARG]...\n"
         "       %(prog)s build --tree DIR [--config FRAGMENT]... [--jobs N]\n"
         "       %(prog)s bisect [-o DIR] [--seeds N] GOOD BAD --tree DIR [OPTION]... -- COMMAND [ARG]...\n"
         "       %(prog)s ab [-o DIR] IMAGE_A IMAGE_B [OPTION]... -- COMMAND [ARG]...")
DESCRIPTION = """\
Run COMMAND in a QEMU guest whose clock counts instructions (TCG, -icount
shift=0,sleep=off): its times and rates are a deterministic function of
the instructions executed. COMMAND's output on stdout/stderr, its exit
status as ours."""
EPILOG = """\
exit status: COMMAND's own; 255 when ksft-vm itself fails (a bad option,
the guest panics, hangs past --timeout, does not boot, or its result is
cut or its output filled its file system): stderr then says why, with
the console's last lines. A signal (TERM, INT, HUP) ends QEMU and ksft-vm
dies of it.

environment: KSFT_* and KSFTMETRIC_* are passed into the guest; PATH finds
COMMAND and --add names on the host; TMPDIR holds the run's temp dir (the
next run removes those a killed run left); KSFT_VM_VERBOSE=1 prints
QEMU's command line, the module count and the root's size.

ksft-vm build: a kernel tree built for the guest, cached (--tree does it
before the boot, outside --timeout); ksft-vm bisect: git bisect run of
that build and boot against GOOD's; ksft-vm ab: kernel A/B (ksft-vm-ab(1)).
See ksft-vm(1) and doc/vm.rst."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _positive_seconds(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text) from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError("%r: a positive, finite number of seconds" % text)
    return v


def _seed(text):
    if not text.isdigit() or int(text) > 2**31:
        raise argparse.ArgumentTypeError("%r: a seed is a whole number 0 .. 2^31" % text)
    return int(text)


def parser():
    ap = _Parser(prog=PROG, usage=USAGE, epilog=EPILOG,
                 formatter_class=argparse.RawDescriptionHelpFormatter,
                 description=DESCRIPTION)
    ap.add_argument("--kernel", metavar="IMAGE",
                    help="bzImage to boot (default: the newest /boot/vmlinuz-*)")
    ap.add_argument("--modules", metavar="DIR", help="its module tree (default: beside IMAGE "
                    "as an extracted package has it, else /lib/modules/RELEASE)")
    ap.add_argument("--tree", metavar="DIR",
                    help="a kernel tree (git): build it for the guest (cached by commit "
                    "and config; ksft-vm build) and boot what it built")
    ap.add_argument("--config", metavar="FRAGMENT", action="append", default=[],
                    help="with --tree: a Kconfig fragment over the guest's base (default: "
                    "the config file of COMMAND's selftest directory)")
    ap.add_argument("--jobs", metavar="N", type=int, help="with --tree: make -jN "
                    "(default: the CPUs)")
    ap.add_argument("--add", metavar="PATH", action="append", default=[],
                    help="a file or directory to copy in at the same path (with its "
                    "libraries); a bare name not in the current directory is looked up in PATH")
    ap.add_argument("--smp", metavar="N", type=int, default=1, help="vCPUs, 1 or 2 (default 1)")
    ap.add_argument("--memory", metavar="MB", type=int, default=1024,
                    help="guest RAM (default 1024)")
    ap.add_argument("--timeout", metavar="S", type=_positive_seconds, default=900.0,
                    help="wall-clock limit of the whole run, packing included (default 900)")
    ap.add_argument("--cpu", metavar="MODEL", default=DEFAULT_CPU,
                    help="QEMU CPU model (default %s)" % DEFAULT_CPU)
    ap.add_argument("--kvm", action="store_true",
                    help="KVM instead of icount: fast, functional, NOT deterministic")
    ap.add_argument("--console", metavar="FILE", help="keep the guest's console log in FILE")
    ap.add_argument("--profile", metavar="FILE",
                    help="write an exact instruction profile (cachegrind format) to FILE, "
                    "FILE.whole and FILE.caseN (doc/vm.rst)")
    ap.add_argument("--profile-mode", choices=("block", "insn"), default="block",
                    help=argparse.SUPPRESS)
    ap.add_argument("--seed", metavar="S", type=_seed, default=0,
                    help="boot under seeded starting state S (a busy loop before COMMAND "
                    "moves the timer's phase; reproducible for each S); 0: none (default)")
    return ap


def parse(argv):
    """The options before "--" and COMMAND after it; UsageError for a
    word before "--" that is no option (COMMAND goes after "--")."""
    ap = parser()
    if "--" in argv:
        i = argv.index("--")
        opts, command = argv[:i], argv[i + 1:]
    else:
        opts, command = argv, []
    args, extra = ap.parse_known_args(opts)     # -h/--help prints and exits 0 here
    for w in extra:
        if w.startswith("-"):
            raise UsageError("%s: no such option" % w)
        raise UsageError("%s: a word before -- (COMMAND and its arguments go after --)" % w)
    if not command:
        raise UsageError("no COMMAND (%s [OPTION]... -- COMMAND [ARG]...)" % PROG)
    args.command = command
    if args.smp not in (1, 2):
        raise UsageError("--smp must be 1 or 2 (2 runs round-robin on one host thread)")
    if args.memory < 128:
        raise UsageError("--memory must be at least 128 (MB)")
    if args.profile and args.kvm:
        raise UsageError("--profile needs TCG (QEMU's plugins do not see KVM's instructions)")
    if args.tree and (args.kernel or args.modules):
        raise UsageError("--tree builds the kernel: no --kernel or --modules with it")
    if (args.config or args.jobs is not None) and not args.tree:
        raise UsageError("--config and --jobs go with --tree")
    if args.jobs is not None and not 1 <= args.jobs <= 1024:
        raise UsageError("--jobs must be 1 to 1024")
    if not all(c.isalnum() or c in "._-" for c in args.cpu) or not args.cpu:
        raise UsageError("--cpu %s: not a CPU model name" % args.cpu)
    return args


def _say(text):
    sys.stderr.write("%s: %s\n" % (PROG, text))
    sys.stderr.flush()


def _console_lines(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []


def tail(path, n=CONSOLE_TAIL):
    """The last @n lines of the console file @path."""
    lines = _console_lines(path)
    return "\n".join(lines[-n:]) if lines else "(no console output)"


def panic_line(path):
    """The kernel's "Kernel panic - not syncing: ..." line in the console
    file @path, without its timestamp, or None: named on its own, since an
    oops' stack trace can push it out of the last lines."""
    for line in _console_lines(path):
        i = line.find("Kernel panic - not syncing")
        if i >= 0:
            return line[i:].strip()
    return None


class Run:
    """One run's state, for main() and its cleanup."""

    def __init__(self, args):
        self.args = args
        self.tmp = None
        self.proc = None
        self.console = None
        self.environ = None         # the guest's environment source (None: ours)

    def build_tree(self):
        """--tree: build (or find in the cache) and boot what it built,
        the commit in the guest's environment (tree_build.COMMIT_VAR)."""
        from . import tree_build
        a = self.args
        built, state = tree_build.build(a.tree, a.config, a.command, a.jobs, _say)
        a.kernel, a.modules = built.image, built.moddir
        self.environ = dict(os.environ, **{tree_build.COMMIT_VAR: state.context_value()})

    def pack(self):
        """Find the kernel and pack the root into the temp dir."""
        a = self.args
        self.kernel = find_kernel(a.kernel, a.modules)
        self.tmp = process.make_temp_dir()
        packed = build_root(a.command, a.add, self.kernel, os.path.join(self.tmp, "stage"),
                            environ=self.environ, warn=lambda t: _say("warning: " + t),
                            seed_s=a.seed)
        if packed.modules == 0:
            _say("warning: no kernel modules packed (%s): a test that needs veth, nft, "
                 "tc... fails in the guest; pass --modules DIR (a tree build: make "
                 "modules_install INSTALL_MOD_PATH=DIR)" % (
                     "no module tree for %s" % self.kernel.release if not self.kernel.moddir
                     else "none under %s" % self.kernel.moddir))
        self.initrd = os.path.join(self.tmp, "initrd")
        with open(self.initrd, "wb") as f:
            f.write(packed.data)
        self.packed = packed

    def config(self):
        a = self.args
        self.console = os.path.abspath(a.console) if a.console else os.path.join(self.tmp, "console")
        extra = []
        if not a.kvm:
            # The guest's profile flag is in every icount boot (profile.py).
            extra += profile.fw_cfg_args(bool(a.profile))
        if a.profile:
            try:
                plugin = profile.find_plugin()
                profile.check_plugin(QEMU, plugin)
            except profile.ProfileError as e:
                raise VmError("--profile: %s" % e) from None
            extra += profile.plugin_args(plugin, os.path.join(self.tmp, "profile.dump"),
                                         a.profile_mode)
        return VmConfig(image=self.kernel.image, initrd=self.initrd, console=self.console,
                        result=os.path.join(self.tmp, "result"), release=self.kernel.release,
                        config_hash=self.kernel.config_hash, qemu_version=qemu_version(),
                        memory=a.memory, smp=a.smp, cpu=a.cpu, kvm=a.kvm, extra_args=extra,
                        extra_context=seed_words(a.seed))

    def write_profile(self, cfg, out):
        """--profile's files from the plugin's dump and the symbols the
        guest sent behind its result."""
        try:
            with open(os.path.join(self.tmp, "profile.dump")) as f:
                dump = f.read()
            with open(cfg.result, "rb") as f:
                sent = f.read()
            profile.write_profiles(self.args.profile, dump, sent, " ".join(self.args.command),
                                   out=out, warn=lambda t: _say("warning: --profile: " + t))
        except (OSError, profile.ProfileError) as e:
            raise VmError("--profile: %s" % e) from None

    def boot(self, cfg):
        """Run QEMU for @cfg to its end; its exit status."""
        cmd = qemu_argv(cfg)
        if cfg.kvm:
            _say("--kvm: a functional run; its times are the host's, not deterministic")
        if os.environ.get("KSFT_VM_VERBOSE"):
            _say("%s (%d modules, %d KiB root)" % (" ".join(shlex.quote(c) for c in cmd),
                                                   self.packed.modules,
                                                   len(self.packed.data) // 1024))
        self.qemu_log = os.path.join(self.tmp, "qemu.log")
        with open(self.qemu_log, "wb") as log:
            try:
                self.proc = process.spawn(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                          stderr=subprocess.STDOUT)
            except OSError as e:
                raise VmError("%s: %s" % (cmd[0], e.strerror)) from None
        why = process.wait_guest(self.proc, self.console, KVM_SILENCE_S if cfg.kvm else None)
        if why == "silent":
            raise GuestError("--kvm: the guest printed nothing in %d s (a host whose KVM "
                             "guests print nothing, e.g. nested?); run without --kvm" %
                             KVM_SILENCE_S)
        return self.proc.returncode

    def read_result(self, cfg, qemu_status):
        try:
            with open(cfg.result, "rb") as f:
                data = f.read()
        except OSError:
            data = b""
        try:
            return decode(data)
        except GuestError as e:
            res = getattr(e, "result", None)
            if res is not None:
                _write(res)
            q = self.qemu_output()
            raise GuestError("%s (QEMU exit %d%s)" % (e, qemu_status, (": " + q) if q else ""))

    def qemu_output(self):
        try:
            with open(self.qemu_log, "rb") as f:
                return f.read().decode("utf-8", "replace").strip()
        except (OSError, AttributeError):
            return ""

    def cleanup(self):
        process.kill_group(self.proc)
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)


def _write(res):
    sys.stdout.buffer.write(res.out)
    sys.stdout.buffer.flush()
    sys.stderr.buffer.write(res.err)
    sys.stderr.buffer.flush()


def _fail(run, text):
    if run.proc:
        panic = panic_line(run.console)
        if panic:
            text += "; the guest's kernel panicked (%s)" % panic
        text += "; console's last lines:\n" + tail(run.console)
    _say(text)
    return EXIT_VM


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["ab"]:
        from . import ab
        return ab.main(argv[1:])
    if argv[:1] == ["build"]:
        from . import tree_build
        return tree_build.main(argv[1:])
    if argv[:1] == ["bisect"]:
        from . import bisect
        return bisect.main(argv[1:])
    try:
        args = parse(argv)
    except UsageError as e:
        sys.stderr.write(parser().format_usage())
        _say(str(e))
        return EXIT_VM
    run = Run(args)
    signum = None
    try:
        process.catch_stop_signals()
        if args.tree:
            run.build_tree()        # minutes: outside --timeout
        process.start_timer(args.timeout)
        process.remove_left_over()
        run.pack()
        cfg = run.config()
        status = run.boot(cfg)
        res = run.read_result(cfg, status)
        _write(res)
        stats = stats_line(res.stats, icount=not args.kvm)
        if stats:
            _say(stats)
        if args.profile:
            run.write_profile(cfg, res.out)
        if res.status == EXIT_VM:
            _say("COMMAND exited %d itself (the status of ksft-vm's own failures)" % EXIT_VM)
        return res.status
    except TimedOut:
        return _fail(run, "--timeout %g s passed (%s)" % (
            args.timeout, "guest still running" if run.proc else "while packing the root"))
    except Interrupted as e:
        signum = e.signum
        return EXIT_VM
    except VmError as e:
        return _fail(run, str(e))
    finally:
        process.quiet()
        run.cleanup()
        if signum is not None:
            process.die_of(signum)
