# SPDX-License-Identifier: GPL-2.0
"""The guest's result as the host reads it from the second serial port
(guest_init.py writes it): COMMAND's exit status, stdout and stderr,
checked end to end (the end mark right after the two files)."""
import re

from .errors import GuestError
from .guest_init import OUT_MARK

_HEAD = re.compile(rb"(?m)^" + OUT_MARK.encode() + rb" (\d+) (\d+) (\d+) ([01])\n")
_END = OUT_MARK.encode() + b"-END\n"


class Result:
    """COMMAND's exit status and output, as the guest sent them."""

    def __init__(self, status, out, err):
        self.status, self.out, self.err = status, out, err


def decode(data):
    """The Result of the bytes @data the guest wrote; GuestError when there
    is none, when the stream is cut or longer than its header says, or when
    the output's file system filled (lines were lost)."""
    m = _HEAD.search(data)
    if not m:
        raise GuestError("guest ended without COMMAND's result")
    status, nout, nerr, full = (int(x) for x in m.groups())
    body = data[m.end():]
    if len(body) < nout + nerr + len(_END):
        raise GuestError("guest's result cut short (%d of %d bytes and the end mark)" %
                         (len(body), nout + nerr))
    if body[nout + nerr:nout + nerr + len(_END)] != _END:
        raise GuestError("guest's result is not what its header says (no end mark "
                         "after %d bytes of stdout and %d of stderr)" % (nout, nerr))
    res = Result(status, body[:nout], body[nout:nout + nerr])
    if full:
        err = GuestError("COMMAND's output filled the guest's output file system "
                         "(half the guest's RAM): some of it was lost; give --memory more")
        err.result = res
        raise err
    return res
