/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the runners' "run" command lines share (ksft-iperf3, ksft-kperf):
 * the options --remote CMD..., --metrics, --cpus, --irq-ifname and the A/B
 * ones, parsed once, and the steps that open the measured case with them
 * (the NIC's interrupts pinned, the cost context, the case begun).
 */
#ifndef KSFTM_EXAMPLE_RUNNER_CLI_H
#define KSFTM_EXAMPLE_RUNNER_CLI_H

#include "ab.h"
#include "taskstat.h"

struct option;

/* Put EX_RUNNER_LONGOPTS in the getopt_long table (long options only). */
enum {
	EX_RUNNER_OPT_REMOTE = 0x1c0, EX_RUNNER_OPT_METRICS, EX_RUNNER_OPT_CPUS,
	EX_RUNNER_OPT_IRQ_IF,
};
#define EX_RUNNER_LONGOPTS \
	{ "remote", required_argument, NULL, EX_RUNNER_OPT_REMOTE }, \
	{ "metrics", no_argument, NULL, EX_RUNNER_OPT_METRICS }, \
	{ "cpus", required_argument, NULL, EX_RUNNER_OPT_CPUS }, \
	{ "irq-ifname", required_argument, NULL, EX_RUNNER_OPT_IRQ_IF }, \
	EX_AB_LONGOPTS

struct ex_runner_cli {
	const char *prog;	/* "ksft-iperf3", for the messages */
	const char **remote;	/* --remote's words (NULL: local), ex_opt_remote() */
	char *store;
	int metrics;		/* --metrics, or implied by A/B */
	const char *cpus;	/* --cpus text ("default") */
	const char *irq_if;	/* --irq-ifname, NULL: none */
	struct ex_ab_cli ab;
	int is_ab;		/* after ex_runner_cli_finish(): A/B asked */
	struct ex_placement pl;	/* after ex_runner_cli_finish(): --cpus parsed */
};

/**
 * ex_runner_cli_init() - no remote, no metrics, default placement, no A/B;
 * getopt reset (optind 0) for ex_runner_getopt().
 */
void ex_runner_cli_init(struct ex_runner_cli *c, const char *prog);

/* ex_runner_getopt()'s answer for a shared option given badly. */
#define EX_RUNNER_OPT_BAD 0x1bf

/**
 * ex_runner_getopt() - getopt_long(@argc, @argv, "+", @longopts) with the
 * shared options (EX_RUNNER_LONGOPTS, in @longopts) taken here
 * @return the next option that is the runner's own (or '?'), -1 after the
 * last, or EX_RUNNER_OPT_BAD after saying what was wrong with a shared one.
 */
int ex_runner_getopt(struct ex_runner_cli *c, int argc, char **argv,
		     const struct option *longopts);

/**
 * ex_runner_cli_opt() - take getopt's @opt if it is a shared option
 * @return 0 not one, 1 taken, -1 bad (said on stderr, prefixed with the
 * program's name).
 */
int ex_runner_cli_opt(struct ex_runner_cli *c, int opt, int argc, char **argv);

/**
 * ex_runner_cli_finish() - after the options: the A/B options checked (A/B
 * judges the pairs' metrics: it implies --metrics), then --cpus parsed.
 * @return 0, or -1 after saying why.
 */
int ex_runner_cli_finish(struct ex_runner_cli *c);

/**
 * ex_runner_case_begin() - after the KTAP header: with --irq-ifname, the
 * NIC's interrupts pointed at the server's CPUs (a failure ends test @name
 * as failed); with --metrics, the placement and what changes a cost's
 * meaning in the run's context (runs that differ there are not
 * comparable); then the measured case begun (ex_metric_case_begin()).
 * @return 0 with the case open, or 1 when the run ends here, *@rc its
 * exit code.
 */
int ex_runner_case_begin(struct ex_runner_cli *c, const char *name, int *rc);

void ex_runner_cli_free(struct ex_runner_cli *c);

#endif
