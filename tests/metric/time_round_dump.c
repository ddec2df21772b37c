/*
 * Helper for time_vs_python.py: reads "START_NS NOW_NS" lines (CLOCK_MONOTONIC
 * nanoseconds) and prints the "time" field the library emits for each.
 */
#include <inttypes.h>
#include <stdio.h>

#include "float_repr.h"
#include "line_format.h"

int main(void)
{
	char buf[FLOAT_REPR_MAX];
	uint64_t start, now;

	while (scanf("%" SCNu64 " %" SCNu64, &start, &now) == 2) {
		float_repr(obs_time_seconds(now, start), buf);
		puts(buf);
	}
	return ferror(stdin) || fflush(stdout) ? 1 : 0;
}
