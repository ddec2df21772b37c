# SPDX-License-Identifier: GPL-2.0
"""What ksft-vm's guest needs of a kernel built from a tree, as a Kconfig
fragment laid over `make tinyconfig` before the test's own fragments
(doc/vm.rst, "A kernel tree in one command"). Built in, never modules:
what the guest always needs costs no packing and no modprobe."""

SOURCE = "ksft-vm guest (tools/vm/ksft_vm/guest_config.py)"

# Each group says why it is there; tinyconfig turns everything off.
FRAGMENT = """\
# 64-bit, SMP (--smp 2), the code a distribution kernel runs: -O2 (tinyconfig
# asks for -Os), the full slab allocator and data structures, static keys,
# high-resolution timers, voluntary preemption (Debian's default)
CONFIG_64BIT=y
CONFIG_SMP=y
CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y
# CONFIG_CC_OPTIMIZE_FOR_SIZE is not set
# CONFIG_SLUB_TINY is not set
# CONFIG_BASE_SMALL is not set
# CONFIG_PREEMPT_NONE is not set
CONFIG_PREEMPT_VOLUNTARY=y
CONFIG_JUMP_LABEL=y
CONFIG_HIGH_RES_TIMERS=y
CONFIG_NO_HZ_IDLE=y
# the console and the result: two 8250 serial ports; printk
CONFIG_PRINTK=y
CONFIG_BUG=y
CONFIG_TTY=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_UNIX98_PTYS=y
# the root: an uncompressed cpio in RAM, /init a shell script
CONFIG_BLK_DEV_INITRD=y
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_DEVTMPFS=y
CONFIG_TMPFS=y
CONFIG_PROC_FS=y
CONFIG_PROC_SYSCTL=y
CONFIG_SYSFS=y
# what glibc, busybox, iproute2 and iperf3 call
CONFIG_MULTIUSER=y
CONFIG_FUTEX=y
CONFIG_EPOLL=y
CONFIG_SIGNALFD=y
CONFIG_TIMERFD=y
CONFIG_EVENTFD=y
CONFIG_SHMEM=y
CONFIG_AIO=y
CONFIG_FILE_LOCKING=y
CONFIG_ADVISE_SYSCALLS=y
CONFIG_MEMBARRIER=y
CONFIG_POSIX_TIMERS=y
CONFIG_RSEQ=y
CONFIG_SYSVIPC=y
CONFIG_CGROUPS=y
CONFIG_BPF_SYSCALL=y
CONFIG_NAMESPACES=y
CONFIG_NET_NS=y
# --profile: the guest reads its flag from QEMU's fw_cfg (found through
# ACPI) and sends /proc/kallsyms
CONFIG_ACPI=y
CONFIG_FW_CFG_SYSFS=y
CONFIG_KALLSYMS=y
# the test's modules (its fragment's =m), packed by ksft-vm
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
# the network stack a selftest starts from: loopback, TCP/UDP over IPv4
# and IPv6, CUBIC as on a distribution kernel, veth, qdiscs
CONFIG_NET=y
CONFIG_INET=y
CONFIG_IPV6=y
CONFIG_UNIX=y
CONFIG_PACKET=y
CONFIG_TCP_CONG_ADVANCED=y
CONFIG_TCP_CONG_CUBIC=y
CONFIG_DEFAULT_CUBIC=y
CONFIG_NETDEVICES=y
CONFIG_NET_CORE=y
CONFIG_VETH=y
CONFIG_NET_SCHED=y
# what the selftests' fragments take from a defconfig base and do not ask
# for (tools/testing/selftests/net/config's VRF, AMT, act_*, ingress, ifb,
# netdevsim, test_bpf depend on these)
CONFIG_IP_ADVANCED_ROUTER=y
CONFIG_IP_MULTIPLE_TABLES=y
CONFIG_IP_MULTICAST=y
CONFIG_NET_CLS_ACT=y
CONFIG_DEBUG_FS=y
CONFIG_RUNTIME_TESTING_MENU=y
# the release names the commit: 6.12.57-gSHA12[-dirty]
CONFIG_LOCALVERSION_AUTO=y
"""
