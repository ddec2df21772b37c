/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Instructions of the benchmark's own processes, user and kernel apart:
 * two perf_event counters on the calling thread (pid 0, any CPU) with
 * inherit set, so that every process and thread it starts afterwards (the
 * servers, the client, their threads, an "ip netns exec" prefix) is
 * counted, and none that was running before (a system monitor's sampler,
 * other tenants). Software task clocks stand in for tests: they prove the
 * plumbing on a machine without a PMU and are never recorded.
 *
 * Error rule: 0 or a negative errno, the reason in @why ("perf_event_open:
 * No such file or directory" on a VM without a virtual PMU).
 */
#ifndef KSFTM_EXAMPLE_OWN_COUNTERS_H
#define KSFTM_EXAMPLE_OWN_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

enum ex_task_counters_kind {
	EX_TASK_COUNTERS_HW,	/* instructions: exclude_kernel, exclude_user */
	EX_TASK_COUNTERS_SW,	/* task-clock ns, the same way (tests) */
};

struct ex_task_counters;

/**
 * ex_task_counters_open() - open both counters on this thread, inherited
 * by what it forks from now on; read before the children exit or after:
 * an exited child's count is folded into the parent's.
 */
int ex_task_counters_open(enum ex_task_counters_kind kind, struct ex_task_counters **out,
			  char *why, size_t size);

/** ex_task_counters_read() - [0] user, [1] kernel, since open (scaled). */
int ex_task_counters_read(struct ex_task_counters *c, uint64_t count[2]);

/** ex_task_counters_close() - NULL-safe. */
void ex_task_counters_close(struct ex_task_counters *c);

/**
 * ex_task_counters_probe() - whether this machine counts instructions per
 * process: 0, or -errno with the reason in @why (the context key
 * "own_instructions" and the runners' "# instructions per byte" line).
 */
int ex_task_counters_probe(char *why, size_t size);

#endif
