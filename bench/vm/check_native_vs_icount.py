#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The arithmetic of bench/vm/native_vs_icount.py's table (no root, no
QEMU): the bootstrap interval, the per-seed changes, the seed spread, the
reading of a dose, and that the guest runs record_interference.py's own
namespace commands and the dose lines the native side runs."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import native_vs_icount as nv  # noqa: E402


class ChangeCi(unittest.TestCase):
    def test_constant_sides(self):
        # No spread on either side: the interval is the change itself.
        c, lo, hi = nv.change_ci([2.0] * 5, [3.0] * 7, resamples=200)
        self.assertAlmostEqual(c, 0.5)
        self.assertAlmostEqual(lo, 0.5)
        self.assertAlmostEqual(hi, 0.5)

    def test_interval_holds_the_change_and_repeats(self):
        a = [1.0, 1.2, 0.9, 1.1, 1.05, 0.95, 1.0, 1.1]
        b = [x * 1.2 for x in a]
        c, lo, hi = nv.change_ci(a, b, resamples=2000)
        self.assertAlmostEqual(c, 0.2)
        self.assertLess(lo, c)
        self.assertGreater(hi, c)
        self.assertGreater(lo, 0.0)	# a 20 % shift of these values is resolved
        self.assertEqual((c, lo, hi), nv.change_ci(a, b, resamples=2000))

    def test_overlapping_sides_are_unresolved(self):
        a = [1.0, 2.0, 3.0, 1.5, 2.5, 2.0]
        b = [1.1, 1.9, 3.1, 1.4, 2.6, 2.1]
        _, lo, hi = nv.change_ci(a, b, resamples=2000)
        self.assertLess(lo, 0.0)
        self.assertGreater(hi, 0.0)

    def test_bad_input(self):
        self.assertRaises(ValueError, nv.change_ci, [1.0], [1.0, 2.0])
        self.assertRaises(ValueError, nv.change_ci, [0.0, 0.0], [1.0, 2.0])


class Guest(unittest.TestCase):
    def test_seed_changes_pair_seeds(self):
        ch = nv.seed_changes({1: 1.0, 2: 2.0, 3: 4.0}, {2: 2.2, 1: 0.9, 5: 7.0})
        self.assertEqual(len(ch), 2)	# seed 5 has no unchanged boot
        self.assertAlmostEqual(ch[0], -0.1)
        self.assertAlmostEqual(ch[1], 0.1)

    def test_spread(self):
        self.assertAlmostEqual(nv.spread([1.0, 2.0, 3.0]), 1.0)
        self.assertEqual(nv.spread([5.0, 5.0]), 0.0)


class Reading(unittest.TestCase):
    def test_cases(self):
        up, down, none = (0.1, 0.01, 0.2), (-0.1, -0.2, -0.01), (0.01, -0.02, 0.03)
        self.assertEqual(nv.reading([0.05, 0.06], 0.01, up), "hit")
        self.assertEqual(nv.reading([-0.05, -0.06], 0.01, down), "hit")
        self.assertEqual(nv.reading([-0.05, -0.06], 0.01, up), "MISS (sign)")
        # within the unchanged seeds' own spread, or seeds disagreeing: unseen
        self.assertEqual(nv.reading([0.005, 0.008], 0.01, up), "MISS (icount sees none)")
        self.assertEqual(nv.reading([0.05, -0.05], 0.01, up), "MISS (icount sees none)")
        self.assertEqual(nv.reading([0.05, 0.06], 0.01, none), "icount only")
        self.assertEqual(nv.reading([0.001], 0.01, none), "neither")
        self.assertEqual(nv.reading([], 0.01, up), "MISS (icount sees none)")

    def test_ratio(self):
        self.assertAlmostEqual(nv.ratio(0.1, 0.2), 0.5)
        self.assertNotEqual(nv.ratio(0.1, 0.0), nv.ratio(0.1, 0.0))	# NaN


class Commands(unittest.TestCase):
    def test_guest_runs_record_interference_namespaces(self):
        ns, made = nv.netns_commands("g")
        script = nv.guest_script("nft3")
        for argv in made:
            self.assertIn(" ".join(argv), script)
        self.assertEqual(made[0], ["ip", "netns", "add", ns.a])
        self.assertIs(nv.ri.sh.__name__, "sh")	# restored after recording

    def test_dose_lines(self):
        ns = nv.ri.Netns("t")
        self.assertEqual(sum("add rule" in l for l in nv.dose_lines("nft120", ns)), 120)
        self.assertEqual(sum(l.startswith("filter add dev ty")
                             for l in nv.dose_lines("tc1000", ns)), 1000)
        self.assertEqual(nv.dose_lines("none", ns), [])
        for d in nv.DOSES:
            self.assertTrue(nv.dose_lines(d, ns), d)
        self.assertRaises(ValueError, nv.dose_lines, "nft", ns)
        self.assertRaises(ValueError, nv.dose_lines, "bogus", ns)


if __name__ == "__main__":
    unittest.main()
