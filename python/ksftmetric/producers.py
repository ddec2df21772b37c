# SPDX-License-Identifier: GPL-2.0
"""The producers in one import: ``from ksftmetric.producers import
SystemMonitor, Iperf3Runner, KperfRunner``. Their C library is loaded on
first use, so importing costs nothing."""

from .iperf3 import Iperf3Runner
from .kperf import KperfRunner
from .sysmon import SystemMonitor, active_monitor

__all__ = ["SystemMonitor", "Iperf3Runner", "KperfRunner", "active_monitor"]
