// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer, differential: the fast in-place metric-line parser against
 * the jansson path it stands in for. Whenever the fast path accepts a
 * payload, jansson must accept it too and give the same name, shape,
 * time, values (bitwise; NaN only for null) and canonical labels;
 * anything else aborts. (When the fast path declines, jansson is what
 * runs, so there is nothing to compare.)
 *
 * Input: the payload after "ktap-metric-json:", one line.
 */
#include <ksftmetric/report.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/read/ktap.h"
#include "report/read/metric_line.h"
#include "report/read/rp_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ksft_metric_report *report;
static unsigned long inputs;

static void differ(const char *what, const uint8_t *data, size_t size)
{
	fprintf(stderr, "fast and jansson parsers differ in %s on: %.*s\n",
		what, (int)(size < 4096 ? size : 4096), (const char *)data);
	abort();
}

static int same_double(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a)) || (isnan(a) && isnan(b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct rp_input *in;
	struct mline fast, slow;
	char *name = NULL, *shape = NULL, *labels = NULL;
	double *vals = NULL;
	size_t n_vals, i;

	if (!report) {
		report = ksft_metric_report_new(NULL);
		if (!report)
			abort();
	}
	/* One line: the reader never hands a parser a newline. */
	if (memchr(data, '\n', size))
		return 0;
	in = ktap_input_new(report, "fuzz");
	if (!in)
		abort();
	if (metric_line_parse_fast(in, p, end, &fast) || in->oom)
		goto out;
	/* Keep the fast result: both parsers use the same scratch. */
	name = strndup(fast.name, fast.name_len);
	shape = strndup(fast.shape, fast.shape_len);
	labels = strndup(in->labels.data ? in->labels.data : "",
			 in->labels.len);
	n_vals = in->n_vals;
	vals = malloc((n_vals ? n_vals : 1) * sizeof(double));
	if (!name || !shape || !labels || !vals)
		abort();
	if (n_vals)
		memcpy(vals, in->vals, n_vals * sizeof(double));
	if (metric_line_parse_slow(in, p, end, &slow)) {
		if (in->oom)
			goto out;
		differ("acceptance (jansson rejects what the fast path took)", data, size);
	}
	if (slow.name_len != strlen(name) || memcmp(slow.name, name, slow.name_len))
		differ("name", data, size);
	if (slow.shape_len != strlen(shape) || memcmp(slow.shape, shape, slow.shape_len))
		differ("shape", data, size);
	if (!same_double(slow.t, fast.t))
		differ("time", data, size);
	if (slow.is_array != fast.is_array)
		differ("value kind (array or number)", data, size);
	if (in->n_vals != n_vals)
		differ("number of values", data, size);
	for (i = 0; i < n_vals; i++)
		if (!same_double(in->vals[i], vals[i]))
			differ("a value", data, size);
	if (in->labels.len != strlen(labels) ||
	    memcmp(in->labels.data, labels, in->labels.len))
		differ("labels", data, size);
out:
	free(name);
	free(shape);
	free(labels);
	free(vals);
	ktap_input_abort(in);
	/* Each input keeps its name and warnings in the report: renew it. */
	if (++inputs % 4096 == 0) {
		ksft_metric_report_free(report);
		report = NULL;
	}
	return 0;
}
