#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The Python producers for real: SystemMonitor and Iperf3Runner from
ksftmetric.producers between two network namespaces this test creates
(veth pair, addresses of their own), real iperf3, real /proc. Their KTAP
output must hold the same kinds of lines as the C main job's: the same
policy lines, a throughput point per repeat, cpu.cost per endpoint and
repeat, both hosts' system monitor samples, the context line.

usage: test_producers_netns.py IPERF_SELFTEST   (root and iperf3, else 77)
"""
import json
import os
import re
import shutil
import subprocess
import sys

from netns_pair import netns_pair

REPEATS = 2
ADDR_A, ADDR_B = "198.18.0.1", "198.18.0.2"


def inner(ns_b, if_a, if_b):
    """Runs inside namespace A: the two cases, printed as KTAP."""
    import types  # pylint: disable=import-outside-toplevel
    from ksftmetric import (ksft_metric_case_begin, ksft_metric_case_end,
                            ksft_metric_context)
    from ksftmetric.producers import Iperf3Runner, SystemMonitor

    cfg = types.SimpleNamespace(remote=["ip", "netns", "exec", ns_b], addr=ADDR_A,
                                remote_addr=ADDR_B, ifname=if_a, remote_ifname=if_b)
    print("TAP version 13\n1..2")
    ksft_metric_context()
    for n, name in enumerate(("iperf.forward", "iperf.reverse"), 1):
        ksft_metric_case_begin()
        with SystemMonitor(cfg, interval=0.5) as mon:
            if mon.counters_missing:
                print(f"# cycles per byte: {mon.counters_missing}")
            gbps = Iperf3Runner(cfg).measure_bandwidth(
                reverse=n == 2, duration=3, interval=0.25, repeat=REPEATS)
        print(f"# iperf3: {gbps:.3f} Gbps")
        ksft_metric_case_end()
        print(f"ok {n} {name}", flush=True)


def cases_of(text):
    """{case: (policy JSON texts, observations)} and the other lines."""
    cases, pols, obs = {}, set(), []
    for line in text.splitlines():
        m = re.match(r"^# ktap-metric-(policy-)?json: (\{.*\})$", line)
        if m:
            (pols.add(m.group(2)) if m.group(1) else obs.append(json.loads(m.group(2))))
            continue
        r = re.match(r"^ok \d+ (\S+)$", line)
        if r:
            cases[r.group(1)] = (pols, obs)
            pols, obs = set(), []
    return cases


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--inner":
        inner(*sys.argv[2:])
        return 0
    if os.geteuid() != 0 or not shutil.which("iperf3") or not shutil.which("ip"):
        print("SKIP: needs root, ip and iperf3")
        return 77
    selftest = sys.argv[1]
    with netns_pair("py", ADDR_A, ADDR_B) as (ns_a, ns_b, if_a, if_b):
        py = subprocess.run(["ip", "netns", "exec", ns_a, sys.executable, __file__, "--inner",
                             ns_b, if_a, if_b], capture_output=True, text=True, timeout=200)
    errors = []
    print(py.stdout)
    if py.returncode != 0:
        print(py.stderr)
        print("FAIL: the Python producers' run failed")
        return 1
    c = subprocess.run([selftest, "--time", "3", "--repeat", str(REPEATS), "--interval",
                        "0.25", "--sample", "0.5"], capture_output=True, text=True,
                       timeout=200)
    if c.returncode != 0:
        print(c.stdout, c.stderr)
        print("FAIL: the C main job failed")
        return 1

    def check(cond, what):
        if not cond:
            errors.append(what)

    pyc, cc = cases_of(py.stdout), cases_of(c.stdout)
    check(list(pyc) == ["iperf.forward", "iperf.reverse"], f"cases {list(pyc)}")
    check(sum(l.startswith("# ktap-metric-context-json: {") for l in py.stdout.splitlines())
          == 1, "no context line")
    missing = [l for l in py.stdout.splitlines() if l.startswith("# cycles per byte: ")]
    for case in pyc:
        pols, obs = pyc[case]
        # The same metrics with the same policies, byte for byte, as the C job.
        # The C main job alone adds its throughput unit (net_policy.h's
        # ex_net_throughput_unit); the producers keep the kernel runners' bytes.
        cpols = {p.replace('{"display_label":"Gbps",', '{') for p in cc[case][0]}
        check(pols == cpols, f"{case}: policies differ from the C main job:\n"
              f"python only {sorted(pols - cpols)}\nC only {sorted(cpols - pols)}")
        receiver = "remote" if case.endswith("reverse") else "local"
        tput = [o for o in obs if o["name"] == "throughput"]
        check(len(tput) == REPEATS and all(o["host"] == receiver and o["value"] > 0.01
                                           for o in tput), f"{case}: throughput {tput}")
        for host in ("local", "remote"):
            cost = [o["value"] for o in obs if o["name"] == "cpu.cost" and o["host"] == host]
            check(len(cost) == REPEATS and all(0.001 < v < 1000 for v in cost),
                  f"{case}: {host} cpu.cost {cost}")
            util = [o for o in obs if o["name"] == "cpu.utilization" and o["host"] == host]
            check(len(util) >= 4, f"{case}: {len(util)} {host} cpu.utilization samples")
            drops = [o["value"] for o in obs if o["name"] == "nic.tx.dropped"
                     and o["host"] == host]
            check(drops[:1] == [0], f"{case}: {host} nic.tx.dropped {drops}")
        cyc = [o for o in obs if o["name"] == "cpu.cycles_per_byte"]
        check(len(cyc) == (0 if missing else REPEATS), f"{case}: cycles {cyc} / {missing}")
        kinds = sorted({(o["name"], o["host"]) for o in obs})
        ckinds = sorted({(o["name"], o["host"]) for o in cc[case][1]})
        check(kinds == ckinds, f"{case}: series differ from the C main job: {kinds} vs {ckinds}")
    for e in errors:
        print("FAIL:", e)
    print("FAIL" if errors else "ok", "python producers between namespaces")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
