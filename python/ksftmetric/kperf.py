# SPDX-License-Identifier: GPL-2.0
"""KperfRunner: the C kperf runner (kperf-server on both endpoints, the
client here), recording throughput and tcp.retransmits for both hosts and,
under a SystemMonitor, cpu.cost per endpoint for every client run."""

import ctypes

from . import _producers
from .sysmon import active_monitor


class KperfRunner:
    """A context manager: servers up while inside, ``run()`` per measurement.

    ``cfg``: ``cfg.addr`` (this endpoint, --dst), ``cfg.remote_addr`` (the
    other, --src) and ``cfg.remote`` (its command prefix, None: this host).
    ``cpus`` places them as ``Iperf3Runner.measure_bandwidth`` does:
    "default" (the local server on the highest CPU, the remote server and
    the client on the next), "none" (unpinned) or "SERVER/CLIENT" CPU lists;
    each client run then records the test's own cost and its interference.
    """

    def __init__(self, cfg, server="kperf-server", client="kperf-client", port=0,
                 pid_dir=None, cpus="default"):
        self._remote = _producers.cfg_remote(cfg)
        self._addr = _producers.cfg_str(cfg, "addr")
        self._remote_addr = _producers.cfg_str(cfg, "remote_addr")
        for what, v in (("server", server), ("client", client)):
            if not isinstance(v, str) or not v:
                raise ValueError(f"{what} must be a program name or path, got {v!r}")
        if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
            raise ValueError(f"port must be 0 (kperf's own) to 65535, got {port!r}")
        if pid_dir is not None and (not isinstance(pid_dir, str) or not pid_dir):
            raise ValueError(f"pid_dir must be a directory path, got {pid_dir!r}")
        if not isinstance(cpus, str) or not cpus:
            raise ValueError(f"cpus must be default, none or SERVER/CLIENT, got {cpus!r}")
        self._cpus = cpus.encode()
        self._server, self._client = server.encode(), client.encode()
        self._port = port
        self._pid_dir = pid_dir.encode() if pid_dir else None
        self._handle = None

    def __enter__(self):
        if self._handle:
            raise RuntimeError("this KperfRunner is already running")
        # Under a SystemMonitor every client run is priced (cpu.cost).
        mon = active_monitor()
        handle = _producers.lib().ksftmetric_prod_kperf_start_on(
            self._server, self._client, self._addr, self._remote_addr, self._remote,
            self._port, self._pid_dir, mon.handle if mon else None, self._cpus)
        if not handle:
            _producers.raise_last_errno("kperf servers")
        self._handle = handle
        return self

    def close(self):
        """Kill both servers (also done on leaving the with block)."""
        handle, self._handle = self._handle, None
        if handle:
            ret = _producers.lib().ksftmetric_prod_kperf_stop(handle)
            if ret:
                _producers.raise_errno(ret, "kperf servers")

    def __exit__(self, exc_type, _exc, _tb):
        try:
            self.close()
        except RuntimeError:
            if exc_type is None:
                raise
        return False

    def run(self, client_args=()):
        """One client run; returns {"source_throughput", "target_throughput",
        "source_retransmits", "target_retransmits"} and, while reporting is
        enabled, records both hosts' throughput and retransmits."""
        if not self._handle:
            raise RuntimeError("KperfRunner.run() outside its with block")
        if isinstance(client_args, str):
            raise ValueError("client_args must be a list of words, not a str")
        args = _producers.words(client_args, "client_args")
        out = (ctypes.c_double * 4)()
        ret = _producers.lib().ksftmetric_prod_kperf_client(self._handle, args,
                                                             ctypes.byref(out))
        if ret:
            _producers.raise_errno(ret, "kperf")
        return {"source_throughput": out[0], "target_throughput": out[1],
                "source_retransmits": int(out[2]), "target_retransmits": int(out[3])}
