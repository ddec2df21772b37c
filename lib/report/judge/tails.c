/*
 * The tails of the distributions the judges' tests end in (tails.h): the
 * Student t's (by the regularized incomplete beta) and the normal's.
 */
#include <math.h>

#include "tails.h"

/*
 * Regularized incomplete beta I_x(a, b) by its continued fraction
 * (modified Lentz), with the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where
 * the fraction converges slowly.
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h, del, aa;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		aa = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
		d = 1.0 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1.0 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
		d = 1.0 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1.0 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < eps)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	double front;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_cf(a, b, x) / a;
	return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

double tails_student_t_two_sided(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0.0;
	return ibeta(df / 2.0, 0.5, df / (df + t * t));
}

double tails_f_upper(double f, double d1, double d2)
{
	if (isnan(f) || !(d1 > 0) || !(d2 > 0))
		return NAN;
	if (f <= 0)
		return 1.0;
	if (isinf(f))
		return 0.0;
	return ibeta(d2 / 2.0, d1 / 2.0, d2 / (d2 + d1 * f));
}

double tails_normal_upper(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

double tails_normal_two_sided(double z)
{
	return erfc(z / M_SQRT2);
}
