/*
 * Judging N seeds (compare_seeds.c, issue 42): a ksft-vm boot's repeats
 * share one layout, so the boot (its seed) is the unit: one value a seed,
 * an exact rank test over seeds, the shift as Hodges-Lehmann with its
 * interval, and a verdict from where that interval lies.
 */
#ifndef KSFTM_COMPARE_SEEDS_H
#define KSFTM_COMPARE_SEEDS_H

#include <ksftmetric/report.h>
#include <stddef.h>

struct baseline_index;
struct baseline_key;
struct cmp_row;

/* A series' value in one seed's boot(s). */
struct seed_value {
	const char *seed;
	double v;
};

/*
 * The seed of each run of @b: its context's "seed" (a string, or a number
 * as written), NULL for a run without one. An array of b->n_runs (free
 * with compare_seeds_free()), NULL with -ENOMEM in *@err.
 */
char **compare_seeds_of(const struct ksft_metric_report_baseline *b, int *err);
void compare_seeds_free(char **seeds, size_t n);

/*
 * The value of key @k's (of @ix) scalar series in each seed (the compare op @op of
 * each run's samples; runs of one seed: their median), into @out (room for
 * k->n); runs without a seed are skipped. @return the seeds found, or
 * -ENOMEM.
 */
long compare_seeds_values(const struct baseline_index *ix, const struct baseline_key *k,
			 char *const *seeds, int op, struct seed_value *out);

/*
 * Judge @row from the seeds' values (@a: the baseline's, @b: the run's):
 * baseline and current are their medians, p the exact two-sided rank test
 * over seeds, change the Hodges-Lehmann shift with its 1 - @alpha
 * interval; REGRESSION (or IMPROVEMENT) when the interval lies beyond
 * @allow on that side, NO CHANGE when within it, else TOO NOISY with the
 * seeds needed or the smallest change these seeds could show. Series
 * identical across at least 3 seeds a side are judged at once. @better is
 * +1 or -1. 0 or -ENOMEM.
 */
int compare_seeds_verdict(struct cmp_row *row, struct seed_value *a, size_t na,
			  struct seed_value *b, size_t nb, int better, double allow,
			  double alpha);

#endif
