/* SPDX-License-Identifier: GPL-2.0 */
/* One host's samples turned into the reference's metrics and policies. */
#ifndef SM_HOST_METRICS_H
#define SM_HOST_METRICS_H

#include <stdint.h>

#include "nic_stats.h"
#include "proc_stat.h"

/* Per-CPU cumulative time metrics and the /proc/stat fields they sum. */
enum cpu_time_metric { CPU_TIME_USR, CPU_TIME_SYS, CPU_TIME_SIRQ, CPU_TIME_NMETRICS };

struct host_metrics {
	const char *host;		/* label value: "local" or "remote" */
	long clk_tck;			/* USER_HZ of that host */
	int has_nic;
	struct cpu_snapshot prev;	/* the previous sample */
	size_t cap;			/* entries of the per-CPU arrays below */
	size_t n_seen;			/* 1 + highest CPU id ever seen */
	unsigned char *in_base;		/* CPU was in the baseline */
	unsigned char *stashed;		/* @stash is valid */
	uint64_t (*stash)[CPU_NFIELDS];	/* ticks when it went offline */
	uint64_t (*acc)[CPU_TIME_NMETRICS]; /* ticks since the baseline */
	double *values;			/* scratch for one array */
	unsigned char *present;
	uint64_t nic_last[NIC_NCOUNTERS];
	uint64_t nic_acc[NIC_NCOUNTERS];
};

/*
 * host_metrics_register() - register the seven metrics' policies (the
 * reference's ksft_metric_aggregate() calls, in its order).
 * @return 0 or the library's negative errno (message set).
 */
int host_metrics_register(void);

/*
 * host_metrics_baseline() - start a host from its first sample
 * @nic: its NIC counters, or NULL when the host has no NIC
 *
 * Records the initial 0 of each NIC counter. Takes @cpu's content (swaps
 * it with memory the caller may reuse for the next parse).
 * @return 0 or -errno (message).
 */
int host_metrics_baseline(struct host_metrics *h, const char *host, long clk_tck,
			  struct cpu_snapshot *cpu, const uint64_t *nic);

/*
 * host_metrics_record() - record one sample: cpu.time.{usr,sys,sirq} since
 * the baseline, cpu.utilization over the last interval, nic.* since the
 * baseline. A CPU missing from either snapshot is null in its slot; arrays
 * have n_seen slots. A /proc/stat field that decreases counts 0; a NIC
 * counter that decreases was reset and counts its new value. Takes @cpu's
 * content as host_metrics_baseline() does.
 *
 * @return 0 or -errno (message names the metric).
 */
int host_metrics_record(struct host_metrics *h, struct cpu_snapshot *cpu,
			const uint64_t *nic);

void host_metrics_free(struct host_metrics *h);

/*
 * util_percent() - round(100 * busy / total, 4) exactly as Python computes
 * it (correctly rounded division, then round() to 4 decimals).
 */
double util_percent(uint64_t busy, uint64_t total);

/* util_percent_slow() - the same through snprintf("%.4f") + strtod(). */
double util_percent_slow(uint64_t busy, uint64_t total);

#endif
