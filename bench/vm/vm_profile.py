#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-vm --profile, measured (doc/vm.rst, "Profiling a guest"): boots of
the main job's selftest (bench/vm/vm_bench.py's command and doses) with and
without the profile, then what the docs quote: whether two profiled boots
of one root give the same profile and a profiled boot the same KTAP log as
a plain one, the profile diff of a dose (its top entries and the share the
top 10 explain, raw and per byte), the wall time with and without the
plugin, the profile's size, and what counting per block over-counts
against counting per instruction.

  bench/vm/vm_profile.py run OUT --kernel IMAGE --label L [--dose nft:2]
                          [--profile] [--mode insn] [--bytes N]
  bench/vm/vm_profile.py summary OUT --aa L1 [L2] [--plain L] --dose-label L... [--insn L]
                          [--beside L]

run: one boot, OUT/L.log (+ OUT/L.prof, .whole, .caseN) and OUT/L.json
(wall time, load, exit status). --bytes N: the selftest runs fixed work
(iperf3 -n N) instead of --time 2. Per byte: the profiles' own work (the
selftest's '# profile-work:' lines, exact) when they say it, else each
case's virtual throughput times --time (an approximation, of old logs).
"""
import argparse
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vm_bench  # noqa: E402

VM = os.path.join(vm_bench.BUILD, "tools", "vm", "ksft-vm")
CLI = vm_bench.CLI
TIME_S = float(vm_bench.ARGS[vm_bench.ARGS.index("--time") + 1])


def cmd_run(a):
    os.makedirs(a.out, exist_ok=True)
    kind, n = (a.dose.split(":") + ["0"])[:2] if a.dose != "none" else ("none", "0")
    base = os.path.join(a.out, a.label)
    argv = [sys.executable, VM, "--kernel", a.kernel, "--add", vm_bench.SELFTEST]
    if a.profile:
        argv += ["--profile", base + ".prof", "--profile-mode", a.mode]
    t0, l0 = time.monotonic(), vm_bench.load()
    guest = vm_bench.guest_command(kind, int(n))
    if a.bytes:
        sel = vm_bench.ARGS[:]
        i = sel.index("--time")
        sel[i:i + 2] = ["--bytes", a.bytes]
        guest = ["sh", "-ec", "\n".join(vm_bench.dose_script(kind, int(n)) + [
            "exec " + " ".join(shlex.quote(w) for w in [vm_bench.SELFTEST] + sel)])]
    with open(base + ".log", "wb") as f:
        rc = subprocess.run(argv + ["--"] + guest, stdout=f, check=False).returncode
    meta = {"label": a.label, "dose": a.dose, "profile": a.profile, "mode": a.mode,
            "bytes": a.bytes,
            "kernel": os.path.basename(a.kernel), "wall_s": round(time.monotonic() - t0, 1),
            "load_start": l0, "load_end": vm_bench.load(), "rc": rc}
    with open(base + ".json", "w") as f:
        json.dump(meta, f)
    print(json.dumps(meta), flush=True)


def md5(path):
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


def case_bytes(log):
    """Bytes each case moved, approximately: virtual Gbit/s times --time."""
    out = []
    with open(log) as f:
        for line in f:
            m = re.search(r"iperf3:? .*?([0-9.]+) virtual Gbps", line)
            if m:
                out.append(float(m.group(1)) * 1e9 / 8 * TIME_S)
    return out


def has_work(path):
    with open(path) as f:
        return any(l.startswith("desc: work:") for l in f)


def diff(a, b, extra=()):
    r = subprocess.run([CLI, "profile-diff", "--top", "15"] + list(extra) + [a, b],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    return r.stdout.decode()


def cmd_summary(a):
    p = lambda label, ext: os.path.join(a.out, label + ext)  # noqa: E731
    meta = {}
    for label in a.aa + ([a.plain] if a.plain else []) + a.dose_label + ([a.insn] if a.insn else []):
        with open(p(label, ".json")) as f:
            meta[label] = json.load(f)
        print("%-12s rc %d, wall %5.1f s, load %s-%s, log md5 %s%s" % (
            label, meta[label]["rc"], meta[label]["wall_s"], meta[label]["load_start"],
            meta[label]["load_end"], md5(p(label, ".log")),
            ", profile %s (%d bytes; .whole %d bytes)" % (
                md5(p(label, ".prof")), os.path.getsize(p(label, ".prof")),
                os.path.getsize(p(label, ".prof.whole"))) if meta[label]["profile"] else ""))
    a1, a2 = (a.aa * 2)[:2]
    if a2 != a1:
        same = all(md5(p(a1, ext)) == md5(p(a2, ext)) for ext in (".prof", ".prof.whole"))
        print("\ntwo profiled boots of one root: profiles %s" % ("identical" if same else "DIFFER"))
    if a.plain:
        print("a profiled boot's KTAP log against a plain one: %s" % (
            "identical" if md5(p(a1, ".log")) == md5(p(a.plain, ".log")) else "DIFFERS"))
        beside = a.beside or a1
        print("wall time, profiled (%s) / plain (%s), booted at the same time: %.2f" % (
            beside, a.plain, meta[beside]["wall_s"] / meta[a.plain]["wall_s"]))
    if a2 != a1:
        print("\n== unchanged pair (%s, %s) ==\n%s" % (a1, a2, diff(p(a1, ".prof"),
                                                                  p(a2, ".prof"))))
    for dose in a.dose_label:
        if has_work(p(a1, ".prof")) and has_work(p(dose, ".prof")):
            print("== dose %s against %s, per byte (the test's work lines) ==\n%s" % (
                dose, a1, diff(p(a1, ".prof"), p(dose, ".prof"))))
            for i in (1, 2):
                ext = ".prof.case%d" % i
                if os.path.exists(p(a1, ext)) and os.path.exists(p(dose, ext)):
                    print("== case %d alone, per byte ==\n%s" % (i, diff(p(a1, ext),
                                                                       p(dose, ext))))
            continue
        print("== dose %s against %s, raw ==\n%s" % (dose, a1,
                                                   diff(p(a1, ".prof"), p(dose, ".prof"))))
        ba, bb = case_bytes(p(a1, ".log")), case_bytes(p(dose, ".log"))
        if ba and bb:
            print("== the same per byte (bytes: %.4g, %.4g) ==\n%s" % (sum(ba), sum(bb), diff(
                p(a1, ".prof"), p(dose, ".prof"),
                ["--work-a", repr(sum(ba)), "--work-b", repr(sum(bb)), "--unit", "byte"])))
            for i, (wa, wb) in enumerate(zip(ba, bb), 1):
                ext = ".prof.case%d" % i
                if os.path.exists(p(a1, ext)) and os.path.exists(p(dose, ext)):
                    print("== case %d alone, per byte (bytes: %.4g, %.4g) ==\n%s" % (
                        i, wa, wb, diff(p(a1, ext), p(dose, ext),
                                        ["--work-a", repr(wa), "--work-b", repr(wb), "--unit",
                                         "byte"])))
    if a.insn:
        tot = {}
        for label in (a1, a.insn):
            with open(p(label, ".prof.whole")) as f:
                tot[label] = int(re.search(r"^summary: (\d+)", f.read(), re.M).group(1))
        print("per block %d, per instruction %d instructions in the whole run: "
              "per block over-counts %+d (%.4f %%); wall %.1f s per instruction" % (
                  tot[a1], tot[a.insn], tot[a1] - tot[a.insn],
                  100.0 * (tot[a1] - tot[a.insn]) / tot[a.insn], meta[a.insn]["wall_s"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--kernel", required=True)
    r.add_argument("--label", required=True)
    r.add_argument("--dose", default="none")
    r.add_argument("--profile", action="store_true")
    r.add_argument("--mode", default="block", choices=("block", "insn"))
    r.add_argument("--bytes", help="fixed work: the selftest's --bytes N instead of --time")
    s = sub.add_parser("summary")
    s.add_argument("out")
    s.add_argument("--aa", nargs="+", required=True,
                   help="two profiled unchanged boots (one: no determinism check)")
    s.add_argument("--plain", help="an unchanged boot without --profile")
    s.add_argument("--dose-label", required=True, nargs="+",
                   help="profiled boots with a dose or another kernel, each against the first --aa")
    s.add_argument("--insn", help="a profiled unchanged boot counted per instruction")
    s.add_argument("--beside", help="the profiled boot run beside --plain (default: the "
                   "first --aa), for the wall time")
    a = ap.parse_args()
    {"run": cmd_run, "summary": cmd_summary}[a.cmd](a)


if __name__ == "__main__":
    main()
