#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-vm-ab (kernel A/B) with no QEMU: the stand-in guest (standin/)
prints a recorded icount log under each fake kernel. Issue 41 items 4, 7
and 8: run from any directory with relative paths, -o there and no empty
temp dir; the reply names both kernels and the machine in 72 columns and
ends with the command that reproduces it; a crash under B (139) or a
failed guest is reported with its stderr and never exits 0. Issue 43:
--profile profiles both kernels (the stand-in plays the plugin), sums
each kernel's seeds and puts the diff's table into the reply before the
reproducing command, per byte from the test's '# profile-work:' lines.

usage: test_ksft_vm_ab.py KSFT_VM_AB FIXTURE_LOG KSFT_METRIC PROFILE_REPLY_GOLDEN
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

AB = FIXTURE = METRIC = GOLDEN = None
REL_A, REL_B = "6.1.0-57-cloud-amd64", "6.12.118+deb12-cloud-amd64"


class TestAb(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ksft-vm-ab-test.")
        self.work = os.path.join(self.tmp.name, "work")
        self.tmpdir = os.path.join(self.tmp.name, "tmp")
        os.makedirs(self.work)
        os.makedirs(self.tmpdir)
        fake_kernel(os.path.join(self.work, "ka"), REL_A)
        fake_kernel(os.path.join(self.work, "kb"), REL_B)
        self.a = os.path.join("ka", "boot", "vmlinuz-" + REL_A)
        self.b = os.path.join("kb", "boot", "vmlinuz-" + REL_B)
        with open(FIXTURE) as f:
            log = f.read()
        self.log_a = os.path.join(self.tmp.name, "a.log")
        self.log_b = os.path.join(self.tmp.name, "b.log")
        shutil.copy(FIXTURE, self.log_a)
        with open(self.log_b, "w") as f:
            f.write(log.replace('"vm_kernel":"%s"' % REL_A, '"vm_kernel":"%s"' % REL_B))
        with open(os.path.join(self.work, "s.sh"), "w") as f:
            f.write("#!/bin/sh\necho the guest's test\n")
        os.chmod(os.path.join(self.work, "s.sh"), 0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def ab(self, spec_a, spec_b, args=None):
        spec = {"vmlinuz-" + REL_A: dict(spec_a, out_file=self.log_a),
                "vmlinuz-" + REL_B: dict(spec_b, out_file=self.log_b)}
        argv = args or ["-o", "out", self.a, self.b, "--add", "s.sh", "--", "./s.sh", "--x"]
        return run(AB, argv, spec, cwd=self.work, TMPDIR=self.tmpdir)

    def test_reply_from_relative_paths(self):
        rc, out, err = self.ab({}, {})
        self.assertEqual(rc, 0, err + out)
        lines = out.splitlines()
        self.assertTrue(all(len(x) <= 72 for x in lines), out)
        head = " ".join(lines[:lines.index("")])
        for word in ("%s -> %s" % (REL_A, REL_B), "QEMU 7.2.22", "TCG icount shift 0",
                     "Westmere-v1", "1 vCPU", "5 layout seeds a kernel",
                     "bit-identical per seed"):
            self.assertIn(word, head)
        self.assertIn("iperf.forward", lines)
        self.assertTrue(any("throughput{host=local}" in x for x in lines), out)
        self.assertTrue(any("-> 9.080 (+0.0 %)" in x for x in lines), out)
        self.assertIn("reproduce: cd %s && ksft-vm-ab -o out %s" % (self.work, self.a),
                      out.replace(" \\\n ", ""))
        for k in range(1, 6):
            for v in "ab":
                self.assertTrue(os.path.isfile(os.path.join(self.work, "out", "%s-s%d.log" % (v, k))))
        self.assertEqual(os.listdir(self.tmpdir), [])

    def test_seeds(self):
        """--seeds 3: three boots a kernel under ksft-vm --seed 1..3, all
        judged (issue 42); --seeds 1: one unseeded boot, as before."""
        argv = ["-o", "out", "--seeds", "3", self.a, self.b, "--add", "s.sh", "--", "./s.sh"]
        spec = {"vmlinuz-" + REL_A: {"out_file": self.log_a},
                "vmlinuz-" + REL_B: {"out_file": self.log_b}}
        rc, out, err = run(AB, argv, spec, cwd=self.work, TMPDIR=self.tmpdir, KSFT_VM_VERBOSE="1")
        self.assertEqual(rc, 0, err + out)
        self.assertIn("3 layout seeds a kernel", out.replace("\n", " "))
        o = os.path.join(self.work, "out")
        self.assertEqual(sorted(n for n in os.listdir(o) if n.endswith(".err")),
                         ["a-s1.err", "a-s2.err", "a-s3.err", "b-s1.err", "b-s2.err", "b-s3.err"])
        for k in (1, 2, 3):
            with open(os.path.join(o, "b-s%d.err" % k)) as f:
                self.assertRegex(f.read(), r"ksftm\.seed=%d ksftm\.seed_spin=\d+" % k)
        shutil.rmtree(o)
        argv[3] = "1"
        rc, out, err = run(AB, argv, spec, cwd=self.work, TMPDIR=self.tmpdir, KSFT_VM_VERBOSE="1")
        self.assertEqual(rc, 0, err + out)
        self.assertIn("1 boot a kernel (no layout seeds)", out.replace("\n", " "))
        self.assertEqual(sorted(os.listdir(o)), ["a.err", "a.json", "a.log", "b.err", "b.log"])
        with open(os.path.join(o, "b.err")) as f:
            self.assertNotIn("ksftm.seed", f.read())

    def test_crash_under_b_is_not_ok(self):
        """The same log under B but a segfault (139): exit 2, said (item 4)."""
        rc, out, err = self.ab({}, {"rc": 139, "err": "Segmentation fault\n"})
        self.assertEqual(rc, 2, err)
        self.assertIn("under B", err)
        self.assertIn("COMMAND exited 139", err)
        self.assertIn("Segmentation fault", err)

    def test_failed_guest_shows_its_stderr(self):
        """ksft-vm failed under A: its stderr shown, exit 2 (item 7)."""
        rc, out, err = self.ab({"no_result": True, "console": "Kernel panic - not syncing\n"}, {})
        self.assertEqual(rc, 2, err)
        self.assertIn("under A", err)
        self.assertIn("Kernel panic - not syncing", err)

    def profile_specs(self):
        """Each kernel's stand-in guest with a plugin dump of two case
        windows, the symbols, and two '# profile-work:' lines (fixed
        work: 1000 bytes a case on both)."""
        kallsyms = ("ffffffff81001000 T copy_user_generic_string\n"
                    "ffffffff81002000 t nf_hook_slow\n"
                    "ffffffffc0001000 t nft_do_chain\t[nf_tables]\n")

        def dump(extra):
            case = ["ffffffff81001000 10 1000", "ffffffff81002000 2 10"] + extra
            lines = ["ksft-profile 1", "mode block", "markers nested=0 stray=0 open=0",
                     "window whole"] + case + ["window case 1"] + case + \
                ["window case 2"] + case + ["end"]
            return "\n".join(lines) + "\n"

        specs = []
        for log, extra, work in ((self.log_a, [], 1000),
                                 (self.log_b, ["ffffffff81002000 2 110",
                                               "ffffffffc0001000 6 100"], 1000)):
            with open(log) as f:
                text = f.read()
            text = re.sub(r"(?m)^(# iperf3.*\n)", r"# profile-work: %d byte\n\1" % work, text)
            with open(log, "w") as f:
                f.write(text)
            specs.append({"profile_dump": dump(extra), "kallsyms": kallsyms})
        return specs

    def test_profile(self):
        plugin = os.path.join(os.path.dirname(AB), "plugin", "ksft_profile.so")
        if not os.path.isfile(plugin):
            self.skipTest("the profile plugin is not built (x86 only)")
        spec_a, spec_b = self.profile_specs()
        argv = ["-o", "out", "--seeds", "2", "--profile", self.a, self.b, "--add", "s.sh",
                "--", "./s.sh"]
        rc, out, err = self.ab(spec_a, spec_b, argv)
        self.assertEqual(rc, 0, err + out)
        o = os.path.join(self.work, "out")
        for v in "ab":
            for k in (1, 2):
                self.assertTrue(os.path.isfile(os.path.join(o, "%s-s%d.prof.case2" % (v, k))))
        with open(os.path.join(o, "b.prof")) as f:
            summed = f.read()
        self.assertIn("desc: work: 4000 byte\n", summed)      # 2 seeds x 2 cases x 1000
        self.assertIn("fl=[nf_tables]\nfn=nft_do_chain\n0 2400\n", summed)
        lines = out.splitlines()
        self.assertTrue(all(len(x) <= 72 for x in lines), out)
        # The diff's lines as profile-diff prints them, before the command.
        want = subprocess.run([METRIC, "profile-diff", "--format", "reply",
                               os.path.join(o, "a.prof"), os.path.join(o, "b.prof")],
                              stdout=subprocess.PIPE, check=True).stdout.decode().splitlines()
        at = lines.index(want[0])
        self.assertEqual(lines[at:at + len(want)], want)
        self.assertEqual(lines[at + len(want)], "")
        self.assertTrue(lines[at + len(want) + 1].startswith("reproduce:"), out)
        self.assertLess(next(i for i, l in enumerate(lines) if "throughput" in l), at)
        with open(GOLDEN) as f:
            self.assertEqual("\n".join(want) + "\n", f.read())
        self.assertIn("profiles in %s" % os.path.join(o, "a.prof"), err)

    def test_profile_text(self):
        """--format text --seeds 1: compare's table, then the whole diff
        of the one boot a kernel (ksft-vm's own a.prof, not a sum)."""
        plugin = os.path.join(os.path.dirname(AB), "plugin", "ksft_profile.so")
        if not os.path.isfile(plugin):
            self.skipTest("the profile plugin is not built (x86 only)")
        spec_a, spec_b = self.profile_specs()
        rc, out, err = self.ab(spec_a, spec_b, ["-o", "out", "--format", "text", "--seeds", "1",
                                                "--profile", self.a, self.b, "--", "./s.sh"])
        self.assertEqual(rc, 0, err + out)
        self.assertLess(out.index("VERDICT"), out.index("Ir: A "))
        self.assertIn("per byte\ntotal: A 10.02, B 10.84, change +0.82 (+8.18 %)", out)
        self.assertIn("Top 2 functions by change", out)
        with open(os.path.join(self.work, "out", "a.prof")) as f:
            self.assertIn("desc: work: 2000 byte", f.read())   # ksft-vm's: 2 cases x 1000

    def test_profile_among_ksft_vm_options(self):
        """--profile after the images would make both kernels' boots write
        one file: refused, saying where it goes."""
        rc, out, err = self.ab({}, {}, [self.a, self.b, "--profile", "x.prof", "--", "./s.sh"])
        self.assertEqual(rc, 2, err)
        self.assertIn("--profile goes before IMAGE_A IMAGE_B", err)

    def test_text_format(self):
        rc, out, err = self.ab({}, {}, ["--format", "text", "-o", "out", self.a, self.b,
                                        "--", "./s.sh"])
        self.assertEqual(rc, 0, err)
        self.assertIn("VERDICT", out)


if __name__ == "__main__":
    AB = os.path.abspath(sys.argv.pop(1))
    FIXTURE = os.path.abspath(sys.argv.pop(1))
    METRIC = os.path.abspath(sys.argv.pop(1))
    GOLDEN = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
