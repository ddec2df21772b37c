/* A young accepted level's inputs (gate_young.h). */
#include <math.h>
#include <stdlib.h>

#include "gate.h"
#include "gate_young.h"
#include "order_stats.h"

static double median_copy(const double *x, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(*c)), m;
	size_t i;

	if (!c)
		return NAN;
	for (i = 0; i < n; i++)
		c[i] = x[i];
	m = ksftm_median(c, n);
	free(c);
	return m;
}

int gate_young_merge(const struct gate_series *s, size_t min_runs, struct gate_series *y,
		     double **buf)
{
	size_t np = s->prior ? s->n_prior : 0, nr = s->recent ? s->n_recent : 0, i, m;
	double *v, *w, pm, wm;
	size_t *r;
	int ratio = 1;

	*buf = NULL;
	if (!np || !s->n_window || s->n_window >= min_runs || np + nr < min_runs || np < 3 ||
	    !s->better || !isfinite(s->current))
		return 0;
	pm = median_copy(s->prior, np);
	wm = median_copy(s->window, s->n_window);
	if (!isfinite(pm) || !isfinite(wm) ||
	    !(*buf = malloc((np + nr) * (2 * sizeof(double) + sizeof(size_t)))))
		return 0;
	v = *buf;
	w = *buf + np + nr;
	r = (size_t *)(*buf + 2 * (np + nr));
	for (i = 0; i < np; i++)
		ratio = ratio && s->prior[i] > 0;
	ratio = ratio && pm > 0 && wm > 0;
	for (i = m = 0; i < np; i++, m++) {
		v[m] = ratio ? s->prior[i] * (wm / pm) : s->prior[i] + (wm - pm);
		w[m] = s->prior_within ? s->prior_within[i] * (ratio ? (wm / pm) * (wm / pm) : 1) :
					 NAN;
		r[m] = s->prior_repeats ? s->prior_repeats[i] : 0;
	}
	for (i = 0; i < nr; i++, m++) {
		v[m] = s->recent[i];
		w[m] = s->recent_within ? s->recent_within[i] : NAN;
		r[m] = s->recent_repeats ? s->recent_repeats[i] : 0;
	}
	*y = *s;
	y->recent = v;
	y->recent_within = w;
	y->recent_repeats = r;
	y->recent_held = NULL;
	y->n_recent = m;
	y->young = 1;
	return 1;
}

void gate_young_restore(struct gate_series *s, const struct gate_series *y)
{
	struct gate_series in = *s;

	*s = *y;
	s->recent = in.recent;
	s->recent_within = in.recent_within;
	s->recent_repeats = in.recent_repeats;
	s->recent_held = in.recent_held;
	s->n_recent = in.n_recent;
}
