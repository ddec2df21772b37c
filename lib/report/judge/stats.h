/* Statistical tests over plain values (stats.c). */
#ifndef KSFTM_STATS_H
#define KSFTM_STATS_H

#include <stddef.h>

/* Two-sided Mann-Whitney U p-value; NaN if either side has < 1 value. */
double stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny);

#endif
