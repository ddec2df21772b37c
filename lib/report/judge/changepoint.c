/* Change points of a series' history (changepoint.h says which method). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "errmsg.h"
#include "tails.h"

static void mean_var(const double *x, size_t n, double *mean, double *var)
{
	double m = 0, s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m += x[i];
	m /= (double)n;
	for (i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	*mean = m;
	*var = n > 1 ? s / (double)(n - 1) : 0.0;
}

double changepoint_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	double ma, va, mb, vb, sa, sb, se2, t, df;

	if (na < 2 || nb < 2)
		return NAN;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	sa = va / (double)na;
	sb = vb / (double)nb;
	se2 = sa + sb;
	if (se2 == 0.0)
		return ma == mb ? 1.0 : 0.0;	/* no noise at all: any shift is certain */
	t = (ma - mb) / sqrt(se2);
	df = se2 * se2 / ((sa > 0 ? sa * sa / (double)(na - 1) : 0) +
			  (sb > 0 ? sb * sb / (double)(nb - 1) : 0));
	return tails_student_t_two_sided(t, df);
}

/*
 * The E-divisive split of x[0..n): the tau in [min, n - min] maximising
 * Q(tau) = tau (n - tau) / n * (2 B / (tau (n - tau)) - 2 WL / (tau (tau - 1))
 *          - 2 WR / ((n - tau) (n - tau - 1)))
 * with B the between-segment and WL, WR the within-segment sums of
 * |x_i - x_j|. Moving tau by one moves one point across: O(n) per step.
 * Returns 0 when no split is possible.
 */
static size_t best_split(const double *x, size_t n, size_t min, double *q_out)
{
	double wl = 0, wr = 0, b = 0, q, best_q = -INFINITY;
	size_t i, j, tau, best = 0;

	if (n < 2 * min || min < 2)
		return 0;
	/* tau = 1: x[0] alone on the left. */
	for (j = 1; j < n; j++)
		b += fabs(x[0] - x[j]);
	for (i = 1; i < n; i++)
		for (j = i + 1; j < n; j++)
			wr += fabs(x[i] - x[j]);
	for (tau = 1; tau + min <= n; tau++) {
		if (tau >= min) {
			double nl = (double)tau, nr = (double)(n - tau);

			q = nl * nr / (double)n * (2.0 * b / (nl * nr) - 2.0 * wl / (nl * (nl - 1)) -
						    2.0 * wr / (nr * (nr - 1)));
			if (q > best_q) {
				best_q = q;
				best = tau;
			}
		}
		/* Move x[tau] from the right to the left. */
		{
			double to_left = 0, to_right = 0;

			for (i = 0; i < tau; i++)
				to_left += fabs(x[i] - x[tau]);
			for (j = tau + 1; j < n; j++)
				to_right += fabs(x[tau] - x[j]);
			wl += to_left;
			wr -= to_right;
			b += to_right - to_left;
		}
	}
	if (q_out)
		*q_out = best_q;
	return best;
}

/*
 * E-divisive's own significance test: how often does a random reordering
 * of the same points split better than the data does? Exact under "no
 * change" (exchangeable points), and it accounts for having picked the
 * best of all split positions, which a plain t-test on the chosen split
 * does not (on stationary noise, t-tests at p < 0.001 flagged 5.5% of
 * histories; see tests/report/test_changepoint.c). The t-test stays as a
 * cheap first filter. Deterministic: the shuffle is seeded from the data.
 */
#define CP_PERMUTATIONS 1999

static double permutation_p(const double *x, size_t n, size_t min, double q_obs)
{
	double *y = malloc(n * sizeof(*y)), q, t;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t i, j, r, at_least = 0;

	if (!y)
		return NAN;
	memcpy(y, x, n * sizeof(*y));
	for (i = 0; i < n; i++) {
		uint64_t bits;

		memcpy(&bits, &x[i], sizeof(bits));
		seed = (seed ^ bits) * 0x100000001b3ULL;
	}
	for (r = 0; r < CP_PERMUTATIONS; r++) {
		for (i = n - 1; i > 0; i--) {
			seed ^= seed >> 12;
			seed ^= seed << 25;
			seed ^= seed >> 27;
			j = (size_t)((seed * 2685821657736338717ULL) % (i + 1));
			t = y[i];
			y[i] = y[j];
			y[j] = t;
		}
		best_split(y, n, min, &q);
		at_least += q >= q_obs;
	}
	free(y);
	return (double)(at_least + 1) / (CP_PERMUTATIONS + 1);
}

struct cp_list {
	struct changepoint *v;
	size_t n, cap;
	int oom;
};

static void cp_add(struct cp_list *l, size_t index, double p)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].index == index)
			return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		void *v = realloc(l->v, cap * sizeof(*l->v));

		if (!v) {
			l->oom = 1;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	l->v[l->n].detect_p = p;
	l->v[l->n++].index = index;
}

/* Binary segmentation of x[lo, hi): candidates that pass the test. */
static void segment(const double *x, size_t lo, size_t hi, const struct cp_opts *o,
		    struct cp_list *l, int depth)
{
	size_t tau;
	double p, q, ma, mb, va, vb;

	if (depth > 64 || hi - lo < 2 * o->min_size)
		return;
	tau = best_split(x + lo, hi - lo, o->min_size, &q);
	if (!tau)
		return;
	p = changepoint_welch_p(x + lo, tau, x + lo + tau, hi - lo - tau);
	mean_var(x + lo, tau, &ma, &va);
	mean_var(x + lo + tau, hi - lo - tau, &mb, &vb);
	if (!(p < o->max_p) || (o->min_change > 0 && ma != 0 &&
				fabs(mb / ma - 1.0) < o->min_change))
		return;
	p = permutation_p(x + lo, hi - lo, o->min_size, q);
	if (!(p <= o->max_p))
		return;
	cp_add(l, lo + tau, p);
	segment(x, lo, lo + tau, o, l, depth + 1);
	segment(x, lo + tau, hi, o, l, depth + 1);
}

static int cmp_cp(const void *a, const void *b)
{
	const struct changepoint *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

int changepoint_find(const double *x, size_t n, const struct cp_opts *opts,
		     struct changepoint **out)
{
	struct cp_opts o = CP_OPTS_DEFAULT;
	struct cp_list l = { 0 };
	size_t lo, i, keep;

	if (opts)
		o = *opts;
	if (o.min_size < 2)
		o.min_size = 2;
	if (o.window < 4 * o.min_size)
		o.window = 4 * o.min_size;
	*out = NULL;
	/* Overlapping windows (half a window apart): every shift lies well
	 * inside at least one of them. */
	for (lo = 0; lo < n; lo += o.window / 2) {
		size_t hi = lo + o.window < n ? lo + o.window : n;

		segment(x, lo, hi, &o, &l, 0);
		if (hi == n)
			break;
	}
	if (l.oom) {
		free(l.v);
		return ksftm_fail(ENOMEM, "out of memory finding change points");
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_cp);
	/* Judge each candidate between its neighbours: windows can find the
	 * same shift one point apart, and a shift may only look significant
	 * against a window's arbitrary edge. Drop the weakest until all pass. */
	for (;;) {
		size_t worst = SIZE_MAX;
		double worst_p = -1;

		for (i = 0; i < l.n; i++) {
			size_t a = i ? l.v[i - 1].index : 0;
			size_t b = i + 1 < l.n ? l.v[i + 1].index : n;
			size_t c = l.v[i].index;
			double p = (c - a >= 2 && b - c >= 2) ? changepoint_welch_p(x + a, c - a, x + c, b - c) : NAN;
			double ma, mb, va, vb;

			if (c - a >= 1 && b - c >= 1) {
				mean_var(x + a, c - a, &ma, &va);
				mean_var(x + c, b - c, &mb, &vb);
				l.v[i].before = ma;
				l.v[i].after = mb;
				l.v[i].change = rel_change(mb, ma);
			}
			l.v[i].welch_p = p;
			l.v[i].p_value = isnan(p) ? p : fmax(p, l.v[i].detect_p);
			if (isnan(p) || p >= o.max_p || c - a < o.min_size || b - c < o.min_size ||
			    (o.min_change > 0 && !(fabs(l.v[i].change) >= o.min_change))) {
				double badness = isnan(p) ? 2.0 : p;

				if (badness > worst_p) {
					worst_p = badness;
					worst = i;
				}
			}
		}
		if (worst == SIZE_MAX)
			break;
		memmove(&l.v[worst], &l.v[worst + 1], (l.n - worst - 1) * sizeof(*l.v));
		l.n--;
	}
	keep = l.n;
	if (!keep) {
		free(l.v);
		return 0;
	}
	*out = l.v;
	return (int)keep;
}
