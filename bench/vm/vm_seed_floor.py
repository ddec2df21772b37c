#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The floor of a seeded A/B (issue 42, doc/vm.rst "Layout seeds"): real
ksft-vm boots, judged through the real CLI, for false alarms between roots
that differ only in unrelated ways and for the detection of 1, 2 and 4
never-matching nft rules.

  bench/vm/vm_seed_floor.py run OUT --kernel IMAGE --tag T [--variants r0,r1,nft1,...]
                         [--seeds 1-5] [--jobs 2]
  bench/vm/vm_seed_floor.py ab OUT --kernel-a IMAGE --tag-a T --kernel-b IMAGE --tag-b T2
                         --variant V [--seeds 5]
  bench/vm/vm_seed_floor.py judge OUT --tag T [--tag T2]... [--seeds 1-5]

run: boots every variant under every seed, at most --jobs at once, under
nice -n 19; a log already there is kept (a run can be resumed). Each boot
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

ab: the same boots of one variant under two kernels, made by the real
ksft-vm-ab (`ksft-vm ab -o OUT/ab-V-TA-TB --seeds N`: both kernels at
once a seed, then its save + compare), so its wall time is an N-seed
A/B's on this host; its logs are split into OUT/TA and OUT/TB as run's
(a boot's wall time from the logs' times: a seed's pair starts when the
previous pair's last log was written).

judge: over the seeds --seeds (default 1-5; a variant lacking one is
left out), for every pair of unchanged roots (rI as A, rJ as B, I < J) and
every dose against every unchanged root (rI as A, nftN as B), of each
log kind: `ksft-metric save -o a.json A's logs` and `ksft-metric compare
--format json --baseline a.json B's logs`, as ksft-vm-ab --seeds does;
prints per gated series the false alarms over the unchanged pairs (with
a Clopper-Pearson 95 % interval), each dose's verdicts, shift and its
interval, the spread across seeds (every seed booted: a variant may have
more) and roots, and the wall time.
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

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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


def guest_args(out, variant):
    """(working directory, ksft-vm's --add options and COMMAND) of @variant."""
    cwd, pad = root_of(out, variant)
    return cwd, ["--add", SELFTEST, "--add", UDP_RR] + (["--add", pad] if pad else []) + \
        ["--", "sh", "-c", guest_script(variant)]


def split_log(base, text):
    """Write the boot's stdout @text as BASE.main.log and BASE.udp.log;
    whether the marker was there."""
    main, _, udp = text.partition(MARK + "\n")
    for kind, body in (("main", main), ("udp", udp)):
        with open("%s.%s.log" % (base, kind), "w", encoding="utf-8") as f:
            f.write(body)
    return MARK in text


def boot(out, tag, kernel, variant, seed):
    base = os.path.join(out, tag, "%s-s%d" % (variant, seed))
    if os.path.exists(base + ".json"):
        return None
    cwd, args = guest_args(out, variant)
    cmd = ["nice", "-n", "19", sys.executable, VM, "--kernel", kernel, "--seed", str(seed)] + args
    t0, l0, started = time.monotonic(), load(), time.time()
    with open(base + ".err", "wb") as e:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=e, check=False)
    split = split_log(base, p.stdout.decode("utf-8", "replace"))
    meta = {"tag": tag, "variant": variant, "seed": seed, "kernel": os.path.basename(kernel),
            "rc": p.returncode, "wall_s": round(time.monotonic() - t0, 1), "started": started,
            "load_start": l0, "load_end": load(), "split": split}
    with open(base + ".json", "w", encoding="utf-8") as f:
        json.dump(meta, f)
    return meta


def cmd_ab(a):
    """One variant under two kernels through the real ksft-vm-ab."""
    for t in (a.tag_a, a.tag_b):
        os.makedirs(os.path.join(a.out, t), exist_ok=True)
    abdir = os.path.join(a.out, "ab-%s-%s-%s" % (a.variant, a.tag_a, a.tag_b))
    cwd, args = guest_args(a.out, a.variant)
    cmd = ["nice", "-n", "19", sys.executable, VM, "ab", "-o", abdir, "--format", "text",
           "--seeds", str(a.seeds), os.path.abspath(a.kernel_a), os.path.abspath(a.kernel_b)] + args
    t0, l0, started = time.monotonic(), load(), time.time()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       check=False)
    wall, l1 = round(time.monotonic() - t0, 1), load()
    with open(os.path.join(abdir, "ab.out"), "wb") as f:
        f.write(p.stdout + b"\n---- stderr\n" + p.stderr)
    summary = {"variant": a.variant, "a": a.tag_a, "b": a.tag_b, "seeds": a.seeds,
               "rc": p.returncode, "wall_s": wall, "started": started, "load_start": l0,
               "load_end": l1, "cmd": " ".join(shlex.quote(w) for w in cmd), "cwd": cwd}
    with open(os.path.join(abdir, "ab.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f)
    print(json.dumps(summary), flush=True)
    begin = started
    for k in range(1, a.seeds + 1):
        ends = {}
        for v, tag, kernel in (("a", a.tag_a, a.kernel_a), ("b", a.tag_b, a.kernel_b)):
            log = os.path.join(abdir, "%s-s%d.log" % (v, k))
            ends[v] = max(os.path.getmtime(log), os.path.getmtime(log[:-4] + ".err"))
            with open(log, "rb") as f:
                text = f.read().decode("utf-8", "replace")
            base = os.path.join(a.out, tag, "%s-s%d" % (a.variant, k))
            split = split_log(base, text)
            meta = {"tag": tag, "variant": a.variant, "seed": k,
                    "kernel": os.path.basename(kernel), "rc": 0 if split else p.returncode,
                    "wall_s": round(ends[v] - begin, 1), "started": begin,
                    "load_start": l0, "load_end": l1, "split": split, "by": "ksft-vm-ab"}
            with open(base + ".json", "w", encoding="utf-8") as f:
                json.dump(meta, f)
        begin = max(ends.values())


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


def logs_of(out, tag, variant, kind, seeds=None):
    """@variant's non-empty logs of @kind, by seed (only @seeds when given)."""
    logs = sorted(glob.glob(os.path.join(out, tag, "%s-s*.%s.log" % (variant, kind))),
                  key=seed_of)
    return [lg for lg in logs
            if os.path.getsize(lg) > 0 and (seeds is None or seed_of(lg) in seeds)]


def seed_of(log):
    return int(log.rsplit("-s", 1)[1].split(".")[0])


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


def seed_list(seeds):
    """"1-5" or "1-5,7" of the seed numbers @seeds."""
    out, run = [], []
    for s in sorted(seeds):
        if run and s == run[-1] + 1:
            run.append(s)
            continue
        if run:
            out.append("%d-%d" % (run[0], run[-1]) if len(run) > 1 else str(run[0]))
        run = [s]
    if run:
        out.append("%d-%d" % (run[0], run[-1]) if len(run) > 1 else str(run[0]))
    return ",".join(out)


def pct(x):
    return "%+.2f" % x if isinstance(x, (int, float)) else "  n/a"


def judge_tag(a, tag):
    seeds = set(seeds_arg(a.seeds))
    metas = []
    for m in glob.glob(os.path.join(a.out, tag, "*.json")):
        with open(m, encoding="utf-8") as f:
            metas.append(json.load(f))
    booted = {}
    for m in metas:
        booted.setdefault(m["variant"], set()).add(m["seed"])
    # A variant lacking one of the judged seeds (still booting) is left out.
    variants = sorted(v for v, got in booted.items() if seeds <= got)
    if len(variants) < len(booted):
        print("# left out (not every seed of %s): %s" % (
            a.seeds, ", ".join(sorted(set(booted) - set(variants)))))
    roots = sorted((v for v in variants if v.startswith("r")), key=lambda v: int(v[1:]))
    doses = sorted((v for v in variants if v.startswith("nft")), key=lambda v: int(v[3:]))
    bad = [m for m in metas if m["rc"] != 0 or not m["split"]]
    print("\n# kernel %s (tag %s): %d boots, %d failed%s" % (
        metas[0]["kernel"] if metas else "?", tag, len(metas), len(bad),
        "".join("\n  failed: %s seed %d rc %d" % (m["variant"], m["seed"], m["rc"])
                for m in bad)))
    print("seeds booted: %s; judged over seeds %s" % (
        ", ".join("%s %s" % (v, seed_list(booted[v])) for v in sorted(booted)), a.seeds))
    for v in sorted(booted):
        mv = [m for m in metas if m["variant"] == v]
        walls = sorted(m["wall_s"] for m in mv)
        print("  %s: wall a boot median %.0f s, %.0f-%.0f s, load %s-%s, booted %s UTC%s" % (
            v, statistics.median(walls), walls[0], walls[-1],
            min((m["load_start"] for m in mv), key=float),
            max((m["load_end"] for m in mv), key=float),
            "-".join(time.strftime("%H:%M", time.gmtime(t)) for t in (
                min(m["started"] for m in mv), max(m["started"] + m["wall_s"] for m in mv))),
            " (by ksft-vm-ab)" if any(m.get("by") for m in mv) else ""))
    for kind in KINDS:
        print("\n## %s: spread of every gated series (value a seed: p50 of its repeats; "
              "every seed booted)" % kind)
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
                    cells.append("%s %.5g [%.2f %%, %d seeds]" % (
                        v, med, 100 * (max(xs) - min(xs)) / med, len(xs)))
            if allv:
                print("  %s\n    roots together: %d boots, %.5g-%.5g (%.2f %%)\n    %s" % (
                    k, len(allv), min(allv), max(allv),
                    100 * (max(allv) - min(allv)) / statistics.median(allv),
                    "\n    ".join(cells)))
        pairs = [(x, y, "A/A") for i, x in enumerate(roots) for y in roots[i + 1:]] + \
                [(x, d, d) for d in doses for x in roots]
        results = {}
        with tempfile.TemporaryDirectory(prefix="seed-floor-") as tmp:
            for x, y, what in pairs:
                la, lb = (logs_of(a.out, tag, x, kind, seeds),
                          logs_of(a.out, tag, y, kind, seeds))
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
                flagged = ["%s-%s %s" % (k[0], k[1], pct(v[1][rk].get("change_pct")))
                           for k, v in sel if rk in v[1] and v[1][rk]["verdict"] == "regression"]
                if what == "A/A" and flagged:
                    print("  !! REGRESSION between unchanged roots: %s" % ", ".join(flagged))
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
    print("# bench/vm/vm_seed_floor.py judge %s --tag %s --seeds %s  (%s; uptime load %s)" % (
        a.out, " --tag ".join(a.tag), a.seeds, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
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
    j.add_argument("--seeds", default="1-5")
    b = sub.add_parser("ab")
    b.add_argument("out")
    b.add_argument("--kernel-a", required=True)
    b.add_argument("--tag-a", required=True)
    b.add_argument("--kernel-b", required=True)
    b.add_argument("--tag-b", required=True)
    b.add_argument("--variant", required=True)
    b.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    a.out = os.path.abspath(a.out)
    {"run": cmd_run, "judge": cmd_judge, "ab": cmd_ab}[a.cmd](a)


if __name__ == "__main__":
    main()
