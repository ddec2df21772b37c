/*
 * The spread of the values behind a comparison row's baseline or current
 * (compare.h's struct cmp_spread): below compare.c and compare_seeds.c,
 * which both fill it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "order_stats.h"

int compare_spread_of(struct cmp_spread *s, const double *x, size_t n, size_t stride)
{
	size_t i, m = 0;
	double few[64], *v, *dev;

	memset(s, 0, sizeof(*s));
	s->lo = s->hi = s->mid = s->sd = NAN;
	if (!n)
		return 0;
	/* the values, then their deviations; most rows: a few, no malloc */
	v = n <= 32 ? few : malloc(2 * n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	dev = v + n;
	for (i = 0; i < n; i++)		/* a value that is not a number is no point */
		if (isfinite(x[i * stride]))
			v[m++] = x[i * stride];
	if (m) {
		s->mid = ksftm_median(v, m);	/* sorts */
		s->n = m;
		s->lo = v[0];
		s->hi = v[m - 1];
		for (i = 0; i < m; i++)
			dev[i] = fabs(v[i] - s->mid);
		s->sd = 1.4826 * ksftm_median(dev, m);
	}
	if (v != few)
		free(v);
	return 0;
}

int compare_spread_at(struct cmp_spread *s, const struct ksft_metric_report_values *v, long e)
{
	size_t k = e < 0 ? 0 : (size_t)e;

	if (!v->n || k >= v->width)
		return compare_spread_of(s, NULL, 0, 1);
	return compare_spread_of(s, v->v + k, v->n, v->width);
}
