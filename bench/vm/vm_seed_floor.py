#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The floor of a seeded A/B (issue 42, doc/vm.rst "Layout seeds"): real
ksft-vm boots, judged through the real CLI, for false alarms between roots
that differ only in unrelated ways and for the detection of 1, 2 and 4
never-matching nft rules.

  bench/vm_seed_floor.py run OUT --kernel IMAGE --tag T [--variants r0,r1,nft1,...]
                         [--seeds 1-5] [--jobs 2]
  bench/vm_seed_floor.py judge OUT --tag T [--tag T2]...

run: boots every variant under every seed, at most --jobs at once, under
nice -n 5; a log already there is kept (a run can be resumed). Each boot
runs one guest command: the dose (nftN: a table with a base chain on the
input hook holding N rules `tcp dport 1 counter`, which never match, so
every packet walks them), then the main job's selftest (iperf-selftest
--loopback --time 2 --interval 0.25 --repeat 1), then build/bench/vm-udp-rr
(5 repeats of 5000 UDP round trips on lo). The two KTAP logs come back in
one stdout, split on a marker into OUT/T/VARIANT-sS.main.log and .udp.log.
Roots: rI (I = 0, 1, ...) differ from each other only in the working
directory the guest starts in (OUT/cwd/root-dd..d, I d's) and, for I > 0, an
extra unrelated file of I * 40,009 bytes (--add); nftN has r0's
working directory, no extra file, and the dose.

judge: for every pair of unchanged roots (rI as A, rJ as B, I < J) and
every dose against every unchanged root (rI as A, nftN as B), of each
log kind: `ksft-metric save -o a.json A's logs` and `ksft-metric compare
--format json --baseline a.json B's logs`, as ksft-vm-ab --seeds does;
prints per gated series the false alarms over the unchanged pairs (with
a Clopper-Pearson 95 % interval), each dose's verdicts, shift and its
interval, the spread across seeds and roots, and the wall time.
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KSFTM_BUILD", os.path.join(ROOT, "build"))
CLI = os.path.join(BUILD, "tools", "ksft-metric")
# KSFTM_VM: another ksft-vm launcher (a snapshot of the package, so editing
# tools/vm/ksft_vm during a run does not change the roots of later boots).
VM = os.environ.get("KSFTM_VM", os.path.join(BUILD, "tools", "vm", "ksft-vm"))
SELFTEST = os.path.join(BUILD, "examples", "perf_selftest", "iperf-selftest")
UDP_RR = os.path.join(BUILD, "bench", "vm-udp-rr")
MAIN_ARGS = ["--loopback", "--time", "2", "--interval", "0.25", "--repeat", "1"]
MARK = "#### vm_seed_floor: udp"
KINDS = ("main", "udp")
PAD_UNIT = 40009


def seeds_arg(text):
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def dose_lines(variant):
    if not variant.startswith("nft"):
        return []
    n = int(variant[3:])
    return (["nft add table inet dose",
             "nft add chain inet dose in '{ type filter hook input priority 0; }'"] +
            ["nft add rule inet dose in tcp dport 1 counter"] * n)


def guest_script(variant):
    q = shlex.quote
    return "\n".join(["set -e"] + dose_lines(variant) + [
        "set +e",
        "rc=0",
        "%s > /tmp/main.ktap || rc=$?" % " ".join(q(a) for a in [SELFTEST] + MAIN_ARGS),
        "%s > /tmp/udp.ktap || rc=$?" % q(UDP_RR),
        "cat /tmp/main.ktap",
        "echo %s" % q(MARK),
        "cat /tmp/udp.ktap",
        "exit $rc"])


def root_of(out, variant):
    """(working directory, extra --add file or None) of @variant."""
    i = int(variant[1:]) if variant.startswith("r") else 0
    cwd = os.path.join(out, "cwd", "root-" + "d" * i)
    os.makedirs(cwd, exist_ok=True)
    if i == 0:
        return cwd, None
    pad = os.path.join(out, "pad", "pad-%d.bin" % i)
    if not os.path.exists(pad):
        os.makedirs(os.path.dirname(pad), exist_ok=True)
        with open(pad, "wb") as f:	# deterministic, incompressible enough
            f.write(bytes((k * 131 + i) & 0xFF for k in range(i * PAD_UNIT)))
    return cwd, pad


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def boot(out, tag, kernel, variant, seed):
    base = os.path.join(out, tag, "%s-s%d" % (variant, seed))
    if os.path.exists(base + ".json"):
        return None
    cwd, pad = root_of(out, variant)
    cmd = ["nice", "-n", "5", sys.executable, VM, "--kernel", kernel, "--seed", str(seed),
           "--add", SELFTEST, "--add", UDP_RR] + (["--add", pad] if pad else []) + \
        ["--", "sh", "-c", guest_script(variant)]
    t0, l0, started = time.monotonic(), load(), time.time()
    with open(base + ".err", "wb") as e:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=e, check=False)
    text = p.stdout.decode("utf-8", "replace")
    main, _, udp = text.partition(MARK + "\n")
    for kind, body in (("main", main), ("udp", udp)):
        with open("%s.%s.log" % (base, kind), "w", encoding="utf-8") as f:
            f.write(body)
    meta = {"tag": tag, "variant": variant, "seed": seed, "kernel": os.path.basename(kernel),
            "rc": p.returncode, "wall_s": round(time.monotonic() - t0, 1), "started": started,
            "load_start": l0, "load_end": load(), "split": MARK in text}
    with open(base + ".json", "w", encoding="utf-8") as f:
        json.dump(meta, f)
    return meta


def cmd_run(a):
    os.makedirs(os.path.join(a.out, a.tag), exist_ok=True)
    jobs = [(v, s) for v in a.variants.split(",") for s in seeds_arg(a.seeds)]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = [ex.submit(boot, a.out, a.tag, a.kernel, v, s) for v, s in jobs]
        for f in futs:
            m = f.result()
            if m:
                print(json.dumps(m), flush=True)


def clopper_pearson(k, n, conf=0.95):
    def cdf(k, p):
        return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))

    def solve(f):
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) else (lo, mid)
        return lo
    a = (1 - conf) / 2
    lo = 0.0 if k == 0 else solve(lambda p: 1 - cdf(k - 1, p) < a)
    hi = 1.0 if k == n else solve(lambda p: cdf(k, p) > a)
    return lo, hi


def row_key(r):
    labels = ",".join("%s=%s" % kv for kv in sorted((r.get("labels") or {}).items()))
    return "%s %s%s" % (r.get("case"), r.get("name"), "{%s}" % labels if labels else "")


def compare(tmp, a_logs, b_logs):
    base = os.path.join(tmp, "a.json")
    s = subprocess.run([CLI, "save", "--quiet", "-o", base] + a_logs, capture_output=True,
                       text=True)
    if s.returncode:
        sys.exit("save failed: %s" % s.stderr)
    p = subprocess.run([CLI, "compare", "--format", "json", "--baseline", base] + b_logs,
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("compare failed (%d): %s" % (p.returncode, p.stderr))
    return p.returncode, {row_key(r): r for r in json.loads(p.stdout)["rows"]
                          if r.get("allowance") is not None}


def logs_of(out, tag, variant, kind):
    logs = sorted(glob.glob(os.path.join(out, tag, "%s-s*.%s.log" % (variant, kind))),
                  key=lambda p: int(p.rsplit("-s", 1)[1].split(".")[0]))
    return [lg for lg in logs if os.path.getsize(lg) > 0]


def seed_values(log):
    """{series key: p50 of the log's repeats} of the gated series."""
    out = subprocess.run([CLI, "report", "--format", "json", "--quiet", log],
                         capture_output=True, check=True).stdout
    vals = {}
    for s in json.loads(out)["series"]:
        if not s.get("policy", {}).get("regression") or not s.get("summary"):
            continue
        labels = ",".join("%s=%s" % kv for kv in sorted(s["labels"].items()))
        key = "%s %s%s" % (s["case"], s["name"], "{%s}" % labels if labels else "")
        vals[key] = s["summary"].get("p50", s["summary"].get("last"))
    return vals


def pct(x):
    return "%+.2f" % x if isinstance(x, (int, float)) else "  n/a"


def judge_tag(a, tag):
    metas = []
    for m in glob.glob(os.path.join(a.out, tag, "*.json")):
        with open(m, encoding="utf-8") as f:
            metas.append(json.load(f))
    counts = {}
    for m in metas:
        counts[m["variant"]] = counts.get(m["variant"], 0) + 1
    full = max(counts.values()) if counts else 0
    # A variant still booting (fewer seeds than the others) is left out.
    variants = sorted(v for v, c in counts.items() if c == full)
    if len(variants) < len(counts):
        print("# left out (fewer than %d seeds): %s" % (
            full, ", ".join(sorted(set(counts) - set(variants)))))
    roots = sorted((v for v in variants if v.startswith("r")), key=lambda v: int(v[1:]))
    doses = sorted((v for v in variants if v.startswith("nft")), key=lambda v: int(v[3:]))
    bad = [m for m in metas if m["rc"] != 0 or not m["split"]]
    print("\n# kernel %s (tag %s): %d boots, %d failed%s" % (
        metas[0]["kernel"] if metas else "?", tag, len(metas), len(bad),
        "".join("\n  failed: %s seed %d rc %d" % (m["variant"], m["seed"], m["rc"])
                for m in bad)))
    walls = sorted(m["wall_s"] for m in metas)
    if walls:
        print("wall a boot: median %.0f s, %.0f-%.0f s; load %s-%s; two boots at once, so an "
              "N-seed A/B (2N boots) takes about N x %.0f s" % (
                  statistics.median(walls), walls[0], walls[-1],
                  min((m["load_start"] for m in metas), key=float),
                  max((m["load_end"] for m in metas), key=float),
                  statistics.median(walls)))
    for kind in KINDS:
        print("\n## %s: spread of every gated series (value a seed: p50 of its repeats)" % kind)
        per = {v: [seed_values(lg) for lg in logs_of(a.out, tag, v, kind)] for v in variants}
        keys = sorted({k for v in per.values() for d in v for k in d})
        for k in keys:
            cells = []
            allv = []
            for v in roots + doses:
                xs = [d[k] for d in per[v] if k in d]
                if v in roots:
                    allv += xs
                if xs:
                    med = statistics.median(xs)
                    cells.append("%s %.5g [%.2f %%]" % (v, med, 100 * (max(xs) - min(xs)) / med))
            if allv:
                print("  %s\n    roots together: %d seeds, %.5g-%.5g (%.2f %%)\n    %s" % (
                    k, len(allv), min(allv), max(allv),
                    100 * (max(allv) - min(allv)) / statistics.median(allv),
                    "\n    ".join(cells)))
        pairs = [(x, y, "A/A") for i, x in enumerate(roots) for y in roots[i + 1:]] + \
                [(x, d, d) for d in doses for x in roots]
        results = {}
        with tempfile.TemporaryDirectory(prefix="seed-floor-") as tmp:
            for x, y, what in pairs:
                la, lb = logs_of(a.out, tag, x, kind), logs_of(a.out, tag, y, kind)
                if not la or not lb:
                    continue
                rc, rows = compare(tmp, la, lb)
                results[(x, y, what)] = (rc, rows, len(la), len(lb))
        print("\n## %s: verdicts (compare --baseline over seeds)" % kind)
        for what in ["A/A"] + doses:
            sel = [(k, v) for k, v in results.items() if k[2] == what]
            if not sel:
                continue
            print("\n### %s: %d pairs (%s); compare exit 1 in %d" % (
                "unchanged roots" if what == "A/A" else what + " against each unchanged root",
                len(sel), ", ".join("%s-%s %d:%d seeds" % (k[0], k[1], v[2], v[3])
                                    for k, v in sel), sum(v[0] == 1 for _, v in sel)))
            keys = sorted({rk for _, v in sel for rk in v[1]})
            for rk in keys:
                rows = [v[1][rk] for _, v in sel if rk in v[1]]
                verdicts = {}
                for r in rows:
                    verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
                n, reg = len(rows), verdicts.get("regression", 0)
                lo, hi = clopper_pearson(reg, n)
                ch = sorted(r["change_pct"] for r in rows if r.get("change_pct") is not None)
                los = [r.get("seeds", {}).get("shift_lo_pct") for r in rows]
                his = [r.get("seeds", {}).get("shift_hi_pct") for r in rows]
                los = [x for x in los if x is not None]
                his = [x for x in his if x is not None]
                print("  %s (allow %.2g %%)\n    REGRESSION %d of %d [%.1f %%, %.1f %%]; %s\n"
                      "    change %s..%s %% (median %s), interval lows %s..%s, highs %s..%s" % (
                          rk, 100 * rows[0]["allowance"] / abs(rows[0]["baseline"] or 1),
                          reg, n, 100 * lo, 100 * hi,
                          ", ".join("%s %d" % kv for kv in sorted(verdicts.items())),
                          pct(ch[0] if ch else None), pct(ch[-1] if ch else None),
                          pct(statistics.median(ch) if ch else None),
                          pct(min(los) if los else None), pct(max(los) if los else None),
                          pct(min(his) if his else None), pct(max(his) if his else None)))


def cmd_judge(a):
    print("# bench/vm_seed_floor.py judge %s --tag %s  (%s; uptime load %s)" % (
        a.out, " --tag ".join(a.tag), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        load()))
    for tag in a.tag:
        judge_tag(a, tag)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--kernel", required=True)
    r.add_argument("--tag", required=True)
    r.add_argument("--variants", default="r0,r1,nft1,r2,r3,nft2,nft4,r4,r5")
    r.add_argument("--seeds", default="1-5")
    r.add_argument("--jobs", type=int, default=2)
    j = sub.add_parser("judge")
    j.add_argument("out")
    j.add_argument("--tag", action="append", required=True)
    a = ap.parse_args()
    a.out = os.path.abspath(a.out)
    {"run": cmd_run, "judge": cmd_judge}[a.cmd](a)


if __name__ == "__main__":
    main()
