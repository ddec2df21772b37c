#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Scaling of every ksft-metric command: wall time, CPU time (user +
system) and peak RSS of each command run as a child (wait4's ru_maxrss) on
generated logs of 20,000 and 200,000 cases and on wide / ragged per-cpu
arrays, beside baselines measured in the same run: a bare Python loop that
json.loads every metric line of the log (ratio = command CPU / loop CPU;
issue 25's goal for report: <= 0.25), `cat FILE > /dev/null`, and the file
size for memory (ratio = peak RSS / log size; goal <= 1). After the table:
compare and html against report (goal <= 1.5x in time and memory) and the
growth from the small to the big case log (linear: about 10x). Prints
medians of REPS runs and the load; never passes or fails.

usage: bench_cli.py KSFT_METRIC PEAK_RSS [--reps N] [--quick]
       (PEAK_RSS: build/bench/peak-rss, which forks and measures each run)
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile


PEAK_RSS = None


def gen_cases(path, n):
    """n cases of run_kselftest-style nesting, two scalar series each."""
    rnd = random.Random(n)
    with open(path, "w") as f:
        f.write("TAP version 13\n1..1\n# selftests: net: bench.py\n"
                f"# TAP version 13\n# 1..{n}\n")
        for i in range(1, n + 1):
            f.write('# # ktap-metric-json: {"host":"local","name":"throughput",'
                    f'"shape":"scalar","time":{i / 1000:.6f},'
                    f'"value":{rnd.random() * 100!r}}}\n'
                    '# # ktap-metric-json: {"name":"lat.%d","shape":"scalar",'
                    '"time":%.6f,"value":%r}\n# ok %d bench.case_%d\n'
                    % (i % 100, i / 1000, rnd.random(), i, i))
        f.write("ok 1 selftests: net: bench.py\n")


def gen_wide(path, points, width, ragged):
    """One per-cpu series: every point `width` wide, or (ragged) only the
    first, the rest 4 wide: the shape that was points x width."""
    with open(path, "w") as f:
        f.write("TAP version 13\n1..1\n")
        f.write('# ktap-metric-policy-json: {"aggregation":"busy-core-equivalents",'
                '"name":"cpu","summarize":"p90","transform":"rate"}\n')
        for t in range(points):
            w = width if (t == 0 or not ragged) else 4
            vals = ",".join(str(t * 10 + (j % 7)) for j in range(w))
            f.write('# ktap-metric-json: {"name":"cpu","shape":"per-cpu",'
                    f'"time":{t * 0.1:.6f},"value":[{vals}]}}\n')
        f.write("ok 1 wide\n")


# The baseline of issue 25: a bare Python loop that json.loads the payload
# of every metric line (no model, no output), run as a child like the tool.
PY_LOADS = """
import json, sys
tag = b"ktap-metric-json: "
with open(sys.argv[1], "rb") as f:
    for line in f:
        i = line.find(tag)
        if i >= 0:
            json.loads(line[i + len(tag):])
"""


def run(argv):
    """(seconds, peak RSS bytes, rc, CPU seconds) of one child, through peak-rss."""
    p = subprocess.run([PEAK_RSS, *argv], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, check=True)
    secs, kb, rc, cpu = p.stdout.split()[-4:]
    return float(secs), int(kb) * 1024, int(rc), float(cpu)


def measure(argv, reps):
    """(median wall, max peak RSS, exit codes, median CPU) of REPS runs."""
    runs = [run(argv) for _ in range(reps)]
    rcs = {r[2] for r in runs}
    return (statistics.median(r[0] for r in runs),
            max(r[1] for r in runs), rcs,
            statistics.median(r[3] for r in runs))


def py_loads(path, reps):
    """The json.loads loop over @path: (median wall, median CPU)."""
    t, _, _, cpu = measure([sys.executable, "-c", PY_LOADS, path], reps)
    return t, cpu


def load_text():
    return "load %.1f %.1f %.1f on %d CPUs" % (*os.getloadavg(), os.cpu_count())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ksft")
    ap.add_argument("peak_rss")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--quick", action="store_true",
                    help="2k/20k cases and smaller arrays")
    a = ap.parse_args()
    global PEAK_RSS
    PEAK_RSS = os.path.abspath(a.peak_rss)
    tmp = tempfile.mkdtemp(prefix="bench-cli-")
    small, big = (2000, 20000) if a.quick else (20000, 200000)
    logs = [
        (f"{small // 1000}k cases", "cases", small),
        (f"{big // 1000}k cases", "cases", big),
        ("per-cpu 256 x 4000 pts", "wide", (4000, 256, False)),
        ("ragged 20000 + 4 x 20000", "wide", (20000, 20000, True)),
    ]
    seen = {}
    try:
        print(load_text())
        print(f"{'log':26} {'command':22} {'time':>8} {'CPU':>7} {'py CPU':>7}"
              f" {'CPU/py':>6} {'cat':>7} {'/cat':>5}"
              f" {'peak RSS':>9} {'log':>8} {'RSS/log':>7}")
        for title, kind, arg in logs:
            path = os.path.join(tmp, title.replace(" ", "_") + ".log")
            if kind == "cases":
                gen_cases(path, arg)
            else:
                gen_wide(path, *arg)
            size = os.path.getsize(path)
            base = os.path.join(tmp, "base.json")
            subprocess.run([a.ksft, "save", "-q", "-o", base, path],
                           check=True, capture_output=True)
            cat_t = statistics.median(
                run(["sh", "-c", 'cat "$1" > /dev/null', "sh", path])[0]
                for _ in range(a.reps))
            py_t, py_cpu = py_loads(path, a.reps)
            print(f"{title:26} {'python json.loads loop':22} {py_t * 1000:7.0f}ms"
                  f" {py_cpu * 1000:6.0f}ms", flush=True)
            cmds = [
                ("report", ["report", "-q", "-o", "/dev/null", path]),
                ("report -f json", ["report", "-q", "-f", "json", "-o", "/dev/null", path]),
                ("report -f openmetrics", ["report", "-q", "-f", "openmetrics",
                                           "-o", "/dev/null", path]),
                ("save", ["save", "-q", "-o", os.path.join(tmp, "s.json"), path]),
                ("compare", ["compare", "-q", "--baseline", base, "-o",
                             "/dev/null", path]),
                ("plot", ["plot", "-q", "-o", os.path.join(tmp, "p.svg"), path]),
                ("html", ["html", "-q", "-o", os.path.join(tmp, "p.html"), path]),
                ("html --baseline", ["html", "-q", "--baseline", base, "-o",
                                     os.path.join(tmp, "p.html"), path]),
            ]
            for name, args in cmds:
                t, rss, rcs, cpu = measure([a.ksft, *args], a.reps)
                seen[(kind, arg, name)] = (t, rss, cpu)
                bad = "" if rcs <= {0, 1} else f"  rc {sorted(rcs)}"
                print(f"{title:26} {name:22} {t * 1000:7.0f}ms {cpu * 1000:6.0f}ms"
                      f" {py_cpu * 1000:6.0f}ms {cpu / py_cpu:6.2f}"
                      f" {cat_t * 1000:5.1f}ms {t / cat_t:5.0f}"
                      f" {rss / 2**20:7.1f}MB {size / 2**20:6.1f}MB"
                      f" {rss / size:7.2f}{bad}", flush=True)
        print(load_text())
        for n in (small, big):
            rep_ = seen[("cases", n, "report")]
            for name in ("compare", "html --baseline"):
                o = seen[("cases", n, name)]
                print(f"{n // 1000}k cases: {name} / report: CPU {o[2] / rep_[2]:.2f}x,"
                      f" wall {o[0] / rep_[0]:.2f}x, peak RSS {o[1] / rep_[1]:.2f}x"
                      " (goal <= 1.5x)")
        for name in ("report", "compare", "html --baseline"):
            s_, b_ = seen[("cases", small, name)], seen[("cases", big, name)]
            print(f"{name}: {small // 1000}k -> {big // 1000}k cases: CPU"
                  f" {b_[2] / s_[2]:.1f}x, peak RSS {b_[1] / s_[1]:.1f}x (linear: ~10x)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
