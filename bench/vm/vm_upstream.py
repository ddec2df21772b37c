#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unmodified upstream Python selftests in the guest (issue 42, doc/vm.rst
"Upstream Python selftests"): linux-source-6.12's net and drivers/net
tests under a plain `ksft-vm -- ./test.py`, from the kernel tree and from
a kselftest install, on Debian's cloud kernels, with netdevsim built out
of tree against Debian's headers.

  bench/vm/vm_upstream.py tree OUT                      # the 6.12 parts, from /usr/src
  bench/vm/vm_upstream.py install OUT [--targets T]     # make ... install
  bench/vm/vm_upstream.py headers OUT PACKAGE...         # apt-get download, unpacked
  bench/vm/vm_upstream.py netdevsim OUT [--src DIR] --headers DIR --modules DIR
  bench/vm/vm_upstream.py run OUT --kernel IMAGE --label L [--modules DIR]
                           [--src DIR] [--from tree|install] [--boots N] TEST...
  bench/vm/vm_upstream.py host OUT [--src DIR] [--from tree|install] TEST...
  bench/vm/vm_upstream.py summary OUT

TEST is a selftest's path below tools/testing/selftests (net/nl_netdev.py).
run: N boots of each TEST (two at a time, nice -n 5); each boot's stdout,
stderr and a .json (wall time, load, exit status, root size, md5 of the
output). host: the same TEST on the host, in a network namespace of its
own (unshare -n), for the per-case results to compare. summary: per-case
KTAP results of each TEST and label against the host's, whether the boots
of one label are byte-identical, wall time and root size.
"""
import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("KSFTM_BUILD", os.path.join(ROOT, "build"))
VM = os.path.join(BUILD, "tools", "vm", "ksft-vm")
TARBALL = "/usr/src/linux-source-6.12.tar.xz"
ST = "tools/testing/selftests"
# What the tests, their install and netdevsim's build need from the tree.
TREE_PARTS = ("Makefile", "tools", "Documentation/netlink", "drivers/net/netdevsim",
              "scripts", "include/uapi", "arch/x86/include/uapi")
RESULT = re.compile(r"^(not ok|ok) (\d+) ([^#]*?)\s*(#\s*(SKIP|XFAIL|TODO)\b.*)?$")


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def timed(cmd, **kw):
    t = time.monotonic()
    res = subprocess.run(cmd, check=False, **kw)
    return res, time.monotonic() - t


def tree(args):
    """Extract TREE_PARTS of the tarball to OUT/linux."""
    out = os.path.join(args.out, "linux")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    top = os.path.basename(TARBALL)[:-len(".tar.xz")]
    res, wall = timed(["nice", "-n", "5", "tar", "-xJf", TARBALL, "-C", out,
                       "--strip-components=1"] + ["%s/%s" % (top, p) for p in TREE_PARTS])
    if res.returncode:
        sys.exit("tar failed")
    print("extracted %s in %.0f s (load %s)" % (" ".join(TREE_PARTS), wall, load()))


def install(args):
    """make -C tools/testing/selftests TARGETS=... install, timed."""
    src = os.path.join(args.out, "linux", ST)
    dst = os.path.join(args.out, "kselftest_install")
    shutil.rmtree(dst, ignore_errors=True)
    cmd = ["nice", "-n", "5", "make", "-C", src, "-j2", "TARGETS=" + args.targets,
           "install", "INSTALL_PATH=" + dst]
    with open(os.path.join(args.out, "install.log"), "w") as log:
        res, wall = timed(cmd, stdout=log, stderr=subprocess.STDOUT)
    rec = {"targets": args.targets, "rc": res.returncode, "wall_s": round(wall, 1),
           "load": load(), "command": " ".join(cmd[3:])}
    with open(os.path.join(args.out, "install.json"), "w") as f:
        json.dump(rec, f)
    print(json.dumps(rec))
    if res.returncode:
        sys.exit("install failed: %s/install.log" % args.out)


def headers(args):
    """apt-get download the header packages, unpacked in OUT/hdr (not
    installed: the headers depend on a linux-image, which would land in
    /boot), the build directory's absolute include pointed there."""
    debs = os.path.join(args.out, "debs")
    os.makedirs(debs, exist_ok=True)
    if subprocess.run(["apt-get", "download"] + args.packages, cwd=debs, check=False).returncode:
        sys.exit("apt-get download failed")
    hdr = os.path.join(args.out, "hdr")
    shutil.rmtree(hdr, ignore_errors=True)
    for d in sorted(glob.glob(os.path.join(debs, "*.deb"))):
        subprocess.run(["dpkg-deb", "-x", d, hdr], check=True)
    for mk in glob.glob(os.path.join(hdr, "usr", "src", "linux-headers-*", "Makefile")):
        with open(mk) as f:
            text = f.read()
        text = re.sub(r"^include /usr/src/", "include %s/usr/src/" % hdr, text, flags=re.M)
        with open(mk, "w") as f:
            f.write(text)
    for d in sorted(glob.glob(os.path.join(hdr, "usr", "src", "linux-headers-*"))):
        print(d)


def netdevsim(args):
    """Build netdevsim.ko from the tree against Debian's headers, then a
    module tree OUT/modroot/lib/modules/RELEASE: the package's (linked)
    plus it in updates/ (make modules_install), for ksft-vm --modules."""
    src = os.path.join(args.src, "linux", "drivers", "net", "netdevsim")
    build = os.path.join(args.out, "netdevsim-build")
    shutil.rmtree(build, ignore_errors=True)
    shutil.copytree(src, build)
    # CONFIG_NETDEVSIM is unset in the cloud config: the Makefile's
    # obj-$(CONFIG_NETDEVSIM) needs it on the command line
    cmd = ["nice", "-n", "5", "make", "-C", args.headers, "M=" + build, "CONFIG_NETDEVSIM=m",
           "-j2", "modules"]
    with open(os.path.join(args.out, "netdevsim.log"), "w") as log:
        res, wall = timed(cmd, stdout=log, stderr=subprocess.STDOUT)
    print("netdevsim build: exit %d, %.0f s (load %s); log %s/netdevsim.log" % (
        res.returncode, wall, load(), args.out))
    if res.returncode:
        sys.exit(1)
    # the package's tree (its files linked) plus netdevsim where
    # `make M=... modules_install` puts an out-of-tree module: updates/
    moddir = os.path.normpath(args.modules)
    release = os.path.basename(moddir)
    modroot = os.path.join(args.out, "modroot")
    shutil.rmtree(modroot, ignore_errors=True)
    dst = os.path.join(modroot, "lib", "modules", release)
    shutil.copytree(moddir, dst, symlinks=True, copy_function=os.symlink)
    # unsigned (Debian's key is not in the headers; the kernel does not
    # enforce signatures), compressed as the package's modules are (.xz)
    cmd = ["make", "-C", args.headers, "M=" + build, "CONFIG_NETDEVSIM=m",
           "CONFIG_MODULE_SIG_ALL=", "INSTALL_MOD_PATH=" + modroot, "modules_install"]
    with open(os.path.join(args.out, "netdevsim.log"), "a") as log:
        res = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, check=False)
    kos = glob.glob(os.path.join(dst, "updates", "netdevsim.ko*"))
    if res.returncode or not kos:
        sys.exit("modules_install failed (exit %d): %s/netdevsim.log" % (
            res.returncode, args.out))
    ko = kos[0]
    info = subprocess.run(["modinfo", "-F", "vermagic", ko], stdout=subprocess.PIPE,
                          check=False).stdout.decode().strip()
    dep = subprocess.run(["modinfo", "-F", "depends", ko], stdout=subprocess.PIPE,
                         check=False).stdout.decode().strip()
    print("module tree %s: %s, vermagic %r, depends %r" % (dst, os.path.relpath(ko, dst),
                                                          info, dep))


def selftests_dir(args):
    if args.source == "install":
        return os.path.join(args.src, "kselftest_install")
    return os.path.join(args.src, "linux", ST)


def slug(test):
    return test.replace("/", "_").replace(".py", "")


def boot(args, test, i):
    d = os.path.join(selftests_dir(args), os.path.dirname(test))
    cmd = ["nice", "-n", "5", VM, "--kernel", args.kernel]
    if args.modules:
        cmd += ["--modules", args.modules]
    cmd += ["--", "./" + os.path.basename(test)]
    env = dict(os.environ, KSFT_VM_VERBOSE="1")
    base = os.path.join(args.out, "%s-%s-%s-%d" % (args.label, args.source, slug(test), i))
    l0 = load()
    res, wall = timed(cmd, cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(base + ".out", "wb") as f:
        f.write(res.stdout)
    with open(base + ".err", "wb") as f:
        f.write(res.stderr)
    m = re.search(rb"modules, (\d+) KiB root\)", res.stderr)
    rec = {"test": test, "label": args.label, "source": args.source, "boot": i,
           "rc": res.returncode, "wall_s": round(wall, 1), "load": [l0, load()],
           "root_kib": int(m.group(1)) if m else None, "kernel": args.kernel,
           "modules": args.modules, "md5": hashlib.md5(res.stdout).hexdigest(),
           "command": "cd %s && ksft-vm --kernel K%s -- ./%s" % (
               os.path.relpath(d, args.out), " --modules M" if args.modules else "",
               os.path.basename(test))}
    with open(base + ".json", "w") as f:
        json.dump(rec, f)
    print("%s: exit %d, %.0f s, %s KiB, md5 %s" % (os.path.basename(base), rec["rc"],
                                                 wall, rec["root_kib"], rec["md5"][:12]))
    sys.stdout.flush()


def run(args):
    jobs = [(t, i) for i in range(1, args.boots + 1) for t in args.tests]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.parallel) as ex:
        for f in [ex.submit(boot, args, t, i) for t, i in jobs]:
            f.result()


def host(args):
    """Each TEST on the host in a network namespace of its own."""
    for test in args.tests:
        d = os.path.join(selftests_dir(args), os.path.dirname(test))
        cmd = ["unshare", "-n", "sh", "-c", "ip link set lo up && exec ./%s" %
               os.path.basename(test)]
        res, wall = timed(cmd, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        base = os.path.join(args.out, "host-%s-%s" % (args.source, slug(test)))
        with open(base + ".out", "wb") as f:
            f.write(res.stdout)
        with open(base + ".err", "wb") as f:
            f.write(res.stderr)
        with open(base + ".json", "w") as f:
            json.dump({"test": test, "source": args.source, "rc": res.returncode,
                       "wall_s": round(wall, 1), "kernel": os.uname().release}, f)
        print("host %s: exit %d" % (test, res.returncode))


def cases(path):
    """[(case name, ok | not ok | skip | xfail)] of a KTAP output file."""
    out = []
    with open(path, "rb") as f:
        for line in f.read().decode("utf-8", "replace").splitlines():
            m = RESULT.match(line.strip())
            if m:
                verdict = m.group(1)
                if m.group(5) in ("SKIP", "XFAIL"):
                    verdict = m.group(5).lower()
                out.append((m.group(3), verdict))
    return out


def output_md5(out):
    """The md5 of a boot's stdout and its stderr but ksft-vm's own lines
    (QEMU's command line names the run's temp dir)."""
    h = hashlib.md5()
    with open(out, "rb") as f:
        h.update(f.read())
    with open(out[:-4] + ".err", "rb") as f:
        h.update(b"".join(l for l in f.read().splitlines(True) if not l.startswith(b"ksft-vm: ")))
    return h.hexdigest()


def last_error(out):
    """The last line a boot without KTAP wrote on stderr (its exception)."""
    with open(out[:-4] + ".err", "rb") as f:
        lines = [l for l in f.read().decode("utf-8", "replace").splitlines()
                 if l.strip() and not l.startswith("ksft-vm: ")]
    return lines[-1].strip()[:150] if lines else "(nothing)"


def summary(args):
    recs = []
    for p in sorted(glob.glob(os.path.join(args.out, "*.json"))):
        if os.path.basename(p) in ("install.json",):
            continue
        with open(p) as f:
            rec = json.load(f)
        if "label" in rec:
            rec["file"] = p[:-5] + ".out"
            recs.append(rec)
    groups = {}
    for r in recs:
        groups.setdefault((r["test"], r["source"], r["label"]), []).append(r)
    for (test, source, label), rs in sorted(groups.items()):
        rs.sort(key=lambda r: r["boot"])
        md5s = {output_md5(r["file"]) for r in rs}
        hostp = os.path.join(args.out, "host-%s-%s.out" % (source, slug(test)))
        host_cases = dict(cases(hostp)) if os.path.exists(hostp) else {}
        print("%s (%s) on %s: %d boots, %s; exit %s; wall %s s (load %s); root %s KiB" % (
            test, source, label, len(rs),
            "stdout+stderr byte-identical" if len(md5s) == 1 else
            "DIFFER (%d md5s)" % len(md5s),
            ",".join(str(r["rc"]) for r in rs), ",".join("%.0f" % r["wall_s"] for r in rs),
            ",".join("%s-%s" % tuple(r["load"]) for r in rs),
            ",".join(str(r["root_kib"]) for r in rs)))
        got = cases(rs[0]["file"])
        if not got:
            print("    no KTAP: %s" % last_error(rs[0]["file"]))
            if os.path.exists(hostp):
                print("    host:    %s" % (last_error(hostp) if not host_cases else
                                          "KTAP %s" % sorted(host_cases.items())))
        for name, verdict in got:
            h = host_cases.get(name, "-")
            print("    %-44s guest %-7s host %-7s%s" % (name, verdict, h, "" if h in (
                verdict, "-") else "  (differs)"))
    p = os.path.join(args.out, "install.json")
    if os.path.exists(p):
        with open(p) as f:
            print("install: %s" % f.read().strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("tree")
    p.add_argument("out")
    p = sub.add_parser("install")
    p.add_argument("out")
    p.add_argument("--targets", default="net drivers/net")
    p = sub.add_parser("headers")
    p.add_argument("out")
    p.add_argument("packages", nargs="+")
    p = sub.add_parser("netdevsim")
    p.add_argument("out")
    p.add_argument("--src", help="where tree put linux/ (default: OUT)")
    p.add_argument("--headers", required=True)
    p.add_argument("--modules", required=True)
    for name in ("run", "host"):
        p = sub.add_parser(name)
        p.add_argument("out")
        p.add_argument("--from", dest="source", choices=("tree", "install"), default="tree")
        p.add_argument("--src", help="where tree and install put linux/ and "
                       "kselftest_install/ (default: OUT)")
        p.add_argument("tests", nargs="+")
        if name == "run":
            p.add_argument("--kernel", required=True)
            p.add_argument("--label", required=True)
            p.add_argument("--modules")
            p.add_argument("--boots", type=int, default=2)
            p.add_argument("--parallel", type=int, default=2)
    p = sub.add_parser("summary")
    p.add_argument("out")
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)
    if getattr(args, "src", "x") is None:
        args.src = args.out
    for k in ("kernel", "modules", "headers", "src"):
        if getattr(args, k, None):
            setattr(args, k, os.path.abspath(getattr(args, k)))
    os.makedirs(args.out, exist_ok=True)
    {"tree": tree, "install": install, "headers": headers, "netdevsim": netdevsim, "run": run,
     "host": host, "summary": summary}[args.what](args)


if __name__ == "__main__":
    main()
