// SPDX-License-Identifier: GPL-2.0
/* iperf3 --json output: stable-interval throughput and retransmits. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli_util.h"
#include "iperf3_parse.h"
#include "proc.h"

static int interval_gbps(json_t *intervals, size_t i, const char *name,
			 double *gbps, char **err)
{
	json_t *iv = json_array_get(intervals, i), *sum, *bps;

	if (!json_is_object(iv))
		return ex_errf(err, -EINVAL, "%s: intervals[%zu]: not an object", name, i);
	sum = json_object_get(iv, "sum");
	if (!sum)
		return ex_errf(err, -EINVAL, "%s: intervals[%zu].sum missing", name, i);
	if (!json_is_object(sum))
		return ex_errf(err, -EINVAL, "%s: intervals[%zu].sum: not an object", name, i);
	bps = json_object_get(sum, "bits_per_second");
	if (!bps)
		return ex_errf(err, -EINVAL, "%s: intervals[%zu].sum.bits_per_second missing",
			       name, i);
	if (!json_is_number(bps))
		return ex_errf(err, -EINVAL,
			       "%s: intervals[%zu].sum.bits_per_second: not a number",
			       name, i);
	*gbps = json_number_value(bps) / 1e9;
	if (!isfinite(*gbps) || *gbps < 0)
		return ex_errf(err, -EINVAL,
			       "%s: intervals[%zu].sum.bits_per_second: out of range",
			       name, i);
	return 0;
}

static int read_retransmits(json_t *root, const char *name,
			    struct iperf3_result *res, char **err)
{
	json_t *v = json_object_get(json_object_get(json_object_get(root, "end"),
						    "sum_sent"), "retransmits");

	if (!v)
		return 0;
	/* As the seed: an integer, not a real and not a boolean. */
	if (!json_is_integer(v))
		return ex_errf(err, -EINVAL,
			       "%s: end.sum_sent.retransmits: not an integer", name);
	res->has_retransmits = 1;
	res->retransmits = json_integer_value(v);
	return 0;
}

/* Bytes the receiver got (the sender's count when it is missing). */
static int read_bytes(json_t *root, const char *name, struct iperf3_result *res, char **err)
{
	json_t *end = json_object_get(root, "end");
	json_t *v = json_object_get(json_object_get(end, "sum_received"), "bytes");

	if (!v)
		v = json_object_get(json_object_get(end, "sum_sent"), "bytes");
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return ex_errf(err, -EINVAL, "%s: end.sum_received.bytes: not a byte count", name);
	res->bytes = (uint64_t)json_integer_value(v);
	return 0;
}

/* The processes' CPU seconds as iperf3 itself measured them (NAN if not). */
static void read_cpu(json_t *root, struct iperf3_result *res)
{
	json_t *end = json_object_get(root, "end");
	json_t *cpu = json_object_get(end, "cpu_utilization_percent");
	json_t *secs = json_object_get(json_object_get(end, "sum_sent"), "seconds");
	json_t *h = json_object_get(cpu, "host_total"), *r = json_object_get(cpu, "remote_total");
	double s = json_is_number(secs) ? json_number_value(secs) : NAN;

	res->client_cpu_s = json_is_number(h) && s > 0 ? json_number_value(h) / 100 * s : NAN;
	res->server_cpu_s = json_is_number(r) && s > 0 ? json_number_value(r) / 100 * s : NAN;
}

static int parse_root(json_t *root, const char *name, struct iperf3_result *res,
		      char **err)
{
	json_t *error, *intervals, *ts;
	size_t i, n;
	double total = 0;
	int ret;

	if (!json_is_object(root))
		return ex_errf(err, -EINVAL, "%s: top level: not a JSON object", name);
	/* iperf3 exits 0 under --json even when the test failed. */
	error = json_object_get(root, "error");
	if (error)
		return ex_errf(err, -EPROTO, "%s: error: iperf3 failed: %s", name,
			       json_is_string(error) ? json_string_value(error) :
			       "(non-string error value)");
	intervals = json_object_get(root, "intervals");
	if (!intervals)
		return ex_errf(err, -EINVAL, "%s: intervals missing", name);
	if (!json_is_array(intervals))
		return ex_errf(err, -EINVAL, "%s: intervals: not an array", name);
	n = json_array_size(intervals);
	res->n_intervals = n;
	if (n <= 2 * IPERF3_EDGE_INTERVALS)
		return ex_errf(err, -ERANGE,
			       "%s: intervals: %zu intervals, need at least %d "
			       "(the first and last %d are dropped); run longer "
			       "(--time) or report more often (--interval)", name, n,
			       2 * IPERF3_EDGE_INTERVALS + 1, IPERF3_EDGE_INTERVALS);
	/* Every interval must be sound, not only the averaged ones. */
	for (i = 0; i < n; i++) {
		double gbps = 0;

		ret = interval_gbps(intervals, i, name, &gbps, err);
		if (ret)
			return ret;
		if (i >= IPERF3_EDGE_INTERVALS && i < n - IPERF3_EDGE_INTERVALS) {
			total += gbps;
			if (res->n_kept < IPERF3_MAX_KEPT_INTERVALS)
				res->interval_gbps[res->n_kept++] = gbps;
		}
	}
	res->n_stable = n - 2 * IPERF3_EDGE_INTERVALS;
	res->throughput_gbps = total / (double)res->n_stable;
	ts = json_object_get(json_object_get(json_object_get(root, "start"),
					     "test_start"), "reverse");
	res->reverse = json_is_integer(ts) ? json_integer_value(ts) != 0 : json_is_true(ts);
	read_cpu(root, res);
	ret = read_bytes(root, name, res, err);
	return ret ? ret : read_retransmits(root, name, res, err);
}

int iperf3_parse_json(const char *text, size_t len, const char *name,
		      struct iperf3_result *res, char **err)
{
	json_error_t jerr;
	json_t *root;
	int ret;

	memset(res, 0, sizeof(*res));
	if (!name)
		name = "iperf3 output";
	root = json_loadb(text, len, 0, &jerr);
	if (!root)
		return ex_errf(err, -EINVAL, "%s:%d:%d: invalid JSON: %s", name,
			       jerr.line, jerr.column, jerr.text);
	ret = parse_root(root, name, res, err);
	json_decref(root);
	if (ret)
		memset(res, 0, sizeof(*res));
	return ret;
}

static int parse_text(const char *text, size_t len, const char *name,
		      void *res, char **err)
{
	return iperf3_parse_json(text, len, name, res, err);
}

int iperf3_parse_file(const char *path, struct iperf3_result *res, char **err)
{
	return ex_parse_file(path, parse_text, res, sizeof(*res), err);
}

int iperf3_require_retransmits(const struct iperf3_result *res, const char *name,
			       char **err)
{
	if (res->has_retransmits)
		return 0;
	return ex_errf(err, -ENODATA, "%s: end.sum_sent.retransmits missing",
		       name ? name : "iperf3 output");
}
