#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The main job's selftest in an icount guest, three boots: two unchanged
(A/A) agree within 0.3 % on every gated series and pass `compare
--baseline` and `compare --db`; a third with two never-matching nft rules
on the input hook fails both, in one run. The run context says how it was
measured (clock=icount, QEMU, CPU model, image). Short iperf3 times keep
the CI cost near a minute a boot.

usage: test_vm_aa_dose.py KSFT_VM KSFT_METRIC IPERF_SELFTEST
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

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
    rc, out, err = run(vm, ["--kernel", k, "--add", selftest, "--", "sh", "-ec",
                            "\n".join(script)])
    with open(log, "wb") as f:
        f.write(out)
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


with tempfile.TemporaryDirectory(prefix="ksft-vm-aa.") as tmp:
    a1, a2, d = (os.path.join(tmp, n) for n in ("a1.log", "a2.log", "dose.log"))
    boot(a1, False)
    boot(a2, False)
    boot(d, True)
    ctx, v1 = gated(a1)
    _, v2 = gated(a2)
    _, vd = gated(d)
    check(ctx.get("clock") == "icount" and ctx.get("icount_shift") == "0" and
          ctx.get("qemu") and ctx.get("qemu_cpu") and ctx.get("vm_kernel") and
          ctx.get("vm_kernel_config"), "the run context says how it was measured", ctx)
    check(len(v1) >= 4 and set(v1) == set(v2), "both boots gate the same series", (v1, v2))
    worst = max(abs(v2[s] - v1[s]) / abs(v1[s]) for s in v1)
    check(worst <= 0.003, "A/A: every gated series within 0.3 %% (worst %.4f %%)" % (100 * worst),
          "\n".join("%s %r %r" % (s, v1[s], v2[s]) for s in v1))
    base = os.path.join(tmp, "a1.json")
    subprocess.run([cli, "save", "--quiet", "-o", base, a1], check=True)
    rc, out = compare(["--baseline", base, a2])
    check(rc == 0, "A/A: compare --baseline passes", out)
    rc, out = compare(["--baseline", base, d])
    check(rc != 0 and "regression" in out.lower(), "2 nft rules: compare --baseline fails", out)
    db = os.path.join(tmp, "h.db")
    for i, lg in enumerate((a1, a2)):
        subprocess.run([cli, "ingest", "--db", db, "--order", str(i), "--quiet", lg],
                       check=True, stdout=subprocess.DEVNULL)
    rc, out = compare(["--db", db, "--order", "2", a2])
    check(rc == 0, "A/A: compare --db passes", out)
    rc, out = compare(["--db", db, "--order", "2", d])
    check(rc != 0 and "regression" in out.lower(), "2 nft rules: compare --db fails", out)
    # Twice: the verdict is the same on the same inputs.
    rc2, out2 = compare(["--db", db, "--order", "2", d])
    check(rc2 == rc and out2 == out, "compare --db: the same verdict twice", out2)
print("PASS")
