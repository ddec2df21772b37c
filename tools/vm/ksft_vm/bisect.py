# SPDX-License-Identifier: GPL-2.0
"""ksft-vm bisect GOOD BAD --tree DIR [OPTION]... -- COMMAND: git bisect
run over the tree, each step built (tree_build, cached), booted under N
layout seeds (ksft-vm --seed 1..N) and judged against GOOD's boots with
ksft-metric compare --bisect.

A step's exit status (git bisect run's words): 0 good, 1 bad, 125 skip
(the build failed, or ksft-vm itself failed: no boot, a panic, a hang),
128 abort (compare refused or failed: another instrument, a broken log;
or a boot was killed by a signal). COMMAND's own status is never a skip:
compare judges its log (a test exiting 2 is not a kernel that did not
boot)."""
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

from . import command_line, install, process, tree_build
from .errors import Interrupted, UsageError, VmError

PROG = "ksft-vm bisect"
GOOD, BAD, SKIP, ABORT = 0, 1, 125, 128
DEFAULT_SEEDS = 5           # ksft-vm-ab's: the fewest an exact rank test judges at 0.05
EXIT_VM = 255
STATE = "bisect-state.json"
USAGE = ("%s [-o DIR] [--seeds N] GOOD BAD --tree DIR [--config FRAGMENT]... [--jobs N] "
         "[ksft-vm OPTION]... -- COMMAND [ARG]..." % PROG)
HELP = USAGE + """

Find the first commit between GOOD and BAD (commits of the kernel tree
DIR, a clean git work tree) under which COMMAND regresses. GOOD is built
(ksft-vm build: the guest's config, the FRAGMENTs, cached by commit) and
booted under N layout seeds (ksft-vm --seed 1..N); its logs are saved as
the baseline. BAD is judged against it first: no regression there, nothing
to bisect (exit 1). Then git bisect run: each step built, booted N times,
judged with ksft-metric compare --bisect; a failed build or a failed boot
(ksft-vm's own 255) skips the commit (125), a refused comparison aborts
(128). The tree is left where it was (git bisect reset).

  -o DIR      keep the logs, the baseline (good.json), the bisect log and
              the step record there (default: a new temp dir, kept)
  --seeds N   layout seeds a commit (default 5; 1: one unseeded boot,
              judged by the tolerance alone; 2 and 3 cannot be judged)

Run it from the directory a baseline should be measured in: the guest
starts there, and another directory is another root layout.
Exit status: 0 the first bad commit found (printed), 1 BAD is no
regression against GOOD, 2 otherwise (GOOD did not build or boot, the
bisection aborted). ksft-vm(1), doc/vm.rst."""


def step_status(build_ok, boot_statuses, compare_status):
    """A bisect step's exit status from its parts: the build (False:
    failed), each boot's ksft-vm status (COMMAND's own, 255 for ksft-vm's
    failure, negative for a signal), compare --bisect's status."""
    if not build_ok:
        return SKIP
    for s in boot_statuses:
        if s < 0:
            return ABORT
        if s == EXIT_VM:
            return SKIP
    if compare_status in (GOOD, BAD, SKIP):
        return compare_status
    return ABORT


class Args:
    def __init__(self):
        self.out = None
        self.seeds = DEFAULT_SEEDS
        self.good = self.bad = self.tree = None
        self.vm_opts = []       # ksft-vm's options, --tree's included
        self.configs = []
        self.jobs = None
        self.command = []
        self.step = None


def _value(words, k):
    if k + 1 >= len(words):
        raise UsageError("%s needs a value" % words[k])
    return words[k + 1]


def parse(argv):
    """-o and --seeds, GOOD BAD, ksft-vm's options (--tree DIR among them)
    up to "--", COMMAND. UsageError when a part is missing."""
    a = Args()
    if argv[:1] == ["--step"]:
        if len(argv) != 2:
            raise UsageError("--step STATE_FILE")
        a.step = argv[1]
        return a
    words, a.command = command_line.split_command(argv, USAGE)
    commits, k = [], 0
    while k < len(words) and len(commits) < 2:
        w = words[k]
        if w in ("-o", "--seeds"):
            v = _value(words, k)
            if w == "-o":
                a.out = v
            elif command_line.seeds_value(v) in (2, 3):
                # compare's exact rank test bounds no shift with 2 or 3 a side
                # at 0.05 (doc/consumer.rst): every step would be a skip
                raise UsageError("--seeds %s: compare cannot judge 2 or 3 seeds a side; "
                                 "1 (one unseeded boot) or at least 4" % v)
            else:
                a.seeds = int(v)
            k += 2
        elif w.startswith("-"):
            raise UsageError("%s before GOOD BAD (ksft-vm's options come after them)" % w)
        else:
            commits.append(w)
            k += 1
    if len(commits) < 2:
        raise UsageError("GOOD and BAD commits needed (%s)" % USAGE)
    a.good, a.bad = commits
    rest = words[k:]
    k = 0
    while k < len(rest):
        w = rest[k]
        if w in ("--tree", "--config", "--jobs"):
            v = _value(rest, k)
            if w == "--tree":
                a.tree = os.path.abspath(v)
            elif w == "--config":
                a.configs.append(os.path.abspath(v))
            else:
                a.jobs = tree_build.jobs_value(v)
            k += 2
        elif w in ("--seed", "--kernel", "--modules"):
            raise UsageError("%s: bisect chooses it (--seeds N, --tree DIR)" % w)
        else:
            a.vm_opts.append(w)
            k += 1
    if not a.tree:
        raise UsageError("--tree DIR is needed: the kernel tree to bisect")
    return a


def _say(text):
    command_line.say(PROG, text)


def _git(tree, *args, check=True):
    r = subprocess.run(["git", "-C", tree] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    if check and r.returncode:
        raise VmError("git %s: %s" % (" ".join(args), r.stderr.decode("utf-8", "replace").strip()))
    return r


class Step:
    """One commit's build and boots, as the state file describes them."""

    def __init__(self, state):
        self.s = state

    def vm_argv(self, k):
        s = self.s
        seed = [] if s["seeds"] == 1 else ["--seed", str(k + 1)]
        cfg = []
        for c in s["configs"]:
            cfg += ["--config", c]
        jobs = ["--jobs", str(s["jobs"])] if s["jobs"] else []
        return [sys.executable, install.ksft_vm(), "--tree", s["tree"]] + cfg + jobs + \
            seed + s["vm_opts"] + ["--"] + s["command"]

    def build(self):
        """Build (or find) HEAD's kernel; False when the build failed."""
        s = self.s
        try:
            built, state = tree_build.build(s["tree"], s["configs"], s["command"], s["jobs"], _say)
        except tree_build.BuildError as e:
            _say("build failed: skipped (125): %s" % e)
            return None
        return built, state

    def boot(self, name):
        """Boot every seed; the logs' paths and the statuses."""
        s = self.s
        logs, statuses = [], []
        for k in range(s["seeds"]):
            log = os.path.join(s["out"], "%s-s%d.log" % (name, k + 1))
            with open(log, "wb") as o, open(log[:-4] + ".err", "wb") as e:
                p = process.spawn(self.vm_argv(k), stdin=subprocess.DEVNULL, stdout=o, stderr=e,
                                  cwd=s["cwd"])
                try:
                    statuses.append(p.wait())
                finally:
                    process.stop_group(p)
            logs.append(log)
            if statuses[-1] == EXIT_VM or statuses[-1] < 0:
                break
        return logs, statuses

    def judge(self, logs, name):
        """compare --bisect of @logs, its table kept in NAME.compare."""
        with open(os.path.join(self.s["out"], name + ".compare"), "wb") as f:
            r = subprocess.run([install.ksft_metric(), "compare", "--bisect", "--baseline",
                                self.s["baseline"]] + logs, stdout=f, stderr=subprocess.STDOUT,
                               check=False)
        return r.returncode

    def run(self):
        """The step's exit status (step_status()) for the checked-out HEAD."""
        t0 = time.monotonic()
        b = self.build()
        if not b:
            return step_status(False, [], None)
        built, state = b
        t1 = time.monotonic()
        logs, statuses = self.boot(state.commit[:12])
        for log, st in zip(logs, statuses):
            if st == EXIT_VM or st < 0:
                _say("%s: ksft-vm %s; see %s" % (built.release, "failed (255)" if st > 0 else
                                                 "died of signal %d" % -st, log[:-4] + ".err"))
        cmp_status = None
        if statuses and all(st >= 0 and st != EXIT_VM for st in statuses):
            cmp_status = self.judge(logs, state.commit[:12])
        rc = step_status(True, statuses, cmp_status)
        t2 = time.monotonic()
        with open(os.path.join(self.s["out"], "steps.txt"), "a") as f:
            f.write("%s %s status %d build %.0f s boots %.0f s\n" % (
                state.describe, built.release, rc, t1 - t0, t2 - t1))
        return rc


def run_step(state_file):
    with open(state_file) as f:
        return Step(json.load(f)).run()


def baseline(step, tree, good):
    """Build and boot GOOD, save its logs as the baseline; None or an error."""
    _git(tree, "checkout", "-q", "--detach", good)
    b = step.build()
    if not b:
        return "GOOD (%s) did not build" % good
    built, state = b
    logs, statuses = step.boot("good")
    if any(s == EXIT_VM or s < 0 for s in statuses):
        return "GOOD (%s) did not boot under ksft-vm; see %s" % (good, logs[-1][:-4] + ".err")
    r = subprocess.run([install.ksft_metric(), "save", "--quiet", "-o", step.s["baseline"]] + logs,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if r.returncode:
        return "ksft-metric save of GOOD's logs failed: %s" % r.stderr.decode().strip()
    _say("baseline: %s (%s), %d boot%s" % (built.release, state.describe, len(logs),
                                          "" if len(logs) == 1 else "s"))
    return None


def bisect(a, out):
    """The whole bisection; the exit status."""
    tree = a.tree
    if _git(tree, "status", "--porcelain", "--untracked-files=no").stdout.strip():
        raise VmError("--tree %s has uncommitted changes: bisect checks out other commits" % tree)
    gitdir = _git(tree, "rev-parse", "--git-dir").stdout.decode().strip()
    if os.path.exists(os.path.join(tree, gitdir, "BISECT_START")):
        raise VmError("--tree %s: a bisection is under way (git bisect reset first)" % tree)
    for c in (a.good, a.bad):
        _git(tree, "rev-parse", "--verify", c + "^{commit}")
    head = _git(tree, "rev-parse", "--abbrev-ref", "HEAD").stdout.decode().strip()
    if head == "HEAD":
        head = _git(tree, "rev-parse", "HEAD").stdout.decode().strip()
    state = {"tree": tree, "configs": a.configs, "jobs": a.jobs, "vm_opts": a.vm_opts,
             "command": a.command, "seeds": a.seeds, "out": out, "cwd": os.getcwd(),
             "baseline": os.path.join(out, "good.json")}
    state_file = os.path.join(out, STATE)
    with open(state_file, "w") as f:
        json.dump(state, f, indent=1)
    step = Step(state)
    try:
        err = baseline(step, tree, a.good)
        if err:
            _say(err)
            return 2
        _git(tree, "checkout", "-q", "--detach", a.bad)
        rc = step.run()
        if rc == GOOD:
            _say("BAD (%s) is no regression against GOOD (%s): nothing to bisect" % (a.bad, a.good))
            return 1
        if rc != BAD:
            _say("BAD (%s) cannot be judged (step status %d): not bisecting" % (a.bad, rc))
            return 2
    finally:
        _git(tree, "checkout", "-q", head, check=False)
    _git(tree, "bisect", "start", a.bad, a.good)
    try:
        r = subprocess.run(["git", "-C", tree, "bisect", "run", sys.executable, install.ksft_vm(),
                            "bisect", "--step", state_file], stdout=subprocess.PIPE, check=False)
        text = r.stdout.decode("utf-8", "replace")
        with open(os.path.join(out, "bisect-run.txt"), "w") as f:
            f.write(text)
        log = _git(tree, "bisect", "log", check=False).stdout.decode("utf-8", "replace")
        with open(os.path.join(out, "bisect.log"), "w") as f:
            f.write(log)
    finally:
        _git(tree, "bisect", "reset", check=False)
    first = [ln for ln in text.splitlines() if "is the first bad commit" in ln]
    if r.returncode or not first:
        _say("git bisect run stopped (exit %d) without a first bad commit; its output: %s" % (
            r.returncode, os.path.join(out, "bisect-run.txt")))
        return 2
    sys.stdout.write(text[text.index(first[0]):])
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a, status = command_line.read(argv, HELP, parse, PROG)
    if status is not None:
        return status
    if a.step:
        try:
            process.catch_stop_signals()
            return run_step(a.step)
        except VmError as e:
            _say("step: %s: abort (128)" % e)
            return ABORT
        except Interrupted:
            return ABORT        # never a verdict: git bisect run stops
        finally:
            process.quiet()
    out = os.path.abspath(a.out) if a.out else tempfile.mkdtemp(prefix="ksft-vm-bisect.")
    os.makedirs(out, exist_ok=True)
    _say("logs in %s" % out)
    try:
        with process.stoppable():
            return bisect(a, out)
    except VmError as e:
        _say(str(e))
        return 2
    finally:
        _say("reproduce: cd %s && ksft-vm bisect %s" % (
            shlex.quote(os.getcwd()), " ".join(shlex.quote(w) for w in argv)))
