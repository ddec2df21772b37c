/*
 * The gate's normal quantile, the inverse of tails_normal_upper(), and
 * the mapping between a residual's Student t (on the noise's own scale)
 * and the normal deviate of the same tail (gate.c's residual()), each by
 * bisection: one file, out of gate.c (issue 45).
 */
#ifndef KSFTM_GATE_QUANTILE_H
#define KSFTM_GATE_QUANTILE_H

/* The normal deviate with upper tail @p. */
double gate_normal_quantile(double p);
/* The residual t with @df degrees of freedom whose tail is that of the
 * normal deviate @z (@z itself below 1). */
double gate_raw_of_normal(double z, double df);
/* The normal deviate with the tail of residual @t (@t itself below 1). */
double gate_normal_of_raw(double t, double df);

#endif
