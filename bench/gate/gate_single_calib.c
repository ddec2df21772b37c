/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The t interval's threshold set at the gate's false-alarm rate measured
 * on many unchanged runs, not on the 30 of the tbf recording (gate_single.h).
 *
 * Thirty runs cannot tell a 1 % rate from a 3 % one (1 alarm in 30 has the
 * 95 % interval [0.1, 17] %), and the threshold that gives the t interval
 * exactly one alarm there is fitted to those 30 runs. Here every stream
 * of the recorded corpora is replayed as a job of one case through the
 * same product path and window, the gate's alarms on metric @m counted
 * from run W + 1 on, the t statistic of each of those runs taken against
 * its W runs before, and the t threshold set to give the same count on
 * the same runs.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_single.h"

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y) - (x > y);
}

static int grow(double **t, size_t *cap, size_t want)
{
	double *n;

	if (want <= *cap)
		return 0;
	n = realloc(*t, 2 * want * sizeof(*n));
	if (!n)
		return -1;
	*t = n;
	*cap = 2 * want;
	return 0;
}

int single_run_calibrate(const struct prod_corpus *cs, size_t n_cs, size_t window, int m,
			 double fitted, struct single_calib *out)
{
	int better = m == PM_GBPS ? 1 : -1;
	size_t ci, i, j, cap = 0;
	double *t = NULL, w[64];

	memset(out, 0, sizeof(*out));
	if (window < 2 || window > sizeof(w) / sizeof(w[0]))
		return -1;
	for (ci = 0; ci < n_cs; ci++) {
		const struct prod_corpus *c = &cs[ci];

		for (i = 0; i < c->n; i++) {
			struct prod_plan p = { .streams = &i, .n_streams = 1, .repeats = 1,
					       .target = SIZE_MAX, .shift_at = SIZE_MAX,
					       .cost_scale = 1, .window = window };
			struct prod_result r;
			size_t k;

			if (c->s[i].n <= window)
				continue;
			if (prod_replay(c, &p, &r) || grow(&t, &cap, out->n + c->s[i].n)) {
				free(t);
				return -1;
			}
			for (j = window; j < r.runs && j < c->s[i].n; j++) {
				double x = single_value(&c->s[i].rep[j], m), tj;

				for (k = 0; k < window; k++)
					w[k] = single_value(&c->s[i].rep[j - window + k], m);
				tj = single_t_worse(w, window, x, better);
				t[out->n++] = isnan(tj) ? -INFINITY : tj;
				out->fa_fitted += tj > fitted;
				out->fa += prod_flagged(&r, j, 0, m);
			}
			prod_result_free(&r);
		}
	}
	qsort(t, out->n, sizeof(*t), cmp_desc);
	/* The smallest threshold with no more alarms than the gate's. */
	out->thr = out->fa < out->n ? t[out->fa] : -INFINITY;
	free(t);
	return 0;
}
