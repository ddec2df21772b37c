/*
 * upstream/ksft_metric.h's number text, for the checks against Python:
 * built plain it reads raw doubles and prints repr() of each (as
 * float_repr_dump does for the library); with -DDUMP_TIME it reads
 * "START_NS NOW_NS" lines and prints the "time" field (as time_round_dump).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "ksft_metric.h"

int main(void)
{
	struct ksft_metric_sb_ sb = { NULL, 0, 0, 0 };
#ifdef DUMP_TIME
	uint64_t start, now;

	while (scanf("%" SCNu64 " %" SCNu64, &start, &now) == 2) {
		sb.len = 0;
		ksft_metric_add_double_(&sb, ksft_metric_time_(now, start));
		puts(sb.data);
	}
#else
	double d;

	while (fread(&d, sizeof(d), 1, stdin) == 1) {
		sb.len = 0;
		if (isfinite(d))
			ksft_metric_add_double_(&sb, d);
		else
			ksft_metric_sb_adds_(&sb, isnan(d) ? "nan" : "inf");
		puts(sb.data);
	}
#endif
	free(sb.data);
	return ferror(stdin) || fflush(stdout) || sb.oom ? 1 : 0;
}
