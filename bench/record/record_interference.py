#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Record a time-ordered corpus of iperf3 runs between two namespaces with
the interference each repeat suffered beside it (issue 21).

Each round runs every configuration once, in a random order (seeded, the
seed is printed and stored): a controlled noisy neighbour of 0, 1 or 2
busy loops (unpinned, so it drifts as a real one does) times each
placement (--cpus). A run is one ``ksft-iperf3 run --metrics --sysmon``
with R repeats; every repeat becomes one JSON line:

  {"round", "order", "neighbours", "cpus", "dose", "repeat", "gbps",
   "cost_host" (busy CPU s/GB, whole host), "cost_test" (the test's own
   processes, CPU s/GB), "split_local", "split_remote", "runq_local",
   "runq_remote", "nivcsw_local", "nivcsw_remote", "steal", "others"
   (summed over the endpoints' CPU sets), "load1", "t", with --reference
   "ref" (CPU s of a fixed piece of work on the run's CPUs, before and
   after the run)}

``--dose CMD`` runs CMD (argv, split on whitespace) with the dose level
appended before a configuration with a nonzero dose, and with 0 after;
doses are given by ``--doses`` (default none: only 0). The machine is
shared: load1 (``/proc/loadavg``) is recorded with every repeat.

Usage (root): bench/record/record_interference.py --out FILE --rounds N
    [--time S] [--interval S] [--repeat R] [--cpus LIST...] [--neighbours LIST...]
    [--seed S] [--build DIR] [--doses D...] [--dose CMD] [--reference]
"""
import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import time

METRIC = re.compile(r"^# ktap-metric-json: (\{.*\})$")


def sh(*argv, check=True):
    return subprocess.run(argv, check=check, capture_output=True, text=True)


class Netns:
    def __init__(self, tag):
        self.a, self.b = f"{tag}a", f"{tag}b"
        self.ifa, self.ifb = f"{tag}x", f"{tag}y"

    def __enter__(self):
        sh("ip", "netns", "add", self.a)
        sh("ip", "netns", "add", self.b)
        sh("ip", "link", "add", self.ifa, "netns", self.a, "type", "veth", "peer", "name",
           self.ifb, "netns", self.b)
        sh("ip", "-n", self.a, "addr", "add", "198.18.0.1/24", "dev", self.ifa)
        sh("ip", "-n", self.b, "addr", "add", "198.18.0.2/24", "dev", self.ifb)
        for ns, ifn in ((self.a, self.ifa), (self.b, self.ifb)):
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "link", "set", ifn, "up")
        return self

    def __exit__(self, *exc):
        sh("ip", "netns", "del", self.a, check=False)
        sh("ip", "netns", "del", self.b, check=False)


def seeded(prog, seed):
    """The random order's seed (@seed, else a fresh one, printed so that
    the recording can be made again) and its generator."""
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 32)
    print(f"{prog}: seed {seed}", flush=True)
    return seed, random.Random(seed)


def neighbours(n):
    """n busy loops, unpinned; killed by the caller."""
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"],
                             start_new_session=True) for _ in range(n)]


def stop(procs):
    for p in procs:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


# A fixed piece of work (a 128 MB copy and an interpreter loop), timed in
# CPU seconds on one CPU: how fast this vCPU is right now. The VM's speed
# moves from run to run where no interference series sees it (issue 21);
# dividing a run's cost by this asks whether the run's cost moved with it.
REFERENCE = ("import time\nt = time.process_time()\nb = bytearray(16 << 20)\n"
             "for _ in range(8):\n    c = bytes(b)\ns = 0\n"
             "for i in range(300000):\n    s += i * i\n"
             "print(time.process_time() - t)\n")


def reference(cpus):
    """CPU seconds of REFERENCE on each CPU of placement @cpus, averaged."""
    ids = sorted({int(c) for part in cpus.split("/") for c in part.split(",") if c})
    secs = [float(sh("taskset", "-c", str(c), sys.executable, "-c", REFERENCE).stdout)
            for c in ids]
    return sum(secs) / len(secs)


def one_run(args, ns, cpus):
    argv = [os.path.join(args.build, "examples/iperf3/ksft-iperf3"), "run", "--metrics",
            "--sysmon", "--time", str(args.time), "--interval", str(args.interval), "--repeat",
            str(args.repeat), "--cpus", cpus, "--server-addr", "198.18.0.1",
            "--remote", "ip", "netns", "exec", ns.b]
    r = subprocess.run(["ip", "netns", "exec", ns.a] + argv, capture_output=True,
                       text=True, timeout=60 + args.repeat * (args.time + 30))
    if r.returncode:
        raise RuntimeError(f"ksft-iperf3 exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    per = {}
    for line in r.stdout.splitlines():
        m = METRIC.match(line)
        if not m:
            continue
        o = json.loads(m.group(1))
        per.setdefault((o["name"], o.get("host")), []).append(o["value"])
    return per


def rows(per, repeat):
    def get(name, host, i):
        v = per.get((name, host), [])
        return v[i] if i < len(v) else None

    for i in range(repeat):
        steal = [get("interference.steal", h, i) for h in ("both", "local", "remote")]
        others = [get("interference.others_cpu", h, i) for h in ("both", "local", "remote")]
        yield {
            "repeat": i,
            "gbps": get("throughput", "local", i),
            "cost_host": get("cpu.cost", "local", i),
            "cost_test": get("cpu.cost.test", "both", i),
            "split_local": get("cpu.cost.test.split", "local", i),
            "split_remote": get("cpu.cost.test.split", "remote", i),
            "runq_local": get("interference.runq_wait", "local", i),
            "runq_remote": get("interference.runq_wait", "remote", i),
            "nivcsw_local": get("interference.involuntary_switches", "local", i),
            "nivcsw_remote": get("interference.involuntary_switches", "remote", i),
            "steal": sum(v for v in steal if v is not None),
            "others": sum(v for v in others if v is not None),
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, required=True)
    ap.add_argument("--time", type=int, default=2)
    ap.add_argument("--interval", type=float, default=0.25,
                    help="iperf3 report interval (7 needed: 0.1 for --time 1)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cpus", nargs="+", default=["1/0", "0/0"])
    ap.add_argument("--neighbours", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--doses", nargs="+", type=float, default=[0])
    ap.add_argument("--dose", help="command setting a dose level (appended)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--reference", action="store_true",
                    help="time a fixed piece of work on the run's CPUs before and"
                    " after it (\"ref\", CPU s)")
    ap.add_argument("--build", default="build")
    ap.add_argument("--round-offset", type=int, default=0,
                    help="first round's number (appending to a corpus)")
    args = ap.parse_args()
    if os.geteuid():
        print("record_interference: needs root (network namespaces)")
        return 77
    seed, rng = seeded("record_interference", args.seed)
    configs = [(n, c, d) for n in args.neighbours for c in args.cpus for d in args.doses]
    with Netns(f"kr{os.getpid()}") as ns, open(args.out, "a", encoding="utf-8") as out:
        for rnd in range(args.rounds):
            order = configs[:]
            rng.shuffle(order)
            for k, (n, cpus, dose) in enumerate(order):
                if args.dose:
                    sh(*args.dose.split(), ns.a, ns.ifa, str(dose))
                ref = reference(cpus) if args.reference else None
                busy = neighbours(n)
                failed = None
                try:
                    time.sleep(0.2)
                    per = one_run(args, ns, cpus)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    # An overloaded machine can starve a run (too few
                    # intervals): kept as a failed run, not a crash.
                    failed = [l for l in str(e).splitlines() if l.startswith("# iperf3")][:1]
                    per = {}
                finally:
                    stop(busy)
                load1 = float(open("/proc/loadavg").read().split()[0])
                common = {"round": rnd + args.round_offset, "order": k, "neighbours": n,
                          "cpus": cpus, "dose": dose, "load1": load1, "t": time.time(),
                          "secs": args.time,
                          "seed": seed}
                if ref is not None:
                    common["ref"] = (ref + reference(cpus)) / 2
                if failed is not None:
                    out.write(json.dumps(dict(common, failed=failed[0] if failed else
                                              "ksft-iperf3 failed"), sort_keys=True) + "\n")
                for row in rows(per, args.repeat) if failed is None else ():
                    row.update(common)
                    out.write(json.dumps(row, sort_keys=True) + "\n")
                out.flush()
            print(f"round {rnd + 1}/{args.rounds} done", flush=True)
        if args.dose:
            sh(*args.dose.split(), ns.a, ns.ifa, "0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
