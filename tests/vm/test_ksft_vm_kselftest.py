#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""run_kselftest.sh of a kselftest install as ksft-vm's COMMAND (issue
42: `ksft-vm -- ./run_kselftest.sh -t net:TEST`, as NIPA runs tests):
what ksft-vm packs, checked in the root a stand-in qemu-system-x86_64
receives. Before, only the script went in: the guest lacked the list,
kselftest/runner.sh and the tests, and busybox's timeout (which refuses
runner.sh's --foreground) stood at /usr/bin/timeout; packing kselftest/
whole then brought the host's perl for prefix.pl, without its modules.

usage: test_ksft_vm_kselftest.py KSFT_VM
"""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standin_util import fake_kernel, run  # noqa: E402

VM = None
LIST = "net:a.sh\nnet:gone.sh\nnet:b.py\ndrivers/net:c.py\n"


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


class TestKselftestInstall(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ksft-vm-ks.")
        self.d = self.tmp.name
        os.mkdir(os.path.join(self.d, "tmp"))
        self.kernel = fake_kernel(os.path.join(self.d, "k"), "6.12.0-test")
        ks = self.ks = os.path.join(self.d, "kselftest_install")
        # the install's layout as make ... install writes it (our own
        # stand-in scripts: only packed here, never run)
        write(ks + "/run_kselftest.sh", "#!/bin/sh\n. ./kselftest/runner.sh\n", 0o755)
        write(ks + "/kselftest-list.txt", LIST)
        write(ks + "/kselftest/runner.sh", "#!/bin/sh\n")
        write(ks + "/kselftest/prefix.pl", "#!/usr/bin/perl\n", 0o755)
        write(ks + "/net/a.sh", "#!/bin/sh\n. ./lib.sh\n", 0o755)
        write(ks + "/net/lib.sh", "true\n")
        write(ks + "/net/settings", "timeout=90\n")
        write(ks + "/net/b.py", "#!/usr/bin/env python3\nimport json\n", 0o755)
        write(ks + "/drivers/net/c.py", "#!/usr/bin/env python3\nfrom lib.py import ksft_run\n",
              0o755)
        write(ks + "/drivers/net/lib/py/__init__.py", "")
        write(ks + "/net/lib/py/__init__.py", "")

    def tearDown(self):
        self.tmp.cleanup()

    def pack(self, args, rc=0):
        """(names, symbolic links {name: target}, stderr) of the root for
        ./run_kselftest.sh ARGS run in the install."""
        files = {k: os.path.join(self.d, k) for k in ("names", "links", "init")}
        for f in files.values():
            if os.path.exists(f):
                os.unlink(f)
        got, _, err = run(VM, ["--kernel", self.kernel, "--", "./run_kselftest.sh"] + args,
                          {"default": {"dump": files["names"], "links": files["links"],
                                       "init": files["init"]}},
                          cwd=self.ks, TMPDIR=os.path.join(self.d, "tmp"))
        self.assertEqual(got, rc, err)
        if rc:
            return None, None, err
        with open(files["names"]) as f:
            names = set("/" + n for n in f.read().split("\n") if n)
        with open(files["links"]) as f:
            links = dict(("/" + ln).split(" ", 1) for ln in f.read().splitlines())
        return names, links, err

    def packed(self, path, names, yes=True):
        """@path is (@yes) or is not in the root (the message names it alone)."""
        self.assertEqual(path in names, yes, "%s %s in the root" % (path, "not" if yes else "also"))

    def test_one_net_test(self):
        """-t net:a.sh: the list, kselftest/, the net collection whole (its
        helpers and settings), not the collections it does not run; the
        host's timeout at /usr/bin/timeout, not busybox's."""
        names, links, _ = self.pack(["-t", "net:a.sh"])
        for p in ("run_kselftest.sh", "kselftest-list.txt", "kselftest/runner.sh", "net/a.sh",
                  "net/lib.sh", "net/settings"):
            self.packed(self.ks + "/" + p, names)
        self.packed(self.ks + "/drivers/net/c.py", names, False)
        # prefix.pl, not the perl it names: runner.sh would pipe every
        # test through a perl without its modules (strict.pm)
        self.packed(self.ks + "/kselftest/prefix.pl", names)
        if os.path.exists("/usr/bin/perl"):
            self.packed(os.path.realpath("/usr/bin/perl"), names, False)
        if os.access("/usr/bin/timeout", os.X_OK):
            real = os.path.join(os.path.realpath("/usr/bin"), "timeout")
            self.packed(real, names)
            self.assertNotIn(real, links, "busybox's timeout refuses --foreground")

    def test_python_test_and_collection(self):
        """-c drivers/net: its Python test's world (the interpreter, the
        selftest libraries an installed lib/py imports) goes in too."""
        names, _, _ = self.pack(["-c", "drivers/net"])
        self.packed(self.ks + "/drivers/net/c.py", names)
        self.packed(self.ks + "/net/lib/py/__init__.py", names)
        exe = subprocess.run(["python3", "-c", "import sys; print(sys.executable)"],
                             stdout=subprocess.PIPE, check=True).stdout.decode().strip()
        self.packed(exe, names)     # the interpreter c.py's shebang finds

    def test_said_before_the_boot(self):
        """A test the list lacks stops ksft-vm (run_kselftest.sh would stop
        on it in the guest); one the list names but the install lacks is
        named on stderr; the same words twice."""
        for _ in range(2):
            _, _, err = self.pack(["-t", "net:nope.sh"], rc=255)
            self.assertIn("run_kselftest.sh -t net:nope.sh: no such test in kselftest-list.txt",
                          err)
            names, _, err = self.pack(["-t", "net:gone.sh", "-t", "net:a.sh"])
            self.assertRegex(err, r"-t net:gone\.sh: listed in kselftest-list\.txt but not in "
                                  r"the install")
            self.packed(self.ks + "/net/a.sh", names)


class TestRunnerOutput(unittest.TestCase):
    def test_runner_output_reaches_the_log(self):
        """runner.sh writes each test's output through 4>>/dev/stdout: /init's
        own lines (its /dev links, COMMAND's redirection, /dev and the
        output directory moved to a temp dir) run here with such a
        COMMAND keep every line in order. Before, the guest's devtmpfs had
        no /dev/stdout (the output went into a new file there) and a
        reopened stdout wrote under COMMAND's own writes."""
        pkg = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "vm")
        sys.path.insert(0, pkg)
        from ksft_vm import guest_init
        text = guest_init.render(["/bin"], {}, "/w", ["c"])
        with tempfile.TemporaryDirectory(prefix="ksft-vm-init.") as d:
            os.mkdir(os.path.join(d, "dev"))
            os.mkdir(os.path.join(d, "o"))
            lines = [ln.replace("/dev/", d + "/dev/") for ln in text.splitlines()
                     if ln.startswith("[ -e /dev/")]
            lines += ["o=" + d + "/o"] + [ln for ln in text.splitlines() if ln.startswith('"$@" ')]
            command = ('echo one; { echo two >&4; } 4>>%s/dev/stdout; echo three; '
                       'echo err >&2' % d)
            for _ in range(2):
                for f in ("out", "err"):
                    if os.path.exists(os.path.join(d, "o", f)):
                        os.unlink(os.path.join(d, "o", f))
                subprocess.run(["sh", "-c", "\n".join(lines), "init", "sh", "-c", command],
                               check=True)
                with open(os.path.join(d, "o", "out")) as f:
                    self.assertEqual(f.read(), "one\ntwo\nthree\n")
                with open(os.path.join(d, "o", "err")) as f:
                    self.assertEqual(f.read(), "err\n")


if __name__ == "__main__":
    VM = sys.argv.pop(1)
    unittest.main()
