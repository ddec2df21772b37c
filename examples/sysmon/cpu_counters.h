/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two system-wide perf_event counters summed over every online CPU
 * (cycles and instructions; software clocks for tests), so a measurement
 * can be priced in cycles and instructions per byte.
 */
#ifndef SM_CPU_COUNTERS_H
#define SM_CPU_COUNTERS_H

#include <stdint.h>

/* Which pair of events to count. */
enum cpu_counters_kind {
	CPU_COUNTERS_HARDWARE,	/* cycles, instructions */
	CPU_COUNTERS_SOFTWARE,	/* cpu-clock, task-clock (ns): proves the plumbing */
};

struct cpu_counters;

/*
 * cpu_counters_open() - open both events on every online CPU (pid -1)
 *
 * Needs CAP_PERFMON (root) or perf_event_paranoid <= 0.
 * @return 0 and *@out; -ENOENT or -EOPNOTSUPP when the machine has no such
 * counters (a VM without a PMU), -EACCES/-EPERM when not allowed, -ENOMEM;
 * the message (sm_errmsg()) says "perf_event_open: <why>".
 */
int cpu_counters_open(enum cpu_counters_kind kind, struct cpu_counters **out);

/*
 * cpu_counters_read() - the two counts since open, summed over the CPUs
 * and scaled for the time they were multiplexed out. @return 0 or -errno.
 */
int cpu_counters_read(struct cpu_counters *c, uint64_t count[2]);

void cpu_counters_close(struct cpu_counters *c);

#endif
