# SPDX-License-Identifier: GPL-2.0
"""Iperf3Runner: the C iperf3 runner (server here, client behind
cfg.remote), recording throughput, tcp.retransmits, throughput.interval
and, under a SystemMonitor, cpu.cost per endpoint, as the C producers do."""

import ctypes
import math

from . import _producers
from .sysmon import active_monitor


class Iperf3Runner:
    """Measure TCP throughput from the remote endpoint to this one.

    ``cfg``: ``cfg.addr`` (the server's address here) and ``cfg.remote``
    (the client's command prefix, None: this host); ``server_ip`` overrides
    ``cfg.addr``.
    """

    def __init__(self, cfg, server_ip=None, iperf3="iperf3"):
        self._remote = _producers.cfg_remote(cfg)
        if server_ip is None:
            self._addr = _producers.cfg_str(cfg, "addr")
        else:
            if not isinstance(server_ip, str) or not server_ip:
                raise ValueError(f"server_ip must be a non-empty str, got {server_ip!r}")
            self._addr = server_ip.encode()
        if not isinstance(iperf3, str) or not iperf3:
            raise ValueError(f"iperf3 must be a program name or path, got {iperf3!r}")
        self._iperf3 = iperf3.encode()
        self.retransmits = None
        self.bytes = None
        self.test_cost = None

    def measure_bandwidth(self, reverse=False, duration=10, interval=1.0, streams=1,
                          repeat=1, cpus="default"):
        """Run ``repeat`` measurements of ``duration`` s; return the median
        throughput in Gbps over the stable intervals (the first and last 3
        are dropped). While reporting is enabled each repeat is recorded,
        with the test's own CPU cost and its interference (cpu.cost.test,
        interference.*); inside a SystemMonitor the whole host's cost per
        GB too. ``cpus`` places server and client as the C runners do:
        "default" (server on the highest CPU, client on the next), "none"
        (unpinned) or "SERVER/CLIENT" CPU lists ("1/0"). ``test_cost``
        then holds the median own cost (CPU s/GB, NaN if unmeasured). Raises
        FileNotFoundError (no iperf3), TimeoutError, ValueError (bad
        arguments or output), RuntimeError (iperf3 failed)."""
        for what, v, lo in (("duration", duration, 1), ("streams", streams, 1),
                            ("repeat", repeat, 1)):
            if not isinstance(v, int) or isinstance(v, bool) or v < lo:
                raise ValueError(f"{what} must be an int >= {lo}, got {v!r}")
        if not isinstance(interval, (int, float)) or isinstance(interval, bool) or \
                not math.isfinite(interval) or interval < 0.1:
            raise ValueError(f"interval must be seconds >= 0.1, got {interval!r}")
        if not isinstance(cpus, str) or not cpus:
            raise ValueError(f"cpus must be default, none or SERVER/CLIENT, got {cpus!r}")
        mon = active_monitor()
        out = (ctypes.c_double * 5)()
        ret = _producers.lib().ksftmetric_prod_iperf3_run_on(
            self._iperf3, self._addr, None, self._remote, duration, float(interval),
            streams, 1 if reverse else 0, repeat, mon.handle if mon else None,
            cpus.encode(), ctypes.byref(out))
        if ret:
            _producers.raise_errno(ret, "iperf3")
        self.retransmits = None if out[1] < 0 else int(out[1])
        self.bytes = int(out[2])
        self.test_cost = out[4]
        return out[0]
