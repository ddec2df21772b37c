#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-vm --seed S (issue 42) against a stand-in qemu-system-x86_64:
S = 0 packs and boots exactly as before (the same /init, the same kernel
command line), S > 0 adds a busy loop before COMMAND whose count differs
across seeds, is the same for one S, and travels in a variable of one
length for every S; the command line names the seed and the count.
Fails on ksft-vm before issue 42 (no --seed).

usage: test_ksft_vm_seed.py KSFT_VM
"""
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standin_util import fake_kernel, run  # noqa: E402

VM = None


class TestSeed(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ksft-vm-seed.")
        self.d = self.tmp.name
        os.mkdir(os.path.join(self.d, "tmp"))
        self.kernel = fake_kernel(os.path.join(self.d, "k"), "6.12.0-test")

    def tearDown(self):
        self.tmp.cleanup()

    def boot(self, opts):
        """(/init, QEMU's -append) of a run of `true` with @opts."""
        init = os.path.join(self.d, "init")
        rc, _, err = run(VM, ["--kernel", self.kernel] + opts + ["--", "true"],
                         {"default": {"init": init}}, cwd=self.d,
                         TMPDIR=os.path.join(self.d, "tmp"), KSFT_VM_VERBOSE="1")
        self.assertEqual(rc, 0, err)
        with open(init) as f:
            text = f.read()
        append = re.search(r"-append '([^']*)'", err).group(1)
        return text, append

    def test_seed_zero_is_today(self):
        """--seed 0 is no option at all: no loop, no variable, no word."""
        init, append = self.boot([])
        init0, append0 = self.boot(["--seed", "0"])
        self.assertEqual(init0, init)
        self.assertEqual(append0, append)
        self.assertNotIn("SEED", init)
        self.assertNotIn("ksftm.seed", append)

    def test_seeds_differ_and_repeat(self):
        spins, lengths = {}, set()
        for s in (1, 2, 3, 1):
            init, append = self.boot(["--seed", str(s)])
            value = re.search(r"^export KSFT_VM_SEED_SPIN=(\d+)$", init, re.M).group(1)
            spin = int(re.search(r"\bksftm\.seed_spin=(\d+)\b", append).group(1))
            self.assertIn("ksftm.seed=%d " % s, append + " ")
            self.assertEqual(int(value) - 1000000, spin)
            self.assertLess(init.index("KSFT_VM_SEED_SPIN ]"), init.index('"$@"'))
            self.assertIn("export KSFTMETRIC_CONTEXT_SEED_URANDOM=", init)
            lengths.add(len(value))
            self.assertEqual(spins.setdefault(s, spin), spin)     # S again: the same
        self.assertEqual(len(set(spins.values())), 3, spins)      # seeds: different
        self.assertEqual(lengths, {7})

    def test_bad_seed_refused(self):
        for bad in ("-1", "x", "1.5"):
            rc, _, err = run(VM, ["--kernel", self.kernel, "--seed", bad, "--", "true"],
                             {"default": {}}, TMPDIR=os.path.join(self.d, "tmp"))
            self.assertEqual(rc, 255)
            self.assertIn("--seed", err)


def main():
    global VM
    VM = os.path.abspath(sys.argv[1])
    unittest.main(argv=sys.argv[:1], verbosity=2)


if __name__ == "__main__":
    main()
