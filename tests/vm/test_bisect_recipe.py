#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""doc/vm.rst's bisect script, run as the page writes it (its /tmp paths
moved into a temp dir), with stand-ins for make and ksft-vm and the real
ksft-metric: ksft-vm's own failure (255) skips the commit (125); a
COMMAND that exits 2 with an unchanged log is judged (0), never skipped
as a failed boot (issue 41 item 12 and the exit codes).

usage: test_bisect_recipe.py KSFT_METRIC FIXTURE_LOG
"""
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "doc", "vm.rst")
CLI = FIXTURE = None


def recipe():
    with open(DOC) as f:
        text = f.read()
    m = re.search(r"\n    cat > /tmp/bisect.sh <<'SH'\n(.*?)\n    SH\n", text, re.S)
    if not m:
        raise AssertionError("doc/vm.rst: no bisect script (cat > /tmp/bisect.sh <<'SH')")
    return textwrap.dedent(m.group(1)) + "\n"


class TestBisectRecipe(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ksft-vm-bisect.")
        d = self.d = self.tmp.name
        self.bin = os.path.join(d, "bin")
        self.tree = os.path.join(d, "linux")
        os.makedirs(self.bin)
        os.makedirs(self.tree)
        script = recipe().replace("/tmp/", d + "/")
        self.script = os.path.join(d, "bisect.sh")
        with open(self.script, "w") as f:
            f.write(script)
        os.chmod(self.script, 0o755)
        stand_ins = {
            "make": '#!/bin/sh\n[ "$1 $2" = "-s kernelrelease" ] && echo 6.1.0-test\nexit 0\n',
            "ksft-vm": '#!/bin/sh\ncat "$STANDIN_LOG"\nexit "$STANDIN_RC"\n',
        }
        for name, text in stand_ins.items():
            with open(os.path.join(self.bin, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(self.bin, name), 0o755)
        os.symlink(os.path.abspath(CLI), os.path.join(self.bin, "ksft-metric"))
        subprocess.run([CLI, "save", "--quiet", "-o", os.path.join(d, "good.json"), FIXTURE],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def tearDown(self):
        self.tmp.cleanup()

    def step(self, rc):
        env = dict(os.environ, PATH=self.bin + ":" + os.environ["PATH"], S="/bin/true",
                   STANDIN_LOG=FIXTURE, STANDIN_RC=str(rc))
        return subprocess.run([self.script], cwd=self.tree, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, check=False).returncode

    def test_own_failure_skips(self):
        self.assertEqual(self.step(255), 125)

    def test_command_exit_2_is_judged(self):
        self.assertEqual(self.step(2), 0)
        self.assertEqual(self.step(0), 0)


if __name__ == "__main__":
    CLI = os.path.abspath(sys.argv.pop(1))
    FIXTURE = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
