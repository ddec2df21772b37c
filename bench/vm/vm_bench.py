#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The guest runner's benchmark (doc/vm.rst, "Measured"): boots of the main
job's selftest under ksft-vm (icount), unchanged (A/A) and with doses, then
the spread of every gated series, the native CV beside it, and whether
`compare --baseline` and `compare --db` catch each dose in one run.

  bench/vm/vm_bench.py run OUT --kernel IMAGE --boots N [--dose KIND:N] [--busy 2]
  bench/vm/vm_bench.py native OUT --runs N
  bench/vm/vm_bench.py summary OUT

run: one log per boot (OUT/<label>-<i>.log) and its wall time; a dose is
applied in the guest before the selftest: nft:N never-matching rules on the
input hook, tc:N never-matching u32 filters on lo's egress (clsact).
--busy N: N host busy loops beside the boots (the load is recorded).
"""
import argparse
import glob
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("KSFTM_BUILD", os.path.join(ROOT, "build"))
CLI = os.path.join(BUILD, "tools", "ksft-metric")
SELFTEST = os.path.join(BUILD, "examples", "perf_selftest", "iperf-selftest")
VM = os.path.join(BUILD, "tools", "vm", "ksft-vm")
ARGS = ["--loopback", "--time", "2", "--interval", "0.25", "--repeat", "1"]


def dose_script(kind, n):
    """Shell lines that apply the dose inside the guest (before the test)."""
    if kind == "none" or n == 0:
        return []
    if kind == "nft":
        lines = ["nft add table inet dose",
                 "nft add chain inet dose in '{ type filter hook input priority 0; }'"]
        # dport 1: never iperf3's 5201, so every packet walks all rules
        return lines + ["nft add rule inet dose in tcp dport 1 counter"] * n
    if kind == "tc":
        return ["tc qdisc add dev lo clsact"] + [
            "tc filter add dev lo egress protocol ip prio %d u32 match ip dport 1 0xffff "
            "action drop" % (i + 1) for i in range(n)]
    sys.exit("unknown dose kind %s" % kind)


def guest_command(kind, n):
    script = dose_script(kind, n) + [
        "exec " + " ".join(shlex.quote(a) for a in [SELFTEST] + ARGS)]
    return ["sh", "-ec", "\n".join(script)]


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def cmd_run(a):
    os.makedirs(a.out, exist_ok=True)
    kind, n = (a.dose.split(":") + ["0"])[:2] if a.dose != "none" else ("none", "0")
    n = int(n)
    busy = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(a.busy)]
    try:
        i = 0
        for _ in range(a.boots):
            while os.path.exists(os.path.join(a.out, "%s-%02d.log" % (a.label, i))):
                i += 1	# never overwrite an earlier batch of the same label
            log = os.path.join(a.out, "%s-%02d.log" % (a.label, i))
            t0 = time.monotonic()
            l0 = load()
            with open(log, "wb") as f:
                rc = subprocess.run([sys.executable, VM, "--kernel", a.kernel, "--add", SELFTEST,
                                     "--"] +
                                    guest_command(kind, n), stdout=f, check=False).returncode
            wall = time.monotonic() - t0
            meta = {"label": a.label, "dose": a.dose, "kernel": os.path.basename(a.kernel),
                    "busy": a.busy, "wall_s": round(wall, 1), "load_start": l0,
                    "load_end": load(), "rc": rc}
            with open(log + ".json", "w") as f:
                json.dump(meta, f)
            print(json.dumps(meta), flush=True)
    finally:
        for p in busy:
            p.kill()
            p.wait()


def cmd_native(a):
    """The same selftest natively (loopback), for the CV beside the guest's."""
    os.makedirs(a.out, exist_ok=True)
    for i in range(a.runs):
        log = os.path.join(a.out, "native-%02d.log" % i)
        with open(log, "wb") as f:
            subprocess.run([SELFTEST] + ARGS, stdout=f, check=False)
        print(log, flush=True)


def gated(log):
    """{series id: value} of the log's gated series."""
    out = subprocess.run([CLI, "report", "--format", "json", "--quiet", log],
                         stdout=subprocess.PIPE, check=True).stdout
    vals = {}
    for s in json.loads(out)["series"]:
        if not s.get("policy", {}).get("regression") or not s.get("summary"):
            continue
        key = "%s %s %s" % (s["case"], s["name"],
                            ",".join("%s=%s" % kv for kv in sorted(s["labels"].items())))
        vals[key] = s["summary"].get("p50", s["summary"].get("last"))
    return vals


def verdict_fails(args):
    r = subprocess.run([CLI, "compare"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, check=False)
    return r.returncode != 0, r.stdout.decode(errors="replace")


def cmd_summary(a):
    logs = []
    meta = {}
    for lg in sorted(glob.glob(os.path.join(a.out, "*.log"))):
        try:
            with open(lg + ".json") as f:
                meta[lg] = json.load(f)
        except OSError:
            if not os.path.basename(lg).startswith("native-"):
                continue	# a boot still running
            meta[lg] = {"label": "native", "dose": "native"}
        logs.append(lg)
    groups = {}
    for lg in logs:
        m = meta[lg]
        groups.setdefault(m["label"] + (" beside %d busy loops" % m["busy"] if m.get("busy")
                                        else ""), []).append(lg)
    vals = {lg: gated(lg) for lg in logs}
    print("## spread of every gated series (max-min over mean; CV)")
    for label, lgs in sorted(groups.items()):
        keys = sorted(set().union(*(vals[lg].keys() for lg in lgs)))
        walls = [meta[lg].get("wall_s") for lg in lgs if meta[lg].get("wall_s")]
        print("\n### %s: %d runs%s" % (label, len(lgs), (", wall %.0f-%.0f s, load %s-%s" % (
            min(walls), max(walls), min(meta[lg]["load_start"] for lg in lgs),
            max(meta[lg]["load_end"] for lg in lgs))) if walls else ""))
        for k in keys:
            v = [vals[lg][k] for lg in lgs if k in vals[lg]]
            if len(v) < 2:
                continue
            m = statistics.mean(v)
            print("  %-55s mean %10.4f  max-min %7.3f %%  CV %7.3f %%" % (
                k, m, 100 * (max(v) - min(v)) / m, 100 * statistics.stdev(v) / m))
    aa = sorted(lg for lg in logs if meta[lg]["label"] == a.aa)
    if len(aa) < 2:
        return
    print("\n## detection: compare --baseline (first A/A boot) and --db (the A/A boots)")
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base.json")
        subprocess.run([CLI, "save", "-o", base, "--quiet", aa[0]], check=True)
        # The history: the first half of the A/A boots (at least the gate's
        # 5); A/A false alarms are counted over the boots not in it.
        hist = aa[:max(5, len(aa) // 2)]
        db = os.path.join(tmp, "h.db")
        for i, lg in enumerate(hist):
            subprocess.run([CLI, "ingest", "--create", "--db", db, "--order", "%04d" % i, "--run",
                            "boot-%04d" % i, "--quiet", lg],
                           check=True, stdout=subprocess.DEVNULL)
        for label, lgs in sorted(groups.items()):
            if label == "native":
                continue	# other numbers, another context: nothing to detect
            fb = fd = nb = nd = 0
            for lg in lgs:
                if lg != aa[0]:
                    nb += 1
                    fb += verdict_fails(["--baseline", base, "--quiet", lg])[0]
                if lg not in hist:
                    nd += 1
                    fd += verdict_fails(["--db", db, "--order", "9999", "--quiet", lg])[0]
            print("  %-30s --baseline fails %2d of %2d   --db (history: %d A/A boots) fails "
                  "%2d of %2d%s" % (label, fb, nb, len(hist), fd, nd,
                                   "   (false alarms)" if label.startswith(a.aa) else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--kernel", required=True)
    r.add_argument("--boots", type=int, default=20)
    r.add_argument("--dose", default="none", help="none, nft:N or tc:N")
    r.add_argument("--busy", type=int, default=0)
    r.add_argument("--label", required=True)
    n = sub.add_parser("native")
    n.add_argument("out")
    n.add_argument("--runs", type=int, default=10)
    s = sub.add_parser("summary")
    s.add_argument("out")
    s.add_argument("--aa", default="aa", help="the A/A group's label")
    a = ap.parse_args()
    {"run": cmd_run, "native": cmd_native, "summary": cmd_summary}[a.cmd](a)


if __name__ == "__main__":
    main()
