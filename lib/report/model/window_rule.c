/*
 * The history window's rule (window_rule.h): the one copy the
 * gate and the chart band follow.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "order_stats.h"
#include "verdict_vocab.h"
#include "window_rule.h"

int history_window_rule_transient(struct history_window_rule_scan *s, size_t k, size_t window,
				  const char *code, int flagged)
{
	/* A too-noisy run is not back at the level: it may be the change
	 * going on unproven, and counting it would let a lasting change the
	 * CUSUM has not yet proven into the level. */
	if (!flagged) {
		s->clean += ksftm_verdict_at_level(code);
		return 0;
	}
	return s->clean >= HISTORY_TRANSIENT_AFTER && k < window;
}

void history_window_rule_repeats(const char *samples, size_t *n, double *var)
{
	json_t *a = samples ? json_loads(samples, 0, NULL) : NULL;
	double m = 0, ss = 0, x;
	size_t k, c = 0;

	*n = 0;
	*var = NAN;
	if (!json_is_array(a)) {
		json_decref(a);
		return;
	}
	for (k = 0; k < json_array_size(a); k++)
		if (json_is_number(json_array_get(a, k))) {
			m += json_number_value(json_array_get(a, k));
			c++;
		}
	if (c && c == json_array_size(a)) {
		m /= (double)c;
		for (k = 0; k < c; k++) {
			x = json_number_value(json_array_get(a, k)) - m;
			ss += x * x;
		}
		*n = c;
		*var = c > 1 ? ss / (double)(c - 1) : NAN;
	}
	json_decref(a);
}

static double median_sorted(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), ksftm_cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

double history_window_rule_hold_line(const double *v, size_t n, double level, int better,
				     double *scratch)
{
	double *d = scratch, *a = scratch + n, med, sd;
	int logs = level > 0;
	size_t k;

	if (n < 4 || !better || !isfinite(level))
		return NAN;
	for (k = 0; k < n; k++)
		logs = logs && v[k] > 0;
	for (k = 1; k < n; k++)
		d[k - 1] = logs ? log(v[k]) - log(v[k - 1]) : v[k] - v[k - 1];
	memcpy(a, d, (n - 1) * sizeof(*a));
	med = median_sorted(a, n - 1);
	for (k = 0; k + 1 < n; k++)
		a[k] = fabs(d[k] - med);
	/* A difference of two runs has twice one run's variance. */
	sd = 1.4826 * median_sorted(a, n - 1) / M_SQRT2;
	if (!(sd > 0))
		return NAN;
	sd *= HISTORY_HOLD_Z * (better > 0 ? -1 : 1);
	return logs ? level * exp(sd) : level + sd;
}

void history_window_rule_oldest_first(double *value, double *within, size_t *repeats,
				      unsigned char *held, size_t n)
{
	size_t k;

	for (k = 0; k < n / 2; k++) {
		size_t o = n - 1 - k, r = repeats[k];
		double x = value[k], v = within[k];

		if (held) {
			unsigned char h = held[k];

			held[k] = held[o];
			held[o] = h;
		}

		value[k] = value[o];
		value[o] = x;
		within[k] = within[o];
		within[o] = v;
		repeats[k] = repeats[o];
		repeats[o] = r;
	}
}
