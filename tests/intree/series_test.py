#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""upstream/patches against Debian's linux-source-6.12: the series applies
(git apply --check, then git apply), every patch passes the kernel's
scripts/checkpatch.pl with no error and no warning, the header it adds is
upstream/ksft_metric.h byte for byte, the touched tests build with the
kernel's own selftests Makefiles, and run between two network namespaces
made here (tcp_mmap's receiver in one, its sender in the other, on a veth
pair with TEST-NET addresses; so_incoming_cpu inside one). `ksft-metric report`
reads their output, and the same sources built against libksftmetric
(through a one-line stand-in for the header) must give the same series:
cases, names, labels, shapes, point counts and policies, and for
so_incoming_cpu (whose counts do not depend on the machine's speed) the
summaries too.

Usage: series_test.py TARBALL PATCH_DIR MASTER_HEADER KSFT_METRIC
                      LIB_INCLUDE LIB_DIR CC...
Exit 77 (skipped) without the tarball or without root.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ST = "tools/testing/selftests"
SHIM = """/* libksftmetric in place of the in-tree header (series_test.py) */
#include <ksftmetric/ksftmetric.h>
#ifdef __KSELFTEST_HARNESS_H
#include <ksftmetric/harness.h>
#endif
"""


def run(cmd, **kw):
    kw.setdefault("check", True)
    return subprocess.run(cmd, **kw)


def extract(tarball, tree):
    top = os.path.basename(tarball).replace(".tar.xz", "")
    members = [f"{top}/{m}" for m in (ST, "scripts/checkpatch.pl", "scripts/spelling.txt",
                                       "scripts/const_structs.checkpatch", "MAINTAINERS")]
    run(["tar", "-xJf", tarball, "-C", tree, "--strip-components=1"] + members)


def apply_and_check(tree, patches, master):
    for p in patches:
        run(["git", "apply", "--check", p], cwd=tree)
        run(["git", "apply", p], cwd=tree)
    for p in patches:
        out = run(["perl", "scripts/checkpatch.pl", "--no-tree", p], cwd=tree,
                  stdout=subprocess.PIPE, text=True, check=False).stdout
        if "total: 0 errors, 0 warnings" not in out:
            raise SystemExit(f"checkpatch.pl {os.path.basename(p)}:\n{out}")
    with open(os.path.join(tree, ST, "ksft_metric.h"), "rb") as a, open(master, "rb") as b:
        if a.read() != b.read():
            raise SystemExit("the series' ksft_metric.h is not upstream/ksft_metric.h")


def build_kernel_way(tree):
    """The kernel's own Makefiles, one target each (lib.mk's $(OUTPUT)/prog)."""
    net = os.path.join(tree, ST, "net")
    for prog in ("tcp_mmap", "so_incoming_cpu"):
        run(["make", "-s", "-C", net, os.path.join(net, prog)])
    return os.path.join(net, "tcp_mmap"), os.path.join(net, "so_incoming_cpu")


def build_library_way(tree, mirror, cc, inc, libdir):
    """The same patched sources against libksftmetric."""
    src = os.path.join(tree, ST)
    dst = os.path.join(mirror, ST)
    for rel in ("kselftest.h", "kselftest_harness.h", "net/tcp_mmap.c",
                "net/so_incoming_cpu.c"):
        os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
        shutil.copy(os.path.join(src, rel), os.path.join(dst, rel))
    with open(os.path.join(dst, "ksft_metric.h"), "w") as f:
        f.write(SHIM)
    common = ["-Wall", "-O2", "-g", "-I" + dst, "-I" + inc, "-L" + libdir,
              "-Wl,-rpath," + libdir]
    mmap = os.path.join(dst, "net", "tcp_mmap")
    incoming = os.path.join(dst, "net", "so_incoming_cpu")
    run(cc + common + [mmap + ".c", "-o", mmap, "-lksftmetric", "-lpthread", "-lcrypto"])
    run(cc + common + [incoming + ".c", "-o", incoming, "-lksftmetric", "-lpthread"])
    return mmap, incoming


class Netns:
    """Two namespaces joined by a veth pair; only their own addresses."""

    def __init__(self):
        tag = f"ksftm{os.getpid()}"
        self.a, self.b = tag + "a", tag + "b"

    def __enter__(self):
        run(["ip", "netns", "add", self.a])
        run(["ip", "netns", "add", self.b])
        run(["ip", "-n", self.a, "link", "add", "veth0", "type", "veth",
             "peer", "name", "veth1", "netns", self.b])
        for ns, dev, addr in ((self.a, "veth0", "192.0.2.1/24"),
                              (self.b, "veth1", "192.0.2.2/24")):
            run(["ip", "-n", ns, "addr", "add", addr, "dev", dev])
            run(["ip", "-n", ns, "link", "set", dev, "up"])
            run(["ip", "-n", ns, "link", "set", "lo", "up"])
        return self

    def __exit__(self, *exc):
        for ns in (self.a, self.b):
            subprocess.run(["ip", "netns", "del", ns], check=False)

    def cmd(self, ns, argv):
        return ["ip", "netns", "exec", ns] + argv


def wait_for(pred, what, tries=600):
    for _ in range(tries):
        if pred():
            return
        time.sleep(0.1)
    raise SystemExit(f"gave up waiting for {what}")


def run_tcp_mmap(net, exe, out):
    """Receiver in A, sender in B for two seconds; the receiver's output."""
    with open(out, "wb") as f:
        server = subprocess.Popen(net.cmd(net.a, [exe, "-4", "-s"]), stdout=f,
                                  stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: b":8787" in run(net.cmd(net.a, ["ss", "-Htln"]),
                                          stdout=subprocess.PIPE).stdout,
                 "tcp_mmap to listen")
        # The sender would send 32 GB: stop it after two seconds.
        run(net.cmd(net.b, ["timeout", "-s", "TERM", "2", exe, "-4", "-H",
                            "192.0.2.1"]), check=False, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)

        def done():
            with open(out, "rb") as f:
                return b"ok 1 receive" in f.read()
        wait_for(done, "tcp_mmap's result line")
    finally:
        server.terminate()
        server.wait()
    with open(out, "rb") as f:
        return f.read()


def run_incoming(net, exe, out):
    p = run(net.cmd(net.a, [exe]), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, check=False)
    with open(out, "wb") as f:
        f.write(p.stdout)
    if p.returncode:
        raise SystemExit(f"{exe} failed:\n{p.stdout.decode(errors='replace')}")
    return p.stdout


def series(cli, path, values=False):
    """The report's series, without their measured values unless @values."""
    p = run([cli, "report", "--format", "nipa", path], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
    if p.stderr:
        raise SystemExit(f"ksft-metric report {path} warned:\n{p.stderr.decode()}")
    out = []
    for r in json.loads(p.stdout)["results"]:
        for m in r["metrics"]:
            out.append((r["case"], tuple(r["path"]), r["ktap_status"], m["name"],
                        json.dumps(m["labels"], sort_keys=True), m["shape"],
                        m["points"], m["summarize"], m["compare"], m["better"])
                       + ((json.dumps(m["summary"]),) if values else ()))
    return out


def main():
    tarball, patch_dir, master, cli, inc, libdir = map(os.path.abspath, sys.argv[1:7])
    cc = sys.argv[7:]
    if not os.path.isfile(tarball):
        print(f"{tarball} is missing: install linux-source-6.12")
        return 77
    if os.geteuid() != 0:
        print("needs root (network namespaces)")
        return 77
    patches = sorted(os.path.join(patch_dir, p) for p in os.listdir(patch_dir)
                     if p.endswith(".patch") and not p.startswith("0000-"))
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "linux")
        os.makedirs(tree)
        extract(tarball, tree)
        apply_and_check(tree, patches, master)
        print(f"{len(patches)} patches apply and pass checkpatch.pl")
        kernel = build_kernel_way(tree)
        library = build_library_way(tree, os.path.join(tmp, "mirror"), cc, inc, libdir)
        outputs = {}
        with Netns() as net:
            for way, (mmap, incoming) in (("ksft_metric.h", kernel),
                                          ("libksftmetric", library)):
                for name, fn, exe in (("tcp_mmap", run_tcp_mmap, mmap),
                                      ("so_incoming_cpu", run_incoming, incoming)):
                    path = os.path.join(tmp, f"{name}-{way.replace('.', '_')}.log")
                    fn(net, exe, path)
                    outputs[(name, way)] = series(cli, path, name != "tcp_mmap")
        failed = 0
        per_cpu = {"last": 32.0}    # 32 clients per listener, one per CPU
        variants = ("before_reuseport", "before_listen", "after_listen",
                    "after_all_listen")
        expect = {"tcp_mmap": [("receive", "throughput", 1, None),
                               ("receive", "cpu.usec_per_mb", 1, None)],
                  "so_incoming_cpu": [(f"so_incoming_cpu.{v}.test{t}", "accepted", 1,
                                       per_cpu) for v in variants for t in (1, 2, 3)]}
        for name, want in expect.items():
            got = outputs[(name, "ksft_metric.h")]
            lib = outputs[(name, "libksftmetric")]
            print(f"{name}: {len(got)} series: {got[:2]}")
            shape = [(s[0], s[3], s[6]) for s in got]
            if shape != [w[:3] for w in want] or any(s[2] != "pass" for s in got):
                print(f"{name}: expected {[w[:3] for w in want]}, all passing")
                failed = 1
            for s, w in zip(got, want):
                summary = json.loads(s[10]) if w[3] else None
                if w[3] and (not summary or any(e != w[3] for e in summary)):
                    print(f"{name}: {s[0]}: summary {summary}, expected {w[3]} per CPU")
                    failed = 1
            if got != lib:
                print(f"{name}: libksftmetric gives {lib}")
                failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
