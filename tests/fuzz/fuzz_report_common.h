/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared body of the report reader fuzzers (fuzz_ktap, fuzz_zperf,
 * fuzz_twister): read the input with ksft_metric_report_read_buffer() and,
 * through a memory stream, with ksft_metric_report_read_file() using a
 * small line limit; then walk every series and render every format, so the
 * reader's output is used the way the ksft-metric tool uses it.
 */
#ifndef KSFTM_FUZZ_REPORT_COMMON_H
#define KSFTM_FUZZ_REPORT_COMMON_H

#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <ksftmetric/metric.h>
#include <ksftmetric/report.h>

/* Series walked per input: enough to reach every code path, bounded. */
#define FUZZ_MAX_SERIES 64

static inline int fuzz_first_is_brace(const uint8_t *data, size_t size)
{
	size_t i = 0;

	if (size >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf)
		i = 3;
	while (i < size && (data[i] == ' ' || data[i] == '\t' ||
			    data[i] == '\n' || data[i] == '\r' ||
			    data[i] == '\v' || data[i] == '\f'))
		i++;
	return i < size && data[i] == '{';
}

static inline void fuzz_use_report(const struct ksft_metric_report *r)
{
	static const char *const ops[] = { "last", "total", "max", "p50",
					   "p90", "p99" };
	const struct ksft_metric_report_warning *w;
	size_t i, j, n, total;
	char *out;
	size_t len;
	int fmt;

	n = ksft_metric_report_warnings(r, &w, &total);
	for (i = 0; i < n; i++)
		if (!w[i].file || !w[i].reason)
			abort();
	n = ksft_metric_report_series_count(r);
	if (n > FUZZ_MAX_SERIES)
		n = FUZZ_MAX_SERIES;
	for (i = 0; i < n; i++) {
		struct ksft_metric_report_series s = { .sz = sizeof(s) };
		double sum[8];
		int stage;

		if (ksft_metric_report_series_get(r, i, &s))
			continue;
		for (stage = KSFT_METRIC_REPORT_RAW;
		     stage <= KSFT_METRIC_REPORT_PROCESSED; stage++) {
			struct ksft_metric_report_values v = { 0 };

			if (!ksft_metric_report_series_values(r, i, stage, &v))
				ksft_metric_report_values_release(&v);
		}
		for (j = 0; j < sizeof(ops) / sizeof(ops[0]); j++)
			(void)ksft_metric_report_series_summary(r, i, ops[j], sum,
								sizeof(sum) / sizeof(sum[0]));
	}
	for (fmt = KSFT_METRIC_REPORT_TEXT; fmt <= KSFT_METRIC_REPORT_NIPA;
	     fmt++) {
		struct ksft_metric_report_format_opts o = KSFT_METRIC_REPORT_FORMAT_OPTS_INIT;

		out = NULL;
		if (!ksft_metric_report_format(r, fmt, &out, &len))
			ksft_metric_report_text_free(out);
		/* Every format with NIPA's names, KCIDB with what it needs. */
		o.origin = "fuzz";
		o.build_id = "fuzz:1";
		o.name_style = KSFT_METRIC_REPORT_NAMES_NIPA;
		out = NULL;
		if (!ksft_metric_report_format_ext(r, fmt, &o, &out, &len))
			ksft_metric_report_text_free(out);
	}
}

static inline void fuzz_read_report(const uint8_t *data, size_t size)
{
	struct ksft_metric_report_opts opts = KSFT_METRIC_REPORT_OPTS_INIT;
	struct ksft_metric_report *r;
	FILE *f;

	/* 1. The whole input from memory, default options. */
	r = ksft_metric_report_new(NULL);
	if (!r)
		abort();
	(void)ksft_metric_report_read_buffer(r, data, size, "fuzz");
	fuzz_use_report(r);
	ksft_metric_report_free(r);

	/* 2. The chunked stream reader, with small limits. */
	if (!size)
		return;
	opts.max_line = 256;
	opts.max_warnings = 8;
	r = ksft_metric_report_new(&opts);
	if (!r)
		abort();
	f = fmemopen((void *)data, size, "r");
	if (f) {
		(void)ksft_metric_report_read_file(r, f, "fuzz-stream");
		fclose(f);
	}
	fuzz_use_report(r);
	ksft_metric_report_free(r);
}

#endif
