/*
 * ksft-metric ab's series: one group per identity (path, case, metric and
 * labels without variant and pair), each holding the (pair, variant,
 * value) it was given, so that memory follows the pairs present, not the
 * largest pair number (ab_pairs.c).
 */
#ifndef KSFTM_AB_PAIRS_H
#define KSFTM_AB_PAIRS_H

#include <jansson.h>
#include <stddef.h>

#include <ksftmetric/report.h>

#include "ab.h"

struct ab_obs {
	long long pair;
	int variant;		/* 0: A, 1: B */
	double value;
	size_t seq;		/* the order given */
};

struct ab_group {
	char **path;
	size_t path_len;
	char *case_name, *name, *labels;	/* labels: JSON without variant, pair */
	char *display_label;			/* NULL: none */
	double display_scale;
	int better;				/* +1 higher, -1 lower, 0 none */
	double rel_tol, abs_tol;
	struct ab_obs *obs;
	size_t n_obs, cap;
	/* The verdict (cli_ab.c). */
	struct ab_result res;
	double med_a, med_b;			/* medians of the pairs judged */
	int judged;
};

struct ab_groups {
	struct ab_group *g;
	size_t n, cap;
	json_t *index;		/* identity key -> index */
};

/* The group of series @s whose labels less variant and pair are @labels
 * (canonical JSON), made on first sight; NULL on no memory. */
struct ab_group *ab_group_of(struct ab_groups *gs, const struct ksft_metric_report_series *s,
			     const char *labels);
/* Record @value for (@pair, @variant); -1 on no memory. */
int ab_group_add(struct ab_group *g, long long pair, int variant, double value);
/* The pairs with both variants finite, in pair order (the last value of a
 * pair's variant when given twice): *@a, *@b malloc'd, *@n of them; -1 on
 * no memory. */
int ab_group_pairs(struct ab_group *g, double **a, double **b, size_t *n);
void ab_groups_free(struct ab_groups *gs);

#endif
