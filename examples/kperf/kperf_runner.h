/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run kperf between two endpoints as the kernel's KperfRunner does:
 * "kperf-server" daemons on both (each with its own pid file), the client
 * here with "--src REMOTE --dst LOCAL", its report parsed, and throughput
 * and tcp.retransmits recorded for both hosts while reporting is enabled.
 *
 * Error rule: 0 or a negative errno; *@err (if @err) then receives a
 * malloc'd message, free() it. Not thread-safe: one runner per thread.
 */
#ifndef KSFTM_EXAMPLE_KPERF_RUNNER_H
#define KSFTM_EXAMPLE_KPERF_RUNNER_H

#include <stddef.h>

#include "kperf_parse.h"
#include "own_cost.h"

/** kperf's default control port. */
#define KPERF_PORT 18323

/**
 * struct kperf_opts - where and how to run; zero means the default
 *
 * Initialise with KPERF_OPTS_INIT (@sz = sizeof, fields only appended). A
 * smaller @sz reads the missing fields as zero; a larger one is refused
 * (-EINVAL) if a field this build does not know is set (see ex_opts.h).
 */
struct kperf_opts {
	size_t sz;
	const char *server;		/* default "kperf-server" (PATH, or a path) */
	const char *client;		/* default "kperf-client" */
	const char *local_addr;		/* this endpoint: --dst, local --addr */
	const char *remote_addr;	/* the other one: --src, remote --addr */
	const char *const *remote;	/* prefix argv to reach the remote
					   endpoint, NULL-terminated; NULL: here */
	int port;			/* control port, default KPERF_PORT; another
					   one is passed as --port / --src-svc / --dst-svc */
	int client_timeout_ms;		/* default 300000; the client is killed after */
	int server_timeout_ms;		/* server start/--kill commands, default 10000 */
	int listen_timeout_ms;		/* servers' port, default 5000 */
	const char *pid_dir;		/* directory of the pid files, default "/tmp" */
	int repeat;			/* kperf_run(): client runs, default 1 (at
					   most KPERF_MAX_REPEATS), each recorded */
	/*
	 * Called right before and after each client run (e.g. to price it in
	 * CPU time: ksft_cpu_cost_begin/_end); NULL: not called. A negative
	 * errno fails the run; *@err may then hold a malloc'd message.
	 */
	int (*run_begin)(void *ctx, char **err);
	int (*run_end)(void *ctx, const struct kperf_result *res, char **err);
	void *hook_ctx;
	/*
	 * Where the servers run: the local one on placement->server, the
	 * remote one (and the client) on placement->client (taskstat.h; NULL:
	 * unpinned). Each client run records, while reporting is enabled, the
	 * test's own cost (both servers' sessions and the client) and its
	 * interference (own_cost.h).
	 */
	const struct ex_placement *placement;
};

#define KPERF_MAX_REPEATS 100

#define KPERF_OPTS_INIT { sizeof(struct kperf_opts), NULL, NULL, NULL, NULL, \
	NULL, 0, 0, 0, 0, NULL, 0, NULL, NULL, NULL, NULL }

struct kperf_runner;

/**
 * kperf_missing() - @return the name of the first kperf program not found
 * here (server or client), or NULL when both are there: callers skip then.
 */
const char *kperf_missing(const struct kperf_opts *opts);

/**
 * kperf_runner_start() - start the servers and wait until both listen
 *
 * Pid files are "<pid_dir>/ksft-kperf-<random>-{local,remote}.pid": unique
 * per runner and per endpoint, since two namespaces share one /tmp. On
 * failure every server already started is killed again.
 * @return 0 and *@out; -ENOENT if a program is missing; -ETIMEDOUT;
 * -EPROTO if a server command failed (its output is in the message).
 */
int kperf_runner_start(const struct kperf_opts *opts, struct kperf_runner **out,
		       char **err);

/**
 * kperf_runner_run() - run the client once and parse its report
 * @client_args: extra client arguments, NULL-terminated (NULL: none)
 *
 * The client is killed when it runs past client_timeout_ms. While reporting
 * is enabled, registers "throughput" (distribution, regression p50 higher
 * 5%) and "tcp.retransmits" (max) and records both for host "remote" (the
 * Source) and host "local" (the Target).
 * @return 0 (free @res with kperf_result_free()); -ETIMEDOUT; -EPROTO for
 * a nonzero exit; -ENODATA for an incomplete report; the messages carry
 * the client's output.
 */
int kperf_runner_run(struct kperf_runner *r, const char *const *client_args,
		     struct kperf_result *res, char **err);

/**
 * kperf_runner_stop() - kill both servers ("kperf-server --pid-file F
 * --kill" on each endpoint) and free @r. NULL-safe.
 * @return 0, or the first error of a kill command (the rest still run).
 */
int kperf_runner_stop(struct kperf_runner *r, char **err);

/**
 * kperf_run() - start, run once, stop: the whole measurement in one call.
 * @return as the three calls; the servers are stopped on every path.
 */
int kperf_run(const struct kperf_opts *opts, const char *const *client_args,
	      struct kperf_result *res, char **err);

/** kperf_record_metrics() - register the policies and record @res (see above). */
int kperf_record_metrics(const struct kperf_result *res, char **err);

#endif
