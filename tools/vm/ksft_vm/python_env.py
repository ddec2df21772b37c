# SPDX-License-Identifier: GPL-2.0
"""A Python COMMAND's world in the guest: the interpreter the shebang or
COMMAND names, resolved as the host resolves it (a pyenv shim is asked for
its real interpreter), its standard library (all of it but tests, IDLE,
Tk; doc/decisions.rst says why not the modules found by import), the
site packages the test's files import (an import scan, transitively),
PYTHONPATH, ksftmetric with its library, and, for a test in a kernel
tree or a kselftest install, the selftest directories and what the
kernel's lib/py reaches (tools/net/ynl, Documentation/netlink/specs).
It also names the programs the test calls that the host lacks."""
import ast
import json
import os
import re
import subprocess

from .errors import VmError
from .root import find_program

PYTHON_NAME = re.compile(r"^python(\d+(\.\d+)?)?$")
# Left out of the standard library: tests, IDLE, Tk and its demos, pip's
# bootstrap wheels, 2to3, the static library and Makefile of config-*.
STDLIB_SKIP = {"test", "tests", "idle_test", "idlelib", "tkinter", "turtledemo",
               "ensurepip", "lib2to3", "site-packages", "dist-packages"}
SELFTESTS = "/tools/testing/selftests/"
# What a kernel tree's lib/py reaches besides the selftests (net/lib/py/ynl.py).
KERNEL_EXTRA = ("tools/net/ynl", "Documentation/netlink/specs")
# Selftest directories a Python test's lib/py imports from (both layouts).
SELFTEST_LIBS = ("net/lib", "drivers/net/lib", "kselftest")
# The kernel's lib/py wrappers that run a program of the same name.
CALL_WRAPPERS = ("ip", "ethtool", "bpftool", "tc", "nft")
# cmd("prog ...")/bkg(...), tool("prog", ...), cfg.require_cmd("prog") (a
# missing one is a SKIP there: named before the boot), ip("...")...
CALL = re.compile(r"""\b(?:cmd|bkg|tool|require_cmd)\(\s*f?["']([A-Za-z0-9_.+-]+)|"""
                  r"""\b(%s)\(\s*f?["']""" % "|".join(CALL_WRAPPERS))
# Words cmd()'s shell runs itself (`command -v -- prog`), and the module
# tools: the guest's are busybox's, which read the tree busybox's depmod
# indexed (modules.py); the host's kmod would not.
NOT_PACKED = {"command", "cd", "exec", "export", "set", "test", "[", "true", "false",
              "modprobe", "insmod", "rmmod", "lsmod", "depmod", "modinfo"}

# Run by the host's interpreter, with the host's environment and COMMAND's
# working directory: where it really is and where it looks.
PROBE = r"""
import json, os, sys, sysconfig
out = {"executable": sys.executable, "stdlib": sysconfig.get_paths()["stdlib"],
       "platstdlib": sysconfig.get_paths()["platstdlib"],
       "path": [os.path.abspath(p) for p in sys.path[1:] if p],
       "dynload": "", "ksftmetric_lib": ""}
try:
    import _socket
    out["dynload"] = os.path.dirname(_socket.__file__)
except (ImportError, AttributeError):
    pass
try:
    import ksftmetric
    out["ksftmetric_lib"] = ksftmetric.LIBRARY_PATH
except Exception:
    pass
print(json.dumps(out))
"""


def _shebang(path):
    """The shebang's words of the file @path ([] for none)."""
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return []
    if head[:2] != b"#!":
        return []
    return [os.fsdecode(w) for w in head[2:].split(b"\n", 1)[0].split()]


def interpreter_of(command, env_path):
    """(interpreter as the host finds it, script, by shebang, -m modules)
    when @command runs Python: a script whose shebang names python
    (directly or through env), or a python* program with its script
    argument (None for -c). None when COMMAND is no Python."""
    prog = find_program(command[0], env_path)
    if prog is None:
        return None
    if not PYTHON_NAME.match(os.path.basename(command[0])):
        words = _shebang(prog)
        if not words:
            return None
        name = words[1] if os.path.basename(words[0]) == "env" and len(words) > 1 else words[0]
        if not PYTHON_NAME.match(os.path.basename(name)):
            return None
        return find_program(name, env_path), prog, True, []
    # python3 ARG...: a pyenv shim is a shell script, asked in probe()
    script, modules = None, []
    args = command[1:]
    while args:
        a = args.pop(0)
        if a == "-m" and args:
            # python3 -m ksftmetric.ksft_wiring ./test.py: the module, and
            # the script it runs when its next word is a file
            modules.append(args[0].split(".")[0])
            if len(args) > 1 and os.path.isfile(args[1]):
                script = os.path.abspath(args[1])
            break
        if a in ("-c", "-m", "-"):
            break
        if a in ("-X", "-W"):
            args = args[1:]
            continue
        if not a.startswith("-"):
            script = os.path.abspath(a)
            break
    return prog, script, False, modules


def probe(interp, environ, cwd):
    """What @interp says about itself (PROBE) on the host."""
    try:
        res = subprocess.run([interp, "-c", PROBE], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=dict(environ), cwd=cwd, check=False)
    except OSError as e:
        raise VmError("COMMAND's interpreter %s: %s" % (interp, e.strerror)) from None
    try:
        return json.loads(res.stdout.decode("utf-8", "surrogateescape").strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise VmError("COMMAND's interpreter %s does not run on the host (exit %d): %s" % (
            interp, res.returncode, res.stderr.decode("utf-8", "replace").strip()[-300:])) from None


def selftest_root(script):
    """(selftests directory, kernel tree or None) holding @script: a
    kernel tree's tools/testing/selftests, or a kselftest install (the
    directory with kselftest-list.txt or run_kselftest.sh). None outside."""
    if script is None:
        return None
    real = os.path.realpath(script)
    i = real.find(SELFTESTS)
    if i >= 0:
        return real[:i + len(SELFTESTS) - 1], real[:i]
    d = os.path.dirname(real)
    while d != "/":
        if any(os.path.isfile(os.path.join(d, n)) for n in ("kselftest-list.txt", "run_kselftest.sh")):
            return d, None
        d = os.path.dirname(d)
    return None


def imported_names(path):
    """The top-level module names the Python file @path imports (absolute
    imports only; a file that does not parse names none)."""
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return set()
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


def module_paths(name, dirs):
    """Where top-level module @name lives in the first of @dirs that has
    it: its package directory, or its .py / extension files."""
    for d in dirs:
        pkg = os.path.join(d, name)
        if os.path.isfile(os.path.join(pkg, "__init__.py")):
            return [pkg]
        try:
            files = [os.path.join(d, f) for f in sorted(os.listdir(d))
                     if f == name + ".py" or (f.startswith(name + ".") and f.endswith(".so"))]
        except OSError:
            continue
        if files:
            return files
        if os.path.isdir(pkg) and name.isidentifier():
            return [pkg]            # a namespace package
    return []


def python_files(paths):
    """The .py files at or under @paths."""
    for p in paths:
        if os.path.isfile(p):
            if p.endswith(".py"):
                yield p
            continue
        for d, subdirs, files in os.walk(p):
            subdirs[:] = sorted(s for s in subdirs if s != "__pycache__")
            for f in sorted(files):
                if f.endswith(".py"):
                    yield os.path.join(d, f)


def called_programs(script):
    """(program, line number) the test @script runs through the kernel's
    cmd()/bkg() or its ip()/ethtool()... wrappers, in order."""
    out = []
    try:
        with open(script, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for n, line in enumerate(lines, 1):
        for m in CALL.finditer(line):
            out.append((m.group(1) or m.group(2), n))
    return out


class PythonCommand:
    """A Python COMMAND's packing plan (see the module's doc)."""

    def __init__(self, interp, script, shebang, info, environ, modules=()):
        self.interp = interp
        self.script = script
        self.shebang = shebang      # COMMAND is the script (else the interpreter)
        self.modules = list(modules)    # top-level names of -m modules
        self.info = info
        self.environ = environ

    def _stdlib_skip(self, path):
        name = os.path.basename(path)
        if name in STDLIB_SKIP or name.startswith("config-") or name.startswith("_tkinter"):
            return True
        # one compiled level is enough (the plain one: no -O in the guest)
        return name.endswith(".pyc") and ".opt-" in name

    def pack(self, root, warn, applets=frozenset()):
        """Pack it all into @root (@applets: the names busybox provides in
        the guest); the guest's extra environment (dict)."""
        info = self.info
        exe = info["executable"]
        root.add(exe)
        root.bin_dirs.insert(0, os.path.dirname(exe))
        stdlib = [info["stdlib"]] + [d for d in (info["platstdlib"], info["dynload"])
                                     if d and not d.startswith(info["stdlib"] + "/")
                                     and d != info["stdlib"]]
        for d in stdlib:
            if os.path.isdir(d):
                root.add(d, skip=self._stdlib_skip)
        env = {}
        local = [self.script] if self.script else []
        sel = selftest_root(self.script)
        if sel:
            # a selftest's directory is its data (helpers, configs): all of it
            local.append(os.path.dirname(os.path.realpath(self.script)))
            ksft, ksrc = sel
            local += [os.path.join(ksft, d) for d in SELFTEST_LIBS]
            if ksrc:
                local += [os.path.join(ksrc, d) for d in KERNEL_EXTRA]
            for name in ("kselftest-list.txt", "kselftest.h"):
                local.append(os.path.join(ksft, name))
        local = [p for p in local if os.path.exists(p)]
        for p in local:
            root.add(p, skip=lambda q: os.path.basename(q) == "__pycache__")
        pypath = self.environ.get("PYTHONPATH")
        if pypath:
            env["PYTHONPATH"] = pypath
        if "ksftmetric" in self._site_packages(root, local) and info["ksftmetric_lib"]:
            # found there as on the host, not by a build tree's layout
            root.add(info["ksftmetric_lib"])
            env["KSFTMETRIC_LIBRARY"] = self.environ.get("KSFTMETRIC_LIBRARY",
                                                         info["ksftmetric_lib"])
        if self.script:
            libs = [p for p in local if os.path.isdir(p) and
                    os.path.relpath(p, sel[0]) in SELFTEST_LIBS] if sel else []
            self._programs(root, warn, libs, applets)
        return env

    def _site_packages(self, root, local):
        """The modules outside the standard library that the files of
        @local import, and what those import, transitively."""
        info = self.info
        std = (info["stdlib"], info["platstdlib"], info["dynload"])
        # the script's directory first, as python3 SCRIPT searches it (its
        # modules, not all of it: a script may sit in /usr/bin or $HOME)
        dirs = ([os.path.dirname(os.path.realpath(self.script))] if self.script else []) + \
            info["path"]
        seen, todo, packed = set(), list(python_files(local)), []
        names = set(self.modules)
        while todo or names:
            for f in todo:
                names |= imported_names(f)
            todo = []
            for name in sorted(names - seen):
                seen.add(name)
                paths = module_paths(name, dirs)
                for p in paths:
                    if os.path.dirname(p) not in std:     # packed whole already
                        root.add(p, skip=lambda q: os.path.basename(q) == "__pycache__")
                        packed.append(name)
                        todo += list(python_files([p]))
            names = set()
        return packed

    def _programs(self, root, warn, libs, applets):
        """Pack what the test runs, itself or through the selftest
        libraries @libs it imports (lib/py's NetdevSimDev runs udevadm);
        name what the host lacks before the boot: a missing program is a
        failure or a SKIP in the guest, and a busybox applet (@applets)
        standing in may refuse the options (busybox ping: -W0.5)."""
        missing = {}
        for f in [self.script] + sorted(python_files(libs)):
            for prog, line in called_programs(f):
                if prog in NOT_PACKED or prog in missing:
                    continue
                if not root.program(prog):
                    missing[prog] = (f, line)
        for prog, (f, line) in missing.items():
            if prog in applets:
                warn("%s:%d runs %s, which is not on the host: busybox's %s stands in, "
                     "whose options may differ" % (f, line, prog, prog))
            else:
                warn("%s:%d runs %s, which is neither on the host nor in busybox: the test "
                     "will fail or skip in the guest" % (f, line, prog))


def find(command, environ, cwd):
    """A PythonCommand for @command, None when it does not run Python."""
    got = interpreter_of(command, environ.get("PATH", ""))
    if got is None:
        return None
    interp, script, shebang, modules = got
    if interp is None:
        return None
    return PythonCommand(interp, script, shebang, probe(interp, environ, cwd), environ, modules)
