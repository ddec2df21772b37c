/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run one iperf3 measurement between two endpoints: the server here (the
 * "local" endpoint), the client behind a command prefix (the "remote"
 * endpoint, e.g. "ip netns exec NS" or "ssh host"). Records the throughput
 * and retransmit metrics of the kernel's Iperf3Runner while a reporting
 * scope is open (ksft_metric_reporting_enabled()).
 *
 * Error rule: 0 or a negative errno; *@err (if @err) then receives a
 * malloc'd message, free() it. Not thread-safe: one run per thread.
 */
#ifndef KSFTM_EXAMPLE_IPERF3_RUNNER_H
#define KSFTM_EXAMPLE_IPERF3_RUNNER_H

#include <stddef.h>

#include "iperf3_parse.h"
#include "own_cost.h"

/**
 * struct iperf3_opts - what to run; zero means the default
 *
 * Initialise with IPERF3_OPTS_INIT: @sz = sizeof(struct iperf3_opts), fields
 * are only ever appended. A smaller @sz (an older caller) reads the missing
 * fields as zero; a larger one is refused (-EINVAL) if a field this build
 * does not know is set (see ex_opts.h).
 */
struct iperf3_opts {
	size_t sz;
	const char *iperf3;		/* program, default "iperf3" (PATH) */
	const char *server_addr;	/* the client connects here; default "127.0.0.1" */
	const char *bind_addr;		/* server -B; NULL: server_addr; "": any */
	int port;			/* 0: a free port picked at random */
	const char *const *remote;	/* client prefix argv, NULL-terminated;
					   NULL: the client runs here too */
	int duration_s;			/* -t, default 10 */
	double interval_s;		/* -i, default 1 */
	int reverse;			/* -R: the server sends */
	int streams;			/* -P, default 1 */
	int client_timeout_ms;		/* default (duration + 30) s; killed after */
	int listen_timeout_ms;		/* server start, default 5000 */
	int connect_timeout_ms;		/* --connect-timeout, default 5000 */
	int repeat;			/* measurements, default 1 (at most
					   IPERF3_MAX_REPEATS): one throughput
					   point each */
	/*
	 * Called right before and right after each repeat's client run
	 * (e.g. to price it in CPU time: ksft_cpu_cost_begin/_end); NULL:
	 * not called. A negative errno fails the run; *@err may then hold a
	 * malloc'd message.
	 */
	int (*repeat_begin)(void *ctx, char **err);
	int (*repeat_end)(void *ctx, const struct iperf3_result *one, char **err);
	void *hook_ctx;
	/*
	 * Where the server (here) and the client run (taskstat.h; NULL:
	 * unpinned). Each repeat records, while reporting is enabled, the
	 * test's own cost and its interference (own_cost.h) over these CPUs.
	 */
	const struct ex_placement *placement;
	/* Called between repeats (e.g. "ip tcp_metrics flush", or an A/B
	 * variant's setup) with the repeat number; NULL: none. */
	int (*before_repeat)(void *ctx, int repeat, char **err);
	/* -n: bytes each repeat sends instead of running @duration_s (fixed
	 * work, so a profile divided by them is fair); 0: -t. @duration_s
	 * still sets the client's timeout. */
	unsigned long long bytes;
};

#define IPERF3_OPTS_INIT { sizeof(struct iperf3_opts), NULL, NULL, NULL, 0, \
	NULL, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, 0 }

/**
 * iperf3_run() - one measurement
 *
 * Starts "iperf3 -s -1" here, waits until it listens, runs
 * "PREFIX iperf3 -c ADDR --json" and parses the client's output. Fails on
 * a nonzero exit, on an "error" key in the JSON (iperf3 exits 0 then), on
 * a timeout (the client is killed) and on too few intervals. The server is
 * stopped on every path.
 *
 * While reporting is enabled it registers the policies "throughput"
 * (distribution, regression p50 higher 5%) and "tcp.retransmits" (max)
 * and records throughput (Gbps) with host = the receiver and
 * tcp.retransmits with host = the sender: receiver local and sender remote,
 * mirrored with @reverse. Missing retransmits are then an error. Each
 * repeat also records the test's own cost and its interference
 * (own_cost.h) and the run its best repeat (cpu.cost.test.best).
 *
 * @return 0; -ENOENT if iperf3 is missing here; -ETIMEDOUT; -EPROTO for a
 * failed iperf3 run; -EINVAL for unusable output or options.
 */
int iperf3_run(const struct iperf3_opts *opts, struct iperf3_result *res,
	       char **err);

/**
 * iperf3_record_metrics() - register the policies and record @res
 * as iperf3_run() does while reporting is enabled. @return 0 or a negative
 * errno (from the library, or -ENODATA without retransmits).
 */
int iperf3_record_metrics(const struct iperf3_result *res, int reverse,
			  const char *name, char **err);

#endif
