/* The gate's run-level control (gate_control.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "gate_control.h"

struct ranked {
	double p;
	size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* Benjamini-Hochberg adjusted values of r[0..m) (sorted in place), into @adj
 * by each one's index. */
static void bh(struct ranked *r, size_t m, double *adj)
{
	double running = 1.0;
	size_t k;

	qsort(r, m, sizeof(*r), cmp_ranked);
	for (k = m; k-- > 0;) {
		double q = r[k].p * (double)m / (double)(k + 1);

		if (q < running)
			running = q;
		adj[r[k].i] = running;
	}
}

static int same_group(const struct gate_series *a, const struct gate_series *b)
{
	return a == b || (a->group && b->group && !strcmp(a->group, b->group));
}

/* Group number of each tested series (untested: -1); @return the count. */
static size_t groups_of(const struct gate_series *s, size_t n, long *grp)
{
	size_t i, j, g = 0;

	for (i = 0; i < n; i++) {
		grp[i] = -1;
		if (isnan(s[i].p_value))
			continue;
		for (j = 0; j < i; j++)
			if (grp[j] >= 0 && same_group(&s[i], &s[j])) {
				grp[i] = grp[j];
				break;
			}
		if (grp[i] < 0)
			grp[i] = (long)g++;
	}
	return g;
}

/* One side's control (@improve: the improvements'), into @out by series. */
static void control(const struct gate_series *s, size_t n, const long *grp, size_t g,
		    double q, int improve, double *out, struct ranked *r, double *gadj,
		    double *wadj)
{
	size_t i, k, m, sel = 0;

	/* Simes per group: min over its sorted p of m * p_(j) / j. */
	for (k = 0; k < g; k++) {
		m = 0;
		for (i = 0; i < n; i++)
			if (grp[i] == (long)k)
				r[m++] = (struct ranked){ improve ? s[i].p_improve : s[i].p_value, i };
		qsort(r, m, sizeof(*r), cmp_ranked);
		gadj[k] = 1.0;
		for (i = 0; i < m; i++) {
			double v = r[i].p * (double)m / (double)(i + 1);

			if (v < gadj[k])
				gadj[k] = v;
		}
	}
	for (k = 0; k < g; k++)
		r[k] = (struct ranked){ gadj[k], k };
	bh(r, g, gadj);
	for (k = 0; k < g; k++)
		sel += gadj[k] <= q;
	for (k = 0; k < g; k++) {
		m = 0;
		for (i = 0; i < n; i++)
			if (grp[i] == (long)k)
				r[m++] = (struct ranked){ improve ? s[i].p_improve : s[i].p_value, i };
		bh(r, m, wadj);
		for (i = 0; i < n; i++) {
			double v;

			if (grp[i] != (long)k)
				continue;
			v = wadj[i] * (double)g / (double)(sel ? sel : 1);
			v = v > gadj[k] ? v : gadj[k];
			out[i] = v < 1 ? v : 1;
		}
	}
}

int gate_control(struct gate_series *s, size_t n, double q)
{
	size_t one = n ? n : 1, g, i;
	long *grp = calloc(one, sizeof(*grp));
	struct ranked *r = malloc(one * sizeof(*r));
	double *gadj = malloc(one * sizeof(*gadj)), *wadj = malloc(one * sizeof(*wadj));
	double *out = malloc(2 * one * sizeof(*out));
	int ret = -ENOMEM;

	if (!grp || !r || !gadj || !wadj || !out)
		goto out;
	g = groups_of(s, n, grp);
	for (i = 0; i < 2 * n; i++)
		out[i] = NAN;
	control(s, n, grp, g, q, 0, out, r, gadj, wadj);
	control(s, n, grp, g, q, 1, out + n, r, gadj, wadj);
	for (i = 0; i < n; i++) {
		s[i].q_value = out[i];
		s[i].q_improve = out[n + i];
	}
	ret = 0;
out:
	free(grp);
	free(r);
	free(gadj);
	free(wadj);
	free(out);
	return ret;
}

double gate_control_series_budget(const struct gate_series *s, size_t n, size_t i, double q)
{
	size_t j, k, groups = 0, m = 0;

	for (j = 0; j < n; j++) {
		if (isnan(s[j].p_value))
			continue;
		m += same_group(&s[i], &s[j]);
		for (k = 0; k < j; k++)
			if (!isnan(s[k].p_value) && same_group(&s[j], &s[k]))
				break;
		groups += k == j;
	}
	return q / (double)(groups ? groups : 1) / (double)(m ? m : 1);
}
