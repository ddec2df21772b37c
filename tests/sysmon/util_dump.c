// SPDX-License-Identifier: GPL-2.0
/*
 * Print "busy total value" lines for util_vs_python.py: small totals
 * exhaustively, decimal ties, and pseudo-random large ones.
 */
#include <inttypes.h>
#include <stdio.h>

#include "host_metrics.h"

static void out(uint64_t b, uint64_t t)
{
	printf("%" PRIu64 " %" PRIu64 " %.17g\n", b, t, util_percent(b, t));
}

int main(void)
{
	uint64_t t, b, x = 0x9e3779b97f4a7c15ULL, k;
	int i;

	for (t = 1; t <= 400; t++)
		for (b = 0; b <= t; b++)
			out(b, t);
	/* Exact ties: 1e6 * b / t = n + 1/2, i.e. t = 2e6 * b / (2n + 1). */
	for (k = 1; k <= 15625; k += 2)
		for (b = 1; b <= 40; b++)
			if ((2000000 * b) % k == 0 && 2000000 * b / k >= b)
				out(b, 2000000 * b / k);
	for (i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		t = 1 + (x >> 20) % (i & 1 ? 100000 : 8000000000ULL);
		b = (x & 0xfffffffffULL) % (t + 1);
		out(b, t);
	}
	return 0;
}
