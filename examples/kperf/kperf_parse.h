/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading kperf-client's human-readable report (its warnx() lines on
 * stderr, each behind "kperf-client: ", with "I   client.c:" info lines in
 * between) with the rules of the kernel's KperfRunner.parse(): throughput
 * from Source Tx and Target Rx, retransmits from the first column of the
 * TCP table, summed over connections. Also the per-CPU load lines.
 *
 * Error rule: 0 or a negative errno; *@err (if @err) then holds a malloc'd
 * message "NAME[:LINE]: reason". Thread-safe (no shared state).
 */
#ifndef KSFTM_EXAMPLE_KPERF_PARSE_H
#define KSFTM_EXAMPLE_KPERF_PARSE_H

#include <stddef.h>
#include <stdint.h>

/** One "[net |app ]CPU N: usr:..% sys:..% idle:..% iow:..% irq:..% sirq:..%" line. */
struct kperf_cpu {
	int cpu;
	char role[4];	/* "", "net" or "app" (with --pin-off) */
	double usr, sys, idle, iow, irq, sirq;	/* percent */
};

/** One side ("== Source" or "== Target") of the report. */
struct kperf_side {
	double throughput;	/* Gbps: sum of Source Tx / Target Rx lines */
	uint64_t bytes;		/* their "(N bytes in ...)" counts, summed */
	int64_t retransmits;	/* sum of the TCP table's first column */
	size_t n_rates;		/* rate lines summed */
	size_t n_tcp_rows;	/* TCP rows summed */
	struct kperf_cpu *cpus;	/* in report order; free with kperf_result_free() */
	size_t n_cpus;
};

struct kperf_result {
	struct kperf_side source;	/* the sender: the remote endpoint */
	struct kperf_side target;	/* the receiver: the local endpoint */
	double test_cost;		/* kperf_runner_run(): the test's own CPU
					   s/GB (both endpoints), NAN unmeasured */
};

/**
 * kperf_parse() - parse kperf-client output
 * @name: what to call the input in messages
 *
 * @return 0 (free @res with kperf_result_free()); -ENODATA with a message
 * containing "incomplete kperf result" and what is missing; -ERANGE for a
 * number that does not fit (with its line); -ENOMEM.
 */
int kperf_parse(const char *text, size_t len, const char *name,
		struct kperf_result *res, char **err);

/** kperf_parse_file() - kperf_parse() on the file @path (named as given). */
int kperf_parse_file(const char *path, struct kperf_result *res, char **err);

/** kperf_result_free() - free the CPU arrays of @res. NULL-safe. */
void kperf_result_free(struct kperf_result *res);

#endif
