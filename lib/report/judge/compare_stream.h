/* compare against a baseline file read as a stream (compare_stream.c). */
#ifndef KSFTM_COMPARE_STREAM_H
#define KSFTM_COMPARE_STREAM_H

#include <ksftmetric/report.h>
#include <stddef.h>

/* The window ksft_metric_report_compare_fd() reads a baseline file through. */
#define COMPARE_STREAM_WINDOW ((size_t)1 << 20)

/* What one call did, for the tests: did it stream, and the most bytes of
 * the baseline it held at once while it did (window and strings). */
struct compare_stream_stats {
	int streamed;
	size_t held_max;
};

/* ksft_metric_report_compare_fd() with a window of @window bytes; @stats
 * (or NULL) receives what it did. */
int compare_stream_fd(const struct ksft_metric_report *cur, int fd, const char *name,
		      const struct ksft_metric_report_compare_opts *opts,
		      struct ksft_metric_report_comparison **out, size_t window,
		      struct compare_stream_stats *stats);

#endif
