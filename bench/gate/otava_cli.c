/*
 * Apache Otava's change points (otava_port.c) of the numbers on stdin, one
 * a line: each change point's index, one a line. For the scripts that
 * replay real CI logs beside the gate (bench/gate/replay_two_runner.py).
 * Usage: otava_cli [MAX_P] < values
 */
#include <stdio.h>
#include <stdlib.h>

#include "otava_port.h"

int main(int argc, char **argv)
{
	size_t n = 0, cap = 64, i;
	double *x = malloc(cap * sizeof(*x)), v;
	struct otava_cp cp[256];
	int k;

	if (argc > 1)
		otava_max_p = atof(argv[1]);
	while (x && scanf("%lf", &v) == 1) {
		if (n == cap) {
			double *g = realloc(x, 2 * cap * sizeof(*x));

			if (!g)
				break;
			x = g;
			cap *= 2;
		}
		x[n++] = v;
	}
	if (!x)
		return 1;
	k = otava_change_points(x, n, cp, sizeof(cp) / sizeof(cp[0]));
	for (i = 0; k > 0 && i < (size_t)k; i++)
		printf("%zu %g %g\n", cp[i].index, cp[i].mean_before, cp[i].mean_after);
	free(x);
	return k < 0;
}
