#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-vm --tree, ksft-vm build and ksft-vm bisect without a kernel
build (issue 44): Kconfig fragments merged and checked, the cache's keys,
the selftest's own fragment found, a bisect step's exit status; then a
build of a real git tree by a stand-in make (the cache hit, the next
commit, an uncommitted change, a dropped option named, a failed build
skipped by a bisect step).

usage: test_ksft_vm_tree.py [unittest options]
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "vm"))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

from ksft_vm import bisect, cli, guest_config, kconfig, tree_build  # noqa: E402
from ksft_vm.errors import UsageError  # noqa: E402
from standin_util import env as standin_env  # noqa: E402

VM = FIXTURE = METRIC = None

BASE = textwrap.dedent("""\
    #
    # Automatically generated file; DO NOT EDIT.
    #
    CONFIG_CC_VERSION_TEXT="gcc (Debian 12.2.0-14) 12.2.0"
    # CONFIG_NET is not set
    CONFIG_SLUB_TINY=y
    CONFIG_HZ=100
    """)


class TestKconfig(unittest.TestCase):
    def test_parse_names_file_and_line(self):
        with self.assertRaises(kconfig.ConfigError) as c:
            kconfig.parse("# a comment\nCONFIG_A=y\n\nCONFIG_B y\n", "net/config")
        self.assertIn("net/config:4:", str(c.exception))
        self.assertIn("CONFIG_B y", str(c.exception))
        with self.assertRaises(kconfig.ConfigError) as c:
            kconfig.parse("CONFIG_A=\n", "f")
        self.assertIn("f:1: CONFIG_A=: no value", str(c.exception))
        s = kconfig.parse("CONFIG_A=m\n# CONFIG_B is not set\nCONFIG_S=\"x y\"\n", "f")
        self.assertEqual([(x.name, x.value, x.where) for x in s],
                         [("CONFIG_A", "m", "f:1"), ("CONFIG_B", "n", "f:2"),
                          ("CONFIG_S", '"x y"', "f:3")])

    def test_merge_in_place_then_appended_later_wins(self):
        frags = [("guest", "CONFIG_NET=y\n# CONFIG_SLUB_TINY is not set\nCONFIG_VETH=m\n"),
                 ("net/config", "CONFIG_VETH=y\nCONFIG_HZ=250\n")]
        out = kconfig.merge(BASE, frags)
        self.assertEqual(out, BASE.replace("# CONFIG_NET is not set", "CONFIG_NET=y")
                         .replace("CONFIG_SLUB_TINY=y", "# CONFIG_SLUB_TINY is not set")
                         .replace("CONFIG_HZ=100", "CONFIG_HZ=250") + "CONFIG_VETH=y\n")
        self.assertEqual(kconfig.merge(BASE, frags), out)      # the same twice
        self.assertEqual(kconfig.requested(frags)["CONFIG_VETH"].where, "net/config:1")

    def test_dropped(self):
        want = kconfig.requested([("f", "CONFIG_A=m\nCONFIG_B=y\n# CONFIG_C is not set\n"
                                        "CONFIG_D=y\nCONFIG_E=m\n")])
        final = "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_E=m\n"
        got = [(s.name, s.where, have) for s, have in kconfig.dropped(want, final)]
        # m met by y, n by absence; B and D dropped, named with their line
        self.assertEqual(got, [("CONFIG_B", "f:2", "n"), ("CONFIG_D", "f:4", "n")])

    def test_guest_fragment_parses(self):
        want = kconfig.requested([(guest_config.SOURCE, guest_config.FRAGMENT)])
        for name in ("CONFIG_64BIT", "CONFIG_SERIAL_8250_CONSOLE", "CONFIG_BLK_DEV_INITRD",
                     "CONFIG_NET", "CONFIG_INET", "CONFIG_MODULES", "CONFIG_LOCALVERSION_AUTO"):
            self.assertEqual(want[name].value, "y", name)
        self.assertEqual(want["CONFIG_SLUB_TINY"].value, "n")
        self.assertEqual(want["CONFIG_BASE_SMALL"].value, "n")


class State:
    def __init__(self, commit, diff=None):
        self.commit, self.diff_hash = commit, diff
        self.dirty = diff is not None


class TestKeys(unittest.TestCase):
    FR = [("net/config", "CONFIG_VETH=m\n")]

    def test_config_key(self):
        k = tree_build.config_key(self.FR, "gcc 12.2.0")
        self.assertEqual(k, tree_build.config_key(self.FR, "gcc 12.2.0"))
        self.assertEqual(len(k), 16)
        # the text counts, not the path; the compiler counts
        self.assertEqual(k, tree_build.config_key([("elsewhere", "CONFIG_VETH=m\n")], "gcc 12.2.0"))
        self.assertNotEqual(k, tree_build.config_key([("net/config", "CONFIG_VETH=y\n")],
                                                     "gcc 12.2.0"))
        self.assertNotEqual(k, tree_build.config_key(self.FR, "gcc 13.1.0"))
        self.assertNotEqual(k, tree_build.config_key([], "gcc 12.2.0"))
        self.assertNotEqual(k, tree_build.config_key(self.FR + self.FR, "gcc 12.2.0"))

    def test_build_and_obj_keys(self):
        a = "a" * 40
        self.assertEqual(tree_build.build_key(State(a), "k" * 16), "a" * 12 + "-" + "k" * 16)
        self.assertEqual(tree_build.build_key(State(a, "d" * 64), "k" * 16),
                         "a" * 12 + "-d" + "d" * 12 + "-" + "k" * 16)
        o = tree_build.obj_key("/src/linux", "k" * 16)
        self.assertEqual(o, tree_build.obj_key("/src/linux", "k" * 16))
        self.assertNotEqual(o, tree_build.obj_key("/src/linux2", "k" * 16))
        self.assertNotEqual(o, tree_build.obj_key("/src/linux", "j" * 16))

    def test_context_value_has_one_length(self):
        s = tree_build.TreeState("/t", "f" * 40, "x", None)
        d = tree_build.TreeState("/t", "f" * 40, "x-dirty", "0" * 64)
        self.assertEqual(s.context_value(), "f" * 40 + "-clean")
        self.assertEqual(len(s.context_value()), len(d.context_value()))

    def test_cache_dir(self):
        self.assertEqual(tree_build.cache_dir({"KSFT_VM_CACHE": "/c"}), "/c")
        self.assertEqual(tree_build.cache_dir({"XDG_CACHE_HOME": "/x"}), "/x/ksft-vm")


class TestTestFragment(unittest.TestCase):
    def test_nearest_config_below_selftests(self):
        with tempfile.TemporaryDirectory() as d:
            st = os.path.join(d, "tools", "testing", "selftests")
            os.makedirs(os.path.join(st, "net", "forwarding"))
            os.makedirs(os.path.join(st, "net", "lib"))
            for p in ("net/config", "net/forwarding/config", "config"):
                open(os.path.join(st, p), "w").close()
            self.assertEqual(tree_build.test_fragment([os.path.join(st, "net", "t.sh")]),
                             os.path.join(st, "net", "config"))
            self.assertEqual(tree_build.test_fragment(["forwarding/x.sh"], os.path.join(st, "net")),
                             os.path.join(st, "net", "forwarding", "config"))
            self.assertEqual(tree_build.test_fragment([os.path.join(st, "net", "lib", "y.py")]),
                             os.path.join(st, "net", "config"))
            # selftests/config itself is no test's fragment; outside a tree: none
            os.makedirs(os.path.join(st, "other"))
            self.assertIsNone(tree_build.test_fragment([os.path.join(st, "other", "z")]))
            self.assertIsNone(tree_build.test_fragment(["/usr/bin/iperf3"]))


class TestBisectStep(unittest.TestCase):
    def test_step_status(self):
        s = bisect.step_status
        self.assertEqual(s(False, [], None), 125)           # the build failed
        self.assertEqual(s(True, [0, 255], None), 125)      # ksft-vm's own failure
        self.assertEqual(s(True, [0, -15], None), 128)      # a boot killed
        self.assertEqual(s(True, [2, 0], 0), 0)             # COMMAND's 2: judged
        self.assertEqual(s(True, [0], 1), 1)
        self.assertEqual(s(True, [0], 125), 125)
        self.assertEqual(s(True, [0], 128), 128)            # compare refused
        self.assertEqual(s(True, [0], 2), 128)
        self.assertEqual(s(True, [0], None), 128)

    def test_parse(self):
        a = bisect.parse(["-o", "out", "--seeds", "4", "v1", "v2", "--tree", "lin", "--config",
                          "c", "--memory", "512", "--", "t", "--x"])
        self.assertEqual((a.out, a.seeds, a.good, a.bad, a.vm_opts, a.command),
                         ("out", 4, "v1", "v2", ["--memory", "512"], ["t", "--x"]))
        self.assertEqual((a.tree, a.configs), (os.path.abspath("lin"), [os.path.abspath("c")]))
        for bad in (["v1", "--", "t"], ["v1", "v2", "--", "t"], ["v1", "v2", "--tree", "l"],
                    ["v1", "v2", "--tree", "l", "--seed", "2", "--", "t"],
                    ["--memory", "5", "v1", "v2", "--tree", "l", "--", "t"],
                    ["--seeds", "0", "v1", "v2", "--tree", "l", "--", "t"],
                    ["--seeds", "3", "v1", "v2", "--tree", "l", "--", "t"]):
            with self.assertRaises(UsageError, msg=bad):
                bisect.parse(bad)

    def test_cli_tree_options(self):
        a = cli.parse(["--tree", "lin", "--config", "f", "--jobs", "2", "--", "t"])
        self.assertEqual((a.tree, a.config, a.jobs), ("lin", ["f"], 2))
        for bad in (["--tree", "l", "--kernel", "k", "--", "t"], ["--config", "f", "--", "t"],
                    ["--tree", "l", "--jobs", "0", "--", "t"]):
            with self.assertRaises(UsageError, msg=bad):
                cli.parse(bad)


# A stand-in make: the targets tree_build runs, on files alone; every call
# appended to $STANDIN_MAKE_CALLS; olddefconfig drops CONFIG_DROPME; the
# build fails when the tree holds a file named BROKEN.
STANDIN_MAKE = r'''#!/usr/bin/env python3
import os, sys
args = sys.argv[1:]
tree = args[args.index("-C") + 1]
obj = [a[2:] for a in args if a.startswith("O=")][0]
targets = [a for a in args if a not in ("-C", tree)
           and not a.startswith(("O=", "ARCH=", "INSTALL_", "DEPMOD="))]
with open(os.environ["STANDIN_MAKE_CALLS"], "a") as f:
    f.write(" ".join(targets) + "\n")
if "tinyconfig" in targets:
    with open(os.environ["KCONFIG_CONFIG"], "w") as f:
        f.write("# CONFIG_NET is not set\nCONFIG_SLUB_TINY=y\n")
if "olddefconfig" in targets:
    cfg = os.path.join(obj, ".config")
    lines = [l for l in open(cfg) if not l.startswith("CONFIG_DROPME=")]
    open(cfg, "w").write("".join(lines))
if "bzImage" in targets:
    if os.environ.get("STANDIN_MAKE_HANG"):
        open(os.environ["STANDIN_MAKE_HANG"], "w").write("%d\n" % os.getpid())
        import time
        while True:
            time.sleep(1)
    if os.path.exists(os.path.join(tree, "BROKEN")):
        sys.exit(2)
    head = open(os.path.join(tree, "VERSION")).read().strip()
    os.makedirs(os.path.join(obj, "include", "config"), exist_ok=True)
    open(os.path.join(obj, "include", "config", "kernel.release"), "w").write(head + "\n")
    os.makedirs(os.path.join(obj, "arch", "x86", "boot"), exist_ok=True)
    import struct
    data = bytearray(0x600)
    data[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", data, 0x20E, 0x100)
    text = (head + " (stand-in) #1 SMP").encode() + b"\0"
    data[0x300:0x300 + len(text)] = text
    open(os.path.join(obj, "arch", "x86", "boot", "bzImage"), "wb").write(bytes(data))
if "modules_install" in targets:
    dest = [a.split("=", 1)[1] for a in args if a.startswith("INSTALL_MOD_PATH=")][0]
    rel = open(os.path.join(obj, "include", "config", "kernel.release")).read().strip()
    d = os.path.join(dest, "lib", "modules", rel, "kernel", "net")
    os.makedirs(d)
    open(os.path.join(d, "modules.order.standin"), "w").close()
'''


class TreeFixture(unittest.TestCase):
    """A git tree (Makefile, arch/x86, VERSION naming the release) and a
    stand-in make first in PATH."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ksft-vm-tree.")
        d = self.d = self.tmp.name
        self.tree = os.path.join(d, "linux")
        os.makedirs(os.path.join(self.tree, "arch", "x86"))
        for name, text in (("Makefile", "# stand-in\n"), ("VERSION", "6.12.0-ga\n"),
                           ("frag.config", "CONFIG_VETH=m\nCONFIG_DROPME=y\n")):
            with open(os.path.join(self.tree, name), "w") as f:
                f.write(text)
        bindir = os.path.join(d, "bin")
        os.makedirs(bindir)
        with open(os.path.join(bindir, "make"), "w") as f:
            f.write(STANDIN_MAKE)
        os.chmod(os.path.join(bindir, "make"), 0o755)
        self.calls = os.path.join(d, "calls")
        self.env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"],
                        KSFT_VM_CACHE=os.path.join(d, "cache"), STANDIN_MAKE_CALLS=self.calls,
                        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                        GIT_COMMITTER_EMAIL="t@t")
        self.git("init", "-q")
        self.commit("one")
        self.said = []

    def tearDown(self):
        self.tmp.cleanup()

    def git(self, *args):
        return subprocess.run(["git", "-C", self.tree] + list(args), env=self.env, check=True,
                              stdout=subprocess.PIPE).stdout.decode().strip()

    def commit(self, msg):
        self.git("add", "-A")
        self.git("commit", "-q", "-m", msg)


class TestBuildStandIn(TreeFixture):
    def build(self):
        if os.path.exists(self.calls):
            os.unlink(self.calls)
        built, state = tree_build.build(self.tree, [os.path.join(self.tree, "frag.config")],
                                        jobs=2, say=self.said.append, environ=self.env)
        calls = open(self.calls).read().split("\n")[:-1] if os.path.exists(self.calls) else []
        return built, state, calls

    def test_build_cache_next_commit_dirty(self):
        built, state, calls = self.build()
        self.assertEqual(calls, ["tinyconfig", "olddefconfig", "-j2 bzImage modules",
                                 "modules_install"])
        self.assertEqual(built.release, "6.12.0-ga")
        with open(built.image, "rb") as f:
            self.assertIn(b"6.12.0-ga (stand-in)", f.read())
        self.assertTrue(os.path.isfile(os.path.join(built.moddir, "kernel", "net",
                                                    "modules.order.standin")))
        with open(os.path.join(built.entry, "boot", "config-6.12.0-ga")) as f:
            cfg = kconfig.values(f.read())
        self.assertEqual((cfg["CONFIG_NET"], cfg["CONFIG_VETH"], cfg["CONFIG_SLUB_TINY"]),
                         ("y", "m", "n"))
        rec = json.load(open(os.path.join(built.entry, "build.json")))
        self.assertEqual(rec["commit"], state.commit)
        self.assertEqual(state.context_value(), state.commit + "-clean")
        dropme = [t for t in self.said if "CONFIG_DROPME" in t]
        self.assertEqual(len(dropme), 1, self.said)
        self.assertIn("frag.config:2: CONFIG_DROPME=y asked, the tree's Kconfig made it not set",
                      dropme[0])
        # the same commit and config: nothing built
        again, _, calls = self.build()
        self.assertEqual((calls, again.entry), ([], built.entry))
        # the next commit: built again, in the same object directory
        with open(os.path.join(self.tree, "VERSION"), "w") as f:
            f.write("6.12.0-gb\n")
        self.commit("two")
        nxt, st2, calls = self.build()
        self.assertEqual(calls[2], "-j2 bzImage modules")
        self.assertNotEqual(nxt.entry, built.entry)
        self.assertEqual(len([n for n in os.listdir(self.env["KSFT_VM_CACHE"])
                              if n.startswith("obj-")]), 1)
        # an uncommitted change: its own entry, -dirty in the context
        with open(os.path.join(self.tree, "Makefile"), "a") as f:
            f.write("# edited\n")
        dirty, st3, calls = self.build()
        self.assertTrue(calls)
        self.assertNotEqual(dirty.entry, nxt.entry)
        self.assertEqual(st3.context_value(), st2.commit + "-dirty")

    def test_failed_build_is_a_skipped_step(self):
        open(os.path.join(self.tree, "BROKEN"), "w").close()
        self.commit("broken")
        with self.assertRaises(tree_build.BuildError) as c:
            self.build()
        self.assertIn("make -j2 bzImage modules failed (exit 2)", str(c.exception))
        state = {"tree": self.tree, "configs": [], "jobs": 1, "vm_opts": [], "command": ["t"],
                 "seeds": 1, "out": self.d, "cwd": self.d, "baseline": "none"}
        old = dict(os.environ)
        os.environ.update(self.env)
        try:
            self.assertEqual(bisect.Step(state).run(), 125)
        finally:
            os.environ.clear()
            os.environ.update(old)

    def test_not_a_git_tree(self):
        os.makedirs(os.path.join(self.d, "plain", "arch", "x86"))
        open(os.path.join(self.d, "plain", "Makefile"), "w").close()
        with self.assertRaises(tree_build.VmError) as c:
            tree_build.tree_state(os.path.join(self.d, "plain"))
        self.assertIn("git init", str(c.exception))


def scaled(src, dst, k, series="cpu.cost.test.best"):
    """@src's log with @series' values times @k, as @dst."""
    with open(src) as f, open(dst, "w") as g:
        for line in f:
            if line.startswith("# ktap-metric-json: ") and '"%s"' % series in line:
                d = json.loads(line.split(": ", 1)[1])
                d["value"] *= k
                line = "# ktap-metric-json: " + json.dumps(d, separators=(",", ":")) + "\n"
            g.write(line)


@unittest.skipUnless(len(sys.argv) > 1, "needs KSFT_VM FIXTURE_LOG (meson test vm_tree)")
class TestTreeCommands(TreeFixture):
    """ksft-vm --tree and ksft-vm bisect through their launcher, with a
    stand-in make and a stand-in QEMU that plays each release's guest."""

    def run_vm(self, args, spec, cwd=None):
        e = standin_env(spec, extra_path=os.path.join(self.d, "bin"),
                        KSFT_VM_CACHE=self.env["KSFT_VM_CACHE"],
                        STANDIN_MAKE_CALLS=self.calls, **{k: self.env[k] for k in self.env
                                                           if k.startswith("GIT_")})
        r = subprocess.run([sys.executable, VM] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=e, cwd=cwd or self.d, check=False)
        return r.returncode, r.stdout.decode(), r.stderr.decode()

    def test_tree_builds_then_boots_with_the_commit(self):
        init = os.path.join(self.d, "init")
        rc, out, err = self.run_vm(["--tree", self.tree, "--jobs", "1", "--", "true"],
                                   {"default": {"out": "hello\n", "init": init}})
        self.assertEqual((rc, out), (0, "hello\n"), err)
        self.assertIn("building", err)
        head = self.git("rev-parse", "HEAD")
        with open(init) as f:
            self.assertIn("export KSFTMETRIC_CONTEXT_KERNEL_COMMIT=%s-clean\n" % head, f.read())
        rc, out, err = self.run_vm(["--tree", self.tree, "--", "true"], {"default": {}})
        self.assertEqual(rc, 0, err)
        self.assertIn("cached", err)
        self.assertNotIn("building", err)

    def test_a_stopped_build_stops_make(self):
        pidfile = os.path.join(self.d, "make.pid")
        e = standin_env({}, extra_path=os.path.join(self.d, "bin"),
                        KSFT_VM_CACHE=self.env["KSFT_VM_CACHE"], STANDIN_MAKE_CALLS=self.calls,
                        STANDIN_MAKE_HANG=pidfile)
        p = subprocess.Popen([sys.executable, VM, "build", "--tree", self.tree], env=e,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not os.path.exists(pidfile) or not open(pidfile).read().endswith("\n"):
            time.sleep(0.05)
        make = int(open(pidfile).read())
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(), -signal.SIGTERM)
        while os.path.exists("/proc/%d" % make):      # reaped by init once killed
            with open("/proc/%d/stat" % make) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
            time.sleep(0.05)

    def test_bisect_finds_the_first_bad_commit(self):
        bad_log = os.path.join(self.d, "bad.log")
        scaled(FIXTURE, bad_log, 1.05)          # 5 % more instructions a byte
        spec = {}
        for n in range(2, 6):
            with open(os.path.join(self.tree, "VERSION"), "w") as f:
                f.write("6.12.0-g%d\n" % n)
            self.commit("c%d" % n)
        commits = self.git("log", "--format=%H", "--reverse").split()
        for n in range(1, 6):
            rel = "6.12.0-ga" if n == 1 else "6.12.0-g%d" % n
            spec["vmlinuz-" + rel] = {"out_file": bad_log if n >= 4 else FIXTURE}
        out_dir = os.path.join(self.d, "out")
        for _ in range(2):                      # the same verdict twice (the second: cached)
            rc, out, err = self.run_vm(["bisect", "-o", out_dir, "--seeds", "1", commits[0],
                                        commits[4], "--tree", self.tree, "--", "true"], spec)
            self.assertEqual(rc, 0, err)
            self.assertTrue(out.startswith("%s is the first bad commit" % commits[3]), out)
            self.assertEqual(self.git("rev-parse", "HEAD"), commits[4])    # left as it was
            self.assertFalse(os.path.exists(os.path.join(self.tree, ".git", "BISECT_START")))
        with open(os.path.join(out_dir, "steps.txt")) as f:
            steps = f.read().splitlines()
        self.assertRegex(steps[0], r"^\S+ 6\.12\.0-g5 status 1 build \d+ s boots \d+ s$")
        # BAD no regression: nothing to bisect
        rc, out, err = self.run_vm(["bisect", "-o", out_dir, "--seeds", "1", commits[0],
                                    commits[2], "--tree", self.tree, "--", "true"], spec)
        self.assertEqual(rc, 1, err)
        self.assertIn("no regression against GOOD", err)


class TestManPages(unittest.TestCase):
    """ksft-vm-build(1) and ksft-vm-bisect(1) quote their --help."""

    def quoted(self, page, text):
        with open(os.path.join(HERE, "..", "..", "doc", "man", page)) as f:
            doc = f.read()
        block = "".join("    " + x if x.strip() else "\n" for x in text.rstrip("\n").splitlines(True))
        self.assertIn(block, doc, "%s: quote its --help again" % page)

    def test_quotes(self):
        self.quoted("ksft-vm-build.1.rst", tree_build.HELP)
        self.quoted("ksft-vm-bisect.1.rst", bisect.HELP)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        VM = os.path.abspath(sys.argv.pop(1))
        FIXTURE = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
