#!/usr/bin/env python3
"""Where the "others" CPU time of a loopback run goes, with and without a
tbf cap (issue 40, item 3): per CPU, the /proc/stat columns (user, nice,
system, irq, softirq) over one iperf-selftest run in a network namespace of
its own, and the tasks that lived through the run (ksoftirqd/N, kworkers,
the rest) by their utime+stime. The job's own processes start and end
inside the run, so a task seen before and after is not the job's.

Usage (root): bench/record/others_cpu_split.py JOB [PAIRS 3] [DOSE_PCT 35]
JOB: an iperf-selftest; each pair runs it unchanged, then capped at
(100 - DOSE) % of the first unchanged run's median throughput, as
bench/record/record_two_runner.sh caps it (tc tbf on the namespace's lo).
"""
import json
import os
import re
import subprocess
import sys
import time

COLS = ("user", "nice", "system", "irq", "softirq")
TCK = os.sysconf("SC_CLK_TCK")


def cpu_cols():
    out = {}
    for line in open("/proc/stat"):
        m = re.match(r"cpu(\d+) (.*)", line)
        if m:
            v = [int(x) for x in m.group(2).split()]
            # user nice system idle iowait irq softirq steal
            out[int(m.group(1))] = dict(zip(COLS, (v[0], v[1], v[2], v[5], v[6])))
    return out


def tasks():
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            tids = os.listdir("/proc/%s/task" % pid)
        except OSError:
            continue
        for tid in tids:
            try:
                s = open("/proc/%s/task/%s/stat" % (pid, tid)).read()
            except OSError:
                continue
            comm = s[s.index("(") + 1:s.rindex(")")]
            f = s[s.rindex(")") + 2:].split()
            # fields 14, 15 (utime, stime) are f[11], f[12]; 39 processor f[36]
            out[(int(pid), int(tid))] = (comm, int(f[11]) + int(f[12]), int(f[36]))
    return out


def group(comm):
    if comm.startswith("ksoftirqd/"):
        return comm
    if comm.startswith("kworker/"):
        m = re.match(r"kworker/(\d+):", comm)
        return "kworker/%s:*" % m.group(1) if m else "kworker/u*"
    return "other tasks"


def throughputs(text):
    v = []
    for l in text.splitlines():
        if l.startswith("# ktap-metric-json:") and '"name":"throughput"' in l:
            v.append(json.loads(l.split(":", 1)[1])["value"])
    return v


def metric(text, name, host):
    v = []
    for l in text.splitlines():
        if l.startswith("# ktap-metric-json:") and '"name":"%s"' % name in l:
            d = json.loads(l.split(":", 1)[1])
            if d.get("host") == host:
                v.append(d["value"])
    return v


def run(ns, job):
    c0, t0, w0 = cpu_cols(), tasks(), time.monotonic()
    p = subprocess.run(["ip", "netns", "exec", ns, job, "--loopback", "--time", "2",
                        "--repeat", "3"], capture_output=True, text=True)
    c1, t1, w1 = cpu_cols(), tasks(), time.monotonic()
    cols = {c: {k: (c1[c][k] - c0[c][k]) / TCK / (w1 - w0) for k in COLS} for c in c0}
    grp = {}
    for key, (comm, t, cpu) in t1.items():
        if key in t0 and t0[key][0] == comm:
            g = group(comm)
            grp[g] = grp.get(g, 0) + (t - t0[key][1]) / TCK / (w1 - w0)
    return cols, grp, p.stdout, w1 - w0


def show(label, cols, grp, out, wall):
    tp = sorted(throughputs(out))
    print("## %s: %.1f s, throughput %s Gbit/s" % (label, wall, " ".join("%.1f" % x for x in tp)))
    for name in ("interference.others_cpu", "interference.softirq_cpu"):
        v = {h: metric(out, name, h) for h in ("local", "remote", "both")}
        if any(v.values()):
            print("   the job's %s: %s" % (name, "; ".join(
                "%s %s" % (h, " ".join("%.2f" % x for x in x_)) for h, x_ in v.items() if x_)))
    for c in sorted(cols):
        print("   cpu%d  %s  (CPU s per s)" % (c, "  ".join("%s %.3f" % (k, cols[c][k]) for k in COLS)))
    print("   tasks alive throughout: %s" % ", ".join(
        "%s %.3f" % (g, v) for g, v in sorted(grp.items(), key=lambda x: -x[1]) if v >= 0.001))
    sys.stdout.flush()


def main():
    job = sys.argv[1]
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    dose = int(sys.argv[3]) if len(sys.argv) > 3 else 35
    ns = "ktoc%d" % os.getpid()
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        print("# others_cpu_split %s, %s, load %s" % (
            job, time.strftime("%FT%TZ", time.gmtime()), open("/proc/loadavg").read().strip()))
        cap = 0
        for i in range(pairs):
            cols, grp, out, wall = run(ns, job)
            show("unchanged %d" % (i + 1), cols, grp, out, wall)
            if not cap:
                tp = sorted(throughputs(out))
                cap = int(tp[len(tp) // 2] * 1e9 * (100 - dose) / 100)
            subprocess.run(["tc", "-n", ns, "qdisc", "add", "dev", "lo", "root", "tbf", "rate",
                            "%dbit" % cap, "burst", str(cap // 8 // 20), "latency", "400ms"],
                           check=True)
            cols, grp, out, wall = run(ns, job)
            show("capped %d (tbf %.2f Gbit/s)" % (i + 1, cap / 1e9), cols, grp, out, wall)
            subprocess.run(["tc", "-n", ns, "qdisc", "del", "dev", "lo", "root"], check=True)
        print("# end load %s" % open("/proc/loadavg").read().strip())
    finally:
        subprocess.run(["ip", "netns", "del", ns])


if __name__ == "__main__":
    main()
