/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is this a ksft-vm guest on an instruction-counted clock (doc/vm.rst)?
 * There the test's CPU time is instructions (2^shift ns each), its rates a
 * deterministic proxy, and a measured A/A spread near zero: the producers'
 * policies say so (labels) and gate at the icount tolerance.
 */
#ifndef KSFTM_EXAMPLE_ICOUNT_H
#define KSFTM_EXAMPLE_ICOUNT_H

/*
 * Relative tolerance of an instruction-counted series under icount: boots
 * of one root are bit-identical and a changed root moves instructions per
 * byte by up to 0.12 % (doc/vm.rst, "Noise floor"); 0.5 % is above that
 * and below the 1 % a change in instructions per byte must show.
 */
#define EX_ICOUNT_TOLERANCE 0.005

/* The same for a CPU time counted in /proc/stat's 10 ms ticks. */
#define EX_ICOUNT_TICK_TOLERANCE 0.02

/*
 * The virtual throughput, a proxy: bit-identical boot to boot, but it
 * moves by up to 0.55 % when anything in the packed root changes (another
 * working directory, a rebuilt binary: the guest's memory layout), where
 * instructions per byte move by 0.12 %. A 1 % change in instructions per
 * byte is the instruction series' verdict; this one keeps to 1 %.
 */
#define EX_ICOUNT_PROXY_TOLERANCE 0.01

/** The icount shift ksft-vm put on the kernel command line (ksftm.clock=icount,
 *  ksftm.icount_shift=N; $KSFTMETRIC_CMDLINE names another file for tests),
 *  or -1 natively, under --kvm, or when unreadable. Read once. */
int ex_icount_shift(void);

#endif
