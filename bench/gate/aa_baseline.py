#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""False alarms of `compare --baseline` on A/A pairs: unchanged main-job
runs (iperf-selftest logs) compared pairwise, each earlier run saved as the
baseline and each later one compared with it, as the README's first
comparison does. Prints, per --alpha, the pairs that alarmed (any
REGRESSION or IMPROVEMENT of a tracked series; REGRESSION: exit 1) and
the tracked rows that did, with Clopper-Pearson 95 % intervals. The pairs
share runs, so they are not independent: the intervals are a guide.

usage: bench/gate/aa_baseline.py KSFT_METRIC LOG... [--alpha A ...]
(a LOG may be .xz: bench/corpus/main-job-aa-2026-12-03/)
"""

import json
import lzma
import math
import os
import subprocess
import sys
import tempfile


def binom_cdf(k, n, p):
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


def clopper_pearson(k, n, conf=0.95):
    """The exact two-sided interval of a binomial proportion k/n."""
    a = (1 - conf) / 2

    def solve(f):
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) else (lo, mid)
        return (lo + hi) / 2
    lower = 0.0 if k == 0 else solve(lambda p: 1 - binom_cdf(k - 1, n, p) < a)
    upper = 1.0 if k == n else solve(lambda p: binom_cdf(k, n, p) > a)
    return lower, upper


def main():
    args = sys.argv[1:]
    alphas = []
    while "--alpha" in args:
        i = args.index("--alpha")
        alphas.append(args[i + 1])
        del args[i:i + 2]
    tool, logs = args[0], args[1:]
    alphas = alphas or ["0", "0.05"]
    tmp = tempfile.mkdtemp(prefix="aa-baseline-")
    plain = []
    for k, log in enumerate(logs):
        path = os.path.join(tmp, f"run{k}.log")
        opener = lzma.open if log.endswith(".xz") else open
        with opener(log, "rb") as f, open(path, "wb") as g:
            g.write(f.read())
        plain.append(path)
    bases = []
    for k, path in enumerate(plain):
        base = os.path.join(tmp, f"base{k}.json")
        subprocess.run([tool, "save", "-q", "-o", base, path], check=True,
                       capture_output=True)
        bases.append(base)
    pairs = [(i, j) for i in range(len(plain)) for j in range(i + 1, len(plain))]
    print(f"{len(plain)} runs, {len(pairs)} A/A pairs (baseline the earlier run)")
    print("alpha  pairs exit 1 (95% CI)        rows with repeats flagged (95% CI)"
          "   rows of single values flagged (95% CI)")
    for alpha in alphas:
        exit1 = 0
        flagged, tracked = [0, 0], [0, 0]      # [repeats on both sides, single values]
        for i, j in pairs:
            p = subprocess.run([tool, "compare", "--alpha", alpha, "--format", "json",
                                "--baseline", bases[i], plain[j]], capture_output=True,
                               text=True)
            if p.returncode not in (0, 1):
                sys.exit(f"compare failed ({p.returncode}): {p.stderr}")
            exit1 += p.returncode == 1
            for r in json.loads(p.stdout)["rows"]:
                if not r["better"] or r["verdict"] in ("missing", "new", "case_failed"):
                    continue
                single = r["n_baseline"] < 2 or r["n_current"] < 2
                tracked[single] += 1
                flagged[single] += r["verdict"] in ("regression", "improvement")
        lo, hi = clopper_pearson(exit1, len(pairs))
        line = f"{alpha:<6} {exit1:>2}/{len(pairs)} = {exit1 / len(pairs):5.1%} [{lo:5.1%}, {hi:5.1%}]"
        for k in (0, 1):
            rlo, rhi = clopper_pearson(flagged[k], tracked[k]) if tracked[k] else (0, 1)
            line += (f"   {flagged[k]:>3}/{tracked[k]:<3} = {flagged[k] / max(tracked[k], 1):6.2%}"
                     f" [{rlo:6.2%}, {rhi:6.2%}]")
        print(line)


if __name__ == "__main__":
    main()
