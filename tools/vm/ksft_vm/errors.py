# SPDX-License-Identifier: GPL-2.0
"""ksft-vm's typed errors and exit statuses: only main() turns them into
an exit, so every helper can be called (and tested) on its own."""

# ksft-vm's own failures (a usage error, a guest that panics, hangs, does
# not boot or whose result is cut) exit 255, a status a selftest does not
# mean by accident (ssh does the same); COMMAND's own status otherwise.
EXIT_VM = 255


class VmError(Exception):
    """A failure of ksft-vm itself (not of COMMAND): its message."""


class UsageError(VmError):
    """A bad command line."""


class GuestError(VmError):
    """The guest panicked, hung, did not boot, or its result is unusable."""


class Interrupted(BaseException):
    """SIGTERM, SIGINT or SIGHUP arrived: clean up, then die of it.
    A BaseException, so no `except Exception` swallows it."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


class TimedOut(BaseException):
    """--timeout passed (packing or the guest): raised by the timer."""
