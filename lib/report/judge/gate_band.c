/* The gate's own band for the history charts (gate_band.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "gate_band.h"
#include "gate_control.h"
#include "order_stats.h"

/* The run-alone threshold at @budget: the residual whose detector p (with
 * no CUSUM behind it, so the run-alone term decides) is the budget. */
static double run_alone_z(double budget)
{
	double lo = 0, hi = 40;

	while (hi - lo > 1e-12) {
		double mid = (lo + hi) / 2;

		*(gate_cusum_detector_p(0, mid) > budget ? &lo : &hi) = mid;
	}
	return hi;
}

/* The gate's judgement of @tpl alone with its current run at @x. */
static int judge_at(const struct gate_series *tpl, const struct gate_opts *o, double x,
		    struct gate_series *out)
{
	*out = *tpl;
	out->current = x;
	out->group = NULL;
	return gate_judge(out, 1, o);
}

/* The run's residual z at @x (NaN: out of memory). */
static double z_at(const struct gate_series *tpl, const struct gate_opts *o, double x)
{
	struct gate_series one;

	return judge_at(tpl, o, x, &one) ? NAN : one.z;
}

/*
 * The value whose residual is @target, on the side @way (+1: above the
 * level, -1: below) where the residual moves toward it; NaN when no value
 * on that side reaches it (below a positive level: none above 0). Steps
 * out from the level by @sigma (relative) doubling, then closes in by
 * regula falsi (Illinois), the residual being smooth between the two.
 */
static double edge(const struct gate_series *tpl, const struct gate_opts *o, double level,
		   int way, double target, double sigma)
{
	double near = level, far = NAN, fn = -fabs(target), ff = NAN, x, z, f;
	double step = fmax(fabs(level), 1e-300) * (sigma > 0 && isfinite(sigma) ? sigma : 1e-3);
	int i, side = 0;

	/* f = distance to the target, toward it: < 0 short of it, >= 0 beyond. */
	for (i = 0; i < 1100; i++, step *= 2) {
		if (way < 0 && level > 0)	/* logarithms: stay above 0 */
			x = level * exp(-step / level);
		else
			x = level + way * step;
		if (!isfinite(x) || (way < 0 && level > 0 && !(x > 0)))
			return NAN;
		z = z_at(tpl, o, x);
		if (isnan(z))
			return NAN;
		f = target > 0 ? z - target : target - z;
		if (f >= 0) {
			far = x;
			ff = isfinite(f) ? f : 1e300;
			break;
		}
		near = x;
		fn = f;
	}
	if (isnan(far))
		return NAN;
	for (i = 0; i < 100 && fabs(far - near) > 1e-12 * fmax(fabs(far), 1e-300); i++) {
		double mid = ff < 1e299 && isfinite(fn) ? (near * ff - far * fn) / (ff - fn)
							 : (near + far) / 2;

		if (!(mid > fmin(near, far) && mid < fmax(near, far)))
			mid = (near + far) / 2;
		z = z_at(tpl, o, mid);
		if (isnan(z))
			return NAN;
		f = target > 0 ? z - target : target - z;
		if (f == 0)
			return mid;
		if (f > 0) {
			far = mid;
			ff = isfinite(f) ? f : 1e300;
			if (side > 0)
				fn /= 2;	/* Illinois: the stale end's weight halved */
			side = 1;
		} else {
			near = mid;
			fn = f;
			if (side < 0)
				ff /= 2;
			side = -1;
		}
	}
	return far;
}

/* The regression CUSUM before the run: S(x) = S0 + z(x) / c - k is linear in
 * z beyond k c, so two runs beyond the worse line give S0 (and c). */
static double cusum_before(const struct gate_series *tpl, const struct gate_opts *o,
			   double level, double worse)
{
	struct gate_series a, b;
	double slope;

	if (!isfinite(worse) || worse == level ||
	    judge_at(tpl, o, worse, &a) || judge_at(tpl, o, worse + (worse - level), &b))
		return NAN;
	if (!isfinite(a.z_cusum) || !isfinite(b.z_cusum) || !(b.z_cusum > a.z_cusum) ||
	    !(a.cusum > 0))
		return NAN;
	slope = (b.cusum - a.cusum) / (b.z_cusum - a.z_cusum);
	return fmax(0, a.cusum - a.z_cusum * slope + GATE_CUSUM_K);
}

static double window_median(const double *w, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(*c)), m;

	if (!c)
		return NAN;
	memcpy(c, w, n * sizeof(*w));
	qsort(c, n, sizeof(*c), ksftm_cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

int gate_band_judge(struct gate_series *s, size_t n, const struct gate_opts *o,
		    struct gate_band *b)
{
	static const struct gate_opts defaults = GATE_OPTS_DEFAULT;
	unsigned char *next = calloc(n ? n : 1, 1);
	size_t i;

	if (!next)
		return -ENOMEM;
	if (!o)
		o = &defaults;
	for (i = 0; i < n; i++)
		if (!isfinite(s[i].current) && s[i].n_window) {
			s[i].current = window_median(s[i].window, s[i].n_window);
			next[i] = 1;
		}
	if (gate_judge(s, n, o)) {
		free(next);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct gate_band *g = &b[i];
		struct gate_opts alone = *o;
		double zs;

		memset(g, 0, sizeof(*g));
		g->level = g->worse = g->better = g->z_alarm = g->budget = NAN;
		g->sigma = g->sigma_between = g->sigma_within = g->h = NAN;
		g->cusum_before = g->cusum = g->z = NAN;
		g->n_window = s[i].n_window;
		if (isnan(s[i].p_value) || !s[i].better)
			continue;
		g->judged = 1;
		g->level = s[i].baseline;
		g->sigma = s[i].sigma;
		g->sigma_between = s[i].sigma_between;
		g->sigma_within = s[i].sigma_within;
		g->budget = gate_control_series_budget(s, n, i, o->fdr);
		/* (the recent runs together's share is not the run alone's) */
		g->h = gate_cusum_h(g->budget * (1 - GATE_SHEWHART_SHARE) *
				    (s[i].together_on ? 1 - GATE_TOGETHER_SHARE : 1), GATE_CUSUM_K);
		g->z_alarm = zs = run_alone_z(g->budget * (s[i].together_on ?
							   1 - GATE_TOGETHER_SHARE : 1));
		if (!next[i]) {
			g->z = s[i].z;
			g->cusum = s[i].cusum;
		}
		/* Alone, at the series' own budget: one series, q = its budget. */
		alone.fdr = g->budget;
		g->worse = edge(&s[i], &alone, g->level, s[i].better > 0 ? -1 : 1, zs, g->sigma);
		/* Or where the run is far outside the recent runs (gate_far.h). */
		if (isfinite(s[i].far_line) && (isnan(g->worse) ||
		    (s[i].better > 0 ? s[i].far_line > g->worse : s[i].far_line < g->worse)))
			g->worse = s[i].far_line;
		g->better = edge(&s[i], &alone, g->level, s[i].better > 0 ? 1 : -1, -zs, g->sigma);
		g->cusum_before = cusum_before(&s[i], &alone, g->level, g->worse);
	}
	for (i = 0; i < n; i++)
		if (next[i])
			s[i].current = NAN;
	free(next);
	return 0;
}
