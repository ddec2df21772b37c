/*
 * The tails of the distributions the judges' tests end in, in one file
 * (tails.c): Welch's test and the gate's residuals take the Student t's,
 * the gate's CUSUM, the rank tests' normal approximations and the paired
 * A/B test the normal's. (The gate's normal quantile, the inverse, stays
 * in gate.c.)
 */
#ifndef KSFTM_TAILS_H
#define KSFTM_TAILS_H

/* Student t distribution: P(|T| >= t) with @df degrees of freedom (NaN
 * for a NaN @t or @df <= 0). */
double tails_student_t_two_sided(double t, double df);

/* Standard normal: P(Z >= @z). */
double tails_normal_upper(double z);

/* Standard normal: P(|Z| >= @z), for @z >= 0. */
double tails_normal_two_sided(double z);

#endif
