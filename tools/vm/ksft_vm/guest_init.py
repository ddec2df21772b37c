# SPDX-License-Identifier: GPL-2.0
"""The guest's /init: mounts, the environment, COMMAND with its output on
a RAM file system of its own, then the result framed on /dev/ttyS1.

The output lives on its own tmpfs, not the root the test writes its /tmp
to, so a test that fills its files does not lose its output. When COMMAND
exits, what it left running is stopped (TERM, one second, KILL) before
the files are measured, so nothing writes between measuring and sending;
the host checks the end mark right after the two files (result.py).

COMMAND runs in a cgroup of its own (the shell joins it for COMMAND and
leaves it right after): its cpu.stat usage_usec is the CPU time of
COMMAND and everything it started, to the microsecond (under icount:
instructions). /proc/timer_list's "now at" (CLOCK_MONOTONIC) and its
CPUs' idle_sleeptime, read before and after, give COMMAND's virtual time
and how much of it the guest spent idle, in ns (an idle guest jumps to
its next timer: that jump is idle time). The host prints the three
(result.stats_line).

The result, on the second serial port (raw):
  MARK RC OUT_BYTES ERR_BYTES OUT_FS_FULL CPU_US ELAPSED_NS IDLE_NS\\n,
  stdout, stderr, MARK-END\\n
(each of the last three "-" when the guest could not measure it).
"""
import shlex

from . import profile

OUT_MARK = "KSFT-VM-RESULT"
OUT_DIR = "/run/ksft-vm"
# Less than this free on the output's file system after the run: it may
# have filled (a write was refused); said loudly on the host.
OUT_FULL_KB = 64

INIT = r"""#!/bin/sh
# ksft-vm's /init: the guest's whole life, one command.
export PATH=%(path)s HOME=/root LANG=C.UTF-8 TERM=dumb
mkdir -p /proc /sys /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# udev's links: a test writing to /dev/stdout or /dev/stderr (kselftest's
# runner.sh: 4>>/dev/stdout) reaches its own output, not a file in /dev.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
mkdir -p /dev/pts /dev/shm /run /tmp /var /root /sys/fs/cgroup
chmod 1777 /tmp
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# The root is already RAM: /tmp and /run stay as packed (--add files there).
[ -e /var/run ] || ln -s /run /var/run
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo /sbin/modprobe > /proc/sys/kernel/modprobe
%(profile_before)shostname ksft-vm
ip link set lo up
%(env)s
o=%(outdir)s
mkdir -p $o %(cwd)s
mount -t tmpfs -o size=50%%,mode=0700 ksft-vm-out $o
%(before)scd %(cwd)s
set -- %(argv)s
echo "ksft-vm: running $1" > /dev/kmsg
t0=$(%(clock)s)
g=/sys/fs/cgroup/ksft-vm-command
mkdir $g 2>/dev/null && echo $$ > $g/cgroup.procs 2>/dev/null || g=
# appended: one reopened through /dev/stdout (>>) writes at the end too,
# not under COMMAND's own writes
"$@" >> $o/out 2>> $o/err < /dev/null
rc=$?
cpu=-
if [ -n "$g" ]; then
	while read k v; do [ "$k" = usage_usec ] && cpu=$v; done < $g/cpu.stat
	echo $$ > /sys/fs/cgroup/cgroup.procs
fi
t1=$(%(clock)s)
cd /
kill -TERM -1 2>/dev/null && sleep 1 && kill -KILL -1 2>/dev/null
full=0
avail=$(df -k $o | tail -n 1 | awk '{print $4}')
[ "${avail:-0}" -lt %(full_kb)d ] && full=1
nout=$(wc -c < $o/out)
nerr=$(wc -c < $o/err)
stty -F /dev/ttyS1 raw -echo
{
	echo "%(mark)s $rc $nout $nerr $full $cpu $(echo $t0 $t1 | awk '%(delta)s')"
	head -c $nout $o/out
	head -c $nerr $o/err
	echo "%(mark)s-END"
} > /dev/ttyS1
%(profile_after)s
sync
reboot -f
"""


# "NOW IDLE" in ns: CLOCK_MONOTONIC and the idle time of every CPU summed
# ("- -" when /proc/timer_list is missing).
CLOCK = ("awk '/^now at/ { n = $3 } /idle_sleeptime/ { i += $3; s = 1 } "
         "END { print (n == \"\" ? \"-\" : n), (s ? i : \"-\") }' /proc/timer_list "
         "2>/dev/null || echo - -")
# "ELAPSED IDLE" from "NOW0 IDLE0 NOW1 IDLE1" ("-" where one is missing).
DELTA = ('{ print ($1 == "-" || $3 == "-" ? "-" : $3 - $1), '
         '($2 == "-" || $4 == "-" ? "-" : $4 - $2) }')


def render(path_dirs, env, cwd, argv, before=""):
    """The /init text: the guest's PATH directories, the environment
    variables passed in (a dict), its working directory, COMMAND's argv,
    shell lines run right before COMMAND (seed.py's; none: as before).
    Every user word is quoted for the shell one at a time."""
    exports = ["export %s=%s" % (k, shlex.quote(env[k])) for k in sorted(env)]
    return INIT % {
        "path": shlex.quote(":".join(path_dirs)), "env": "\n".join(exports),
        "cwd": shlex.quote(cwd), "outdir": OUT_DIR, "before": before, "full_kb": OUT_FULL_KB,
        "argv": " ".join(shlex.quote(a) for a in argv), "mark": OUT_MARK,
        "clock": CLOCK, "delta": DELTA,
        # --profile's steps, the same in every boot, profiled or not (profile.py)
        "profile_before": profile.INIT_BEFORE, "profile_after": profile.INIT_SEND_SYMBOLS,
    }
