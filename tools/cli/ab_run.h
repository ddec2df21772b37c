/*
 * ksft-metric ab --run-a/--run-b: A/B for any command that prints KTAP
 * metrics (a patched and an unpatched tcp_mmap, a script that runs a test
 * on one kernel or another): N pairs, in each both commands once in a
 * random order, each run's output read as its own log (ab_run.c).
 */
#ifndef KSFTM_AB_RUN_H
#define KSFTM_AB_RUN_H

#include <stddef.h>
#include <stdint.h>

#include <ksftmetric/report.h>

struct ab_run_opts {
	char **argv[2];		/* A's and B's command, NULL-terminated */
	const char *shown[2];	/* as given, for messages */
	size_t pairs;
	uint64_t seed;
	int quiet;
};

/* Called with each run's report, its variant (0 A, 1 B) and pair; -1 stops. */
typedef int (*ab_take_fn)(void *ctx, const struct ksft_metric_report *r, int variant,
			  size_t pair);

/* @s split on blanks into a NULL-terminated argv (no shell); NULL: no
 * memory or no word. Free with ab_words_free(). */
char **ab_words(const char *s);
void ab_words_free(char **w);
/* Which variant runs first in @pair: splitmix64 of the seed and the pair,
 * the runners' own rule (examples/common/ab.c). */
int ab_first(uint64_t seed, size_t pair);
uint64_t ab_default_seed(void);
/* Run the pairs; 0, or -1 after printing why (a command that cannot run). */
int ab_run(const struct ab_run_opts *o, ab_take_fn take, void *ctx);

#endif
