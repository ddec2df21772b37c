/*
 * compare against a baseline file read as a stream (issue 45): a file in
 * save's format with one run whose series are the report's, one for one
 * and in order (a log against its own or yesterday's saved run), is judged
 * series by series as its lines are read, holding no baseline object and
 * no whole file. Anything else, the first time it shows (a second run, a
 * series out of order, extra or missing, a line the scanner leaves to
 * jansson, any error), starts again the old way: the whole file loaded,
 * then ksft_metric_report_compare(), so the rows, the verdicts and every
 * error are theirs by construction (doc/decisions.rst).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ksftmetric/report.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baseline.h"
#include "baseline_stream.h"
#include "compare.h"
#include "compare_stream.h"
#include "errmsg.h"
#include "opts_size.h"
#include "report.h"
#include "rp.h"
#include "series.h"

/* Not streamed: start again the old way. */
#define AGAIN 1

/*
 * The stream: 0 with *@out and *@failing (its failing rows), AGAIN, or
 * -ENOMEM with its message (a comparison that ran out of memory is no
 * reason to read the whole file).
 */
static int streamed(const struct ksft_metric_report *cur, int fd, size_t window,
		    const struct ksft_metric_report_compare_opts *opts,
		    struct ksft_metric_report_comparison **out, struct compare_stream_stats *stats,
		    int *failing)
{
	struct ksft_metric_report_baseline *head;
	struct compare_run *run = NULL;
	struct bl_stream st;
	struct bl_series s;
	size_t i = 0;
	int ret, r;

	/* Only the run's sources and context: what compare_start() checks. */
	head = ksft_metric_report_baseline_new();
	if (!head)
		return -ENOMEM;	/* its message said so */
	head->runs = calloc(1, sizeof(*head->runs));
	if (!head->runs) {
		ksft_metric_report_baseline_free(head);
		return ksftm_oom();
	}
	r = bl_stream_open(&st, fd, window, &head->runs[0]);
	head->n_runs = head->cap_runs = 1;
	ret = r == -ENOMEM ? ksftm_oom() : r ? AGAIN : 0;
	/* Its refusal (a context measured otherwise) and other errors are
	 * said by the old way, which sees every run of the file. */
	if (!ret && compare_start(cur, head, opts, &run))
		ret = AGAIN;
	memset(&s, 0, sizeof(s));
	while (!ret && (r = bl_stream_series(&st, &s)) == 1) {
		const struct rp_series *c = i < cur->n_series ? cur->series[i] : NULL;

		if (!c || !series_same_identity(s.path, s.path_len, s.case_name, s.name, s.labels,
						series_path(c), series_path_len(c),
						series_case_name(c), series_name(c),
						series_labels(c)))
			ret = AGAIN;
		else if (compare_step(run, c, &s))
			ret = -ENOMEM;
		bl_stream_put(&st, &s);
		i++;
	}
	if (!ret && (r < 0 || i != cur->n_series))
		ret = r == -ENOMEM ? -ENOMEM : AGAIN;
	bl_stream_close(&st);
	if (stats)
		stats->held_max = st.held_max;
	if (run)
		*failing = compare_finish(run, ret < 0 ? ret : 0, ret ? NULL : out);
	ksft_metric_report_baseline_free(head);
	if (ret < 0)
		return ksftm_oom();
	return ret;
}

/* The old way: the whole file (mapped when it is a file) loaded, then compared. */
static int whole(const struct ksft_metric_report *cur, int fd, const char *name,
		 const struct ksft_metric_report_compare_opts *opts,
		 struct ksft_metric_report_comparison **out)
{
	struct ksft_metric_report_baseline *b;
	struct stat sb;
	char *data = NULL;
	size_t len = 0, cap = 0;
	int mapped = 0, ret, seekable;

	seekable = !fstat(fd, &sb) && S_ISREG(sb.st_mode);
	if (seekable && sb.st_size > 0) {
		void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p != MAP_FAILED) {
			data = p;
			len = (size_t)sb.st_size;
			mapped = 1;
		}
	}
	while (!mapped) {
		ssize_t n;

		if (len == cap) {
			char *d = realloc(data, cap ? cap * 2 : 65536);

			if (!d) {
				free(data);
				return ksftm_oom();
			}
			data = d;
			cap = cap ? cap * 2 : 65536;
		}
		/* A file from its start, as when mapped; a pipe as it comes. */
		n = seekable ? pread(fd, data + len, cap - len, (off_t)len) :
			       read(fd, data + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			free(data);
			return ksftm_fail(-ret, "%s: %s", name, strerror(-ret));
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	b = ksft_metric_report_baseline_new();
	ret = b ? ksft_metric_report_baseline_load(b, data, len, name) : -ENOMEM;
	if (ret >= 0)
		ret = ksft_metric_report_compare(cur, b, opts, out);
	ksft_metric_report_baseline_free(b);
	if (mapped)
		munmap(data, len);
	else
		free(data);
	return ret;
}

int compare_stream_fd(const struct ksft_metric_report *cur, int fd, const char *name,
		      const struct ksft_metric_report_compare_opts *opts,
		      struct ksft_metric_report_comparison **out, size_t window,
		      struct compare_stream_stats *stats)
{
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct stat sb;
	size_t user_sz;
	int ret = AGAIN, failing = 0;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!cur || fd < 0 || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_compare_fd: NULL argument or no file");
	*out = NULL;
	name = name ? name : "baseline";
	/* Seeds are judged over an index of every run: not streamed. A pipe
	 * cannot be read again: neither. */
	if ((!opts || ksftm_opts_copy(&o, sizeof(o), opts, &user_sz) == KSFTM_OPTS_OK) &&
	    !o.seeds && !fstat(fd, &sb) && S_ISREG(sb.st_mode))
		ret = streamed(cur, fd, window, opts, out, stats, &failing);
	if (ret != AGAIN) {
		if (stats)
			stats->streamed = !ret;
		return ret ? ret : failing;
	}
	return whole(cur, fd, name, opts, out);
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_compare_fd(const struct ksft_metric_report *cur, int fd, const char *name,
			      const struct ksft_metric_report_compare_opts *opts,
			      struct ksft_metric_report_comparison **out)
{
	return compare_stream_fd(cur, fd, name, opts, out, COMPARE_STREAM_WINDOW, NULL);
}
