#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What icount predicts, measured (issue 44, doc/vm.rst): the change a dose
makes in the guest's instructions per byte beside the change it makes in
native CPU time per byte and native throughput, on the same topology.

  bench/vm/native_vs_icount.py native OUT.jsonl [--rounds 30] [--doses D...]
        [--a-per-round 2] [--time 1] [--interval 0.1] [--cpus 1/0] [--seed S]
  bench/vm/native_vs_icount.py guest DIR --kernel IMAGE [--variants none,nft120,...]
        [--seeds 1-3] [--jobs 2]
  bench/vm/native_vs_icount.py table OUT.jsonl DIR [--resamples 10000]

The topology is record_interference.py's: two network namespaces joined by
a veth pair (A 198.18.0.1, the server; B 198.18.0.2, the client), both on
cubic (the host's default, bbr here, is not the guest's), one
``ksft-iperf3 run --metrics --sysmon`` forward (B sends to A) and, after
``ip tcp_metrics flush``, one with --reverse. A dose sits on the forward
data path, so the reverse run meets it on the ACKs:

  nftN   a table with a base chain on A's input hook holding N rules
         ``tcp dport 1 counter`` (never matching: every packet walks all)
  tcN    a clsact qdisc on B's veth with N u32 filters on egress (one a
         priority) matching destination port 1 (never; no action: this
         host's kernel has no act_gact)
  htb    an htb qdisc with one class of 100 Gbit/s at the root of B's veth
         (the sender's egress; veth has no qdisc by default; this host's
         kernel has no sch_fq)
  gro    GRO switched on A's veth (the receiver; off by default on veth)
  tso    TSO off on B's veth (the sender: segments of the MTU)
  reno   reno instead of cubic in both namespaces
  ct     connection tracking: a chain on A's input hook ``ct state
         established,related accept`` (loads nf_conntrack)

native: rounds; each runs every dose once and the unchanged topology
(none) --a-per-round times, in an order shuffled by a seeded generator
(the seed is printed and stored), each run in fresh namespaces, at the
caller's priority. One JSON line per iperf3 run: dose, dir, gbps,
cost_host and cost_test (CPU s/GB: record_interference.rows), bytes,
load1; lines {"phase": ...} carry `uptime` at the start and the end.

guest: ksft-vm boots of the same commands (the namespaces created by the
very commands record_interference.Netns runs, the same dose lines, the
same ksft-iperf3 options but --time 2 --interval 0.25 and default
placement on the guest's one vCPU), VARIANT under every --seeds layout
seed (every variant under the first seed, then the next), at most
--jobs at once, each under nice -n 19; a boot already logged is kept.
DIR/VARIANT-sK.fwd.log, .rev.log, .json (wall, load).

table: per dose and direction, the guest's change in test instructions
per byte (per seed: B under seed K against the unchanged boot under seed
K; the median and the range over seeds, and the unchanged boots' own
spread over seeds) beside the native changes in the test's CPU time per
byte, the whole host's and throughput, each with a 95 % percentile
bootstrap interval of the ratio of means (doc/decisions.rst), then the
reading: hit, miss or unresolved, and the ratio of the two changes; then
how many native resolves, the hits and misses, the ratio's spread, and
the table again as reStructuredText (doc/vm.rst carries it).
"""
import argparse
import concurrent.futures
import importlib.util
import json
import os
import random
import re
import shlex
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCH)
BUILD = os.environ.get("KSFTM_BUILD", os.path.join(ROOT, "build"))
IPERF = os.path.join(BUILD, "examples", "iperf3", "ksft-iperf3")
VM = os.environ.get("KSFTM_VM", os.path.join(BUILD, "tools", "vm", "ksft-vm"))
DOSES = ("nft120", "nft250", "nft1000", "tc100", "tc1000", "htb", "gro", "tso", "reno", "ct")
DIRS = ("fwd", "rev")
MARK = "#### native_vs_icount: reverse"
GUEST_RUN = ["--time", "2", "--interval", "0.25", "--repeat", "1"]


def _load(name):
    """A bench/ module by file name, in bench/record/ (after issue 46's
    regrouping) or bench/ (before it)."""
    for d in (os.path.join(BENCH, "record"), BENCH):
        path = os.path.join(d, name + ".py")
        if os.path.exists(path):
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return mod
    sys.exit("native_vs_icount: no %s.py under bench/record/ or bench/" % name)


md = _load("measure_doses")	# its BYTES; its ri is record_interference.py
ri = md.ri


def netns_commands(tag):
    """The argv lists record_interference.Netns(tag) runs to make its two
    namespaces: the guest runs these very commands."""
    done = []
    real = ri.sh
    ri.sh = lambda *argv, check=True: done.append(list(argv))
    try:
        ns = ri.Netns(tag)
        ns.__enter__()
    finally:
        ri.sh = real
    return ns, done


def _in(ns, *words):
    return "ip netns exec %s %s" % (ns, " ".join(words))


def dose_lines(dose, ns):
    """Shell lines applying @dose to namespaces @ns (a Netns): the same
    text natively and in the guest."""
    m = re.fullmatch(r"(nft|tc)(\d+)", dose)
    if dose == "none":
        return []
    if m and m.group(1) == "nft":
        return ([_in(ns.a, "nft -f - <<'EOF'"), "add table inet dose",
                 "add chain inet dose in { type filter hook input priority 0; }"] +
                ["add rule inet dose in tcp dport 1 counter"] * int(m.group(2)) + ["EOF"])
    if m:
        return ([_in(ns.b, "tc qdisc add dev", ns.ifb, "clsact"),
                 _in(ns.b, "tc -batch - <<'EOF'")] +
                ["filter add dev %s egress protocol ip prio %d u32 match ip dport 1 0xffff" %
                 (ns.ifb, i + 1) for i in range(int(m.group(2)))] + ["EOF"])
    if dose == "htb":
        return [_in(ns.b, "tc qdisc add dev", ns.ifb, "root handle 1: htb default 1"),
                _in(ns.b, "tc class add dev", ns.ifb, "parent 1: classid 1:1 htb rate 100gbit")]
    if dose == "gro":
        return [_in(ns.a, "ethtool -K", ns.ifa, "gro on")]
    if dose == "tso":
        return [_in(ns.b, "ethtool -K", ns.ifb, "tso off")]
    if dose == "reno":
        return [_in(n, "sysctl -qw net.ipv4.tcp_congestion_control=reno") for n in (ns.a, ns.b)]
    if dose == "ct":
        return [_in(ns.a, "nft -f - <<'EOF'"), "add table inet dose",
                "add chain inet dose in { type filter hook input priority 0; }",
                "add rule inet dose in ct state established,related accept", "EOF"]
    raise ValueError("unknown dose %r (none, nftN, tcN, htb, gro, tso, reno, ct)" % dose)


def setup_lines(dose, ns):
    """Both namespaces on cubic, then the dose."""
    return ([_in(n, "sysctl -qw net.ipv4.tcp_congestion_control=cubic") for n in (ns.a, ns.b)] +
            dose_lines(dose, ns))


def iperf_argv(ns, iperf, run, reverse, cpus=None):
    return (["ip", "netns", "exec", ns.a, iperf, "run", "--metrics", "--sysmon"] + run +
            (["--cpus", cpus] if cpus else []) + (["--reverse"] if reverse else []) +
            ["--server-addr", "198.18.0.1", "--remote", "ip", "netns", "exec", ns.b])


def flush_lines(ns):
    return [_in(n, "ip tcp_metrics flush all") for n in (ns.a, ns.b)]


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def parse_run(text):
    """{(name, host): [values]} of a ksft-iperf3 log, and its bytes."""
    per = {}
    for line in text.splitlines():
        m = ri.METRIC.match(line)
        if m:
            o = json.loads(m.group(1))
            per.setdefault((o["name"], o.get("host")), []).append(o["value"])
    b = md.BYTES.search(text)
    return per, int(b.group(1)) if b else None


def run_row(per):
    """record_interference.rows' one repeat; throughput from whichever end
    reports it (the client's in a --reverse run)."""
    row = next(ri.rows(per, 1))
    if row["gbps"] is None:
        row["gbps"] = (per.get(("throughput", "remote")) or [None])[0]
    return row


def native_run(a, ns, dose, common, out):
    subprocess.run(["sh", "-ec", "\n".join(setup_lines(dose, ns))], check=True,
                   capture_output=True, text=True)
    time.sleep(0.2)
    run = ["--time", str(a.time), "--interval", str(a.interval), "--repeat", "1"]
    for d in DIRS:
        if d == "rev":
            subprocess.run(["sh", "-c", "\n".join(flush_lines(ns))], check=False)
        r = subprocess.run(iperf_argv(ns, IPERF, run, d == "rev", a.cpus), capture_output=True,
                           text=True, timeout=120)
        row = dict(common, dir=d, load1=load1(), t=time.time())
        if r.returncode:
            row["failed"] = "ksft-iperf3 exited %d: %s" % (r.returncode, r.stdout[-200:])
        else:
            per, nbytes = parse_run(r.stdout)
            row.update(run_row(per), bytes=nbytes)
        out.write(json.dumps(row, sort_keys=True) + "\n")
    out.flush()


def cmd_native(a):
    if os.geteuid():
        print("native_vs_icount: needs root (network namespaces)")
        return 77
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 32)
    rng = random.Random(seed)
    for d in a.doses:
        dose_lines(d, ri.Netns("x"))	# an unknown dose fails before any run
    argv = " ".join(shlex.quote(w) for w in sys.argv)
    print("native_vs_icount: seed %d" % seed, flush=True)
    allowed = ALLOWED_CC.read()
    try:
        # a namespace may pick only an allowed algorithm (EPERM otherwise)
        ALLOWED_CC.write(" ".join(allowed.split() + [c for c in ("cubic", "reno")
                                                      if c not in allowed.split()]))
        native_rounds(a, rng, seed, argv)
    finally:
        ALLOWED_CC.write(allowed)
    return 0


class _Sysctl:
    def __init__(self, path):
        self.path = path

    def read(self):
        with open(self.path) as f:
            return f.read().strip()

    def write(self, value):
        with open(self.path, "w") as f:
            f.write(value)


ALLOWED_CC = _Sysctl("/proc/sys/net/ipv4/tcp_allowed_congestion_control")


def native_rounds(a, rng, seed, argv):
    with open(a.out, "a", encoding="utf-8") as out:
        out.write(json.dumps({"phase": "native start", "uptime": uptime(), "command": argv,
                              "seed": seed, "t": time.time()}) + "\n")
        for rnd in range(a.rounds):
            order = ["none"] * a.a_per_round + list(a.doses)
            rng.shuffle(order)
            for k, dose in enumerate(order):
                common = {"round": rnd, "order": k, "dose": dose, "seed": seed,
                          "secs": a.time, "cpus": a.cpus}
                try:
                    with ri.Netns("nv%d" % os.getpid()) as ns:
                        native_run(a, ns, dose, common, out)
                except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
                    why = (getattr(e, "stderr", None) or "").strip()[-200:] or str(e)[:200]
                    out.write(json.dumps(dict(common, failed=why,
                                              t=time.time())) + "\n")
            print("round %d/%d done (%s)" % (rnd + 1, a.rounds, uptime()), flush=True)
        out.write(json.dumps({"phase": "native end", "uptime": uptime(),
                              "t": time.time()}) + "\n")


def guest_script(dose):
    ns, make = netns_commands("g")
    lines = ["set -e"] + [" ".join(shlex.quote(w) for w in argv) for argv in make]
    lines += setup_lines(dose, ns) + ["set +e", "rc=0"]
    for d in DIRS:
        if d == "rev":
            lines += flush_lines(ns) + ["echo %s" % shlex.quote(MARK)]
        argv = iperf_argv(ns, IPERF, GUEST_RUN, d == "rev")
        lines.append(" ".join(shlex.quote(w) for w in argv) + " || rc=$?")
    return "\n".join(lines + ["exit $rc"])


def seeds_arg(text):
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def boot(a, dose, seed):
    base = os.path.join(a.dir, "%s-s%d" % (dose, seed))
    if os.path.exists(base + ".json"):
        return None
    cmd = ["nice", "-n", "19", sys.executable, VM, "--kernel", a.kernel, "--seed", str(seed),
           "--add", IPERF, "--", "sh", "-c", guest_script(dose)]
    t0, l0, started = time.monotonic(), load1(), time.time()
    with open(base + ".err", "wb") as e:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=e, check=False)
    text = p.stdout.decode("utf-8", "replace")
    fwd, _, rev = text.partition(MARK + "\n")
    for d, body in (("fwd", fwd), ("rev", rev)):
        with open("%s.%s.log" % (base, d), "w", encoding="utf-8") as f:
            f.write(body)
    meta = {"dose": dose, "seed": seed, "kernel": os.path.basename(a.kernel), "rc": p.returncode,
            "wall_s": round(time.monotonic() - t0, 1), "started": started, "load_start": l0,
            "load_end": load1(), "split": MARK in text}
    with open(base + ".json", "w", encoding="utf-8") as f:
        json.dump(meta, f)
    return meta


def cmd_guest(a):
    os.makedirs(a.dir, exist_ok=True)
    variants = a.variants.split(",")
    for v in variants:
        dose_lines(v, ri.Netns("x"))
    with open(os.path.join(a.dir, "phases.jsonl"), "a", encoding="utf-8") as ph:
        ph.write(json.dumps({"phase": "guest start", "uptime": uptime(), "command":
                             " ".join(shlex.quote(w) for w in sys.argv), "t": time.time()}) + "\n")
    # seed by seed: a run cut short still has every variant under its first seeds
    jobs = [(v, s) for s in seeds_arg(a.seeds) for v in variants]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for m in ex.map(lambda j: boot(a, *j), jobs):
            if m:
                print(json.dumps(m), flush=True)
    with open(os.path.join(a.dir, "phases.jsonl"), "a", encoding="utf-8") as ph:
        ph.write(json.dumps({"phase": "guest end", "uptime": uptime(), "t": time.time()}) + "\n")
    return 0


# --- the table's arithmetic (checked by bench/vm/check_native_vs_icount.py) ---

def change_ci(a, b, resamples=10000, seed=1, level=0.95):
    """mean(b) / mean(a) - 1 and its percentile bootstrap interval: each
    side resampled with replacement on its own, @resamples times, from a
    generator seeded @seed (the same numbers give the same interval)."""
    if len(a) < 2 or len(b) < 2:
        raise ValueError("need two values a side (have %d and %d)" % (len(a), len(b)))
    ma = statistics.fmean(a)
    if ma == 0:
        raise ValueError("side A's mean is 0: no relative change")
    rng = random.Random(seed)
    na, nb = len(a), len(b)
    ratios = sorted(statistics.fmean(rng.choices(b, k=nb)) / statistics.fmean(rng.choices(a, k=na))
                    - 1 for _ in range(resamples))
    tail = (1 - level) / 2
    lo = ratios[int(tail * resamples)]
    hi = ratios[min(resamples - 1, int((1 - tail) * resamples))]
    return statistics.fmean(b) / ma - 1, lo, hi


def seed_changes(a_by_seed, b_by_seed):
    """Per seed K present on both sides: b[K] / a[K] - 1, in seed order."""
    return [b_by_seed[k] / a_by_seed[k] - 1 for k in sorted(b_by_seed) if k in a_by_seed]


def spread(values):
    """(max - min) / median: how far apart unchanged boots land."""
    return (max(values) - min(values)) / statistics.median(values)


def reading(icount, floor, native):
    """Does icount's change (per-seed changes @icount, the unchanged seeds'
    spread @floor) predict the native change (@native: change, lo, hi)?"""
    seen = bool(icount) and (all(c > floor for c in icount) or all(c < -floor for c in icount))
    resolved = native[1] > 0 or native[2] < 0
    if resolved and seen:
        return "hit" if (icount[0] > 0) == (native[0] > 0) else "MISS (sign)"
    if resolved:
        return "MISS (icount sees none)"
    return "icount only" if seen else "neither"


def ratio(icount_change, native_change):
    return icount_change / native_change if native_change else float("nan")


# --- the table ---

def native_values(path):
    """{(dose, dir): {metric: [values]}} of the successful runs, and the
    phase lines."""
    vals, phases = {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if "phase" in r:
                phases.append(r)
                continue
            if "failed" in r or not r.get("cost_test"):
                continue
            d = vals.setdefault((r["dose"], r["dir"]), {})
            for m in ("gbps", "cost_host", "cost_test"):
                if r.get(m) is not None:
                    d.setdefault(m, []).append(r[m])
    return vals, phases


def guest_values(d):
    """{(dose, dir): {seed: {metric: value}}} of the boots that finished."""
    vals, metas = {}, []
    for name in sorted(os.listdir(d)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(d, name), encoding="utf-8") as f:
            m = json.load(f)
        metas.append(m)
        if m["rc"] or not m["split"]:
            continue
        for dr in DIRS:
            with open(os.path.join(d, "%s-s%d.%s.log" % (m["dose"], m["seed"], dr))) as f:
                per, _ = parse_run(f.read())
            row = run_row(per)
            if row["cost_test"] is not None:
                vals.setdefault((m["dose"], dr), {})[m["seed"]] = row
    return vals, metas


def pct(x):
    return "%+.1f" % (100 * x)


def cmd_table(a):
    nat, phases = native_values(a.native)
    gst, metas = guest_values(a.dir)
    try:
        with open(os.path.join(a.dir, "phases.jsonl"), encoding="utf-8") as f:
            phases += [json.loads(l) for l in f]
    except OSError:
        pass
    print("# bench/vm/native_vs_icount.py table %s %s  (%s; %s)" % (
        a.native, a.dir, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), uptime()))
    for p in phases:
        print("# %s: %s%s" % (p["phase"], p["uptime"],
                              ("\n#   " + p["command"]) if p.get("command") else ""))
    walls = sorted(m["wall_s"] for m in metas)
    if walls:
        print("# guest: %d boots (%d failed), wall %.0f-%.0f s (median %.0f), load %.2f-%.2f" % (
            len(metas), sum(1 for m in metas if m["rc"] or not m["split"]), walls[0], walls[-1],
            statistics.median(walls), min(m["load_start"] for m in metas),
            max(m["load_end"] for m in metas)))
    print("# native: 95 %% percentile bootstrap of the ratio of means (%d resamples, seed 1); "
          "guest: per seed against the unchanged boot of that seed" % a.resamples)
    rows = []
    for dr in DIRS:
        base = nat.get(("none", dr))
        gbase = gst.get(("none", dr), {})
        if not base:
            continue
        floor = spread([v["cost_test"] for v in gbase.values()]) if len(gbase) > 1 else 0.0
        print("\n## %s: unchanged native n=%d, test %.3f CPU s/GB, host %.3f, %.2f Gbit/s; "
              "guest %d seeds, test %s instr/B (seed spread %.2f %%)" % (
                  dr, len(base["cost_test"]), statistics.fmean(base["cost_test"]),
                  statistics.fmean(base["cost_host"]), statistics.fmean(base["gbps"]), len(gbase),
                  "/".join("%.4f" % v["cost_test"] for _, v in sorted(gbase.items())),
                  100 * floor))
        print("%-8s %-24s %-14s %-22s %-22s %-22s %-7s %s" % (
            "dose", "icount test instr/B %", "icount host %", "native test CPU/B %",
            "native host CPU/B %", "native Gbit/s %", "ratio", "reading"))
        doses = [d for d in DOSES if (d, dr) in nat] + sorted(
            {d for d, x in nat if x == dr and d not in DOSES and d != "none"})
        for dose in doses:
            n = nat[(dose, dr)]
            cells = {m: change_ci(base[m], n[m], a.resamples)
                     for m in ("cost_test", "cost_host", "gbps")}
            g = gst.get((dose, dr), {})
            it = seed_changes({k: v["cost_test"] for k, v in gbase.items()},
                              {k: v["cost_test"] for k, v in g.items()})
            ih = seed_changes({k: v["cost_host"] for k, v in gbase.items()},
                              {k: v["cost_host"] for k, v in g.items()})
            row = {"dose": dose, "dir": dr, "n": len(n["cost_test"]), "cells": cells,
                   "icell": "-", "hcell": "-", "ratio": None, "reading": "no guest"}
            if it:
                med = statistics.median(it)
                row.update(icell="%s (%s..%s)" % (pct(med), pct(min(it)), pct(max(it)))
                           if len(it) > 1 else pct(med), nseeds=len(it),
                           hcell=pct(statistics.median(ih)) if ih else "-",
                           ratio=ratio(med, cells["cost_test"][0]),
                           reading=reading(it, floor, cells["cost_test"]))
            rows.append(row)
            print("%-8s %-24s %-14s %-22s %-22s %-22s %-7s %s" % (
                dose, row["icell"], row["hcell"],
                *("%s [%s, %s] n=%d" % (pct(c), pct(lo), pct(hi), len(n[m]))
                  for m, (c, lo, hi) in cells.items()),
                "-" if row["ratio"] is None else "%.2f" % row["ratio"], row["reading"]))
    summary(rows)
    rst(rows)
    print("\n# end: %s" % uptime())
    return 0


def summary(rows):
    """Sign agreement and the ratio's spread over the rows native resolves."""
    res = [r for r in rows if r["ratio"] is not None and
           (r["cells"]["cost_test"][1] > 0 or r["cells"]["cost_test"][2] < 0)]
    hits = [r for r in res if r["reading"] == "hit"]
    print("\n## native resolves %d of %d changes (95 %% interval of the test's CPU/B off 0): "
          "%d hits, %d misses (%s)" % (
              len(res), len(rows), len(hits), len(res) - len(hits),
              ", ".join("%s %s: %s" % (r["dose"], r["dir"], r["reading"])
                        for r in res if r["reading"] != "hit") or "none"))
    if hits:
        rts = sorted(r["ratio"] for r in hits)
        print("icount change / native change over the hits: median %.2f, %.2f-%.2f (%s)" % (
            statistics.median(rts), rts[0], rts[-1],
            ", ".join("%s %s %.2f" % (r["dose"], r["dir"], r["ratio"]) for r in hits)))
    same = [r for r in rows if r["ratio"] is not None and r["ratio"] > 0]
    print("same sign (icount median against native mean, resolved or not): %d of %d" % (
        len(same), sum(1 for r in rows if r["ratio"] is not None)))


def rst(rows):
    """The table as doc/vm.rst carries it."""
    def ci(c):
        return "%s [%s, %s]" % (pct(c[0]), pct(c[1]), pct(c[2]))
    head = ("dose", "dir", "icount test instr/B (seeds)", "native test CPU/B [95 %]",
            "native host CPU/B [95 %]", "native Gbit/s [95 %]", "ratio", "reading")
    body = [(r["dose"], r["dir"], r["icell"], ci(r["cells"]["cost_test"]),
             ci(r["cells"]["cost_host"]), ci(r["cells"]["gbps"]),
             "-" if r["ratio"] is None else "%.2f" % r["ratio"], r["reading"]) for r in rows]
    w = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    rule = "  ".join("=" * k for k in w)
    print("\n## rst\n" + rule)
    print("  ".join(h.ljust(k) for h, k in zip(head, w)).rstrip())
    print(rule)
    for b in body:
        print("  ".join(c.ljust(k) for c, k in zip(b, w)).rstrip())
    print(rule)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    n = sub.add_parser("native")
    n.add_argument("out")
    n.add_argument("--rounds", type=int, default=30)
    n.add_argument("--doses", nargs="+", default=list(DOSES))
    n.add_argument("--a-per-round", type=int, default=2,
                   help="unchanged runs a round (the baseline every dose shares)")
    n.add_argument("--time", type=int, default=1)
    n.add_argument("--interval", type=float, default=0.1)
    n.add_argument("--cpus", default="1/0")
    n.add_argument("--seed", type=int)
    g = sub.add_parser("guest")
    g.add_argument("dir")
    g.add_argument("--kernel", required=True)
    g.add_argument("--variants", default="none," + ",".join(DOSES))
    g.add_argument("--seeds", default="1-3")
    g.add_argument("--jobs", type=int, default=2)
    t = sub.add_parser("table")
    t.add_argument("native")
    t.add_argument("dir")
    t.add_argument("--resamples", type=int, default=10000)
    a = ap.parse_args()
    if a.cmd == "guest":
        a.dir = os.path.abspath(a.dir)
    return {"native": cmd_native, "guest": cmd_guest, "table": cmd_table}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
