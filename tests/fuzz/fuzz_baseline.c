// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the baseline file reader (ksft_metric_report_baseline_load()).
 * A loaded baseline is written back out (that text must load again: the
 * format is meant to round-trip) and compared with a small fixed report.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/metric.h>
#include <ksftmetric/report.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char current_log[] =
	"TAP version 13\n"
	"1..2\n"
	"# ktap-metric-policy-json: {\"name\":\"throughput\",\"regression\":{\"better\":\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05},\"summarize\":\"distribution\"}\n"
	"# ktap-metric-json: {\"host\":\"local\",\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":1.5,\"value\":32.6}\n"
	"# ktap-metric-json: {\"host\":\"local\",\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":2.5,\"value\":31.0}\n"
	"ok 1 tcp\n"
	"# ktap-metric-json: {\"name\":\"cpu\",\"shape\":\"per-cpu\",\"time\":1.0,\"value\":[1.0,null,3]}\n"
	"ok 2 cpu\n"
	"ZPERF-RESULT udp4_mbps=13.099\n"
	"ZPERF-DONE\n";

/* The fixed current run to compare against: built once, kept (reachable). */
static struct ksft_metric_report *current(void)
{
	static struct ksft_metric_report *r;

	if (!r) {
		r = ksft_metric_report_new(NULL);
		if (!r || ksft_metric_report_read_buffer(r, current_log,
							 sizeof(current_log) - 1,
							 "current") < 0)
			abort();
	}
	return r;
}

static void compare(const struct ksft_metric_report_baseline *b, int variant)
{
	struct ksft_metric_report_compare_opts opts =
		KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_comparison *c = NULL;
	size_t i, n;
	int fmt;

	if (variant) {
		opts.tolerance_pct = 5.0;
		opts.alpha = 0.05;
		opts.allow_missing = 1;
	}
	if (ksft_metric_report_compare(current(), b, &opts, &c) < 0)
		return;
	n = ksft_metric_report_comparison_rows(c);
	for (i = 0; i < n; i++) {
		struct ksft_metric_report_row row = { .sz = sizeof(row) };

		(void)ksft_metric_report_comparison_row(c, i, &row);
	}
	for (fmt = KSFT_METRIC_REPORT_TEXT; fmt <= KSFT_METRIC_REPORT_CSV; fmt++) {
		char *out = NULL;
		size_t len;

		if (!ksft_metric_report_comparison_format(c, fmt, &out, &len))
			ksft_metric_report_text_free(out);
	}
	ksft_metric_report_comparison_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksft_metric_report_baseline *b, *again;
	char *text = NULL;
	size_t len = 0;
	int runs;

	b = ksft_metric_report_baseline_new();
	if (!b)
		abort();
	runs = ksft_metric_report_baseline_load(b, data, size, "fuzz.json");
	if (runs > 0) {
		if (ksft_metric_report_baseline_format(b, &text, &len))
			abort();
		/* What we write must read back, with the same number of runs. */
		again = ksft_metric_report_baseline_new();
		if (!again)
			abort();
		if (ksft_metric_report_baseline_load(again, text, len,
						     "formatted.json") != runs) {
			fprintf(stderr, "formatted baseline does not load back: %s\n",
				ksft_metric_report_errmsg());
			abort();
		}
		ksft_metric_report_baseline_free(again);
		ksft_metric_report_text_free(text);
		compare(b, (int)(size & 1));
	}
	ksft_metric_report_baseline_free(b);
	return 0;
}
