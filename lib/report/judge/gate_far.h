/*
 * Far outside everything the window has shown (issue 31 item 11): a run
 * beyond the window's worst value by c of its ranges (max - min) is a
 * regression whatever the noise model says, at a chance that does not
 * rest on that model. For n exchangeable runs whose noise has an
 * exponential tail on the bad side (the heaviest tail of a log-concave
 * noise; a normal one's is far lighter), an unchanged run lies that far
 * out with chance
 *     P(n, c) = Gamma(n + 1) Gamma(2 + c) / ((n + 1) Gamma(n + 1 + c))
 * (Renyi's representation of exponential spacings; 1 / (n + 1) at c = 0,
 * 2 / (n + 1)^2 at c = 1), the same for any location and scale. The gate
 * gives the rule GATE_FAR_SHARE of the series' budget of its own (gate.c),
 * so its cost is at most that share of the run-level q again where the
 * noise's tail is no heavier; bench/gate_timeline measures it on real
 * noise, whose tail is.
 */
#ifndef KSFTM_GATE_FAR_H
#define KSFTM_GATE_FAR_H

#include <stddef.h>

/* P(n, c) above; 1 for c <= 0 or n < 2. */
double gate_far_p(size_t n, double c);

/* The c with P(n, c) = @alpha (Inf: none). */
double gate_far_margin(size_t n, double alpha);

/*
 * How far @x lies beyond the worse extreme of @w[0..n) (@better +1: below
 * the minimum, -1: above the maximum), in ranges of @w; NaN when @w has no
 * range. @worst gets that extreme, @range the range.
 */
double gate_far_excess(const double *w, size_t n, double x, int better, double *worst,
		       double *range);

#endif
