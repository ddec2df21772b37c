/*
 * The gate judges unit-free numbers (issue 31 item 8): each series' inputs
 * divided by a power of two near their largest magnitude, so that no test
 * in gate.c (the zero-noise one, the squares of the noise) depends on the
 * unit the values come in, and 1e-14 or 1e160 judge as 1 does.
 */
#ifndef KSFTM_GATE_SCALE_H
#define KSFTM_GATE_SCALE_H

#include "gate.h"

/*
 * @t gets @s with its values, window, recent runs and absolute tolerance
 * divided by 2^@*exp (within-run variances by 2^(2 @*exp)), in @*buf
 * (free it). @return 0 or -ENOMEM.
 */
int gate_scale_in(const struct gate_series *s, struct gate_series *t, double **buf, int *exp);

/* @s gets @t's outputs in @s's unit (the inputs stay @s's own). */
void gate_scale_out(struct gate_series *s, const struct gate_series *t, int exp);

#endif
