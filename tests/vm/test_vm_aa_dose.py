#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The main job's selftest in an icount guest, six boots: five unchanged
(A/A) agree on every instruction-counted gated series within 0.3 % (the
/proc/stat-tick cpu.cost within its 2 %) and pass `compare --baseline` and
`compare --db`; a sixth with two never-matching nft rules on the input hook
fails both, in one run (the gate wants 5 runs of history). The run context
says how it was measured. Boots run two at a time: under icount the host's
load changes the wall time, not the results (which is what this checks).

usage: test_vm_aa_dose.py KSFT_VM KSFT_METRIC IPERF_SELFTEST
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vm_util import check, kernel, run  # noqa: E402

vm, cli, selftest = sys.argv[1:4]
k = kernel()
ARGS = ["--loopback", "--time", "2", "--interval", "0.25", "--repeat", "1"]
DOSE = ["nft add table inet dose",
        "nft add chain inet dose in '{ type filter hook input priority 0; }'",
        "nft add rule inet dose in tcp dport 1 counter",
        "nft add rule inet dose in tcp dport 1 counter"]


def boot(log, dose):
    script = (DOSE if dose else []) + ["exec " + " ".join(map(shlex.quote, [selftest] + ARGS))]
    t0 = time.monotonic()
    rc, out, err = run(vm, ["--kernel", k, "--add", selftest, "--", "sh", "-ec",
                            "\n".join(script)])
    with open(log, "wb") as f:
        f.write(out)
    keep = os.environ.get("KSFT_VM_KEEP_LOGS")
    if keep:	# bench/vm/vm_bench.py summary reads them beside its own boots
        name = "%s-t%s" % ("dose-nft2" if dose else "aa", os.path.basename(log))
        shutil.copy(log, os.path.join(keep, name))
        with open(os.path.join(keep, name + ".json"), "w") as f:
            json.dump({"label": "dose-nft2" if dose else "aa", "dose": "nft:2" if dose else "none",
                       "kernel": os.path.basename(k), "busy": 0,
                       "wall_s": round(time.monotonic() - t0, 1), "load_start": "-",
                       "load_end": open("/proc/loadavg").read().split()[0], "rc": rc}, f)
    check(rc == 0, "boot %s: the selftest passed in the guest" % os.path.basename(log),
          out.decode(errors="replace")[-3000:] + err[-3000:])


def gated(log):
    out = subprocess.run([cli, "report", "--format", "json", "--quiet", log],
                         stdout=subprocess.PIPE, check=True).stdout
    d = json.loads(out)
    vals = {}
    for s in d["series"]:
        if s.get("policy", {}).get("regression") and s.get("summary"):
            key = (s["case"], s["name"], json.dumps(s["labels"], sort_keys=True))
            vals[key] = s["summary"].get("p50", s["summary"].get("last"))
    return d["context"], vals


def compare(args):
    r = subprocess.run([cli, "compare", "--quiet"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, check=False)
    return r.returncode, r.stdout.decode(errors="replace")


TICKS = "cpu.cost"	# /proc/stat busy time: 10 ms ticks


with tempfile.TemporaryDirectory(prefix="ksft-vm-aa.") as tmp:
    aa = [os.path.join(tmp, "a%d.log" % i) for i in range(5)]
    d = os.path.join(tmp, "dose.log")
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda job: boot(*job), [(lg, False) for lg in aa] + [(d, True)]))
    ctx, v1 = gated(aa[0])
    vals = [gated(lg)[1] for lg in aa]
    check(ctx.get("clock") == "icount" and ctx.get("icount_shift") == "0" and
          ctx.get("qemu") and ctx.get("qemu_cpu") and ctx.get("vm_kernel") and
          ctx.get("vm_kernel_config"), "the run context says how it was measured", ctx)
    check(len(v1) >= 4 and all(set(v) == set(v1) for v in vals),
          "every boot gates the same series", vals)
    for s in sorted(v1):
        xs = [v[s] for v in vals]
        spread = (max(xs) - min(xs)) / abs(sum(xs) / len(xs))
        limit = 0.02 if s[1] == TICKS else 0.003
        check(spread <= limit, "A/A %s: max-min %.3f %% <= %g %%" % (s, 100 * spread, 100 * limit),
              xs)
    base = os.path.join(tmp, "a0.json")
    subprocess.run([cli, "save", "--quiet", "-o", base, aa[0]], check=True)
    for lg in aa[1:]:
        rc, out = compare(["--baseline", base, lg])
        check(rc == 0, "A/A: compare --baseline passes (%s)" % os.path.basename(lg), out)
    rc, out = compare(["--baseline", base, d])
    check(rc != 0 and "REGRESSION" in out, "2 nft rules: compare --baseline fails", out)
    db = os.path.join(tmp, "h.db")

    def ingest(i, lg):
        # --run: boots of one root are bit-identical, so the default run id
        # (a hash of the log) would be the same for all five.
        subprocess.run([cli, "ingest", "--create", "--db", db, "--order", str(i), "--run", "boot-%d" % i,
                        "--quiet", lg], check=True, stdout=subprocess.DEVNULL)
    for i, lg in enumerate(aa[:4]):
        ingest(i, lg)
    rc, out = compare(["--db", db, "--order", "4", aa[4]])
    check(rc == 0, "A/A: compare --db passes", out)
    ingest(4, aa[4])
    rc, out = compare(["--db", db, "--order", "5", d])
    check(rc != 0 and "REGRESSION" in out, "2 nft rules: compare --db fails on the first run",
          out)
    # Twice: the verdict is the same on the same inputs.
    rc2, out2 = compare(["--db", db, "--order", "5", d])
    check(rc2 == rc and out2 == out, "compare --db: the same verdict twice", out2)
print("PASS")
