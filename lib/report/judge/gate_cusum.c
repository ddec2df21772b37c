/*
 * The CUSUM's theory (gate.h): Siegmund's in-control average run length,
 * the threshold for a per-run budget, and the combined Shewhart-CUSUM
 * p-value. Plain numbers in, numbers out: gate.c and gate_band.c use them.
 */
#include <math.h>

#include "gate.h"
#include "tails.h"

double gate_cusum_arl(double mu, double k, double h)
{
	double d = mu - k, b = h + GATE_SIEGMUND_B;

	if (isinf(h))
		return INFINITY;
	if (fabs(d) < 1e-9)
		return b * b;
	return (exp(-2.0 * d * b) + 2.0 * d * b - 1.0) / (2.0 * d * d);
}

double gate_cusum_h(double alpha, double k)
{
	double lo = 0, hi = 64, mid;
	int i;

	if (!(alpha > 0))
		return INFINITY;
	for (i = 0; i < 100; i++) {
		mid = (lo + hi) / 2;
		if (GATE_CUSUM_SOJOURN / gate_cusum_arl(0, k, mid) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/*
 * The per-run chance that an unchanged series shows a CUSUM of @s or a
 * single residual of @z (the combined Shewhart-CUSUM scheme: the CUSUM for
 * a lasting change of about 1 sd, the run alone for a large one, which a
 * CUSUM with k = 0.5 would need several sd more to see; Bonferroni over
 * the two).
 */
double gate_cusum_detector_p(double s, double z)
{
	double pc, ps;

	if (isnan(s) || isnan(z))
		return NAN;
	pc = GATE_CUSUM_SOJOURN / gate_cusum_arl(0, GATE_CUSUM_K, s) / (1 - GATE_SHEWHART_SHARE);
	ps = tails_normal_upper(z) / GATE_SHEWHART_SHARE;
	pc = pc < ps ? pc : ps;
	return pc < 1 ? pc : 1;
}
