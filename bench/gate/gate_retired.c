/* The gate's retired methods (gate_retired.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "report/judge/changepoint.h"
#include "report/judge/gate.h"
#include "report/judge/tails.h"
#include "gate_retired.h"

double gate_prediction_p(const double *w, size_t n, double x)
{
	int logs;
	double m = 0, ss = 0, sd, v, t;
	size_t i;

	if (n < 2 || !isfinite(x))
		return NAN;
	for (i = 0; i < n; i++)
		if (!isfinite(w[i]))
			return NAN;
	logs = gate_use_logs(w, n, x);
	for (i = 0; i < n; i++)
		m += logs ? log(w[i]) : w[i];
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
	return tails_student_t_two_sided(t, (double)(n - 1));
}

int gate_level_shift(const double *x, size_t n, int better, double rel_tol, double abs_tol,
		     double max_p, double *before, double *p_value)
{
	struct changepoint *cp = NULL;
	double b, a, cur = n ? x[n - 1] : NAN, allow;
	int found = changepoint_find(x, n, NULL, &cp), worse;

	if (found < 0)
		return -ENOMEM;
	if (!found || !better)
		return 0;
	b = cp[found - 1].before;
	a = cp[found - 1].after;
	allow = gate_allowance(b, rel_tol, abs_tol);
	worse = better > 0 ? a < b - allow && cur < b - allow : a > b + allow && cur > b + allow;
	worse = worse && cp[found - 1].welch_p <= max_p;
	if (worse) {
		*before = b;
		*p_value = cp[found - 1].p_value;
	}
	free(cp);
	return worse;
}
