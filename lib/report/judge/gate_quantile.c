/* The gate's normal quantile and its residuals' t <-> normal mappings (gate_quantile.h). */
#include <math.h>

#include "gate_quantile.h"
#include "tails.h"

/* The normal deviate with upper tail @p (bisection on erfc). */
double gate_normal_quantile(double p)
{
	double lo = -40, hi = 40, mid;
	int i;

	for (i = 0; i < 80; i++) {
		mid = (lo + hi) / 2;
		if (0.5 * erfc(mid / M_SQRT2) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* The residual t (on the noise's own scale) whose tail is that of the
 * normal deviate @z (the inverse of residual()'s mapping). */
double gate_raw_of_normal(double z, double df)
{
	double lo = 1, hi = 1e6, mid, want = tails_normal_upper(z);
	int i;

	if (z < 1)
		return z;
	for (i = 0; i < 200; i++) {
		mid = (lo + hi) / 2;
		/* A step that moves neither end leaves all later ones the
		 * same: the 200 steps' answer, without them. */
		if (tails_student_t_two_sided(mid, df) / 2 > want) {
			if (lo == mid)
				break;
			lo = mid;
		} else {
			if (hi == mid)
				break;
			hi = mid;
		}
	}
	return (lo + hi) / 2;
}

/* The normal deviate with the tail of residual @t (residual()'s mapping). */
double gate_normal_of_raw(double t, double df)
{
	double tail;

	if (t < 1)
		return t;
	tail = tails_student_t_two_sided(t, df) / 2;
	return tail > 0 ? gate_normal_quantile(tail) : t;
}
