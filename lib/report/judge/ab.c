/* Paired A/B judging (ab.h). */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "order_stats.h"
#include "tails.h"

struct signed_rank {
	double absd;
	int sign;
};

static int cmp_abs(const void *x, const void *y)
{
	double a = ((const struct signed_rank *)x)->absd, b = ((const struct signed_rank *)y)->absd;

	return (a > b) - (a < b);
}

/* P(W+ >= w) under H0 for n untied ranks 1..n (exact, by counting). */
static double exact_upper(size_t n, double w)
{
	size_t top = n * (n + 1) / 2, i, s;
	double *c = calloc(top + 1, sizeof(*c)), total = 0, above = 0;

	if (!c)
		return NAN;
	c[0] = 1;
	for (i = 1; i <= n; i++)
		for (s = top; s >= i; s--)
			c[s] += c[s - i];
	for (s = 0; s <= top; s++) {
		total += c[s];
		if ((double)s >= w - 1e-9)
			above += c[s];
	}
	free(c);
	return above / total;
}

/* One-sided p-values of the signed-rank statistic of d[0..m) (no zeros). */
static int signed_rank_p(const double *d, size_t m, double *p_pos, double *p_neg)
{
	struct signed_rank *r = malloc((m ? m : 1) * sizeof(*r));
	double wplus = 0, tie = 0, mean, var, z;
	size_t i, j, k, ties = 0;

	if (!r)
		return -ENOMEM;
	for (i = 0; i < m; i++)
		r[i] = (struct signed_rank){ fabs(d[i]), d[i] > 0 ? 1 : -1 };
	qsort(r, m, sizeof(*r), cmp_abs);
	for (i = 0; i < m; i = j) {
		double rank;

		for (j = i; j < m && r[j].absd == r[i].absd; j++)
			;
		rank = (double)(i + 1 + j) / 2;	/* mid-rank of ranks i+1..j */
		if (j - i > 1) {
			ties++;
			tie += (double)((j - i) * (j - i) * (j - i) - (j - i));
		}
		for (k = i; k < j; k++)
			if (r[k].sign > 0)
				wplus += rank;
	}
	free(r);
	if (!ties && m <= AB_EXACT_MAX) {
		double top = (double)(m * (m + 1)) / 2;

		*p_pos = exact_upper(m, wplus);
		*p_neg = exact_upper(m, top - wplus);
		return isnan(*p_pos) || isnan(*p_neg) ? -ENOMEM : 0;
	}
	mean = (double)(m * (m + 1)) / 4;
	var = (double)(m * (m + 1) * (2 * m + 1)) / 24 - tie / 48;
	if (!(var > 0)) {
		*p_pos = *p_neg = 1;
		return 0;
	}
	z = (wplus - mean - 0.5) / sqrt(var);	/* continuity-corrected */
	*p_pos = tails_normal_upper(z);
	z = (mean - wplus - 0.5) / sqrt(var);
	*p_neg = tails_normal_upper(z);
	return 0;
}

/* The median of the Walsh averages of d[0..m) (Hodges-Lehmann). */
static double hodges_lehmann(const double *d, size_t m)
{
	size_t n = m * (m + 1) / 2, i, j, k = 0;
	double *w = malloc((n ? n : 1) * sizeof(*w)), med;

	if (!w)
		return NAN;
	for (i = 0; i < m; i++)
		for (j = i; j < m; j++)
			w[k++] = (d[i] + d[j]) / 2;
	med = n ? ksftm_median(w, n) : NAN;
	free(w);
	return med;
}

size_t ab_pairs_needed(double alpha)
{
	size_t n = 1;
	double p = 0.5;

	if (!(alpha > 0))
		return SIZE_MAX;
	while (p > alpha * (1 + 1e-12) && n < 64) {
		p /= 2;
		n++;
	}
	return n;
}

int ab_judge(const double *a, const double *b, size_t n, int better, double rel_tol,
	     double abs_tol, double alpha, struct ab_result *out)
{
	double *d = malloc(2 * (n ? n : 1) * sizeof(*d)), *av, *nz, hl, pw, pb, tol, med_a;
	size_t i, m = 0, z = 0;
	int worse, beyond, positive = 1;

	memset(out, 0, sizeof(*out));
	out->ratio = out->shift = out->change_pct = out->p_worse = out->p_better = NAN;
	out->verdict = GATE_UNTRACKED;
	out->pairs_needed = ab_pairs_needed(alpha);
	if (!d)
		return -ENOMEM;
	av = d + (n ? n : 1);
	for (i = 0; i < n; i++)
		if (isfinite(a[i]) && isfinite(b[i])) {
			positive &= a[i] > 0 && b[i] > 0;
			av[m] = a[i];
			d[m++] = b[i];
		}
	out->n_pairs = m;
	if (!better) {
		free(d);
		return 0;
	}
	if (!m) {
		out->verdict = GATE_TOO_NOISY;	/* nothing to judge: never "no change" */
		free(d);
		return 0;
	}
	/* A ratio needs both values positive; else the difference is judged. */
	out->diff = !positive;
	for (i = 0; i < m; i++)
		d[i] = positive ? log(d[i] / av[i]) : d[i] - av[i];
	med_a = ksftm_median(av, m);	/* reorders av; d keeps the pairs */
	hl = hodges_lehmann(d, m);
	if (isnan(hl)) {
		free(d);
		return -ENOMEM;
	}
	if (positive) {
		out->ratio = exp(hl);
		out->change_pct = 100 * (out->ratio - 1);
	} else {
		out->shift = hl;
		out->change_pct = med_a != 0 ? 100 * hl / fabs(med_a) : NAN;
	}
	nz = d;		/* the zero differences dropped, in place */
	for (i = 0; i < m; i++)
		if (d[i] != 0)
			nz[z++] = d[i];
	if (z) {
		double pp, pn;

		if (signed_rank_p(nz, z, &pp, &pn)) {
			free(d);
			return -ENOMEM;
		}
		out->p_worse = better > 0 ? pn : pp;
		out->p_better = better > 0 ? pp : pn;
	} else {
		out->p_worse = out->p_better = 1;
	}
	free(d);
	pw = out->p_worse;
	pb = out->p_better;
	if (positive) {
		tol = isnan(rel_tol) ? 0 : fabs(log1p(rel_tol));
	} else {
		tol = isnan(rel_tol) ? 0 : fabs(rel_tol * med_a);
		if (!isnan(abs_tol) && fabs(abs_tol) > tol)
			tol = fabs(abs_tol);
	}
	worse = better > 0 ? hl < 0 : hl > 0;
	beyond = fabs(hl) > tol;
	if (m < out->pairs_needed) {
		/* No outcome of so few pairs reaches alpha: cannot tell. */
		out->verdict = GATE_TOO_NOISY;
		return 0;
	}
	out->verdict = GATE_NO_CHANGE;
	if (!beyond)
		return 0;
	if (worse && pw <= alpha)
		out->verdict = GATE_REGRESSION;
	else if (!worse && pb <= alpha)
		out->verdict = GATE_IMPROVEMENT;
	else
		out->verdict = GATE_TOO_NOISY;
	return 0;
}
