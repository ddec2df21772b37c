/*
 * The tails of the distributions the judges' tests end in, in one file
 * (tails.c): Welch's test and the gate's residuals take the Student t's,
 * the gate's CUSUM, the rank tests' normal approximations and the paired
 * A/B test the normal's. (The gate's normal quantile, the inverse, is in
 * gate_quantile.c.) The gate's recent runs test their block's own spread
 * against the noise with Fisher's F.
 */
#ifndef KSFTM_TAILS_H
#define KSFTM_TAILS_H

/* Student t distribution: P(|T| >= t) with @df degrees of freedom (NaN
 * for a NaN @t or @df <= 0). */
double tails_student_t_two_sided(double t, double df);

/* Fisher's F with (@d1, @d2) degrees of freedom: P(F >= @f) (NaN for a
 * NaN @f or a degree of freedom <= 0). */
double tails_f_upper(double f, double d1, double d2);

/* Standard normal: P(Z >= @z). */
double tails_normal_upper(double z);

/* Standard normal: P(|Z| >= @z), for @z >= 0. */
double tails_normal_two_sided(double z);

#endif
