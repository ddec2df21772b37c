# SPDX-License-Identifier: GPL-2.0
"""ksft-vm: run a selftest in a QEMU guest whose clock counts instructions.

One concern a module, in the order a run goes through them: cli (options,
main), kernel (the image's setup header, config, module tree), root (the
guest's files) over cpio (the newc writer) and modules (.modinfo, the
network modules), python_env (a Python COMMAND's interpreter, library,
imports, kernel tree), seed (--seed's busy loop and context words),
guest_init (the guest's /init), qemu (QEMU's argv from a
VmConfig), process (QEMU in its own process group, signals, temp dirs),
result (the guest's framed result decoded); ab is the kernel A/B command,
reply its mailing-list summary. Helpers raise errors.VmError; only the
main()s exit. doc/vm.rst says why each setting is what it is.
"""
