/*
 * Two-sided Mann-Whitney U test, as scipy.stats.mannwhitneyu computes it
 * with method="auto" where there are no ties: the exact null distribution
 * when the smaller sample has at most 8 values, else the normal
 * approximation with tie and continuity correction. With ties at small n
 * it counts the exact permutation distribution of the mid-rank sum
 * (scipy's method="exact" would ignore the ties; the normal approximation
 * would give 3 against 3 fully separated p 0.047, which no ordering of six
 * values can: issue 40 item 11).
 */
#include <math.h>
#include <stdlib.h>

#include "stats.h"
#include "tails.h"

#define EXACT_MAX_SMALL 8
#define EXACT_MAX_CELLS 2000000
/* Ties counted exactly up to this many values in all: small * n^3 steps. */
#define EXACT_TIES_MAX_N 100

struct ranked {
	double x;
	int side;
};

static int cmp_ranked(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->x, y = ((const struct ranked *)b)->x;

	return x < y ? -1 : x > y;
}

/*
 * The null counts of U for sample sizes m (small) and n, c[0..m*n]: the
 * coefficients of the Gaussian binomial [m+n choose m](q), built as
 * prod_i (1 - q^(n+i)) / (1 - q^i). NULL: out of memory.
 */
static double *exact_counts(size_t m, size_t n)
{
	size_t deg = 0, i, k, top = m * n;
	double *c = calloc(top + 1, sizeof(double));

	if (!c)
		return NULL;
	c[0] = 1;
	for (i = 1; i <= m; i++) {
		size_t step = n + i, new_deg = deg + n;

		/* Terms above new_deg cancel in the division: skip them. */
		for (k = new_deg; k >= step; k--)
			c[k] -= c[k - step];
		for (k = i; k <= new_deg; k++)
			c[k] += c[k - i];
		deg = new_deg;
	}
	return c;
}

/* P(U <= u) under H0 for sample sizes m (small) and n. */
static double exact_cdf(size_t m, size_t n, size_t u)
{
	size_t k, top = m * n;
	double *c = exact_counts(m, n), below = 0, total = 0;

	if (!c)
		return NAN;
	for (k = 0; k <= top; k++) {
		total += c[k];
		if (k <= u)
			below += c[k];
	}
	free(c);
	return below / total;
}

/*
 * Two-sided p of the observed doubled rank sum @obs of @m values drawn
 * from the @n doubled mid-ranks @r2 (integers), every m-subset equally
 * likely under H0: cnt[k][s] counts the k-subsets of the ranks seen so far
 * summing to s. p = 2 min(P(S <= obs), P(S >= obs)), at most 1.
 */
static double exact_tied_p(const size_t *r2, size_t n, size_t m, size_t obs)
{
	size_t top = 0, i, k, s;
	double *cnt, below = 0, above = 0, total = 0, p;

	for (i = 0; i < n; i++)
		top += r2[i];
	cnt = calloc((m + 1) * (top + 1), sizeof(*cnt));
	if (!cnt)
		return NAN;
	cnt[0] = 1;
	for (i = 0; i < n; i++)
		for (k = (i + 1 < m ? i + 1 : m); k >= 1; k--)
			for (s = top; s >= r2[i]; s--)
				cnt[k * (top + 1) + s] += cnt[(k - 1) * (top + 1) + s - r2[i]];
	for (s = 0; s <= top; s++) {
		double c = cnt[m * (top + 1) + s];

		total += c;
		if (s <= obs)
			below += c;
		if (s >= obs)
			above += c;
	}
	free(cnt);
	p = 2 * (below < above ? below : above) / total;
	return p > 1 ? 1 : p;
}

static int exact_sizes(size_t nx, size_t ny)
{
	return (nx <= EXACT_MAX_SMALL || ny <= EXACT_MAX_SMALL) && nx * ny <= EXACT_MAX_CELLS;
}

double stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny)
{
	size_t n = nx + ny, i, j, *r2 = NULL, obs2 = 0;
	struct ranked *v;
	double r1 = 0, ties = 0, u1, u2, umax, p;
	int tied = 0, exact_ties = exact_sizes(nx, ny) && n <= EXACT_TIES_MAX_N;

	if (!nx || !ny)
		return NAN;
	v = malloc(n * sizeof(*v));
	if (exact_ties)
		r2 = malloc(n * sizeof(*r2));
	if (!v || (exact_ties && !r2)) {
		free(v);
		free(r2);
		return NAN;
	}
	for (i = 0; i < nx; i++)
		v[i] = (struct ranked){ x[i], 0 };
	for (i = 0; i < ny; i++)
		v[nx + i] = (struct ranked){ y[i], 1 };
	qsort(v, n, sizeof(*v), cmp_ranked);
	for (i = 0; i < n; i = j) {
		double rank, t;

		for (j = i + 1; j < n && v[j].x == v[i].x; j++)
			;
		rank = (double)(i + 1 + j) / 2.0;	/* average of i+1 .. j */
		t = (double)(j - i);
		if (j - i > 1) {
			tied = 1;
			ties += t * t * t - t;
		}
		for (size_t k = i; k < j; k++) {
			if (r2)		/* twice the mid-rank: an integer */
				r2[k] = i + 1 + j;
			if (v[k].side == 0) {
				r1 += rank;
				obs2 += i + 1 + j;
			}
		}
	}
	free(v);
	u1 = r1 - (double)nx * (double)(nx + 1) / 2.0;
	u2 = (double)nx * (double)ny - u1;
	umax = u1 > u2 ? u1 : u2;
	if (tied && exact_ties) {
		p = exact_tied_p(r2, n, nx, obs2);
		free(r2);
		return p;
	}
	free(r2);
	if (!tied && exact_sizes(nx, ny)) {
		size_t small = nx < ny ? nx : ny, big = nx < ny ? ny : nx;
		double umin = u1 < u2 ? u1 : u2;

		p = 2.0 * exact_cdf(small, big, (size_t)umin);
	} else {
		double nn = (double)n, mu = (double)nx * (double)ny / 2.0;
		double var = (double)nx * (double)ny / 12.0 *
			     ((nn + 1) - ties / (nn * (nn - 1)));
		double z;

		if (!(var > 0))
			return 1.0;
		z = (umax - mu - 0.5) / sqrt(var);
		p = tails_normal_two_sided(z);
	}
	return p > 1.0 ? 1.0 : p;
}

double stats_mann_whitney_min_p(size_t nx, size_t ny)
{
	size_t small = nx < ny ? nx : ny, n = nx + ny, i;
	double c = 1;

	if (!nx || !ny)
		return 1;
	if (!exact_sizes(nx, ny))
		return 0;	/* the normal approximation's domain: large samples */
	for (i = 1; i <= small; i++)	/* C(n, small) */
		c = c * (double)(n - small + i) / (double)i;
	return 2 / c > 1 ? 1 : 2 / c;
}

/* The largest k with P(X <= k - 1) <= alpha / 2 under the null counts
 * c[0..top] of a rank statistic X (the exact interval's rank). */
static size_t lower_tail_rank(const double *c, size_t top, double alpha)
{
	double total = 0, below = 0;
	size_t k;

	for (k = 0; k <= top; k++)
		total += c[k];
	for (k = 0; k <= top; k++) {
		if ((below + c[k]) / total > alpha / 2 * (1 + 1e-12))
			break;
		below += c[k];
	}
	return k;
}

size_t stats_shift_ci_rank(size_t m, size_t n, double alpha)
{
	size_t small = m < n ? m : n, big = m < n ? n : m, k, top = m * n;
	double *c;

	if (!m || !n || !(alpha > 0))
		return 0;
	if (!exact_sizes(m, n)) {
		/* Normal: mn/2 - z sqrt(mn(m+n+1)/12), z the 1 - alpha/2 quantile
		 * (found by bisection on erfc). */
		double lo = 0, hi = 40, z, kk;

		while (hi - lo > 1e-9) {
			z = (lo + hi) / 2;
			if (erfc(z / sqrt(2.0)) > alpha)
				lo = z;
			else
				hi = z;
		}
		kk = (double)top / 2 - lo * sqrt((double)top * (double)(m + n + 1) / 12);
		return kk < 1 ? 0 : (size_t)kk;
	}
	c = exact_counts(small, big);
	if (!c)
		return 0;
	k = lower_tail_rank(c, top, alpha);
	free(c);
	return k;
}

/* The null counts of the signed-rank statistic W+ of n untied ranks,
 * c[0..n(n+1)/2]. NULL: out of memory. */
static double *signed_rank_counts(size_t n)
{
	size_t top = n * (n + 1) / 2, i, s;
	double *c = calloc(top + 1, sizeof(*c));

	if (!c)
		return NULL;
	c[0] = 1;
	for (i = 1; i <= n; i++)
		for (s = top; s >= i; s--)
			c[s] += c[s - i];
	return c;
}

size_t stats_walsh_ci_rank(size_t n, double alpha)
{
	size_t top = n * (n + 1) / 2, k;
	double *c;

	if (!n || !(alpha > 0) || n > 60 || !(c = signed_rank_counts(n)))
		return 0;
	k = lower_tail_rank(c, top, alpha);
	free(c);
	return k;
}

double stats_signed_rank_p(const double *d, size_t n)
{
	size_t m = 0, i, j, s, top;
	double *a = malloc((n ? n : 1) * sizeof(*a)), wplus = 0, *c, total = 0, lo = 0, hi = 0;
	int tied = 0;

	if (!a)
		return NAN;
	for (i = 0; i < n; i++)		/* zero differences dropped */
		if (d[i] != 0)
			a[m++] = d[i];
	if (!m) {
		free(a);
		return 1;
	}
	/* Ranks of |d| (mid-ranks for ties), summed over the positive ones. */
	for (i = 0; i < m; i++) {
		double below = 0, same = 0;

		for (j = 0; j < m; j++) {
			below += fabs(a[j]) < fabs(a[i]);
			same += fabs(a[j]) == fabs(a[i]);
		}
		tied |= same > 1;
		if (a[i] > 0)
			wplus += below + (same + 1) / 2;
	}
	free(a);
	top = m * (m + 1) / 2;
	if (tied || m > 60) {
		double mu = (double)top / 2, var = (double)m * (m + 1) * (2 * m + 1) / 24;
		double z = (fabs(wplus - mu) - 0.5) / sqrt(var);

		return z <= 0 ? 1 : fmin(1, tails_normal_two_sided(z));
	}
	c = signed_rank_counts(m);
	if (!c)
		return NAN;
	for (s = 0; s <= top; s++) {
		total += c[s];
		if ((double)s <= wplus + 1e-9)
			lo += c[s];
		if ((double)s >= wplus - 1e-9)
			hi += c[s];
	}
	free(c);
	return fmin(1, 2 * fmin(lo, hi) / total);
}
