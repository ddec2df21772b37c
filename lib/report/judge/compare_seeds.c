/*
 * Judging N seeds (issue 42). Under icount a boot is deterministic for its
 * root and seed, and a boot's repeats share its layout (timer phase, hash
 * secrets, allocator state): they are not independent samples of the
 * layout's effect, which is what moves a result between roots. So each
 * seed gives one value (its runs' compare statistic), and A's seeds are
 * judged against B's: the exact Mann-Whitney test over seeds, the shift
 * as the Hodges-Lehmann estimate (the median of the differences b_j - a_i)
 * with Bauer's interval, and a verdict from where the interval lies
 * against the tolerance.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "baseline_index.h"
#include "compare_seeds.h"
#include "comparison.h"
#include "errmsg.h"
#include "order_stats.h"
#include "pipeline.h"
#include "stats.h"
#include "vals.h"

/* Identical across this many seeds a side: judged without a test. */
#define SEEDS_IDENTICAL_MIN 3
/* Paired by seed from this rank correlation of A and B across seeds. */
#define SEEDS_PAIR_RHO 0.5

char **compare_seeds_of(const struct ksft_metric_report_baseline *b, int *err)
{
	char **seeds = calloc(b->n_runs ? b->n_runs : 1, sizeof(*seeds));
	size_t r;

	*err = 0;
	if (!seeds) {
		*err = -ENOMEM;
		return NULL;
	}
	for (r = 0; r < b->n_runs; r++) {
		json_t *ctx = b->runs[r].context ? json_loads(b->runs[r].context, 0, NULL) : NULL;
		json_t *v = json_object_get(ctx, "seed");
		int named = json_is_string(v) || json_is_number(v);

		if (json_is_string(v))
			seeds[r] = strdup(json_string_value(v));
		else if (json_is_number(v))
			seeds[r] = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		json_decref(ctx);	/* v was ctx's */
		if (named && !seeds[r]) {
			compare_seeds_free(seeds, b->n_runs);
			*err = -ENOMEM;
			return NULL;
		}
	}
	return seeds;
}

void compare_seeds_free(char **seeds, size_t n)
{
	size_t i;

	for (i = 0; seeds && i < n; i++)
		free(seeds[i]);
	free(seeds);
}

static int by_seed(const void *x, const void *y)
{
	return strcmp(((const struct seed_value *)x)->seed, ((const struct seed_value *)y)->seed);
}

long compare_seeds_values(const struct baseline_index *ix, const struct baseline_key *k,
			 char *const *seeds, int op, struct seed_value *out)
{
	struct rp_summary sum;
	size_t i, j, m = 0, n = 0;
	double *tmp;

	for (i = 0; i < k->n; i++) {
		const char *seed = seeds[baseline_key_run(ix, k, i)];
		const struct rp_vals bv = bl_vals(baseline_key_series(ix, k, i));
		const struct rp_vals *samples = &bv;

		if (!seed || vals_is_array(samples))
			continue;
		if (pipeline_summarize(samples, 0, &sum))
			return -ENOMEM;
		if (sum.n)
			out[m++] = (struct seed_value){ seed, pipeline_summary_op(&sum, op) };
	}
	qsort(out, m, sizeof(*out), by_seed);
	tmp = malloc((m ? m : 1) * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	/* Runs of one seed (a boot saved twice): their median. */
	for (i = 0; i < m; i = j) {
		size_t c = 0;

		for (j = i; j < m && !strcmp(out[j].seed, out[i].seed); j++)
			tmp[c++] = out[j].v;
		out[n].seed = out[i].seed;
		out[n++].v = ksftm_median(tmp, c);
	}
	free(tmp);
	return (long)n;
}

static int values_same(const double *x, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (x[i] != x[0])
			return 0;
	return 1;
}

/* The fewest seeds a side whose interval at @alpha is bounded. */
static size_t seeds_needed(double alpha)
{
	size_t n;

	for (n = 2; n < 64; n++)
		if (stats_shift_ci_rank(n, n, alpha))
			return n;
	return n;
}

/* Spearman's rank correlation of x and y (mid-ranks); NaN: no spread. */
static double spearman(const double *x, const double *y, size_t n)
{
	double *r = malloc(2 * (n ? n : 1) * sizeof(*r)), mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
	size_t i, j;

	if (!r)
		return NAN;
	for (i = 0; i < n; i++) {
		double bx = 0, ex = 0, by = 0, ey = 0;

		for (j = 0; j < n; j++) {
			bx += x[j] < x[i];
			ex += x[j] == x[i];
			by += y[j] < y[i];
			ey += y[j] == y[i];
		}
		r[i] = bx + (ex + 1) / 2;
		r[n + i] = by + (ey + 1) / 2;
		mx += r[i] / (double)n;
		my += r[n + i] / (double)n;
	}
	for (i = 0; i < n; i++) {
		sxy += (r[i] - mx) * (r[n + i] - my);
		sxx += (r[i] - mx) * (r[i] - mx);
		syy += (r[n + i] - my) * (r[n + i] - my);
	}
	free(r);
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

/*
 * Pair by seed where A and B move together across the seeds both sides
 * ran (Spearman's rho >= SEEDS_PAIR_RHO over at least as many seeds as the
 * signed-rank interval needs at @alpha): the shift is then the
 * Hodges-Lehmann estimate of the seeds' differences b_s - a_s, its
 * interval from the Walsh averages, p the signed-rank test. 1 paired
 * (*@hl, *@lo, *@hi set), 0 not, -ENOMEM.
 */
static int paired_shift(struct cmp_row *row, const struct seed_value *a, size_t na,
			const struct seed_value *b, size_t nb, double alpha,
			double *hl, double *lo, double *hi)
{
	double *av = malloc(3 * (na < nb ? na : nb) * sizeof(*av) + sizeof(*av)), *bv, *d, *w;
	size_t i = 0, j = 0, m = 0, n_w, k, p, q;

	if (!av)
		return -ENOMEM;
	bv = av + (na < nb ? na : nb);
	d = bv + (na < nb ? na : nb);
	while (i < na && j < nb) {	/* both sorted by seed */
		int c = strcmp(a[i].seed, b[j].seed);

		if (!c) {
			av[m] = a[i++].v;
			bv[m] = b[j++].v;
			d[m] = bv[m] - av[m];
			m++;
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	k = stats_walsh_ci_rank(m, alpha);
	if (!k || !(spearman(av, bv, m) >= SEEDS_PAIR_RHO)) {
		free(av);
		return 0;
	}
	n_w = m * (m + 1) / 2;
	w = malloc(n_w * sizeof(*w));
	if (!w) {
		free(av);
		return -ENOMEM;
	}
	for (p = 0, q = 0; p < m; p++)
		for (i = p; i < m; i++)
			w[q++] = (d[p] + d[i]) / 2;
	*hl = ksftm_median(w, n_w);	/* sorts w */
	*lo = w[k - 1];
	*hi = w[n_w - k];
	row->p_value = stats_signed_rank_p(d, m);
	row->side->seeds_paired = m;	/* made by compare_seeds_verdict() */
	free(w);
	free(av);
	return 1;
}

int compare_seeds_verdict(struct cmp_row *row, struct seed_value *a, size_t na,
			  struct seed_value *b, size_t nb, int better, double allow,
			  double alpha)
{
	struct cmp_side *sd = cmp_side_get(row);
	double *x = malloc((na + nb + na * nb + 1) * sizeof(*x)), *y, *d, base, hl, lo, hi;
	size_t i, j, k, mn = na * nb;
	int identical;

	if (!x || !sd) {
		free(x);
		return -ENOMEM;
	}
	y = x + na;
	d = y + nb;
	for (i = 0; i < na; i++)
		x[i] = a[i].v;
	for (j = 0; j < nb; j++)
		y[j] = b[j].v;
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			d[i * nb + j] = y[j] - x[i];
	sd->seeds_a = na;
	sd->seeds_b = nb;
	row->n_baseline = row->baseline_runs = na;
	row->n_current = nb;
	row->p_value = stats_mann_whitney(y, nb, x, na);
	/* The spreads shown are the seeds' values, as the test sees them. */
	if (compare_row_spread_of(row, CMP_BASE, x, na, 1) ||
	    compare_row_spread_of(row, CMP_CUR, y, nb, 1)) {
		free(x);
		return -ENOMEM;
	}
	identical = na >= SEEDS_IDENTICAL_MIN && nb >= SEEDS_IDENTICAL_MIN &&
		    values_same(x, na) && values_same(y, nb);
	base = row->baseline = ksftm_median(x, na);	/* sorts x */
	row->current = ksftm_median(y, nb);
	hl = ksftm_median(d, mn);			/* sorts d */
	row->change_pct = base != 0 ? 100 * hl / fabs(base) : NAN;
	row->allowance = allow;
	row->better = better;
	sd->seeds_needed = seeds_needed(alpha > 0 ? alpha : 0.05);
	k = alpha > 0 ? stats_shift_ci_rank(na, nb, alpha) : 0;
	/* d is sorted (the median sorts it): Bauer's [d_(k), d_(mn + 1 - k)]. */
	lo = hi = hl;		/* every seed the same: the shift is exact */
	if (!identical && alpha > 0 && k) {
		lo = d[k - 1];
		hi = d[mn - k];
	}
	free(x);
	if (!identical && alpha > 0) {
		int r = paired_shift(row, a, na, b, nb, alpha, &hl, &lo, &hi);

		if (r < 0)
			return r;
		if (r) {	/* A and B move together across seeds: paired */
			k = 1;
			row->change_pct = base != 0 ? 100 * hl / fabs(base) : NAN;
		}
	}
	if (!identical && alpha > 0 && !k) {
		row->verdict = KSFTM_VERDICT_TOO_NOISY;	/* too few seeds to tell */
		return 0;
	}
	if (base != 0) {
		sd->shift_lo_pct = 100 * lo / fabs(base);
		sd->shift_hi_pct = 100 * hi / fabs(base);
		sd->seeds_resolution_pct = 100 * (hi - lo) / 2 / fabs(base);
	}
	row->beyond_floor = lo > 0 || hi < 0;
	if (better > 0 ? hi < -allow : lo > allow) {
		row->verdict = KSFTM_VERDICT_REGRESSION;
		row->fails = 1;
	} else if (better > 0 ? lo > allow : hi < -allow) {
		row->verdict = KSFTM_VERDICT_IMPROVEMENT;
	} else if (lo >= -allow && hi <= allow) {
		row->verdict = KSFTM_VERDICT_NO_CHANGE;
	} else {
		row->verdict = KSFTM_VERDICT_TOO_NOISY;
	}
	return 0;
}
