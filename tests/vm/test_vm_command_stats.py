#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One boot (issue 42, doc/vm.rst "Latency tests"): ksft-vm says how
COMMAND's virtual time splits into its own CPU time and the guest's idle
time. COMMAND sleeps 1 s, then runs a shell busy loop: the sleep must be
idle (the guest jumps to its timer), the loop CPU, and the two together
the whole of COMMAND's time but a few ms (the shell's start, the
kernel's own threads).

usage: test_vm_command_stats.py KSFT_VM
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vm_util import check, kernel, run  # noqa: E402

vm = sys.argv[1]
k = kernel()
LOOP = "sleep 1; i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; echo done"
rc, out, err = run(vm, ["--kernel", k, "--memory", "256", "--", "sh", "-c", LOOP])
check(rc == 0 and out == b"done\n", "COMMAND ran", "rc %d\n%s" % (rc, err[-3000:]))
m = re.search(r"^ksft-vm: COMMAND took ([0-9.]+) virtual s: its own CPU ([0-9.]+) s "
              r"\(instructions\), the guest idle ([0-9.]+) s, the rest (-?[0-9.]+) s", err, re.M)
check(m is not None, "ksft-vm prints COMMAND's time, CPU time and idle time", err[-2000:])
elapsed, cpu, idle, rest = (float(x) for x in m.groups())
check(abs(elapsed - cpu - idle - rest) < 2e-6, "the three parts sum to the whole", m.group(0))
check(0.98 <= idle < 1.05, "sleep 1 is idle time, about 1 s of it", m.group(0))
check(cpu >= 0.02, "the busy loop is COMMAND's CPU time", m.group(0))
check(0 <= rest < 0.05 * elapsed, "little is neither (other tasks, interrupts)", m.group(0))
print(m.group(0))
print("PASS")
