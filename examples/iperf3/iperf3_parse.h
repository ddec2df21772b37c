/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading "iperf3 --json" output: throughput over the stable middle of the
 * run and the sender's TCP retransmits, as the kernel's Iperf3Runner does.
 *
 * Error rule: 0 or a negative errno; *@err (if @err) then holds a malloc'd
 * message "NAME[:LINE:COL]: FIELD: reason". Thread-safe (no shared state).
 */
#ifndef KSFTM_EXAMPLE_IPERF3_PARSE_H
#define KSFTM_EXAMPLE_IPERF3_PARSE_H

#include <stddef.h>
#include <stdint.h>

/** Intervals dropped at each end of the run (ramp-up and tail). */
#define IPERF3_EDGE_INTERVALS 3
/* Stable intervals kept one by one (the mean uses all of them). */
#define IPERF3_MAX_KEPT_INTERVALS 256
/* Repeats one iperf3_run() may make. */
#define IPERF3_MAX_REPEATS 100

/**
 * struct iperf3_result - one measurement
 */
struct iperf3_result {
	double throughput_gbps;	/* mean of intervals[3:-3].sum.bits_per_second / 1e9 */
	int has_retransmits;	/* end.sum_sent.retransmits present (TCP) */
	int64_t retransmits;	/* its value when present, else 0 */
	size_t n_intervals;	/* all intervals in the output */
	size_t n_stable;	/* intervals averaged */
	int reverse;		/* start.test_start.reverse, 0 if absent */
	size_t n_kept;		/* stable intervals in interval_gbps (at most 256) */
	double interval_gbps[IPERF3_MAX_KEPT_INTERVALS];
	uint64_t bytes;		/* end.sum_received.bytes (else sum_sent), 0 if
				   absent; iperf3_run(): the repeats' sum */
	size_t repeats;		/* iperf3_run(): measurements made; throughput_gbps
				   is then their median, retransmits their sum */
	/* end.cpu_utilization_percent.{host,remote}_total x end.sum_sent.seconds
	 * / 100: CPU seconds of the client (host) and server (remote)
	 * processes over the test, by iperf3's own getrusage(); NAN if absent.
	 * Across two hosts the only per-endpoint process cost there is. */
	double client_cpu_s, server_cpu_s;
	/* iperf3_run(): the median over the repeats of the test's own CPU
	 * seconds per GB (both endpoints where both are here), NAN if none */
	double test_cost;
};

/**
 * iperf3_parse_json() - parse one iperf3 --json document
 * @name: what to call the input in messages (a file name, "iperf3 output")
 *
 * Fails when the JSON is malformed, when iperf3 put an "error" key in it
 * (it exits 0 in that case), when an interval lacks sum.bits_per_second,
 * or when there are not more than 2 * IPERF3_EDGE_INTERVALS intervals.
 * A missing end.sum_sent.retransmits is not an error here (UDP has none);
 * see iperf3_require_retransmits().
 *
 * @return 0; -EINVAL for malformed or failed runs; -ERANGE for too few
 * intervals; -EPROTO when iperf3 reported an error.
 */
int iperf3_parse_json(const char *text, size_t len, const char *name,
		      struct iperf3_result *res, char **err);

/** iperf3_parse_file() - iperf3_parse_json() on the file @path (named as given). */
int iperf3_parse_file(const char *path, struct iperf3_result *res, char **err);

/**
 * iperf3_require_retransmits() - fail unless @res has retransmits
 * @return 0, or -ENODATA with "NAME: end.sum_sent.retransmits missing".
 */
int iperf3_require_retransmits(const struct iperf3_result *res, const char *name,
			       char **err);

#endif
