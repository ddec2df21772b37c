/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A/B mode of the runners: randomised interleaved trials on one machine.
 * N pairs; in each pair variant A's and variant B's setup command each
 * run once (as argv, never through a shell), in a random order (seeded,
 * the seed printed), each followed by a reset of what carries over
 * between trials (ip tcp_metrics flush, here and behind the remote
 * prefix) and one measurement labelled variant=A|B, pair=N. Each pair then
 * records its paired ratios B/A (ab.throughput_ratio, ab.test_cost_ratio).
 */
#ifndef KSFTM_EXAMPLE_AB_H
#define KSFTM_EXAMPLE_AB_H

#include <stdint.h>

struct ex_ab_opts {
	const char *const *setup[2];	/* A, B: argv run here before each trial */
	const char *const *remote;	/* the far endpoint's prefix (flushed too) */
	int pairs;			/* N >= 1 */
	uint64_t seed;			/* the order's seed */
	int no_flush;			/* 1: skip ip tcp_metrics flush */
};

/* One trial: measure once with the trial labels set; @gbps and @cost
 * (the test's own CPU s/GB, NAN if unmeasured) receive its values. */
typedef int (*ex_ab_trial_fn)(void *ctx, double *gbps, double *cost, char **err);

/**
 * ex_ab_run() - the pairs, with diagnostics per pair and a summary (the
 * paired ratio's median and CV beside the unpaired CVs of A and B).
 * @return 0, or the first failing setup's or trial's negative errno.
 */
int ex_ab_run(const struct ex_ab_opts *o, ex_ab_trial_fn trial, void *ctx, char **err);

/** ex_ab_order() - 1 if pair @pair runs B first under @seed (for tests). */
int ex_ab_order(uint64_t seed, int pair);

/** ex_ab_default_seed() - from the clock and pid (printed by the caller). */
uint64_t ex_ab_default_seed(void);

/*
 * The A/B options of ksft-iperf3 and ksft-kperf, parsed once: put
 * EX_AB_LONGOPTS in the getopt_long table and hand every option to
 * ex_ab_cli_opt() first.
 *   --ab-a CMD... --ab-b CMD...  the setup commands (words like --remote)
 *   --pairs N (default 10)  --seed S (default: clock and pid)  --no-flush
 */
enum { EX_AB_OPT_A = 0x1a0, EX_AB_OPT_B, EX_AB_OPT_PAIRS, EX_AB_OPT_SEED, EX_AB_OPT_NO_FLUSH };
#define EX_AB_LONGOPTS \
	{ "ab-a", required_argument, NULL, EX_AB_OPT_A }, \
	{ "ab-b", required_argument, NULL, EX_AB_OPT_B }, \
	{ "pairs", required_argument, NULL, EX_AB_OPT_PAIRS }, \
	{ "seed", required_argument, NULL, EX_AB_OPT_SEED }, \
	{ "no-flush", no_argument, NULL, EX_AB_OPT_NO_FLUSH }

struct ex_ab_cli {
	struct ex_ab_opts ab;
	const char **setup[2];
	char *store[2];
	int seeded;
};

/** ex_ab_cli_init() - no A/B, 10 pairs. */
void ex_ab_cli_init(struct ex_ab_cli *c);

/**
 * ex_ab_cli_opt() - take getopt's @opt if it is an A/B option
 * @return 0 not one, 1 taken, -1 bad (said on stderr, prefixed @prog).
 */
int ex_ab_cli_opt(struct ex_ab_cli *c, const char *prog, int opt, int argc, char **argv);

/**
 * ex_ab_cli_finish() - after the options: both setups or neither (else
 * -1, said), the seed, the far endpoint's prefix. @return 1 A/B, 0 not.
 */
int ex_ab_cli_finish(struct ex_ab_cli *c, const char *prog, const char *const *remote);

void ex_ab_cli_free(struct ex_ab_cli *c);

#endif
