#!/usr/bin/env python3
"""Write a KTAP log with per-CPU utilization of N CPUs on two hosts, a
throughput and a latency with units, a series that stays 0 and a
single-point one: the fixture of the browser test (2 and 256 CPUs) and of
the html bench (--cases, --width for the big inputs).

usage: gen_cpus.py [--cpus N] [--samples N] [--gbps X] [--latency-us X]
                   [--cases N] [--seed N] > LOG
"""
import argparse
import json
import random
import sys


def line(obj):
    return "# ktap-metric-json: " + json.dumps(obj, separators=(",", ":")) + "\n"


def policy(obj):
    return "# ktap-metric-policy-json: " + json.dumps(obj, separators=(",", ":")) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cpus", type=int, default=8)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--gbps", type=float, default=30.0)
    ap.add_argument("--latency-us", type=float, default=100.0)
    ap.add_argument("--cases", type=int, default=0,
                    help="this many more cases of one small series each")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    out = sys.stdout
    out.write("KTAP version 1\n1..%d\n" % (2 + a.cases))
    out.write(policy({"name": "cpu.utilization", "aggregation": "busy-core-equivalents",
                      "summarize": "p90", "display_label": "Percent of one CPU",
                      "display_range": {"min": 0, "max": 100}}))
    out.write(policy({"name": "throughput", "summarize": "distribution",
                      "display_scale": 1e-9, "display_label": "Gbit/s",
                      "regression": {"compare": "p50", "better": "higher",
                                     "relative_tolerance": 0.05}}))
    out.write(policy({"name": "connect_time", "summarize": "last",
                      "display_scale": 1e-3, "display_label": "ms"}))
    for s in range(a.samples):
        t = round(0.5 * s, 3)
        for host in ("local", "remote"):
            # A few busy CPUs, the rest idle: a pattern one can see.
            v = [round(90 - (c % 7) * 3 + rnd.random(), 2) if c % 5 == s % 5
                 else round(rnd.random() * 4, 2) for c in range(a.cpus)]
            out.write(line({"name": "cpu.utilization", "shape": "per-cpu",
                            "host": host, "time": t, "value": v}))
        out.write(line({"name": "throughput", "shape": "scalar",
                        "host": "local", "time": t,
                        "value": a.gbps * 1e9 * (1 + 0.01 * rnd.random())}))
        out.write(line({"name": "nic.tx.dropped", "shape": "scalar",
                        "host": "local", "time": t, "value": 0}))
    out.write(line({"name": "connect_time", "shape": "scalar", "time": 0,
                    "value": 1234.5}))
    out.write("ok 1 cpus\n")
    out.write(policy({"name": "latency", "summarize": "p99", "display_scale": 1e-3,
                      "display_label": "us",
                      "regression": {"compare": "p50", "better": "lower",
                                     "relative_tolerance": 0.05}}))
    for s in range(a.samples):
        out.write(line({"name": "latency", "shape": "scalar", "time": 0.5 * s,
                        "value": a.latency_us * 1e3 * (1 + 0.02 * rnd.random())}))
    out.write("ok 2 latency\n")
    for i in range(a.cases):
        out.write(line({"name": "rate", "shape": "scalar", "time": 0, "value": i}))
        out.write(line({"name": "rate", "shape": "scalar", "time": 1, "value": i + 1}))
        out.write("ok %d case_%d\n" % (3 + i, i))


if __name__ == "__main__":
    main()
