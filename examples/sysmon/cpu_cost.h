/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksft_cpu_cost: what a measurement cost the CPUs, per byte it moved.
 * Around each repeat of a benchmark: begin, run, end(bytes). End records
 *
 *   cpu.cost                   busy core-seconds per GB, per endpoint
 *                              (label host: local/remote), from the
 *                              system monitor's busy totals
 *   cpu.cycles_per_byte,
 *   cpu.instructions_per_byte  perf_event counts of all the local
 *                              machine's CPUs per byte (host: local),
 *                              where hardware counters exist
 *
 * each with a policy (distribution; regression p50, lower is better).
 *
 * Error rule: int calls return 0 or a negative errno, pointer calls NULL
 * with errno set; ksft_sysmon_errmsg() says why. Never prints.
 * Thread safety: one meter per thread.
 */
#ifndef KSFT_CPU_COST_H
#define KSFT_CPU_COST_H

#include <stddef.h>
#include <stdint.h>

#include "sysmon.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ksft_cpu_cost;

/** Values for ksft_cpu_cost_opts.counters. */
enum ksft_cpu_cost_counters {
	KSFT_CPU_COST_NO_COUNTERS,	/* busy time only */
	KSFT_CPU_COST_HW_COUNTERS,	/* cycles and instructions, if the machine has them */
	KSFT_CPU_COST_SW_COUNTERS,	/* software clocks: measured and returned,
					   never recorded (tests of the plumbing) */
};

/**
 * struct ksft_cpu_cost_opts - initialise with KSFT_CPU_COST_OPTS_INIT
 */
struct ksft_cpu_cost_opts {
	size_t sz;
	struct ksft_sysmon *mon;	/* running monitor: busy totals (required) */
	int counters;			/* enum ksft_cpu_cost_counters */
};

#define KSFT_CPU_COST_OPTS_INIT { sizeof(struct ksft_cpu_cost_opts), 0, 0 }

/** What one begin/end pair measured; NAN where not measured. */
struct ksft_cpu_cost_result {
	double cost_local, cost_remote;		/* busy core-seconds per GB */
	double cycles_per_byte;			/* software counters: ns per byte */
	double instructions_per_byte;		/* software counters: ns per byte */
};

/**
 * ksft_cpu_cost_new() - a meter over @opts->mon
 *
 * Opens the counters if asked. Counters the machine lacks are not an
 * error: ksft_cpu_cost_counters_missing() then says why.
 * @return the meter, or NULL with errno: EINVAL (no monitor, bad opts),
 * ENOMEM.
 */
struct ksft_cpu_cost *ksft_cpu_cost_new(const struct ksft_cpu_cost_opts *opts);

/**
 * ksft_cpu_cost_counters_missing() - why there are no counter metrics
 * @return NULL when counters count (or none were asked for), else a
 * reason valid until the meter is freed, e.g. "no hardware counters
 * (perf_event_open: No such file or directory)".
 */
const char *ksft_cpu_cost_counters_missing(const struct ksft_cpu_cost *c);

/** ksft_cpu_cost_begin() - start one measurement. @return 0 or -errno. */
int ksft_cpu_cost_begin(struct ksft_cpu_cost *c);

/**
 * ksft_cpu_cost_end() - end it: @bytes moved since begin
 * @out: receives the values (may be NULL)
 *
 * While reporting is enabled (ksft_metric_reporting_enabled()) registers
 * the policies and records one point of each metric measured.
 * @return 0; -EINVAL for @bytes 0 or no begin; -EPERM/-EEXIST/... from the
 * library; a read error.
 */
int ksft_cpu_cost_end(struct ksft_cpu_cost *c, uint64_t bytes,
		      struct ksft_cpu_cost_result *out);

/** ksft_cpu_cost_free() - close the counters and free @c (NULL is fine). */
void ksft_cpu_cost_free(struct ksft_cpu_cost *c);

/**
 * ksft_cpu_cost_register() - register the three policies in the open case
 * (end does it too). @return 0 or the library's negative errno.
 */
int ksft_cpu_cost_register(void);

#ifdef __cplusplus
}
#endif

#endif /* KSFT_CPU_COST_H */
