#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Importing the binding for recording loads the producer library only:
a selftest process never maps the report engine; ksftmetric.report does."""

import subprocess
import sys
import unittest


class ImportTest(unittest.TestCase):
    def test_producer_only(self):
        code = ("import ksftmetric\n"
                "maps = open('/proc/self/maps').read()\n"
                "print('producer' if 'libksftmetric.so' in maps else '-')\n"
                "print('report' if 'libksftmetric-report' in maps else '-')\n")
        out = subprocess.run([sys.executable, "-c", code], check=True,
                             capture_output=True, text=True).stdout.split()
        self.assertEqual(out, ["producer", "-"])

    def test_report_loads_it(self):
        """The same check sees the report engine once asked for."""
        code = ("import ksftmetric.report\n"
                "maps = open('/proc/self/maps').read()\n"
                "print('report' if 'libksftmetric-report' in maps else '-')\n")
        out = subprocess.run([sys.executable, "-c", code], check=True,
                             capture_output=True, text=True).stdout.split()
        self.assertEqual(out, ["report"])


if __name__ == "__main__":
    unittest.main()
