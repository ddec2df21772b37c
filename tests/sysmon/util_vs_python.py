#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cpu.utilization rounding: util_percent() must equal the reference's
round(100 * busy / total, 4) exactly, ties and large totals included."""
import subprocess
import sys


def main():
    out = subprocess.run([sys.argv[1]], check=True, capture_output=True,
                         text=True).stdout
    n = bad = 0
    for line in out.splitlines():
        b, t, v = line.split()
        want = round(100 * int(b) / int(t), 4)
        n += 1
        if float(v) != want:
            bad += 1
            if bad <= 10:
                print(f"busy {b} total {t}: got {v}, Python {want!r}")
    print(f"{n} values, {bad} differ")
    return 1 if bad or n < 100000 else 0


if __name__ == "__main__":
    sys.exit(main())
