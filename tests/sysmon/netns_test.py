#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-sysmon for real: two network namespaces joined by a veth pair, one
of them the "remote" endpoint through `ip netns exec`. The remote interface
has a hostile name (quote, $, parentheses) to prove the quoting.

Case 1 pushes iperf3 traffic, then makes tx_dropped rise on both sides by
transmitting while the peer is down, and checks the recorded deltas against
the kernel's own counters. Case 2 burns one CPU and checks that per-CPU
utilization and cpu.time.usr rise. Prints KTAP; skips (exit 77) only when
not root or when network namespaces are unavailable.

Usage: netns_test.py KSFT_SYSMON
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

EXE = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
TAG = f"ksftsm{os.getpid()}"
NS_A, NS_B = f"{TAG}a", f"{TAG}b"
IF_A, IF_B = "sm-a", "sm'b$(x)"
IP_A, IP_B = "10.199.7.1", "10.199.7.2"
DROPS_A, DROPS_B = 300, 200


def sh(*args, check=True, **kw):
    return subprocess.run(args, check=check, capture_output=True, text=True, **kw)


def counter(ns, ifname, name):
    return int(sh("ip", "netns", "exec", ns, "cat",
                  f"/sys/class/net/{ifname}/statistics/{name}").stdout)


def setup():
    sh("ip", "netns", "add", NS_A)
    sh("ip", "netns", "add", NS_B)
    sh("ip", "-n", NS_A, "link", "add", IF_A, "type", "veth", "peer", "name", IF_B,
       "netns", NS_B)
    for ns, ifname, addr in ((NS_A, IF_A, IP_A), (NS_B, IF_B, IP_B)):
        sh("ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", ifname)
        sh("ip", "-n", ns, "link", "set", "dev", ifname, "up")
        sh("ip", "-n", ns, "link", "set", "dev", "lo", "up")
    pin_neighbours()


def pin_neighbours():
    """Permanent neighbours: with the peer down, datagrams reach the veth and
    are dropped there (tx_dropped) instead of failing neighbour resolution.
    Taking a device down flushes them, so this runs again after that."""
    for ns, ifname, peer_ns, peer_if, peer_ip in ((NS_A, IF_A, NS_B, IF_B, IP_B),
                                                  (NS_B, IF_B, NS_A, IF_A, IP_A)):
        mac = sh("ip", "netns", "exec", peer_ns, "cat",
                 f"/sys/class/net/{peer_if}/address").stdout.strip()
        sh("ip", "-n", ns, "neigh", "replace", peer_ip, "lladdr", mac, "dev", ifname,
           "nud", "permanent")


def cleanup():
    for ns in (NS_A, NS_B):
        # Namespaces do not kill their processes: end our iperf3 server first.
        pids = sh("ip", "netns", "pids", ns, check=False).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (OSError, ValueError):
                pass
        sh("ip", "netns", "del", ns, check=False)


def blast(dst, n):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _ in range(n):
        try:
            s.sendto(b"x" * 200, (dst, 9))
        except OSError:
            pass
    s.close()


def traffic():
    """COMMAND of case 1 (runs in NS_A under ksft-sysmon)."""
    server = subprocess.Popen(["ip", "netns", "exec", NS_B, "iperf3", "-s", "-1", "-p",
                               "5299"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            out = sh("ip", "netns", "exec", NS_B, "ss", "-ltn", check=False).stdout
            if ":5299" in out:
                break
            time.sleep(0.05)
        r = sh("iperf3", "-c", IP_B, "-p", "5299", "-t", "1", "-J", check=False)
        if r.returncode == 0:
            end = json.loads(r.stdout)["end"]
            bps = end.get("sum_received", end.get("sum", {})).get("bits_per_second", 0)
            print(f"iperf3: {bps / 1e9:.2f} Gbit/s")
            if not bps:
                print("iperf3 JSON: " + json.dumps(end)[:2000])
        else:
            print(f"iperf3 failed: {r.stdout[-200:]} {r.stderr[-200:]}")
            return 1
    finally:
        server.wait(timeout=10)
    sh("ip", "-n", NS_B, "link", "set", "dev", IF_B, "down")
    blast(IP_B, DROPS_A)  # local tx_dropped
    sh("ip", "-n", NS_B, "link", "set", "dev", IF_B, "up")
    pin_neighbours()
    sh("ip", "-n", NS_A, "link", "set", "dev", IF_A, "down")
    sh("ip", "netns", "exec", NS_B, sys.executable, os.path.abspath(__file__),
       "--blast", IP_A, str(DROPS_B))  # remote tx_dropped
    sh("ip", "-n", NS_A, "link", "set", "dev", IF_A, "up")
    pin_neighbours()
    print(f"sent {DROPS_A} datagrams to a down peer from the local side, "
          f"{DROPS_B} from the remote side")
    time.sleep(0.5)
    return 0


def burn(seconds):
    """COMMAND of case 2: idle a little, then keep one CPU busy."""
    time.sleep(0.6)
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
    print(f"burned {seconds} s ({n} iterations)")
    return 0


def run_sysmon(*command):
    args = ["ip", "netns", "exec", NS_A, EXE, "--ifname", IF_A,
            "--remote", "ip", "netns", "exec", NS_B, "--remote-ifname", IF_B,
            "--interval", "0.2", "--", sys.executable, os.path.abspath(__file__),
            *command, NS_A, NS_B]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    for line in p.stdout.splitlines():
        print("# " + line)
    if p.stderr:
        print("# stderr: " + p.stderr.replace("\n", "\n# stderr: "))
    metrics = [json.loads(l.split(": ", 1)[1]) for l in p.stdout.splitlines()
               if l.startswith("# ktap-metric-json: ")]
    return p.returncode, p.stdout, metrics


def series(metrics, name, host):
    return [m["value"] for m in metrics if m["name"] == name and m["host"] == host]


class Case:
    def __init__(self):
        self.errors = []

    def check(self, cond, what):
        if not cond:
            self.errors.append(what)
            print(f"# FAIL: {what}")


def case_traffic():
    c = Case()
    before = {ns: counter(ns, i, "tx_dropped") for ns, i in ((NS_A, IF_A), (NS_B, IF_B))}
    rc, out, m = run_sysmon("--traffic")
    after = {ns: counter(ns, i, "tx_dropped") for ns, i in ((NS_A, IF_A), (NS_B, IF_B))}
    c.check(rc == 0 and "\nok 1 " in out, f"ksft-sysmon exit status {rc}")
    c.check(out.count("# ktap-metric-policy-json: ") == 7, "7 policy lines")
    for host, ns in (("local", NS_A), ("remote", NS_B)):
        for name in ("nic.rx.dropped", "nic.rx.missed_errors", "nic.tx.dropped"):
            s = series(m, name, host)
            c.check(len(s) >= 6 and s[0] == 0, f"{host} {name}: initial 0 and samples: {s}")
            c.check(all(b >= a >= 0 for a, b in zip(s, s[1:])),
                    f"{host} {name} never negative or decreasing: {s}")
        tx = series(m, "nic.tx.dropped", host)
        want = DROPS_A if host == "local" else DROPS_B
        real = after[ns] - before[ns]
        c.check(want <= tx[-1] <= real,
                f"{host} nic.tx.dropped {tx[-1]}: at least {want}, at most the kernel's {real}")
        print(f"# {host}: nic.tx.dropped final {tx[-1]} (kernel counter +{real})")
        for name in ("cpu.time.usr", "cpu.time.sys", "cpu.time.sirq", "cpu.utilization"):
            s = series(m, name, host)
            c.check(len(s) >= 4 and all(len(v) == os.cpu_count() for v in s),
                    f"{host} {name}: per-cpu arrays of {os.cpu_count()}")
            c.check(all(x is None or x >= 0 for v in s for x in v), f"{host} {name} >= 0")
        c.check(all(x is None or x <= 100 for v in series(m, "cpu.utilization", host)
                    for x in v), f"{host} utilization <= 100")
    sirq = sum(series(m, "cpu.time.sirq", "local")[-1])
    print(f"# local cpu.time.sirq total {sirq:.2f} s (veth traffic is softirq work)")
    return c


def case_burn():
    c = Case()
    rc, out, m = run_sysmon("--burn", "1.5")
    c.check(rc == 0, f"ksft-sysmon exit status {rc}")
    for host in ("local", "remote"):
        util = series(m, "cpu.utilization", host)
        busy = [sum(x for x in v if x is not None) / 100 for v in util]
        usr = sum(series(m, "cpu.time.usr", host)[-1])
        print(f"# {host}: busy cores per sample {[round(b, 2) for b in busy]}, "
              f"cpu.time.usr total {usr:.2f} s")
        c.check(busy and max(busy) >= 0.8, f"{host}: a sample with >= 0.8 busy cores")
        c.check(usr >= 1.2, f"{host}: cpu.time.usr grew by >= 1.2 s during a 1.5 s burn")
    return c


def main():
    global NS_A, NS_B
    if len(sys.argv) > 1 and sys.argv[1] == "--traffic":
        NS_A, NS_B = sys.argv[2:4]  # a child: the parent's namespaces
        return traffic()
    if len(sys.argv) > 1 and sys.argv[1] == "--burn":
        return burn(float(sys.argv[2]))
    if len(sys.argv) > 1 and sys.argv[1] == "--blast":
        blast(sys.argv[2], int(sys.argv[3]))
        return 0

    print("TAP version 13")
    if os.geteuid() != 0:
        print("1..0 # SKIP not root: network namespaces need CAP_SYS_ADMIN")
        return 77
    probe = sh("ip", "netns", "add", f"{TAG}probe", check=False)
    if probe.returncode:
        print(f"1..0 # SKIP network namespaces unavailable: {probe.stderr.strip()}")
        return 77
    sh("ip", "netns", "del", f"{TAG}probe", check=False)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # still run cleanup
    print("1..2")
    failed = 0
    try:
        setup()
        for n, (name, fn) in enumerate((("sysmon_netns_traffic", case_traffic),
                                        ("sysmon_netns_cpu_burn", case_burn)), 1):
            c = fn()
            print(f"{'not ' if c.errors else ''}ok {n} {name}")
            failed += bool(c.errors)
    finally:
        cleanup()
    print(f"# Totals: pass:{2 - failed} fail:{failed} xfail:0 xpass:0 skip:0 error:0")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
