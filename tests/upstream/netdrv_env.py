#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The reference's drivers/net/hw flows, as written, on the kernel's own
NetDrvEpEnv (tools/testing/selftests/drivers/net/lib/py from
linux-source-6.12) with our producers: the cfg is the kernel's object,
unchanged, and its remote is the kernel's remote_netns.Remote.

This test builds two network namespaces joined by a veth pair (addresses
of their own), writes the net.config NetDrvEpEnv reads (NETIF, LOCAL_V4,
REMOTE_V4, REMOTE_TYPE=netns, REMOTE_ARGS), and runs, inside the first
namespace under the kernel's real ksft_run() (wired by ksftmetric.ksft_wiring):
iperf.py's test_iperf (SystemMonitor + Iperf3Runner, real iperf3) and
devmem.py's kperf flow (KperfRunner + SystemMonitor, the kperf stand-in:
Debian ships no kperf). The KTAP output must carry both hosts' samples,
the throughput on the receiving host and kperf's numbers, and our
consumer must read it.

usage: netdrv_env.py TREE KSFT_METRIC STANDIN_DIR FIXTURES_DIR
       (root, ip and iperf3, else 77)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ADDR_A, ADDR_B = "198.19.7.1", "198.19.7.2"
HERE = os.path.dirname(os.path.realpath(__file__))
# The namespace pair, shared with tests/python (no package: by path).
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from netns_pair import netns_pair  # noqa: E402  pylint: disable=wrong-import-position


def inner(tree, confdir, standin, fixtures):
    """Inside namespace A: the kernel's harness around the reference flows."""
    selftests = os.path.join(tree, "tools", "testing", "selftests")
    sys.path.insert(0, HERE)
    sys.path.append(selftests)
    # Wire the binding into net/lib/py's ksft before drivers/net/lib/py
    # re-exports ksft_run from it.
    import net.lib.py.ksft  # pylint: disable=import-outside-toplevel
    from ksftmetric import ksft_wiring  # pylint: disable=import-outside-toplevel
    ksft_wiring.wire(net.lib.py.ksft)
    sys.path.insert(0, os.path.join(selftests, "drivers", "net"))
    from lib.py import NetDrvEpEnv, ksft_exit, ksft_run  # pylint: disable=import-outside-toplevel
    from ksftmetric.producers import (Iperf3Runner, KperfRunner,  # pylint: disable=import-outside-toplevel
                                      SystemMonitor)

    def test_iperf(cfg):
        """Measure TCP throughput while sampling system utilization."""
        with SystemMonitor(cfg):
            Iperf3Runner(cfg).measure_bandwidth()

    def check_kperf(cfg):
        """devmem.py's kperf flow, on the stand-in binaries."""
        kperf = KperfRunner(cfg, server=os.path.join(standin, "kperf-server"),
                            client=os.path.join(standin, "kperf-client"))
        with kperf:
            with SystemMonitor(cfg):
                kperf.run(client_args=["--time", "1"])

    os.environ["KSFTM_STANDIN_REPORT"] = os.path.join(fixtures, "kperf", "client-n2.txt")
    os.environ["KSFTM_STANDIN_CLIENT"] = "ok"
    with NetDrvEpEnv(os.path.join(confdir, "iperf.py"), nsim_test=False) as cfg:
        print(f"# cfg.remote: {type(cfg.remote).__module__}.{type(cfg.remote).__name__}",
              flush=True)
        ksft_run([test_iperf, check_kperf], args=(cfg,))
    ksft_exit()


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--inner":
        inner(*sys.argv[2:])
        return 0
    tree, ksft_metric, standin, fixtures = sys.argv[1:5]
    if os.geteuid() != 0 or not shutil.which("iperf3") or not shutil.which("ip"):
        print("SKIP: needs root, ip and iperf3")
        return 77
    with tempfile.TemporaryDirectory() as confdir:
        with netns_pair("nd", ADDR_A, ADDR_B) as (ns_a, ns_b, if_a, _):
            with open(os.path.join(confdir, "net.config"), "w", encoding="utf-8") as f:
                f.write(f"NETIF={if_a}\nLOCAL_V4={ADDR_A}\nREMOTE_V4={ADDR_B}\n"
                        f"REMOTE_TYPE=netns\nREMOTE_ARGS={ns_b}\n")
            run = subprocess.run(["ip", "netns", "exec", ns_a, sys.executable, __file__,
                                  "--inner", tree, confdir, standin, fixtures],
                                 capture_output=True, text=True, timeout=300, check=False)
        log = os.path.join(confdir, "run.ktap")
        with open(log, "w", encoding="utf-8") as f:
            f.write(run.stdout)
        rep = subprocess.run([ksft_metric, "report", "--format", "json", log], capture_output=True,
                             text=True, check=False)
    print(run.stdout)
    errors = []

    def check(cond, what):
        if not cond:
            errors.append(what)

    check(run.returncode == 0, f"the kernel harness exited {run.returncode}:\n{run.stderr}")
    check(re.search(r"^# cfg\.remote: \S*remote_netns\.Remote$", run.stdout, re.M),
          "cfg.remote is not the kernel's remote_netns.Remote")
    results = re.findall(r"^(ok|not ok) \d+ \S*?(test_iperf|check_kperf)\b", run.stdout, re.M)
    check(results == [("ok", "test_iperf"), ("ok", "check_kperf")], f"results {results}")
    cases, obs = {}, []
    for line in run.stdout.splitlines():
        m = re.match(r"^# ktap-metric-json: (\{.*\})$", line)
        if m:
            obs.append(json.loads(m.group(1)))
        elif re.match(r"^(ok|not ok) \d+ ", line):
            cases[line.split()[-1] if line.startswith("ok") else line] = obs
            obs = []
    iperf = next((v for k, v in cases.items() if k.endswith("test_iperf")), [])
    kperf = next((v for k, v in cases.items() if k.endswith("check_kperf")), [])
    for name, case in (("test_iperf", iperf), ("check_kperf", kperf)):
        for host in ("local", "remote"):
            util = [o for o in case if o["name"] == "cpu.utilization" and o["host"] == host]
            check(len(util) >= 1, f"{name}: {len(util)} {host} cpu.utilization samples")
    tput = [o for o in iperf if o["name"] == "throughput"]
    check(tput and all(o["host"] == "local" and o["value"] > 0.01 for o in tput),
          f"test_iperf: throughput on the receiver (local): {tput}")
    ktput = sorted(o["host"] for o in kperf if o["name"] == "throughput")
    check(ktput == ["local", "remote"], f"check_kperf: throughput hosts {ktput}")
    check(rep.returncode == 0, f"ksft-metric report exited {rep.returncode}: {rep.stderr}")
    if rep.returncode == 0:
        check('"throughput"' in rep.stdout, "the report has no throughput series")
    for e in errors:
        print("FAIL:", e)
    print("FAIL" if errors else "ok", "reference flows on the kernel's NetDrvEpEnv")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
