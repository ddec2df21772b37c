/*
 * zperf results: "ZPERF-RESULT <marker>_mbps=<value>" console lines and
 * the recordings twister stores from them in twister.json. Both become
 * series of case "zperf" (higher is better), so a baseline from either
 * source compares with the other.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"
#include "point.h"
#include "rp.h"
#include "rp_input.h"
#include "strbuf.h"
#include "tree.h"
#include "warn.h"
#include "zperf.h"

static int twister_status(const char *s)
{
	if (!s)
		return RP_ST_NONE;
	if (!strcmp(s, "passed"))
		return RP_ST_PASS;
	if (!strcmp(s, "failed"))
		return RP_ST_FAIL;
	if (!strcmp(s, "error"))
		return RP_ST_ERROR;
	if (!strcmp(s, "skipped") || !strcmp(s, "filtered"))
		return RP_ST_SKIP;
	return RP_ST_NONE;
}

/* All of @s a JSON number: 0 and *@v, or -EINVAL. */
static int number_text(const char *s, double *v)
{
	const char *next;
	size_t n = strlen(s);

	return n && !number_parse(s, s + n, &next, v) && next == s + n ? 0 : -EINVAL;
}

/* The zperf node of this input: console lines and twister recordings. */
static struct rp_node *zperf_node(struct rp_input *in)
{
	if (!in->zperf) {
		in->zperf = tree_node_new(in, NULL);
		if (in->zperf && tree_name_node(in, in->zperf, "zperf", 5, RP_ST_NONE))
			return NULL;
	}
	return in->zperf;
}

/*
 * twister.json: every testsuites[].recording[] entry maps recorded names
 * (udp4_mbps, ...) to numbers, numeric strings as the console harness
 * stores them. They become the same series as the console lines, so a
 * baseline from either source compares with the other.
 */
int zperf_input_document(struct rp_input *in, const char *buf, size_t len)
{
	json_error_t err;
	json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	json_t *suites, *suite;
	const char *platform = NULL;
	size_t i, found = 0;

	if (!j) {
		warn_add(in->r, in->file, (unsigned long)(err.line > 0 ? err.line : 0),
			 "malformed JSON: %s", err.text);
		return 0;
	}
	suites = json_object_get(j, "testsuites");
	if (!json_is_array(suites)) {
		warn_add(in->r, in->file, 0,
			 "JSON input is not a twister report (no \"testsuites\" array)");
		json_decref(j);
		return 0;
	}
	json_array_foreach(suites, i, suite) {
		json_t *rec = json_object_get(suite, "recording"), *entry, *v;
		const char *plat = json_string_value(json_object_get(suite, "platform"));
		struct rp_node *node;
		size_t k, before = found;
		const char *key;

		if (!json_is_array(rec))
			continue;
		json_array_foreach(rec, k, entry) {
			if (!json_is_object(entry))
				continue;
			json_object_foreach(entry, key, v) {
				struct mline m;
				double x;

				if (json_is_number(v))
					x = json_number_value(v);
				else if (!json_is_string(v) ||
					 number_text(json_string_value(v), &x))
					continue;	/* not a measurement */
				node = zperf_node(in);
				if (!node)
					goto out;
				m.name = key;
				m.name_len = strlen(key);
				m.shape = "scalar";
				m.shape_len = 6;
				m.t = NAN;
				m.is_array = 0;
				in->n_vals = 0;
				in->labels.len = 0;
				strbuf_adds(&in->labels, "{}");
				if (!m.name_len || point_push_val(in, x))
					continue;
				point_add(in, node, RP_SRC_TWISTER, &m);
				found++;
			}
		}
		if (found == before)
			continue;
		in->zperf->status = twister_status(json_string_value(
			json_object_get(suite, "status")));
		if (plat && platform && strcmp(plat, platform))
			warn_add(in->r, in->file, 0,
				 "recordings of platforms %s and %s are joined; keep one baseline per platform",
				 platform, plat);
		if (plat && !platform)
			platform = plat;
	}
	if (!found)
		warn_add(in->r, in->file, 0, "twister report holds no recordings");
out:
	json_decref(j);
	return in->oom ? -ENOMEM : 0;
}

/* "ZPERF-RESULT <marker>_mbps=<value>" */
void zperf_line(struct rp_input *in, const char *p, const char *end)
{
	const char *name = p, *eq;
	struct mline m;
	double v;

	while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			   (*p >= '0' && *p <= '9') || *p == '_'))
		p++;
	eq = p;
	if (eq - name < 6 || memcmp(eq - 5, "_mbps", 5) || p >= end || *p != '=' ||
	    number_parse(p + 1, end, &p, &v) ||
	    (p < end && *p != ' ' && *p != '\t')) {
		warn_add(in->r, in->file, in->lineno,
			 "malformed ZPERF-RESULT line (want <marker>_mbps=<number>)");
		return;
	}
	if (!zperf_node(in))
		return;
	m.name = name;
	m.name_len = (size_t)(eq - name);
	m.shape = "scalar";
	m.shape_len = 6;
	m.t = NAN;
	m.is_array = 0;
	in->n_vals = 0;
	in->labels.len = 0;
	strbuf_adds(&in->labels, "{}");
	if (point_push_val(in, v)) {
		in->oom = 1;
		return;
	}
	point_add(in, in->zperf, RP_SRC_ZPERF, &m);
}

