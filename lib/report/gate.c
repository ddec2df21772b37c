/* The history gate's statistics (gate.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "gate.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int all_positive(const double *w, size_t n, double x)
{
	size_t i;

	if (!(x > 0))
		return 0;
	for (i = 0; i < n; i++)
		if (!(w[i] > 0))
			return 0;
	return 1;
}

double gate_prediction_p(const double *w, size_t n, double x)
{
	int logs = all_positive(w, n, x);
	double m = 0, ss = 0, sd, v, t;
	size_t i;

	if (n < 2 || !isfinite(x))
		return NAN;
	for (i = 0; i < n; i++) {
		if (!isfinite(w[i]))
			return NAN;
		m += logs ? log(w[i]) : w[i];
	}
	m /= (double)n;
	for (i = 0; i < n; i++) {
		v = (logs ? log(w[i]) : w[i]) - m;
		ss += v * v;
	}
	sd = sqrt(ss / (double)(n - 1));
	v = (logs ? log(x) : x) - m;
	/* A window without spread (a count that never moved): any other
	 * value is certainly different; the tolerance decides if it matters. */
	if (sd == 0 || sd < 1e-12 * fabs(m))
		return fabs(v) <= 1e-12 * fabs(m) ? 1.0 : 0.0;
	t = v / (sd * sqrt(1.0 + 1.0 / (double)n));
	return student_t_two_sided(t, (double)(n - 1));
}

static double median_of(const double *w, size_t n, double *scratch)
{
	memcpy(scratch, w, n * sizeof(*w));
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

/* One series' statistics, before the run-wide correction. */
static void measure(struct gate_series *s, const struct gate_opts *o, double *scratch)
{
	double allow = 0;

	s->baseline = s->change = s->p_value = s->q_value = NAN;
	s->allowance = 0;
	s->verdict = GATE_UNTRACKED;
	if (!s->n_window || !isfinite(s->current))
		return;
	s->baseline = median_of(s->window, s->n_window, scratch);
	if (s->baseline != 0 && isfinite(s->baseline))
		s->change = s->current / s->baseline - 1;
	if (!s->better)
		return;
	if (!isnan(s->rel_tol))
		allow = s->rel_tol * fabs(s->baseline);
	if (!isnan(s->abs_tol) && s->abs_tol > allow)
		allow = s->abs_tol;
	s->allowance = allow;
	s->verdict = GATE_NO_CHANGE;
	if (s->n_window >= o->min_runs && s->n_window >= 2)
		s->p_value = gate_prediction_p(s->window, s->n_window, s->current);
}

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

/* Benjamini-Hochberg adjusted p-values (q_value) of the tested series. */
static int adjust(struct gate_series *s, size_t n)
{
	struct ranked *r = malloc((n ? n : 1) * sizeof(*r));
	double running = 1.0;
	size_t m = 0, k;

	if (!r)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		if (!isnan(s[k].p_value))
			r[m++] = (struct ranked){ s[k].p_value, k };
	qsort(r, m, sizeof(*r), cmp_ranked);
	for (k = m; k-- > 0;) {
		double q = r[k].p * (double)m / (double)(k + 1);

		if (q < running)
			running = q;
		s[r[k].i].q_value = running;
	}
	free(r);
	return 0;
}

int gate_judge(struct gate_series *s, size_t n, const struct gate_opts *o)
{
	static const struct gate_opts defaults = GATE_OPTS_DEFAULT;
	size_t i, max_window = 1;
	double *scratch;

	if (!o)
		o = &defaults;
	for (i = 0; i < n; i++)
		if (s[i].n_window > max_window)
			max_window = s[i].n_window;
	scratch = malloc(max_window * sizeof(*scratch));
	if (!scratch)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		measure(&s[i], o, scratch);
	free(scratch);
	if (adjust(s, n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct gate_series *g = &s[i];
		double d;
		int beyond, worse;

		if (g->verdict != GATE_NO_CHANGE)
			continue;
		d = g->current - g->baseline;
		beyond = fabs(d) > g->allowance;
		worse = g->better > 0 ? d < 0 : d > 0;
		if (!beyond)
			continue;	/* within tolerance: does not matter */
		/* A change that would matter, which the noise (or too short a
		 * history to know the noise) leaves unproven either way. */
		if (!isnan(g->q_value) && g->q_value <= o->fdr)
			g->verdict = worse ? GATE_REGRESSION : GATE_IMPROVEMENT;
		else
			g->verdict = GATE_TOO_NOISY;
	}
	return 0;
}

const char *gate_verdict_name(enum gate_verdict v)
{
	switch (v) {
	case GATE_REGRESSION:
		return "regression";
	case GATE_IMPROVEMENT:
		return "improvement";
	case GATE_TOO_NOISY:
		return "noise";
	case GATE_UNTRACKED:
		return "untracked";
	case GATE_NO_CHANGE:
	default:
		return "ok";
	}
}
