# SPDX-License-Identifier: GPL-2.0
"""What ksft-vm starts, and what it leaves: children in a process group
of their own that die with ksft-vm (a parent-death signal, so even a
kill -KILL of ksft-vm ends QEMU), signals turned into exceptions, one
timer for --timeout, and temp dirs that name their owner so the next run
removes the ones a killed run left."""
import contextlib
import ctypes
import errno
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import time

from .errors import Interrupted, TimedOut

PR_SET_PDEATHSIG = 1
TEMP_PREFIX = "ksft-vm."
OWNER_FILE = "owner"
# A temp dir without an owner file is another run's only for this long
# (it writes the file right after creating the dir); older, it is a left
# over one (ksft-vm before it wrote the file).
UNOWNED_GRACE_S = 3600
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _die_with_parent(parent):
    """preexec_fn: the child gets SIGKILL when ksft-vm dies, whatever
    kills it; and it never outlives a parent that died before this ran."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(255)


def spawn(argv, **kw):
    """subprocess.Popen(@argv) in a new session (own process group: a
    signal to ksft-vm's group does not reach it half-way, kill_group()
    ends it and what it started) with a parent-death signal."""
    parent = os.getpid()
    return subprocess.Popen(argv, start_new_session=True,
                            preexec_fn=lambda: _die_with_parent(parent), **kw)


def kill_group(proc):
    """End @proc's process group (SIGKILL) and reap @proc."""
    if proc is None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.wait()
    except OSError:
        pass


def _raise_interrupted(signum, _frame):
    raise Interrupted(signum)


def _raise_timed_out(_signum, _frame):
    raise TimedOut()


def catch_stop_signals():
    """SIGTERM, SIGINT, SIGHUP raise Interrupted in the main thread."""
    for s in STOP_SIGNALS:
        signal.signal(s, _raise_interrupted)


@contextlib.contextmanager
def stoppable():
    """The body with the stop signals caught (catch_stop_signals()); on
    the way out, whichever way, quiet(); and when a stop signal ended the
    body, ksft-vm dies of it (die_of()) as if it had never been caught."""
    signum = None
    try:
        catch_stop_signals()
        yield
    except Interrupted as e:
        signum = e.signum
    finally:
        quiet()
        if signum is not None:
            die_of(signum)


def start_timer(seconds):
    """TimedOut is raised @seconds from now, wherever the run is."""
    signal.signal(signal.SIGALRM, _raise_timed_out)
    signal.setitimer(signal.ITIMER_REAL, seconds)


def quiet():
    """No more timer or stop signals (they stay pending): for cleanup.
    The signals blocked, as a set to unblock with die_of()."""
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


def die_of(signum):
    """Die of @signum as if never caught (the caller sees the signal)."""
    signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)


def _start_time(pid):
    """A process' start time in clock ticks since boot (field 22 of
    /proc/PID/stat), or None when there is no such process."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rindex(b")") + 2:].split()[19].decode()


def make_temp_dir():
    """A new temp dir (in $TMPDIR) with its owner (pid, start time)."""
    d = tempfile.mkdtemp(prefix=TEMP_PREFIX)
    with open(os.path.join(d, OWNER_FILE), "w") as f:
        f.write("%d %s\n" % (os.getpid(), _start_time(os.getpid())))
    return d


def _left_over(d, now):
    """Is temp dir @d a dead run's? Its owner is gone (or its pid reused)."""
    try:
        with open(os.path.join(d, OWNER_FILE)) as f:
            pid, start = f.read().split()
        return _start_time(int(pid)) != start
    except FileNotFoundError:
        try:
            return now - os.lstat(d).st_mtime > UNOWNED_GRACE_S
        except OSError:
            return False
    except (OSError, ValueError):
        return False


def remove_left_over(tmpdir=None):
    """Remove the temp dirs that killed runs of this user left in @tmpdir
    ($TMPDIR); their paths."""
    tmpdir = tmpdir or tempfile.gettempdir()
    removed, now, uid = [], time.time(), os.getuid()
    try:
        names = os.listdir(tmpdir)
    except OSError:
        return removed
    for name in sorted(names):
        if not name.startswith(TEMP_PREFIX):
            continue
        d = os.path.join(tmpdir, name)
        try:
            st = os.lstat(d)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid:
            continue
        if _left_over(d, now):
            shutil.rmtree(d, ignore_errors=True)
            removed.append(d)
    return removed


def wait_guest(proc, console, kvm_silence_s):
    """Wait for QEMU @proc to exit; with @kvm_silence_s (not None), fail
    when the console file is still empty that long after the start (a
    nested KVM whose guest never prints). "silent" or None."""
    start = time.monotonic()
    while True:
        try:
            proc.wait(timeout=0.25)
            return None
        except subprocess.TimeoutExpired:
            pass
        if kvm_silence_s is not None and time.monotonic() - start > kvm_silence_s:
            try:
                if os.path.getsize(console) == 0:
                    return "silent"
            except OSError as e:
                if e.errno != errno.ENOENT:
                    raise
                return "silent"
            kvm_silence_s = None


def stop_group(proc, grace_s=10):
    """End @proc's process group politely (SIGTERM: a ksft-vm cleans up
    its QEMU and temp dir), then SIGKILL after @grace_s; reap @proc."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=grace_s)
    except (OSError, subprocess.TimeoutExpired):
        kill_group(proc)
