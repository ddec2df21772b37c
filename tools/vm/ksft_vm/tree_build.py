# SPDX-License-Identifier: GPL-2.0
"""ksft-vm --tree DIR and ksft-vm build: a kernel tree configured (make
tinyconfig, the guest's fragment, the test's fragments, olddefconfig),
built out of tree (bzImage, modules) and kept in a cache keyed by the
tree's commit and the config's inputs, laid out as an unpacked Debian
package (boot/vmlinuz-RELEASE, boot/config-RELEASE, lib/modules/RELEASE)
so that --kernel finds its config and modules beside it.

The object directory is keyed by the tree's path and the config's inputs
alone, not the commit: the next commit (a bisect step, an edit) rebuilds
what changed. A build is taken under a lock of that directory."""
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

from . import guest_config, kconfig, process
from .errors import UsageError, VmError
from .log_tail import log_tail

PROG = "ksft-vm build"
CACHE_VAR = "KSFT_VM_CACHE"
# The commit goes into the guest's environment as the run context's
# kernel_commit (lib/metric/run_context.c: KSFTMETRIC_CONTEXT_<KEY>). Its
# value has the same length for every commit, clean or not (seed.py's
# rule: the environment's size moves a program's stack, and with it the
# counts), so it is the full hash and a fixed-length state word.
COMMIT_VAR = "KSFTMETRIC_CONTEXT_KERNEL_COMMIT"
LOG_TAIL = 30
SELFTESTS = os.path.join("tools", "testing", "selftests")


class BuildError(VmError):
    """make failed: its log's last lines in the message."""


class TreeState:
    """What of a tree a build depends on: HEAD, whether tracked files
    differ from it and the hash of that difference, git describe."""

    def __init__(self, path, commit, describe, diff_hash):
        self.path = path
        self.commit = commit
        self.describe = describe
        self.diff_hash = diff_hash          # None: clean

    @property
    def dirty(self):
        return self.diff_hash is not None

    def context_value(self):
        """The kernel_commit context value: 40 hex digits, then -clean or
        -dirty (the same length for every commit)."""
        return "%s-%s" % (self.commit, "dirty" if self.dirty else "clean")


def _git(tree, *args, binary=False):
    r = subprocess.run(["git", "-C", tree] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    if r.returncode:
        raise VmError("--tree %s: git %s: %s" % (tree, " ".join(args),
                                                 r.stderr.decode("utf-8", "replace").strip()))
    return r.stdout if binary else r.stdout.decode("utf-8", "replace").strip()


def tree_state(tree):
    """The TreeState of the git work tree @tree (VmError when it is none:
    a tree from a tarball needs `git init && git add -A && git commit`)."""
    if not os.path.isfile(os.path.join(tree, "Makefile")) or \
            not os.path.isdir(os.path.join(tree, "arch", "x86")):
        raise VmError("--tree %s: not a kernel tree (no Makefile and arch/x86)" % tree)
    try:
        commit = _git(tree, "rev-parse", "--verify", "HEAD^{commit}")
    except VmError as e:
        raise VmError("%s (a tree from a tarball: git init && git add -A && git commit)" % e) \
            from None
    diff = _git(tree, "diff", "HEAD", "--binary", binary=True)
    diff_hash = hashlib.sha256(diff).hexdigest() if diff else None
    describe = _git(tree, "describe", "--always", "--dirty", "--abbrev=12")
    return TreeState(os.path.abspath(tree), commit, describe, diff_hash)


def test_fragment(command, cwd=None):
    """The `config` fragment of a selftest COMMAND (argv) that lies in a
    kernel tree's or an install's tools/testing/selftests/X/: the file
    `config` in its directory or the nearest parent below selftests/;
    None for any other COMMAND."""
    if not command:
        return None
    path = os.path.abspath(os.path.join(cwd or os.getcwd(), command[0]))
    d = os.path.dirname(path)
    top = path.find(os.sep + SELFTESTS + os.sep)
    if top < 0:
        return None
    stop = path[:top + len(SELFTESTS) + 1]
    while d.startswith(stop + os.sep):
        c = os.path.join(d, "config")
        if os.path.isfile(c):
            return c
        d = os.path.dirname(d)
    return None


def read_fragments(paths):
    """[(path, text)] of the fragment files @paths, each checked."""
    out = []
    for p in paths:
        try:
            with open(p, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
        except OSError as e:
            raise UsageError("--config %s: %s" % (p, e.strerror)) from None
        kconfig.parse(text, p)
        out.append((p, text))
    return out


def config_inputs(fragments, toolchain):
    """What a config is made of, as one text: the guest's fragment, each
    test fragment's text (not its path) in order, the compiler."""
    parts = ["ksft-vm-config-1", toolchain, guest_config.FRAGMENT]
    parts += [text for _, text in fragments]
    return "\0".join(parts)


def config_key(fragments, toolchain):
    return hashlib.sha256(config_inputs(fragments, toolchain).encode(
        "utf-8", "surrogateescape")).hexdigest()[:16]


def build_key(state, cfg_key):
    """A finished build's name: the commit's first 12 digits, the hash of
    the uncommitted difference when there is one, the config key."""
    dirty = "-d" + state.diff_hash[:12] if state.dirty else ""
    return "%s%s-%s" % (state.commit[:12], dirty, cfg_key)


def obj_key(tree_path, cfg_key):
    """The object directory's name: the tree's real path and the config
    key (two trees never share one: make would trust the other's files)."""
    h = hashlib.sha256(("%s\0%s" % (os.path.realpath(tree_path), cfg_key)).encode())
    return "obj-" + h.hexdigest()[:16]


def cache_dir(environ=None):
    """$KSFT_VM_CACHE, else $XDG_CACHE_HOME/ksft-vm, else ~/.cache/ksft-vm."""
    environ = os.environ if environ is None else environ
    if environ.get(CACHE_VAR):
        return os.path.abspath(environ[CACHE_VAR])
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ksft-vm")


def toolchain(environ=None):
    """The compiler's first --version line ($CC, else gcc): part of the key."""
    cc = (environ or os.environ).get("CC") or "gcc"
    try:
        out = subprocess.run([cc, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=False).stdout
    except OSError:
        raise VmError("%s not found: a kernel build needs a C compiler" % cc) from None
    return out.decode("utf-8", "replace").split("\n")[0].strip()


class Built:
    """A finished build in the cache."""

    def __init__(self, entry, record):
        self.entry = entry
        self.record = record
        self.release = record["release"]
        self.image = os.path.join(entry, "boot", "vmlinuz-" + self.release)
        mod = os.path.join(entry, "lib", "modules", self.release)
        self.moddir = mod if os.path.isdir(os.path.join(mod, "kernel")) else None


def _read_entry(entry):
    try:
        with open(os.path.join(entry, "build.json")) as f:
            return Built(entry, json.load(f))
    except (OSError, ValueError, KeyError):
        return None


class Builder:
    """One build of @tree with @fragments ([(path, text)]), make -j@jobs,
    progress to @say; run() returns a Built."""

    def __init__(self, tree, fragments, jobs=None, say=None, environ=None):
        self.tree = os.path.abspath(tree)
        self.fragments = fragments
        self.jobs = jobs or os.cpu_count() or 1
        self.say = say or (lambda t: None)
        self.environ = os.environ if environ is None else environ
        self.log = None

    def make(self, *targets, **kw):
        argv = ["make", "-C", self.tree, "O=" + self.obj, "ARCH=x86_64"] + list(targets)
        with open(self.log, "ab") as log:
            log.write(("\n$ %s\n" % " ".join(argv)).encode())
            log.flush()
            # make and its compilers in a group of their own that ends with
            # ksft-vm (a signal, --timeout's exit, a kill): no orphaned build
            p = process.spawn(argv, stdin=subprocess.DEVNULL, stdout=log,
                              stderr=subprocess.STDOUT, env=dict(self.environ, **kw.pop("env", {})))
            try:
                status = p.wait()
            finally:
                if p.returncode is None:
                    process.kill_group(p)
        if status:
            raise BuildError("make %s failed (exit %d) in %s; %s's last lines:\n%s" % (
                " ".join(targets), status, self.tree, self.log,
                log_tail(self.log, LOG_TAIL, "(no log)")))

    def configure(self):
        """obj/.config: tinyconfig, the guest's fragment, the test's, then
        olddefconfig; a requested value it dropped is said."""
        base_file = os.path.join(self.obj, ".ksft-vm-base.config")
        self.make("tinyconfig", env={"KCONFIG_CONFIG": base_file})
        with open(base_file) as f:
            base = f.read()
        frags = [(guest_config.SOURCE, guest_config.FRAGMENT)] + self.fragments
        cfg = os.path.join(self.obj, ".config")
        merged = kconfig.merge(base, frags)
        old = None
        if os.path.isfile(cfg + ".ksft-vm-merged"):
            with open(cfg + ".ksft-vm-merged") as f:
                old = f.read()
        if old != merged or not os.path.isfile(cfg):
            with open(cfg, "w") as f:
                f.write(merged)
            with open(cfg + ".ksft-vm-merged", "w") as f:
                f.write(merged)
        self.make("olddefconfig")
        with open(cfg) as f:
            final = f.read()
        for s, have in kconfig.dropped(kconfig.requested(frags), final):
            self.say("warning: %s: %s asked, the tree's Kconfig made it %s" % (
                s.where, s.line(), "not set" if have == "n" else have))
        return final

    def run(self):
        state = tree_state(self.tree)
        cfg_key = config_key(self.fragments, toolchain(self.environ))
        cache = cache_dir(self.environ)
        entry = os.path.join(cache, "builds", build_key(state, cfg_key))
        built = _read_entry(entry)
        if built:
            self.say("%s: cached (%s)" % (state.describe, entry))
            return built
        self.obj = os.path.join(cache, obj_key(self.tree, cfg_key))
        os.makedirs(self.obj, exist_ok=True)
        self.log = os.path.join(self.obj, "build.log")
        with open(os.path.join(self.obj, ".ksft-vm.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            built = _read_entry(entry)      # another run built it meanwhile
            if built:
                return built
            if _git(self.tree, "rev-parse", "HEAD") != state.commit:
                raise VmError("--tree %s: HEAD moved while waiting for the build lock" % self.tree)
            t0 = time.monotonic()
            self.say("building %s in %s (make -j%d; log %s)" % (
                state.describe, self.obj, self.jobs, self.log))
            final = self.configure()
            modules = kconfig.values(final).get("CONFIG_MODULES") == "y"
            self.make("-j%d" % self.jobs, "bzImage", *(["modules"] if modules else []))
            with open(os.path.join(self.obj, "include", "config", "kernel.release")) as f:
                release = f.read().strip()
            stage = entry + ".tmp-%d" % os.getpid()
            shutil.rmtree(stage, ignore_errors=True)
            os.makedirs(os.path.join(stage, "boot"))
            shutil.copyfile(os.path.join(self.obj, "arch", "x86", "boot", "bzImage"),
                            os.path.join(stage, "boot", "vmlinuz-" + release))
            with open(os.path.join(stage, "boot", "config-" + release), "w") as f:
                f.write(final)
            if modules:
                # Stripped: the root carries them, and the guest needs no symbols of theirs.
                self.make("INSTALL_MOD_PATH=" + stage, "INSTALL_MOD_STRIP=1", "DEPMOD=true",
                          "modules_install")
            record = {"release": release, "commit": state.commit, "describe": state.describe,
                      "diff_sha256": state.diff_hash, "tree": self.tree,
                      "fragments": [p for p, _ in self.fragments], "config_key": cfg_key,
                      "build_seconds": round(time.monotonic() - t0, 1), "jobs": self.jobs}
            with open(os.path.join(stage, "build.json"), "w") as f:
                json.dump(record, f, indent=1, sort_keys=True)
                f.write("\n")
            shutil.rmtree(entry, ignore_errors=True)
            os.rename(stage, entry)
            self.say("built %s in %.0f s: %s" % (release, record["build_seconds"], entry))
            return Built(entry, record)


def build(tree, config_paths, command=None, jobs=None, say=None, environ=None):
    """Build @tree with the fragments @config_paths (none: COMMAND's own
    selftest fragment, test_fragment()); (Built, TreeState)."""
    paths = list(config_paths)
    if not paths:
        own = test_fragment(command)
        if own:
            paths = [own]
            (say or (lambda t: None))("the test's fragment: %s" % own)
    b = Builder(tree, read_fragments(paths), jobs, say, environ)
    built = b.run()
    return built, tree_state(tree)


USAGE = "%s --tree DIR [--config FRAGMENT]... [--jobs N]" % PROG
HELP = USAGE + """

Configure the kernel tree DIR (a git work tree) for ksft-vm's guest:
make tinyconfig, the options the guest needs (built in), each FRAGMENT in
order (a later setting wins), make olddefconfig; a requested value Kconfig
dropped is named on stderr. Build bzImage and modules out of tree, install
the modules stripped, and keep the result in the cache keyed by the
commit (and the uncommitted difference) and the config's inputs; a second
run of the same commit and config builds nothing. Prints the image's path
(boot/vmlinuz-RELEASE; its config and modules are beside it, as
ksft-vm --kernel and ksft-vm ab find them).

  --tree DIR         the kernel tree
  --config FRAGMENT  a Kconfig fragment (e.g. tools/testing/selftests/net/config)
  --jobs N           make -jN (default: the CPUs)

environment: KSFT_VM_CACHE the cache (default $XDG_CACHE_HOME/ksft-vm or
~/.cache/ksft-vm); CC the compiler (part of the key). ksft-vm(1), doc/vm.rst."""


def parse(argv):
    """{tree, configs, jobs} of `ksft-vm build`'s @argv; UsageError."""
    a = {"tree": None, "configs": [], "jobs": None}
    k = 0
    while k < len(argv):
        w = argv[k]
        if w not in ("--tree", "--config", "--jobs"):
            raise UsageError("%s: no such option (%s)" % (w, USAGE))
        if k + 1 >= len(argv):
            raise UsageError("%s needs a value" % w)
        v = argv[k + 1]
        if w == "--tree":
            a["tree"] = v
        elif w == "--config":
            a["configs"].append(v)
        else:
            a["jobs"] = jobs_value(v)
        k += 2
    if not a["tree"]:
        raise UsageError("--tree DIR is needed (%s)" % USAGE)
    return a


def jobs_value(text):
    if not text.isdigit() or not 1 <= int(text) <= 1024:
        raise UsageError("--jobs %s: a number of jobs, 1 to 1024" % text)
    return int(text)


def _say(text):
    sys.stderr.write("%s: %s\n" % (PROG, text))
    sys.stderr.flush()


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(HELP)
        return 0
    try:
        with process.stoppable():
            a = parse(argv)
            built, _ = build(a["tree"], a["configs"], jobs=a["jobs"], say=_say)
    except VmError as e:
        _say(str(e))
        return 255
    print(built.image)
    return 0
