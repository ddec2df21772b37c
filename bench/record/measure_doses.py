#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Doses we can account for (issue 21): extra receive-side work whose cost
the kernel measures, proportional to bytes, and what each CPU-cost metric
sees of it.

bench/record/dose/dose_tc.c, built once per level (clang -target bpf -DDOSE=N:
N spin iterations per KiB of each packet), is attached at the receiver's
veth ingress (tc clsact, direct action); kernel.bpf_stats_enabled=1 makes
the kernel count its run time. Each round runs every level once, in a
seeded random order (0 = no program). A run is one ``ksft-iperf3 run
--metrics --sysmon`` of R repeats, placed by --cpus; one JSON line per
repeat as bench/record/record_interference.py writes, plus the run's
"prog_ns" (the program's run time) and "bytes" (received, all repeats).

Then it prints per level: the measured change against level 0 and the CV
of throughput, the whole-host cost (cpu.cost) and the test's own cost
(cpu.cost.test); the program's own cost in CPU s/GB; and the recall: the
share of the program's nanoseconds that the test's cost saw.

Usage (root): bench/record/measure_doses.py --out FILE --rounds N
    [--levels 0 3 7 13 27] [--time S] [--repeat R] [--cpus 1/0]
    [--build DIR] [--seed S]
    bench/record/measure_doses.py --summary FILE
"""
import argparse
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("ri", os.path.join(HERE, "record_interference.py"))
ri = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ri)

BYTES = re.compile(r"^# iperf3: .* (\d+) bytes$", re.M)


def build(tmp, levels):
    objs = {}
    for lv in levels:
        if lv == 0:
            continue
        obj = os.path.join(tmp, f"dose{lv}.o")
        subprocess.run(["clang", "-O2", "-g", "-target", "bpf", "-I/usr/include/x86_64-linux-gnu",
                        f"-DDOSE={lv}", "-c", os.path.join(HERE, "dose", "dose_tc.c"), "-o",
                        obj], check=True)
        objs[lv] = obj
    stats = os.path.join(tmp, "prog_stats")
    subprocess.run(["cc", "-O2", "-o", stats, os.path.join(HERE, "dose", "prog_stats.c")],
                   check=True)
    return objs, stats


def attach(ns, obj):
    ri.sh("ip", "netns", "exec", ns.a, "tc", "qdisc", "del", "dev", ns.ifa, "clsact",
          check=False)
    if obj:
        ri.sh("ip", "netns", "exec", ns.a, "tc", "qdisc", "add", "dev", ns.ifa, "clsact")
        ri.sh("ip", "netns", "exec", ns.a, "tc", "filter", "add", "dev", ns.ifa, "ingress",
              "bpf", "da", "obj", obj, "sec", "tc")


def prog_ns(stats):
    """{id: run_time_ns} of the loaded dose programs."""
    out = ri.sh(stats, "dose").stdout.split()
    return {out[i]: int(out[i + 2]) for i in range(0, len(out), 4)}


def delta(p0, p1):
    """The run time of the programs loaded through the run (a detached one
    may linger until freed: not counted)."""
    return sum(p1[i] - p0[i] for i in p1 if i in p0)


def record(args):
    if os.geteuid():
        print("measure_doses: needs root")
        return 77
    seed, rng = ri.seeded("measure_doses", args.seed)
    old = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    with tempfile.TemporaryDirectory() as tmp:
        objs, stats = build(tmp, args.levels)
        with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
            f.write("1")
        try:
            with ri.Netns(f"kd{os.getpid()}") as ns, open(args.out, "a") as out:
                for rnd in range(args.rounds):
                    order = list(args.levels)
                    rng.shuffle(order)
                    for k, lv in enumerate(order):
                        attach(ns, objs.get(lv))
                        time.sleep(0.3)
                        p0 = prog_ns(stats)
                        try:
                            per, text = run(args, ns)
                        except (RuntimeError, subprocess.TimeoutExpired) as e:
                            out.write(json.dumps({"round": rnd, "dose": lv, "failed":
                                                  str(e)[:200], "t": time.time()}) + "\n")
                            continue
                        p1 = prog_ns(stats)
                        m = BYTES.search(text)
                        load1 = float(open("/proc/loadavg").read().split()[0])
                        for row in ri.rows(per, args.repeat):
                            row.update({"round": rnd, "order": k, "dose": lv,
                                        "cpus": args.cpus, "neighbours": 0, "load1": load1,
                                        "prog_ns": delta(p0, p1) if lv else 0,
                                        "bytes": int(m.group(1)) if m else None,
                                        "t": time.time(), "seed": seed})
                            out.write(json.dumps(row, sort_keys=True) + "\n")
                        out.flush()
                    print(f"round {rnd + 1}/{args.rounds} done", flush=True)
                attach(ns, None)
        finally:
            with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
                f.write(old)
    return 0


def run(args, ns):
    argv = [os.path.join(args.build, "examples/iperf3/ksft-iperf3"), "run", "--metrics",
            "--sysmon", "--time", str(args.time), "--interval", "0.25", "--repeat",
            str(args.repeat), "--cpus", args.cpus, "--server-addr", "198.18.0.1",
            "--remote", "ip", "netns", "exec", ns.b]
    r = subprocess.run(["ip", "netns", "exec", ns.a] + argv, capture_output=True, text=True,
                       timeout=60 + args.repeat * (args.time + 30))
    if r.returncode:
        raise RuntimeError(f"ksft-iperf3 exited {r.returncode}: {r.stdout[-300:]}")
    per = {}
    for line in r.stdout.splitlines():
        mm = ri.METRIC.match(line)
        if mm:
            o = json.loads(mm.group(1))
            per.setdefault((o["name"], o.get("host")), []).append(o["value"])
    return per, r.stdout


def cv(v):
    return statistics.stdev(v) / statistics.mean(v) if len(v) > 1 else float("nan")


def summary(path):
    rows = [json.loads(l) for l in open(path)]
    ok = [r for r in rows if "failed" not in r and r.get("cost_test")]
    levels = sorted({r["dose"] for r in ok})
    base = {m: statistics.mean(r[m] for r in ok if r["dose"] == 0)
            for m in ("gbps", "cost_host", "cost_test")}
    print(f"{len(ok)} repeats ({len(rows) - len(ok)} failed runs) from {path}")
    print("dose  n   throughput      host cost       test cost       prog    recall")
    print("/KiB      change  CV      change  CV      change  CV      s/GB")
    for lv in levels:
        sel = [r for r in ok if r["dose"] == lv]
        runs = {}
        for r in sel:
            runs.setdefault((r["round"], r["order"]), r)
        prog = [r["prog_ns"] / 1e9 / (r["bytes"] / 1e9) for r in runs.values()
                if r.get("bytes")]
        pc = statistics.mean(prog) if prog else 0.0
        cells = []
        for m in ("gbps", "cost_host", "cost_test"):
            v = [r[m] for r in sel]
            cells.append(f"{100 * (statistics.mean(v) / base[m] - 1):+6.1f}% {100 * cv(v):5.1f}%")
        d_test = statistics.mean(r["cost_test"] for r in sel) - base["cost_test"]
        recall = f"{d_test / pc:6.2f}" if pc > 0 else "     -"
        print(f"{lv:4g} {len(sel):3d}  " + "  ".join(cells) + f"  {pc:.4f}  {recall}")
    print(f"level 0: {base['gbps']:.2f} Gbit/s, host {base['cost_host']:.3f} CPU s/GB, "
          f"test {base['cost_test']:.3f} CPU s/GB")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out")
    ap.add_argument("--summary")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--levels", nargs="+", type=int, default=[0, 3, 7, 13, 27])
    ap.add_argument("--time", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cpus", default="1/0")
    ap.add_argument("--build", default="build")
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    if args.summary:
        summary(args.summary)
        return 0
    if not args.out:
        ap.error("--out or --summary")
    return record(args)


if __name__ == "__main__":
    sys.exit(main())
