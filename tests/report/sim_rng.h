/*
 * Deterministic pseudo-random noise for the statistics tests (xorshift64*
 * and Box-Muller): the same numbers on every machine, so no test flakes.
 */
#ifndef KSFTM_TEST_SIM_RNG_H
#define KSFTM_TEST_SIM_RNG_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

static uint64_t rng_state;

static inline double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static inline double gauss(void)
{
	double u = uniform(), v = uniform();

	return sqrt(-2.0 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* n points around @level with coefficient of variation @cv. */
static inline void noise(double *x, size_t n, double level, double cv)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = level * (1.0 + cv * gauss());
}

#endif
