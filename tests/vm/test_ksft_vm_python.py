#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A Python COMMAND in the guest with no extra options (issue 42): what
ksft-vm packs for `./test.py` and `python3 test.py`, checked in the root
a stand-in qemu-system-x86_64 receives (its file names and /init). Each
test fails on ksft-vm before issue 42, which packed the interpreter
binary alone.

usage: test_ksft_vm_python.py KSFT_VM PYTHON_PKG_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standin_util import fake_kernel, run  # noqa: E402

VM = None
PYPKG = None        # the source tree's python/ (ksftmetric)


def host_python(path_env):
    """(sys.executable, stdlib) of the python3 @path_env finds."""
    out = subprocess.run(["python3", "-c", "import sys, sysconfig; print(sys.executable); "
                          "print(sysconfig.get_paths()['stdlib'])"],
                         stdout=subprocess.PIPE, check=True,
                         env=dict(os.environ, PATH=path_env)).stdout.decode().split("\n")
    return out[0], out[1]


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


class TestPythonCommand(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ksft-vm-py.")
        self.d = self.tmp.name
        self.tmpdir = os.path.join(self.d, "tmp")
        os.mkdir(self.tmpdir)
        self.kernel = fake_kernel(os.path.join(self.d, "k"), "6.12.0-test")
        self.t = os.path.join(self.d, "t")
        write(os.path.join(self.t, "test.py"),
              "#!/usr/bin/env python3\nimport json\nprint(json.dumps(1))\n", 0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def pack(self, command, cwd=None, extra_path=None, **env):
        """The root's names and /init for COMMAND; (names, init, stderr)."""
        listing, init = os.path.join(self.d, "names"), os.path.join(self.d, "init")
        env.setdefault("TMPDIR", self.tmpdir)
        rc, _, err = run(VM, ["--kernel", self.kernel, "--"] + command,
                         {"default": {"dump": listing, "init": init}},
                         cwd=cwd or self.t, extra_path=extra_path, **env)
        self.assertEqual(rc, 0, err)
        with open(listing) as f:
            names = set("/" + n for n in f.read().split("\n") if n)
        with open(init) as f:
            return names, f.read(), err

    def guest_path(self, init):
        return re.search(r"^export PATH='?([^' ]*)'? ", init, re.M).group(1).split(":")

    def assert_python(self, names, init, exe, stdlib):
        self.assertIn(exe, names)
        self.assertIn(stdlib + "/encodings/__init__.py", names)
        self.assertIn(stdlib + "/json/decoder.py", names)
        self.assertNotIn(stdlib + "/idlelib", names)
        self.assertFalse(any(n.startswith(stdlib + "/test/") for n in names))
        self.assertEqual(self.guest_path(init)[0], os.path.dirname(exe))

    def test_shebang_script(self):
        """./test.py with #!/usr/bin/env python3: the interpreter PATH
        finds, its standard library, the interpreter's directory first on
        the guest's PATH."""
        write(os.path.join(self.t, "test.py"), "#!/usr/bin/env python3\nimport json, helper\n",
              0o755)
        write(os.path.join(self.t, "helper.py"), "")
        write(os.path.join(self.t, "unrelated.bin"), "x" * 1000)
        names, init, _ = self.pack(["./test.py"])
        exe, stdlib = host_python(os.environ["PATH"])
        self.assert_python(names, init, exe, stdlib)
        self.assertIn(self.t + "/test.py", names)
        # outside a selftest tree: the modules it imports from its
        # directory, not the rest of it (a script may sit in /usr/bin)
        self.assertIn(self.t + "/helper.py", names)
        self.assertNotIn(self.t + "/unrelated.bin", names)

    def test_python3_script_through_a_shim(self):
        """python3 test.py with a pyenv-like shim first in PATH: the shim
        cannot run in the guest, the interpreter it runs is packed first."""
        exe, stdlib = host_python(os.environ["PATH"])
        shims = os.path.join(self.d, "shims")
        write(os.path.join(shims, "python3"), "#!/bin/sh\nexec %s \"$@\"\n" % exe, 0o755)
        names, init, _ = self.pack(["python3", "test.py"], extra_path=shims)
        self.assert_python(names, init, exe, stdlib)
        self.assertNotIn(shims, self.guest_path(init))

    def test_pythonpath_and_ksftmetric(self):
        """PYTHONPATH is passed in; ksftmetric, imported by the test, is
        packed with its library, which the guest finds by name."""
        write(os.path.join(self.t, "m.py"),
              "#!/usr/bin/env python3\nimport ksftmetric\n", 0o755)
        names, init, _ = self.pack(["./m.py"], PYTHONPATH=PYPKG)
        self.assertIn(os.path.join(PYPKG, "ksftmetric", "__init__.py"), names)
        lib = subprocess.run([sys.executable, "-c", "import ksftmetric; "
                              "print(ksftmetric.LIBRARY_PATH)"], stdout=subprocess.PIPE,
                             env=dict(os.environ, PYTHONPATH=PYPKG),
                             check=True).stdout.decode().strip()
        self.assertIn(lib, names)
        self.assertIn("export KSFTMETRIC_LIBRARY=%s\n" % lib, init)
        self.assertIn("export PYTHONPATH=%s\n" % PYPKG, init)

    def test_module_runs_a_kernel_test(self):
        """python3 -m ksftmetric.ksft_wiring ./t.py (doc/python.rst's way
        to wire an unchanged ksft.py): the module's package and the kernel
        tree of the script it runs are packed."""
        st = os.path.join(self.d, "linux", "tools", "testing", "selftests")
        write(st + "/net/t.py", "#!/usr/bin/env python3\nfrom lib.py import ksft_run\n", 0o755)
        write(st + "/net/lib/py/__init__.py", "")
        names, init, _ = self.pack(["python3", "-m", "ksftmetric.ksft_wiring", "./t.py"],
                                   cwd=st + "/net", PYTHONPATH=PYPKG)
        self.assertIn(os.path.join(PYPKG, "ksftmetric", "__init__.py"), names)
        self.assertIn(st + "/net/lib/py/__init__.py", names)
        self.assertIn("export KSFTMETRIC_LIBRARY=", init)

    def test_kselftest_install(self):
        """A test in a kselftest install (make ... install: the directory
        with kselftest-list.txt): its directory and net/lib, where an
        installed lib/py finds ynl and the specs."""
        ks = os.path.join(self.d, "kselftest_install")
        write(ks + "/kselftest-list.txt", "drivers/net:t.py\n")
        write(ks + "/drivers/net/t.py", "#!/usr/bin/env python3\nfrom lib.py import ksft_run\n",
              0o755)
        write(ks + "/drivers/net/lib/py/__init__.py", "")
        write(ks + "/net/lib/py/__init__.py", "")
        write(ks + "/net/lib/ynl/lib/ynl.py", "")
        write(ks + "/net/lib/specs/netdev.yaml", "")
        names, _, _ = self.pack(["./t.py"], cwd=ks + "/drivers/net")
        for p in ("kselftest-list.txt", "drivers/net/lib/py/__init__.py", "net/lib/py/__init__.py",
                  "net/lib/ynl/lib/ynl.py", "net/lib/specs/netdev.yaml"):
            self.assertIn(ks + "/" + p, names)

    def test_kernel_tree(self):
        """A test in a kernel tree: its directory, the selftests' lib/py,
        tools/net/ynl, the netlink specs, the site packages they import
        (transitively), not the ones nobody imports; the programs it
        calls are packed, a missing one named before the boot."""
        k = os.path.join(self.d, "linux")
        st = os.path.join(k, "tools", "testing", "selftests")
        sp = os.path.join(self.d, "site")
        files = {
            st + "/drivers/net/t.py": "#!/usr/bin/env python3\nfrom lib.py import ksft_run\n"
                                      "cmd('busybox true')\ncmd(f'no-such-tool-42 -x')\n",
            st + "/drivers/net/lib/py/__init__.py": "from net.lib.py import *\n",
            st + "/net/lib/py/__init__.py": "import fancymod\n",
            st + "/net/lib/py/ksft.py": "",
            k + "/tools/net/ynl/lib/ynl.py": "",
            k + "/Documentation/netlink/specs/netdev.yaml": "",
            sp + "/fancymod/__init__.py": "import deepmod\n",
            sp + "/deepmod.py": "",
            sp + "/unusedmod.py": "",
        }
        for p, text in files.items():
            write(p, text, 0o755 if p.endswith("/t.py") else 0o644)
        names, init, err = self.pack(["./t.py"], cwd=st + "/drivers/net", PYTHONPATH=sp)
        for p in files:
            if "unusedmod" not in p:
                self.assertIn(p, names)
        self.assertNotIn(sp + "/unusedmod.py", names)
        self.assertIn(os.path.realpath(shutil.which("busybox")), names)
        self.assertRegex(err, r"t\.py:4 runs no-such-tool-42, which is neither on the host "
                              r"nor in busybox")

    def test_programs_of_the_libraries(self):
        """The programs a test runs through the selftest libraries it
        imports (6.12's NetdevSimDev runs `udevadm settle`; its
        cfg.require_cmd("socat") SKIPs without it) are packed, or named
        before the boot with the library's file and line, from a kernel
        tree and from a kselftest install alike; the module tools stay
        busybox's (the guest's modules are indexed by busybox's depmod),
        and a busybox applet standing in for one the host lacks is said
        (busybox's ping refuses ping.py's -W0.5)."""
        tools = os.path.join(self.d, "hostbin")
        write(tools + "/lib-tool-42", "#!/bin/sh\n", 0o755)
        write(tools + "/modprobe", "#!/bin/sh\n", 0o755)
        for ks in (os.path.join(self.d, "linux", "tools", "testing", "selftests"),
                   os.path.join(self.d, "kselftest_install")):
            if "install" in ks:
                write(ks + "/kselftest-list.txt", "drivers/net:t.py\n")
            t = ks + "/drivers/net/t.py"
            write(t, "#!/usr/bin/env python3\nfrom lib.py import ksft_run\n"
                  "cfg.require_cmd('no-such-req-42')\ncmd('nslookup x')\n", 0o755)
            write(ks + "/net/lib/py/nsim.py", "from .utils import cmd\n"
                  "cmd('modprobe netdevsim')\ncmd('lib-tool-42 settle')\n"
                  "cmd(f'no-such-lib-tool-42 -x')\n")
            write(ks + "/drivers/net/lib/py/env.py", "x = tool('no-such-tool-42b', 'a')\n")
            names, _, err = self.pack(["./t.py"], cwd=ks + "/drivers/net", extra_path=tools)
            self.assertIn(tools + "/lib-tool-42", names)
            self.assertNotIn(tools + "/modprobe", names)
            self.assertRegex(err, r"drivers/net/t\.py:3 runs no-such-req-42, which is neither")
            self.assertRegex(err, r"net/lib/py/nsim\.py:4 runs no-such-lib-tool-42, which is "
                                  r"neither")
            self.assertRegex(err, r"lib/py/env\.py:1 runs no-such-tool-42b")
            self.assertRegex(err, r"t\.py:4 runs nslookup, which is not on the host: "
                                  r"busybox's nslookup stands in")


def main():
    global VM, PYPKG
    VM, PYPKG = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    unittest.main(argv=sys.argv[:1], verbosity=2)


if __name__ == "__main__":
    main()
