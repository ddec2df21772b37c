# SPDX-License-Identifier: GPL-2.0
"""QEMU's command line, built from a VmConfig by one pure function (a new
option, a -plugin, is a field here and a few lines in qemu_argv())."""
import re
import subprocess
from dataclasses import dataclass, field

from .errors import VmError

QEMU = "qemu-system-x86_64"
DEFAULT_CPU = "Westmere-v1"   # a named model TCG implements fully (no warnings)
ICOUNT_SHIFT = 0              # 1 ns of guest time per instruction
SEED = 1                      # QEMU's guest RNG (RDRAND, virtio-rng) seed
RTC_BASE = "2026-01-01T00:00:00"


@dataclass
class VmConfig:
    """Everything QEMU's argv depends on."""
    image: str                  # the kernel image
    initrd: str                 # the packed root
    console: str                # file for the guest's console (ttyS0)
    result: str                 # file for the framed result (ttyS1)
    release: str = "unknown"
    config_hash: str = "unknown"
    qemu_version: str = "unknown"
    memory: int = 1024
    smp: int = 1
    cpu: str = DEFAULT_CPU
    kvm: bool = False
    extra_context: list = field(default_factory=list)   # more ksftm.KEY=VALUE words
    extra_args: list = field(default_factory=list)      # more QEMU arguments (-plugin ...)


def qemu_opt_value(text):
    """@text as a value in QEMU's KEY=VALUE,... option syntax: a comma is
    written twice (QEMU's own escape), so a path with one stays one value."""
    return text.replace(",", ",,")


def context_words(cfg):
    """The ksftm.KEY=VALUE words the library reads from /proc/cmdline
    (lib/metric/vm_context.c): how this run was measured."""
    ctx = ["ksftm.clock=" + ("kvm" if cfg.kvm else "icount"), "ksftm.qemu=" + cfg.qemu_version,
           "ksftm.qemu_cpu=" + cfg.cpu, "ksftm.vm_kernel=" + cfg.release,
           "ksftm.vm_kernel_config=" + cfg.config_hash]
    if not cfg.kvm:
        ctx.append("ksftm.icount_shift=%d" % ICOUNT_SHIFT)
    return ctx + list(cfg.extra_context)


def kernel_cmdline(cfg):
    return ["console=ttyS0", "panic=-1", "oops=panic", "nokaslr", "random.trust_cpu=off",
            "random.trust_bootloader=off", "loglevel=4", "tsc=reliable",
            "no_timer_check", "rdinit=/init"] + context_words(cfg)


def qemu_argv(cfg):
    """QEMU's argv for @cfg (doc/vm.rst's table says why each is there)."""
    cmd = [QEMU, "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
           "-m", str(cfg.memory), "-smp", str(cfg.smp),
           "-kernel", cfg.image, "-initrd", cfg.initrd,
           "-append", " ".join(kernel_cmdline(cfg)),
           "-chardev", "file,id=con,path=" + qemu_opt_value(cfg.console), "-serial", "chardev:con",
           "-chardev", "file,id=res,path=" + qemu_opt_value(cfg.result), "-serial", "chardev:res"]
    if cfg.kvm:
        # The same named model: the kernel takes the same CPUID code paths
        # as under icount (and "host" passes MSRs a nested KVM refuses).
        cmd += ["-accel", "kvm", "-cpu", cfg.cpu]
    else:
        cmd += ["-accel", "tcg", "-cpu", cfg.cpu,
                "-icount", "shift=%d,sleep=off,align=off" % ICOUNT_SHIFT,
                "-rtc", "base=%s,clock=vm" % RTC_BASE, "-seed", str(SEED)]
    return cmd + list(cfg.extra_args)


def qemu_version():
    """QEMU's version ("7.2.22"), "unknown" when it does not say."""
    try:
        out = subprocess.run([QEMU, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=False).stdout.decode()
    except OSError:
        raise VmError("%s not found (install qemu-system-x86)" % QEMU) from None
    m = re.search(r"version (\d+\.\d+\.\d+)", out)
    return m.group(1) if m else "unknown"
