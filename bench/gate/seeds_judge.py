#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judging N seeds against pooling their repeats (issue 42), on simulated
ksft-vm boots through the real CLI (`save` and `compare --baseline`). A
UDP round trip lands, per boot, in one of two modes (17.5 or 34 virtual
us, each seed's mode drawn at random; "shared": B's boot of a seed lands in
A's mode, "own": drawn again), its 5 repeats within 0.3 % of the mode. B
is A unchanged, or slower by 10 % (the 5 % policy's tolerance is between).
Each trial is judged twice: with the logs' seeds (one value a boot) and
without (every repeat of every boot pooled: what compare did before).
Prints, per seeds a side and model, the trials flagged REGRESSION (false
alarms when unchanged, detections when +10 %) with Clopper-Pearson 95 %
intervals. Deterministic (random.Random(SEED)).

usage: bench/gate/seeds_judge.py KSFT_METRIC [TRIALS]
"""

import json
import math
import os
import random
import subprocess
import sys
import tempfile

KSFT = os.path.abspath(sys.argv[1])
TRIALS = int(sys.argv[2]) if len(sys.argv) > 2 else 40
SEED = 20261207
POLICY = ('# ktap-metric-policy-json: {"name":"rtt","regression":{"better":"lower",'
          '"compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}')


def clopper_pearson(k, n, conf=0.95):
    def cdf(k, n, p):
        return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))

    def solve(f):
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) else (lo, mid)
        return lo
    a = (1 - conf) / 2
    lo = 0.0 if k == 0 else solve(lambda p: 1 - cdf(k - 1, n, p) < a)
    hi = 1.0 if k == n else solve(lambda p: cdf(k, n, p) > a)
    return lo, hi


def boot_log(path, seed, level, rng):
    lines = ["KTAP version 1", "1..1"]
    if seed is not None:
        lines.append('# ktap-metric-context-json: {"clock":"icount","seed":"%d"}' % seed)
    lines.append(POLICY)
    lines += ['# ktap-metric-json: {"name":"rtt","shape":"scalar","time":%d,"value":%r}'
              % (t + 1, level * (1 + rng.uniform(-0.003, 0.003))) for t in range(5)]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines + ["ok 1 udp_rr"]) + "\n")
    return path


def verdict(tmp, a_logs, b_logs):
    base = os.path.join(tmp, "a.json")
    subprocess.run([KSFT, "save", "-q", "-o", base, *a_logs], check=True,
                   capture_output=True)
    p = subprocess.run([KSFT, "compare", "-f", "json", "--baseline", base, *b_logs],
                       capture_output=True, text=True)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)["rows"][0]["verdict"]


def main():
    rng = random.Random(SEED)
    print(f"{TRIALS} trials a cell; 5 repeats a boot; modes 17.5 / 34; tolerance 5 %")
    print(f"{'seeds':>5} {'modes':>6} {'B':>6}  {'judged by seed':>28}  {'repeats pooled':>28}")
    with tempfile.TemporaryDirectory(prefix="seeds-judge-") as tmp:
        for n in (5, 10):
            for shared in (True, False):
                for shift in (0.0, 0.10):
                    flagged = {"seed": 0, "pooled": 0}
                    for _ in range(TRIALS):
                        modes_a = [rng.choice((17.5, 34.0)) for _ in range(n)]
                        modes_b = modes_a if shared else [rng.choice((17.5, 34.0))
                                                          for _ in range(n)]
                        for kind in ("seed", "pooled"):
                            seeded = kind == "seed"
                            a = [boot_log(os.path.join(tmp, f"a{s}.log"),
                                          s if seeded else None, modes_a[s], rng)
                                 for s in range(n)]
                            b = [boot_log(os.path.join(tmp, f"b{s}.log"),
                                          s if seeded else None,
                                          modes_b[s] * (1 + shift), rng) for s in range(n)]
                            flagged[kind] += verdict(tmp, a, b) == "regression"
                    cells = []
                    for kind in ("seed", "pooled"):
                        k = flagged[kind]
                        lo, hi = clopper_pearson(k, TRIALS)
                        cells.append(f"{k:>3}/{TRIALS} [{100 * lo:5.1f}%, {100 * hi:5.1f}%]")
                    print(f"{n:>5} {'shared' if shared else 'own':>6} "
                          f"{'+10%' if shift else 'A':>6}  {cells[0]:>28}  {cells[1]:>28}")


if __name__ == "__main__":
    main()
