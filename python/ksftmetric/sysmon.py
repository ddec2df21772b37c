# SPDX-License-Identifier: GPL-2.0
"""SystemMonitor: the C system monitor (per-CPU time, utilization, NIC
drops of the local and remote endpoint, with the reference's names and
policies) plus the CPU cost meter the runners use while it is active."""

import threading

from . import _producers

_active = threading.local()


def active_monitor():
    """The innermost SystemMonitor entered in this thread, or None."""
    stack = getattr(_active, "stack", None)
    return stack[-1] if stack else None


class SystemMonitor:
    """Sample both endpoints while a benchmark runs, inside an open case.

    ``cfg`` follows the cfg protocol (doc/python.rst): ``cfg.remote`` (a
    command prefix or None), optional ``cfg.ifname`` / ``cfg.remote_ifname``.
    ``interval`` is the sampling period in seconds (the reference's 1 s).
    ``counters``: price runs in cycles and instructions per byte where the
    machine has hardware counters (``counters_missing`` says why not).

    Entering opens a reporting scope (``ksft_metric_reporting_enabled()``),
    so runners record their metrics; leaving takes the final sample.
    """

    def __init__(self, cfg, interval=1.0, counters=True):
        if not isinstance(interval, (int, float)) or isinstance(interval, bool) or \
                not 0.001 <= interval <= 86400:
            raise ValueError(f"interval must be seconds from 0.001 to 86400, got {interval!r}")
        self._remote = _producers.cfg_remote(cfg)
        self._ifname = _producers.cfg_str(cfg, "ifname", required=False)
        self._remote_ifname = _producers.cfg_str(cfg, "remote_ifname", required=False)
        self._interval = float(interval)
        self._counters = 1 if counters else 0
        self._handle = None
        self.counters_missing = None

    def __enter__(self):
        if self._handle:
            raise RuntimeError("this SystemMonitor is already running")
        lib = _producers.lib()
        handle = lib.ksftmetric_prod_monitor_start(self._ifname, self._remote,
                                                   self._remote_ifname, self._interval,
                                                   self._counters)
        if not handle:
            _producers.raise_last_errno("system monitor")
        self._handle = handle
        why = lib.ksftmetric_prod_monitor_counters_missing(handle)
        self.counters_missing = why.decode(errors="replace") if why else None
        if not hasattr(_active, "stack"):
            _active.stack = []
        _active.stack.append(self)
        return self

    @property
    def handle(self):
        """The C monitor (for the runners), None when not running."""
        return self._handle

    def __exit__(self, exc_type, _exc, _tb):
        handle, self._handle = self._handle, None
        if _active.stack and _active.stack[-1] is self:
            _active.stack.pop()
        ret = _producers.lib().ksftmetric_prod_monitor_stop(handle)
        # An error of the benchmark wins over the monitor's own.
        if ret and exc_type is None:
            _producers.raise_errno(ret, "system monitor")
        return False

