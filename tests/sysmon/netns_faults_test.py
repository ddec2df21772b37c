#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ksft-sysmon when the remote endpoint fails for real: two network
namespaces joined by a veth pair, the remote one reached through
`ip netns exec`, and mid-run either the remote sampler (the `sh -s` running
inside namespace B) is killed or namespace B is deleted.

Each case checks that the local host's samples are all there, before and
after the fault; when the remote fails, that the result line is `not ok 1`
(exit status 1) and a `# ksft-sysmon:` diagnostic names the remote endpoint
and why; that ksft-sysmon exits well within its timeout (no hang) and that
no sampler process is left behind. Deleting the namespace alone is not a
fault: the sampler inside keeps it alive (see CASES). Prints KTAP; skips (exit 77) when not root or when
network namespaces are unavailable.

Usage: netns_faults_test.py KSFT_SYSMON
"""
import json
import os
import signal
import subprocess
import sys
import time

EXE = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
TAG = f"ksftsf{os.getpid()}"
NS_A, NS_B = f"{TAG}a", f"{TAG}b"
IF_A, IF_B = "sf-a", "sf-b"
RUN_TIMEOUT = 60


def sh(*args, check=True, **kw):
    return subprocess.run(args, check=check, capture_output=True, text=True, **kw)


def ns_pids(ns):
    return [int(p) for p in sh("ip", "netns", "pids", ns, check=False).stdout.split()]


def alive(pid):
    """A live (not zombie) process @pid."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def setup():
    sh("ip", "netns", "add", NS_A)
    sh("ip", "netns", "add", NS_B)
    sh("ip", "-n", NS_A, "link", "add", IF_A, "type", "veth", "peer", "name", IF_B,
       "netns", NS_B)
    for ns, ifname in ((NS_A, IF_A), (NS_B, IF_B)):
        sh("ip", "-n", ns, "link", "set", "dev", ifname, "up")


def cleanup(extra_pids=()):
    for ns in (NS_A, NS_B):
        for pid in ns_pids(ns):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        sh("ip", "netns", "del", ns, check=False)
    for pid in extra_pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def sampler_pids(out):
    """The remote sampler's pids, as the fault command recorded them."""
    for line in out.splitlines():
        if line.startswith("# remote pids:"):
            return [int(p) for p in line.split(":", 1)[1].split()]
    return []


def run_sysmon(fault):
    """ksft-sysmon in NS_A, remote NS_B; COMMAND waits, faults, waits."""
    script = (f"sleep 1; echo remote pids: $(ip netns pids {NS_B}); {fault}; "
              "echo fault done; sleep 1")
    args = ["ip", "netns", "exec", NS_A, EXE, "--ifname", IF_A,
            "--remote", "ip", "netns", "exec", NS_B, "--remote-ifname", IF_B,
            "--interval", "0.2", "--", "sh", "-c", script]
    t0 = time.monotonic()
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=RUN_TIMEOUT)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = None
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    took = time.monotonic() - t0
    for line in out.splitlines():
        print("# " + line)
    if err:
        print("# stderr: " + err.rstrip("\n").replace("\n", "\n# stderr: "))
    print(f"# ksft-sysmon took {took:.2f} s, exit status {rc}")
    metrics = [json.loads(l.split(": ", 1)[1]) for l in out.splitlines()
               if l.startswith("# ktap-metric-json: ")]
    return rc, out, err, metrics, took


def series(metrics, name, host):
    return [m["value"] for m in metrics if m["name"] == name and m["host"] == host]


class Case:
    def __init__(self):
        self.errors = []

    def check(self, cond, what):
        if not cond:
            self.errors.append(what)
            print(f"# FAIL: {what}")


def times(metrics, name, host):
    return [m["time"] for m in metrics if m["name"] == name and m["host"] == host]


def check_fault(fault, reason_words, remote_fails, local_to_end):
    c = Case()
    rc, out, err, m, took = run_sysmon(fault)
    c.check(not any(k in err for k in ("Sanitizer", "runtime error:")),
            "no sanitizer report")
    pids = sampler_pids(out)
    c.check(rc is not None, f"ksft-sysmon ends within {RUN_TIMEOUT} s")
    c.check(took < 20, f"ksft-sysmon took {took:.1f} s (the command runs ~2 s)")
    c.check("fault done" in out, "the fault command ran to its end")
    c.check(len(pids) >= 1, f"the remote sampler was running in {NS_B}: {pids}")
    # Local samples: every metric, before and after the fault (at ~1 s).
    for name in ("cpu.utilization", "cpu.time.usr", "cpu.time.sys",
                 "nic.rx.dropped", "nic.tx.dropped"):
        s = series(m, name, "local")
        want = 8 if local_to_end else 4
        c.check(len(s) >= want, f"local {name}: at least {want} points: {len(s)}")
    local_t = times(m, "cpu.time.usr", "local")
    remote_t = times(m, "cpu.time.usr", "remote")
    if local_to_end:
        c.check(local_t and local_t[-1] - local_t[0] >= 1.6,
                f"local samples span the whole run, past the fault: {local_t}")
    else:
        c.check("local veth gone" in out, "the local veth end went away with B")
    c.check(len(remote_t) >= 3, f"remote samples before the fault: {len(remote_t)}")
    if remote_fails:
        # The remote's series ends at the fault; the local one goes on.
        c.check(not local_to_end or (remote_t and local_t and
                                     local_t[-1] >= remote_t[-1] + 0.6),
                f"local sampling outlives the remote: {local_t[-1:]} vs {remote_t[-1:]}")
        c.check(rc == 1 and "\nnot ok 1 " in out and "\nok 1 " not in out,
                f"result line not ok 1 and exit status 1 (got {rc})")
        diag = [l for l in out.splitlines()
                if l.startswith("# ksft-sysmon:") and f"ip netns exec {NS_B}" in l]
        c.check(diag, f"a '# ksft-sysmon:' diagnostic names `ip netns exec {NS_B}`")
        c.check(any(any(w in l for w in reason_words) for l in diag),
                f"the diagnostic says why ({' or '.join(reason_words)}): {diag}")
    else:
        # Nothing failed: the remote was sampled to the end, no error.
        c.check(remote_t and local_t and abs(local_t[-1] - remote_t[-1]) < 0.1,
                f"remote sampled to the end: {remote_t[-1:]} vs {local_t[-1:]}")
        c.check(rc == 0 and "\nok 1 " in out and "# ksft-sysmon:" not in out,
                f"result line ok 1, exit status 0, no diagnostic (got {rc})")
    # Nothing left behind: the sampler pids (gone from namespace B or not).
    time.sleep(0.2)
    left = [p for p in pids if alive(p)]
    c.check(not left, f"no sampler process left: {[(p, cmdline(p)) for p in left]}")
    left = [p for p in ns_pids(NS_B)] if os.path.exists(f"/run/netns/{NS_B}") else []
    c.check(not left, f"no process left in {NS_B}: {[(p, cmdline(p)) for p in left]}")
    return c, pids


# (name, fault COMMAND, words of the diagnostic, does the remote fail?,
#  is the local host sampled to the end?)
CASES = [
    # The sampler (`sh -s` inside B, the only process there) is killed.
    ("remote_sampler_killed",
     f"kill $(ip netns pids {NS_B})",
     ("killed by signal 15",), True, True),
    # Deleting a namespace only removes its name: the sampler keeps it (and
    # its veth end) alive and answers as before. Not a fault of the remote
    # endpoint; ksft-sysmon must carry on and leave nothing behind.
    ("remote_namespace_deleted",
     f"ip netns del {NS_B}",
     (), False, True),
    # Both: the name is gone and so is the sampler holding the namespace.
    # The namespace then really goes, and the veth pair with it: the local
    # interface vanishes too, a local error that ends sampling (the first
    # error, the remote's, is the one reported).
    ("remote_namespace_deleted_and_emptied",
     f"p=$(ip netns pids {NS_B}); ip netns del {NS_B}; kill -9 $p; sleep 0.3; "
     f"ip link show {IF_A} >/dev/null 2>&1 || echo local veth gone",
     ("killed by signal 9",), True, False),
]


def main():
    if os.geteuid() != 0:
        print("1..0 # SKIP needs root (network namespaces)")
        return 77
    if not EXE:
        print(__doc__)
        return 2
    try:
        setup()
    except (OSError, subprocess.CalledProcessError) as e:
        cleanup()
        print(f"1..0 # SKIP network namespaces unavailable: {e}")
        return 77
    cleanup()
    print("KTAP version 1")
    print(f"1..{len(CASES)}")
    failed = 0
    for i, (name, fault, words, fails, to_end) in enumerate(CASES, 1):
        pids = []
        try:
            setup()
            c, pids = check_fault(fault, words, fails, to_end)
        except (OSError, subprocess.CalledProcessError) as e:
            c = Case()
            c.check(False, f"setup/run failed: {e}")
        finally:
            cleanup(pids)
        if c.errors:
            failed += 1
            print(f"not ok {i} {name}")
        else:
            print(f"ok {i} {name}")
    print(f"# Totals: pass:{len(CASES) - failed} fail:{failed} xfail:0 xpass:0 skip:0 error:0")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
