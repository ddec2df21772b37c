# SPDX-License-Identifier: GPL-2.0
"""run_kselftest.sh of a kselftest install as COMMAND (`make -C
tools/testing/selftests install` writes it; NIPA and CI run tests through
it): what it reads besides itself. It cds to its own directory, reads
kselftest-list.txt, sources kselftest/runner.sh and runs each selected
test from its collection's directory under /usr/bin/timeout --foreground.
So the root gets the list, kselftest/, the whole directory of every
collection it will run (a test's helpers, settings and data sit there),
each selected Python test's world (python_env) and the host's timeout:
busybox's refuses --foreground, which turned every test into `not ok
... # exit=1`; not perl for kselftest/prefix.pl (see pack()). A test the
options name that the list lacks, or the list names but the install
lacks, is said before the boot."""
import os

from . import python_env
from .errors import VmError
from .root import find_program

RUNNER = "run_kselftest.sh"
LISTING = "kselftest-list.txt"
# runner.sh runs every test under this very path when it is executable.
TIMEOUT = "/usr/bin/timeout"
PREFIX = "prefix.pl"
# run_kselftest.sh's options that take a value, and those that run nothing.
WITH_VALUE = ("-t", "--test", "-c", "--collection", "-o", "--override-timeout")
RUNS_NOTHING = ("-l", "--list", "-h", "--help", "-d", "--dry-run")


def install_of(command, env_path=None):
    """The kselftest install whose run_kselftest.sh COMMAND runs (its
    directory: kselftest/runner.sh beside it), else None."""
    prog = find_program(command[0], env_path)
    if not prog or os.path.basename(prog) != RUNNER:
        return None
    d = os.path.dirname(os.path.realpath(prog))
    return d if os.path.isfile(os.path.join(d, "kselftest", "runner.sh")) else None


def listed(install):
    """The install's "collection:test" lines, in order."""
    try:
        with open(os.path.join(install, LISTING), encoding="utf-8") as f:
            return [w for w in f.read().split() if ":" in w]
    except OSError as e:
        raise VmError("%s: %s (%s reads it)" % (os.path.join(install, LISTING),
                                                 e.strerror, RUNNER)) from None


def selected(args, available):
    """The "collection:test" entries run_kselftest.sh @args would run, as
    it selects them (-t, -c, else all); [] when the options run nothing.
    VmError for a test or collection the list lacks (it would stop there)."""
    tests, collections, k = [], [], 0
    while k < len(args):
        a = args[k]
        if a in RUNS_NOTHING:
            return []
        if a in WITH_VALUE:
            if k + 1 >= len(args):
                raise VmError("%s %s: needs a value" % (RUNNER, a))
            if a in ("-t", "--test"):
                tests.append(args[k + 1])
            elif a in ("-c", "--collection"):
                collections.append(args[k + 1])
            k += 2
            continue
        k += 1
    out = []
    for c in collections:
        found = [t for t in available if t.split(":", 1)[0] == c]
        if not found:
            raise VmError("%s -c %s: no such collection in %s" % (RUNNER, c, LISTING))
        out += found
    for t in tests:
        if t not in available:
            raise VmError("%s -t %s: no such test in %s (%s -l lists them)" % (
                RUNNER, t, LISTING, RUNNER))
        out.append(t)
    return out if (tests or collections) else list(available)


def pack(root, install, command, environ, warn, applets):
    """Pack what run_kselftest.sh @command needs from @install into @root
    (@applets: busybox's names); the guest's extra environment (dict)."""
    env = {}
    if os.path.exists(os.path.join(install, LISTING)):
        root.add(os.path.join(install, LISTING))
    # kselftest/prefix.pl without its interpreter: runner.sh prefixes with
    # it when /usr/bin/perl is there, and a host perl packed alone has no
    # modules (`Can't locate strict.pm`): every test's output went into a
    # dead pipe (ping.py: `not ok ... # exit=120`). Without perl, sed.
    root.add(os.path.join(install, "kselftest"), skip=lambda q: os.path.basename(q) == PREFIX)
    prefix = os.path.join(install, "kselftest", PREFIX)
    if os.path.isfile(prefix):
        with open(prefix, "rb") as f:
            root.cpio.file(root.guest_real(prefix), f.read(), os.stat(prefix).st_mode & 0o7777)
    tests = selected(command[1:], listed(install))
    for coll in sorted({t.split(":", 1)[0] for t in tests}):
        d = os.path.join(install, coll)
        if os.path.isdir(d):
            root.add(d, skip=lambda q: os.path.basename(q) == "__pycache__")
    for t in tests:
        coll, name = t.split(":", 1)
        path = os.path.join(install, coll, name)
        if not os.path.isfile(path):
            warn("%s -t %s: listed in %s but not in the install (%s): run_kselftest.sh "
                 "will say `not ok ... # Warning: file %s is missing`" % (
                     RUNNER, t, LISTING, path, name))
            continue
        py = python_env.find([path], environ, os.path.dirname(path))
        if py:
            env.update(py.pack(root, warn, applets))
    if os.access(TIMEOUT, os.X_OK) and os.path.basename(os.path.realpath(TIMEOUT)) != "busybox":
        root.add(TIMEOUT)
    elif tests:
        warn("%s: the host has no %s (coreutils): busybox's stands in and refuses "
             "runner.sh's --foreground, so every test will end `not ok ... # exit=1`" % (
                 RUNNER, TIMEOUT))
    if "-n" in command[1:] or "--netns" in command[1:]:
        root.program("bash")        # runner.sh's in_netns runs bash
    return env
