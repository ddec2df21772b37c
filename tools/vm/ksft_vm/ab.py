# SPDX-License-Identifier: GPL-2.0
"""ksft-vm-ab (ksft-vm ab): the same COMMAND under two kernel images, both
boots at once (under icount the host's load moves the wall time, not the
result), B judged against A with compare --baseline, printed as a reply.

Exit status: 0 no regression, 1 regression, 2 otherwise: a guest failed,
COMMAND exited non-zero under either kernel, or compare could not judge.
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

from . import ab_profile, command_line, install, process, reply
from .errors import UsageError
from .log_tail import log_tail
from .profile import ProfileError

PROG = "ksft-vm-ab"
USAGE = ("%s [-o DIR] [--format reply|text|json] [--seeds N] [--profile] IMAGE_A IMAGE_B "
         "[ksft-vm OPTION]... -- COMMAND [ARG]..." % PROG)
HELP = USAGE + """

Boots IMAGE_A and IMAGE_B with ksft-vm (the one installed beside this
command) under N layout seeds (ksft-vm --seed 1..N, both kernels at once
a seed), runs COMMAND in each, saves A's logs as a baseline and judges
B's against it seed by seed with the ksft-metric installed with it.
Paths are the caller's (relative to the current directory). Logs go to
DIR (-o), else to a new temp dir that is kept and named.

  -o DIR        keep a-sK.log, a-sK.err, b-sK.log, b-sK.err (K = 1..N; a.log
                ... under --seeds 1) and a.json there
  --seeds N     layout seeds a kernel (default 5, the fewest an exact rank
                test over seeds can judge at 0.05; 1: one unseeded boot)
  --format F    reply (default): a header naming both kernels, QEMU, the
                CPU model, icount, the vCPUs and layouts, then `old -> new
                (+x.x %)` a series, then the command that reproduces it,
                in 72 columns; text: compare's table; json: compare's JSON
  --profile     profile every boot (ksft-vm --profile a-sK.prof ...), sum
                a kernel's seeds into a.prof and b.prof, and add their diff
                (ksft-metric profile-diff) to the reply: the total change
                and the top functions with their share of it; text: the
                whole diff after compare's table; json: the files only

Exit status: 0 no regression, 1 regression, 2 a guest failed, COMMAND
exited non-zero under either kernel, or compare could not judge.
ksft-vm-ab(1), doc/vm.rst."""
FORMATS = ("reply", "text", "json")
# Boots a kernel under ksft-vm --seed 1..N (seed.py): a boot's repeats
# share a layout, so the seed is compare's unit; 5 a side is the fewest an
# exact two-sided rank test can judge at 0.05.
DEFAULT_SEEDS = 5
STDERR_TAIL = 40


class Args:
    def __init__(self):
        self.out = None
        self.fmt = "reply"
        self.images = []
        self.vm_opts = []
        self.command = []
        self.seeds = DEFAULT_SEEDS
        self.profile = False

    def logs(self, v, ext=".log"):
        """Variant @v's files, one a seed."""
        if self.seeds == 1:
            return [v + ext]
        return ["%s-s%d%s" % (v, k, ext) for k in range(1, self.seeds + 1)]


def parse(argv):
    """-o DIR and --format, then IMAGE_A IMAGE_B, then ksft-vm's options
    up to "--", then COMMAND. UsageError when a part is missing."""
    a = Args()
    words, a.command = command_line.split_command(argv, USAGE)
    k = 0
    while k < len(words) and len(a.images) < 2:
        w = words[k]
        if w in ("-o", "--output", "--format", "--seeds"):
            if k + 1 >= len(words):
                raise UsageError("%s needs a value" % w)
            if w == "--seeds":
                a.seeds = command_line.seeds_value(words[k + 1])
            elif w == "--format":
                if words[k + 1] not in FORMATS:
                    raise UsageError("--format %s: one of %s" % (words[k + 1], ", ".join(FORMATS)))
                a.fmt = words[k + 1]
            else:
                a.out = words[k + 1]
            k += 2
        elif w == "--profile":
            a.profile = True
            k += 1
        elif w.startswith("-"):
            raise UsageError("%s before IMAGE_A IMAGE_B (ksft-vm's options come after them)" % w)
        else:
            a.images.append(w)
            k += 1
    if len(a.images) < 2:
        raise UsageError("two kernel images needed (%s)" % USAGE)
    a.vm_opts = words[k:]
    if any(w == "--profile" or w.startswith("--profile=") for w in a.vm_opts):
        raise UsageError("--profile goes before IMAGE_A IMAGE_B: %s profiles both kernels, "
                         "a file a boot" % PROG)
    return a


def _say(text):
    command_line.say(PROG, text)


def boot_both(args, out, k):
    """Both guests of seed index @k at once: {"a": status, "b": status}."""
    procs = {}
    seed = [] if args.seeds == 1 else ["--seed", str(k + 1)]
    try:
        for v, image in zip("ab", args.images):
            prof = ["--profile", os.path.join(out, args.logs(v, ".prof")[k])] if args.profile else []
            cmd = [sys.executable, install.ksft_vm(), "--kernel", os.path.abspath(image)] + \
                seed + prof + args.vm_opts + ["--"] + args.command
            with open(os.path.join(out, args.logs(v)[k]), "wb") as o, \
                    open(os.path.join(out, args.logs(v, ".err")[k]), "wb") as e:
                procs[v] = process.spawn(cmd, stdin=subprocess.DEVNULL, stdout=o, stderr=e)
        return {v: p.wait() for v, p in procs.items()}
    finally:
        for p in procs.values():
            process.stop_group(p)


def boot_seeds(args, out):
    """Every seed's pair in turn; the first failing status of each
    variant (else 0) and the .err file it left."""
    worst = {"a": (0, None), "b": (0, None)}
    for k in range(args.seeds):
        for v, s in boot_both(args, out, k).items():
            if s != 0 and worst[v][0] == 0:
                worst[v] = (s, args.logs(v, ".err")[k])
    return worst


def _metric(argv, **kw):
    return subprocess.run([install.ksft_metric()] + argv, check=False, **kw)


def profile_diff(args, out, fmt):
    """Both sides' profiles (seeds summed) diffed by ksft-metric
    profile-diff --format @fmt: its lines, or None after saying why not."""
    try:
        pa, pb = (ab_profile.side_profile(out, args.logs(v, ".prof"), v) for v in "ab")
    except ProfileError as e:
        _say("--profile: %s" % e)
        return None
    r = _metric(["profile-diff", "--format", fmt, pa, pb], stdout=subprocess.PIPE,
                stderr=subprocess.PIPE)
    if r.returncode:
        _say("--profile: ksft-metric profile-diff failed (exit %d): %s" % (
            r.returncode, r.stderr.decode("utf-8", "replace").strip()))
        return None
    _say("profiles in %s and %s (ksft-metric profile-diff, cg_annotate read them)" % (pa, pb))
    return r.stdout.decode("utf-8", "replace").splitlines()


def judge(args, out, argv):
    """Save A as the baseline, compare B; print; compare's exit status."""
    a_logs = [os.path.join(out, n) for n in args.logs("a")]
    b_logs = [os.path.join(out, n) for n in args.logs("b")]
    base = os.path.join(out, "a.json")
    r = _metric(["save", "--quiet", "-o", base] + a_logs, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE)
    if r.returncode:
        _say("ksft-metric save of A's log failed (exit %d): %s" % (
            r.returncode, r.stderr.decode("utf-8", "replace").strip()))
        return 2
    if args.fmt != "reply":
        sys.stdout.flush()
        ret = _metric(["compare", "--format", args.fmt, "--baseline", base] + b_logs).returncode
        lines = profile_diff(args, out, "text") if args.profile and args.fmt == "text" else None
        if lines is not None:
            sys.stdout.write("\n" + "\n".join(lines) + "\n")
        elif args.profile and args.fmt == "json":
            profile_diff(args, out, "text")     # the files, named on stderr
        sys.stdout.flush()
        return ret
    r = _metric(["compare", "--format", "json", "--baseline", base] + b_logs, stdout=subprocess.PIPE)
    if r.returncode not in (0, 1):
        _say("ksft-metric compare failed (exit %d)" % r.returncode)
        return 2
    rows = json.loads(r.stdout)["rows"]
    docs = []
    for log in (a_logs[0], b_logs[0]):
        rep = _metric(["report", "--format", "json", log], stdout=subprocess.PIPE)
        if rep.returncode:
            _say("ksft-metric report of %s failed (exit %d)" % (log, rep.returncode))
            return 2
        docs.append(json.loads(rep.stdout))
    lines = reply.summary(docs[0].get("context") or {}, docs[1].get("context") or {}, rows,
                          reply.units_of(docs[1]), args.seeds, os.getcwd(), [PROG] + argv)
    prof = profile_diff(args, out, "reply") if args.profile else None
    if prof is not None:
        lines = ab_profile.splice(lines, prof)
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
    return r.returncode


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args, status = command_line.read(argv, HELP, parse, PROG)
    if status is not None:
        return status
    for img in args.images:
        if not os.path.isfile(img):
            _say("%s: no such file (relative to %s)" % (img, os.getcwd()))
            return 2
    if args.out:
        out = os.path.abspath(args.out)
        os.makedirs(out, exist_ok=True)
    else:
        out = tempfile.mkdtemp(prefix="ksft-vm-ab.")
    with process.stoppable():
        status = boot_seeds(args, out)
    _say("logs in %s (A: %s; B: %s)" % (out, args.images[0], args.images[1]))
    broken = False
    for v, image in zip("ab", args.images):
        s, err = status[v]
        if s == 0:
            continue
        broken = True
        what = ("ksft-vm failed (exit %d)" % s if s == 255 else
                "ksft-vm died of signal %d" % -s if s < 0 else "COMMAND exited %d" % s)
        tail = log_tail(os.path.join(out, err), STDERR_TAIL) or "(empty)"
        _say("under %s (%s): %s; %s's last lines:\n%s" % (v.upper(), image, what, err, tail))
    if any(status[v][0] == 255 or status[v][0] < 0 for v in "ab"):
        return 2
    ret = judge(args, out, argv)
    if broken:
        _say("COMMAND did not exit 0 under both kernels: not a result (exit 2); "
             "reproduce: cd %s && %s" % (shlex.quote(os.getcwd()),
                                         " ".join(shlex.quote(w) for w in [PROG] + argv)))
        return 2
    return ret
