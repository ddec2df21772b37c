# SPDX-License-Identifier: GPL-2.0
"""The guest's result as the host reads it from the second serial port
(guest_init.py writes it): COMMAND's exit status, stdout and stderr,
checked end to end (the end mark right after the two files)."""
import re

from .errors import GuestError
from .guest_init import OUT_MARK

# The last three (COMMAND's CPU us, virtual ns, idle ns) since issue 42;
# any word there, so an odd number never costs the result (_number()).
_HEAD = re.compile(rb"(?m)^" + OUT_MARK.encode() +
                   rb" (\d+) (\d+) (\d+) ([01])(?: (\S+) (\S+) (\S+))?\n")
_END = OUT_MARK.encode() + b"-END\n"


class Result:
    """COMMAND's exit status and output, as the guest sent them."""

    def __init__(self, status, out, err, stats=None):
        self.status, self.out, self.err = status, out, err
        # {"cpu_ns", "elapsed_ns", "idle_ns"}: an int each, None where the
        # guest could not measure it; None from a guest that sent none.
        self.stats = stats


def _number(word):
    """A stats field: an integer (an awk may write 5.002845e+09), None for
    "-" or anything else."""
    try:
        return int(float(word))
    except ValueError:
        return None


def decode(data):
    """The Result of the bytes @data the guest wrote; GuestError when there
    is none, when the stream is cut or longer than its header says, or when
    the output's file system filled (lines were lost)."""
    m = _HEAD.search(data)
    if not m:
        raise GuestError("guest ended without COMMAND's result")
    status, nout, nerr, full = (int(x) for x in m.groups()[:4])
    stats = None
    if m.group(5) is not None:
        cpu_us, elapsed, idle = (_number(x) for x in m.groups()[4:])
        stats = {"cpu_ns": None if cpu_us is None else cpu_us * 1000, "elapsed_ns": elapsed,
                 "idle_ns": idle}
    body = data[m.end():]
    if len(body) < nout + nerr + len(_END):
        raise GuestError("guest's result cut short (%d of %d bytes and the end mark)" %
                         (len(body), nout + nerr))
    if body[nout + nerr:nout + nerr + len(_END)] != _END:
        raise GuestError("guest's result is not what its header says (no end mark "
                         "after %d bytes of stdout and %d of stderr)" % (nout, nerr))
    res = Result(status, body[:nout], body[nout:nout + nerr], stats)
    if full:
        err = GuestError("COMMAND's output filled the guest's output file system "
                         "(half the guest's RAM): some of it was lost; give --memory more")
        err.result = res
        raise err
    return res


def stats_line(stats, icount=True):
    """The line ksft-vm prints on stderr after COMMAND's output: COMMAND's
    time, its own CPU time (COMMAND and what it started) and the guest's
    idle time in it, in seconds to the microsecond; None without stats.
    Under icount all three are virtual: the CPU time is instructions (1 ns
    each at shift 0) and idle is where the guest jumped to its next timer."""
    if not stats or stats.get("elapsed_ns") is None:
        return None

    def sec(ns):
        return "?" if ns is None else "%.6f" % (ns / 1e9)
    cpu, idle, el = stats.get("cpu_ns"), stats.get("idle_ns"), stats["elapsed_ns"]
    rest = el - cpu - idle if cpu is not None and idle is not None else None
    return ("COMMAND took %s %ss: its own CPU %s s%s, the guest idle %s s, the rest %s s "
            "(doc/vm.rst, \"Latency tests\")" % (
                sec(el), "virtual " if icount else "", sec(cpu),
                " (instructions)" if icount else "", sec(idle), sec(rest)))
