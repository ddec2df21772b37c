/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test's own cost and the interference it suffered, per repeat: begin
 * before the client starts, end once client and server have exited (their
 * wait4() and schedstat figures in hand). Shared by the iperf3 and kperf
 * runners; needs no system monitor.
 *
 *   cpu.cost.test.best     the run's lowest cpu.cost.test (host "both"):
 *                          the gated one (regression last, lower, 10%)
 *   cpu.cost.test          CPU seconds per GB of the benchmark's own
 *                          processes (all threads): host "both" when both
 *                          endpoints' processes are visible here (one
 *                          machine), else host local / remote per endpoint
 *                          (the remote from the tool's own report)
 *   cpu.cost.test.split    the same per endpoint on one machine: shown,
 *                          not gated (which task runs the receive softirq
 *                          is the scheduler's choice)
 *   interference.runq_wait           s waited for a CPU per s (host)
 *   interference.involuntary_switches  per second (host)
 *   interference.steal               steal s per s on the endpoint's CPUs
 *   interference.others_cpu          CPU s per s other tasks used there,
 *                                    outside irq and softirq: what another
 *                                    tenant can cause (an excuse)
 *   interference.softirq_cpu         CPU s per s of irq and softirq there,
 *                                    whoever's: the test's own packets'
 *                                    work done outside its tasks (a qdisc's
 *                                    watchdog, ksoftirqd/N); shown only
 *   cpu.instructions_per_byte.test.user, .kernel
 *                          instructions of the benchmark's processes per
 *                          byte, user and kernel apart (host "both"), where
 *                          the machine has a PMU (own_counters.h); shown
 *
 * Error rule: 0 or a negative errno with *@err (if @err) malloc'd.
 */
#ifndef KSFTM_EXAMPLE_OWN_COST_H
#define KSFTM_EXAMPLE_OWN_COST_H

#include <stddef.h>
#include <stdint.h>

#include "own_counters.h"
#include "taskstat.h"

#define EX_POLICY_TEST_COST "cpu.cost.test"
#define EX_POLICY_TEST_SPLIT "cpu.cost.test.split"
#define EX_POLICY_TEST_BEST "cpu.cost.test.best"
#define EX_POLICY_RUNQ "interference.runq_wait"
#define EX_POLICY_NIVCSW "interference.involuntary_switches"
#define EX_POLICY_STEAL "interference.steal"
#define EX_POLICY_OTHERS "interference.others_cpu"
#define EX_POLICY_SOFTIRQ "interference.softirq_cpu"
#define EX_POLICY_INSTR_USER "cpu.instructions_per_byte.test.user"
#define EX_POLICY_INSTR_KERNEL "cpu.instructions_per_byte.test.kernel"

/** What one repeat measured (NAN where not measured). */
struct ex_own_result {
	double wall_s;
	double cost_both;		/* own CPU s/GB, both endpoints (one host) */
	double cost_local, cost_remote;	/* per endpoint */
	double runq[2], nivcsw[2];	/* local, remote: per second */
	double steal[2], others[2];	/* per endpoint CPU set; [0] only if shared */
	double softirq[2];		/* the same sets' irq+softirq */
	int shared_cpus;		/* endpoints' CPU sets overlap (or unpinned) */
	double instr[2];		/* user, kernel counts per byte (NAN: none) */
};

struct ex_own_probe {
	const struct ex_placement *pl;	/* NULL: unpinned */
	const char *stat_path;		/* NULL: /proc/stat (tests: a fixture) */
	struct ex_cpu_ticks t0;
	long long t0_us;
	int begun;
	/* ex_own_counters_open(): counts per repeat; NULL: none (why_not). */
	struct ex_task_counters *ctr;
	enum ex_task_counters_kind ctr_kind;	/* SW: measured, never recorded */
	uint64_t ctr0[2];
	char why_not[128];
};

/**
 * ex_own_counters_open() - open @p's instruction counters (own_counters.h)
 * before the benchmark's processes start: what starts after is counted.
 * Where it cannot (no PMU) the reason is kept in @p->why_not and printed
 * once per process as "# instructions per byte: skipped: <why>"; the
 * series is then not recorded. @return 0 or the open's -errno.
 */
int ex_own_counters_open(struct ex_own_probe *p, enum ex_task_counters_kind kind);

/** ex_own_counters_close() - close them (NULL-safe inside). */
void ex_own_counters_close(struct ex_own_probe *p);

/** ex_own_begin() - snapshot the CPUs now (right before the client starts). */
int ex_own_begin(struct ex_own_probe *p, char **err);

/**
 * ex_own_end() - price the repeat and record its series while reporting is
 * enabled
 * @local:  the local endpoint's processes (the iperf3 server), or NULL
 * @remote: the client's, or NULL when it ran elsewhere (behind ssh)
 * @remote_cpu_s: the client's CPU seconds as the tool reported them
 *          (used when @remote is NULL; NAN: unknown)
 * @bytes:  moved in the repeat
 */
int ex_own_end(struct ex_own_probe *p, const struct ex_task_usage *local,
	       const struct ex_task_usage *remote, double remote_cpu_s, uint64_t bytes,
	       struct ex_own_result *out, char **err);

/**
 * ex_own_record_best() - record the best (lowest) of a run's @n own costs
 * as cpu.cost.test.best while reporting is enabled: interference only ever
 * makes a repeat costlier, so the best of N is the steadiest per-run
 * estimate (doc/producers.rst, measured). NAN entries are skipped.
 */
int ex_own_record_best(const double *cost, size_t n, char **err);

/** ex_own_free() - release the snapshot (also after a failed repeat). */
void ex_own_free(struct ex_own_probe *p);

/**
 * ex_own_others_split() - split the busy seconds of a CPU set (/proc/stat's
 * user+nice+system+irq+softirq, @softirq_s of it irq+softirq) into what
 * other tasks used outside irq and softirq, *@others_s = busy - softirq -
 * @mine_s (our processes' CPU seconds; at least 0), and *@softirq_s_out =
 * @softirq_s: softirq work runs on whatever CPU a timer or an interrupt
 * lands on, outside any task (a qdisc's watchdog, ksoftirqd/N), so it is
 * the test's own packets' as often as a neighbour's (issue 40).
 */
void ex_own_others_split(double busy_s, double softirq_s, double mine_s, double *others_s,
			 double *softirq_s_out);

/** ex_own_register() - the seven policies (ex_own_end does it too). */
int ex_own_register(char **err);

#endif
