/*
 * The relative change of a value against its reference, below lib/report:
 * a comparison's compact rows (model/comparison.c) give back a row's
 * change_pct as the judges (judge/compare.c, judge/changepoint.c) compute it.
 */
#ifndef KSFTM_REL_CHANGE_H
#define KSFTM_REL_CHANGE_H

#include <math.h>

/*
 * Relative change of @now against @ref, signed the way the values moved:
 * (now - ref) / |ref|, so -10 -> -5 is +50 % (not -50 % as now / ref - 1
 * says for a negative ref). NaN when @ref is 0 or either is not finite.
 */
static inline double rel_change(double now, double ref)
{
	if (ref == 0 || !isfinite(ref) || !isfinite(now))
		return NAN;
	return (now - ref) / fabs(ref);
}

#endif
