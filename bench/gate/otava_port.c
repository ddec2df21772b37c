/* SPDX-License-Identifier: GPL-2.0 */
/* Apache Otava's change points with its defaults, our port (otava_port.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/judge/tails.h"
#include "otava_port.h"

#define OTAVA_WINDOW 50
/* Otava's max_pvalue (its default 0.001) and the weak points' bar: ten
 * times it for a max_pvalue under 0.05, twice it under 0.5. */
double otava_max_p = 0.001;
#define OTAVA_MAX_P otava_max_p
#define OTAVA_FIRST_P (otava_max_p < 0.05 ? otava_max_p * 10 : \
		       otava_max_p < 0.5 ? otava_max_p * 2 : otava_max_p)
#define MAX_CP 64

/* Student's pooled t-test of x[a..b) against x[b..c), population sds. */
static void ttest(const double *x, size_t a, size_t b, size_t c, struct otava_cp *cp)
{
	double m1 = 0, m2 = 0, s1 = 0, s2 = 0, n1 = (double)(b - a), n2 = (double)(c - b), v, d, t;
	size_t i;

	for (i = a; i < b; i++)
		m1 += x[i];
	for (i = b; i < c; i++)
		m2 += x[i];
	m1 /= n1;
	m2 /= n2;
	for (i = a; i < b; i++)
		s1 += (x[i] - m1) * (x[i] - m1);
	for (i = b; i < c; i++)
		s2 += (x[i] - m2) * (x[i] - m2);
	s1 = n1 >= 2 ? sqrt(s1 / n1) : 0;	/* np.std: ddof 0 */
	s2 = n2 >= 2 ? sqrt(s2 / n2) : 0;
	cp->index = b;
	cp->mean_before = m1;
	cp->mean_after = m2;
	if (n1 + n2 <= 2) {
		cp->p = 1;
		return;
	}
	v = ((n1 - 1) * s1 * s1 + (n2 - 1) * s2 * s2) / (n1 + n2 - 2);
	d = sqrt(v * (1 / n1 + 1 / n2));
	if (d == 0) {
		cp->p = m1 == m2 ? NAN : 0;
		return;
	}
	t = (m1 - m2) / d;
	cp->p = tails_student_t_two_sided(fabs(t), n1 + n2 - 2);
}

/*
 * The E-divisive candidate of y[s..e): the (tau, kappa) maximising
 * Q = 2/(m+n) sum|X-Y| - 2m/((m+n)(n-1)) sum_X|.| - 2n/((m+n)(m-1)) sum_Y|.|
 * for X = y[s..tau), Y = y[tau..kappa), scanned as numpy's argmax scans
 * its upper-triangular matrix (the zeros below the diagonal included).
 * D[i * L + t] = sum_{u < t} |y_i - y_u|.
 */
static size_t candidate(const double *D, size_t L, size_t s, size_t e, double *qhat)
{
	size_t i, j, best_tau = s + 1;
	double best = -INFINITY;

	for (i = 0; i + 1 < e - s; i++) {
		size_t tau = s + 1 + i, kappa;
		double n = (double)(tau - s), wx = 0, cross = 0, wy = 0;

		for (kappa = s + 1; kappa < tau; kappa++)	/* within X */
			wx += D[kappa * L + kappa] - D[kappa * L + s];
		for (j = 0; j + 1 < e - s; j++) {
			double q = 0;

			kappa = s + 2 + j;
			if (j >= i) {
				size_t last = kappa - 1;	/* y[last] joins Y */
				double m = (double)(kappa - tau);

				cross += D[last * L + tau] - D[last * L + s];
				wy += D[last * L + last] - D[last * L + tau];
				q = 2 / (m + n) * cross;
				if (n > 1)
					q -= 2 * m / ((m + n) * (n - 1)) * wx;
				if (m > 1)
					q -= 2 * n / ((m + n) * (m - 1)) * wy;
			}
			if (q > best) {
				best = q;
				best_tau = tau;
			}
		}
	}
	*qhat = best;
	return best_tau;
}

static int cmp_cp(const void *a, const void *b)
{
	const struct otava_cp *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* ChangePointDetector.get_change_points() on y[0..L): local indices. */
static size_t detect(const double *y, size_t L, double *D, struct otava_cp *cp)
{
	size_t n = 0, i, t;

	for (i = 0; i < L; i++) {
		D[i * L] = 0;
		for (t = 1; t < L; t++)
			D[i * L + t] = D[i * L + t - 1] + fabs(y[i] - y[t - 1]);
	}
	while (n < MAX_CP) {
		size_t s = 0, k, best_s = 0, best_e = 0, tau = 0;
		double best = -INFINITY;

		for (k = 0; k <= n; k++) {
			size_t e = k < n ? cp[k].index : L;
			double q;
			size_t c;

			if (e - s > 1) {
				c = candidate(D, L, s, e, &q);
				if (q > best) {
					best = q;
					tau = c;
					best_s = s;
					best_e = e;
				}
			}
			s = e;
		}
		if (best == -INFINITY)
			break;
		ttest(y, best_s, tau, best_e, &cp[n]);
		if (!(cp[n].p <= OTAVA_FIRST_P))
			break;
		n++;
		qsort(cp, n, sizeof(*cp), cmp_cp);
	}
	return n;
}

/* Each change point's statistics between its neighbours. */
static void restat(const double *x, size_t len, struct otava_cp *cp, size_t n, size_t k)
{
	size_t a = k ? cp[k - 1].index : 0, c = k + 1 < n ? cp[k + 1].index : len;

	ttest(x, a, cp[k].index, c, &cp[k]);
}

static double magnitude(const struct otava_cp *c)
{
	double f = c->mean_before == 0 ? 0 : c->mean_after / c->mean_before - 1;
	double b = c->mean_after == 0 ? 0 : c->mean_before / c->mean_after - 1;

	return fmax(fabs(f), fabs(b));
}

int otava_change_points(const double *x, size_t len, struct otava_cp *out, size_t max)
{
	struct otava_cp cp[MAX_CP * 4], loc[MAX_CP];
	double *D = malloc(OTAVA_WINDOW * OTAVA_WINDOW * sizeof(double));
	size_t n = 0, start = 0, k, i;

	if (!D)
		return -ENOMEM;
	/* split(): sliding windows, weak change points at OTAVA_FIRST_P */
	while (start < len) {
		size_t end = start + OTAVA_WINDOW < len ? start + OTAVA_WINDOW : len;
		size_t m = detect(x + start, end - start, D, loc), last = 0;

		for (k = 0; k < m; k++) {
			int dup = 0;

			loc[k].index += start;
			last = loc[k].index;
			for (i = 0; i < n; i++)
				dup |= cp[i].index == loc[k].index;
			if (!dup && n < MAX_CP * 4)
				cp[n++] = loc[k];
		}
		start = last > start + OTAVA_WINDOW / 2 ? last : start + OTAVA_WINDOW / 2;
	}
	free(D);
	qsort(cp, n, sizeof(*cp), cmp_cp);
	{
		struct otava_cp tmp[MAX_CP * 4];

		/* the stats of all against the intervals of all (one pass) */
		memcpy(tmp, cp, n * sizeof(*cp));
		for (k = 0; k < n; k++) {
			size_t a = k ? tmp[k - 1].index : 0, c = k + 1 < n ? tmp[k + 1].index : len;

			ttest(x, a, tmp[k].index, c, &cp[k]);
		}
	}
	/* merge(): drop the weakest until all have p < OTAVA_MAX_P */
	while (n) {
		size_t w = 0;

		for (k = 1; k < n; k++)
			if (cp[k].p > cp[w].p || (isnan(cp[k].p) && !isnan(cp[w].p)))
				w = k;
		if (cp[w].p < OTAVA_MAX_P) {
			w = 0;
			for (k = 1; k < n; k++)
				if (magnitude(&cp[k]) < magnitude(&cp[w]))
					w = k;
			if (magnitude(&cp[w]) > 0)
				break;
		}
		memmove(cp + w, cp + w + 1, (n - w - 1) * sizeof(*cp));
		n--;
		/* as otava's merge(): the two at the removed one's index and
		 * after it (the one before keeps its old statistics) */
		if (w < n)
			restat(x, len, cp, n, w);
		if (w + 1 < n)
			restat(x, len, cp, n, w + 1);
	}
	for (k = 0; k < n && k < max; k++)
		out[k] = cp[k];
	return (int)(n < max ? n : max);
}

int otava_worse_near(const double *x, size_t n, size_t at, int better)
{
	struct otava_cp cp[MAX_CP];
	int k, i;

	if (n < OTAVA_MIN_RUNS)
		return 0;
	k = otava_change_points(x, n, cp, MAX_CP);
	if (k < 0)
		return k;
	for (i = 0; i < k; i++) {
		int worse = better > 0 ? cp[i].mean_after < cp[i].mean_before :
					 cp[i].mean_after > cp[i].mean_before;

		if (worse && (at == SIZE_MAX || (cp[i].index + 3 >= at && cp[i].index <= at + 3)))
			return 1;
	}
	return 0;
}
