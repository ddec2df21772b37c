/*
 * KCIDB I/O JSON (schema v5): one test node per series, status DONE (a
 * measurement, not a verdict), the value the gate compares in "number",
 * in the series' display unit, the run context and the series' identity
 * in "misc". The test path (doc/consumer.rst) is readable within the
 * characters KCIDB allows in a path part, [a-zA-Z0-9_-]; the exact names
 * are in misc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "comparison.h"
#include "context.h"
#include "errmsg.h"
#include "pipeline.h"
#include "report.h"
#include "rp_export.h"
#include "rp_policy.h"
#include "series.h"
#include "strbuf.h"
#include "units.h"
#include "vals.h"

#define KCIDB_MAJOR 5
#define KCIDB_MINOR 0	/* nothing newer is used: any v5 reader takes it */

static int path_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/*
 * A name as one readable path part: letters and digits stay, "-" too
 * where it does not separate (@keep_dash), and every run of other bytes
 * (".", " ", "/", ":", "_", UTF-8) is one "_", none at either end; a name
 * with nothing left is "_". "cpu.usec_per_mb" is "cpu_usec_per_mb".
 */
static void part_text(struct strbuf *sb, const char *s, size_t n, int keep_dash)
{
	size_t start = sb->len, i;
	int gap = 0;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (path_char(c) || (keep_dash && c == '-')) {
			if (gap && sb->len > start)
				strbuf_addc(sb, '_');
			strbuf_addc(sb, c);
			gap = 0;
		} else {
			gap = 1;
		}
	}
	if (sb->len == start)
		strbuf_addc(sb, '_');
}

/*
 * The last part: the metric name, then "-KEY-VALUE" per label in key
 * order ("-" inside them is "_": it only separates); a value that is not
 * a string is its JSON text (1, true).
 */
static int part_metric(struct strbuf *sb, const char *name, const char *labels)
{
	struct strbuf val = STRBUF_INIT;
	json_t *j = json_loads(labels, 0, NULL), *v;
	const char *k;

	if (!j)
		return -ENOMEM;	/* canonical text we made: only memory fails */
	part_text(sb, name, strlen(name), 0);
	json_object_foreach(j, k, v) {
		strbuf_addc(sb, '-');
		part_text(sb, k, strlen(k), 0);
		strbuf_addc(sb, '-');
		if (json_is_string(v)) {
			part_text(sb, json_string_value(v), json_string_length(v), 0);
		} else {
			val.len = 0;
			canon_json_emit(&val, v);
			part_text(sb, val.data ? val.data : "", val.len, 0);
		}
	}
	json_decref(j);
	strbuf_free(&val);
	return sb->oom ? -ENOMEM : 0;
}

static int kcidb_path(struct strbuf *sb, const struct rp_series *s)
{
	size_t i;

	for (i = 0; i < series_path_len(s); i++) {
		part_text(sb, series_path(s)[i], strlen(series_path(s)[i]), 1);
		strbuf_addc(sb, '.');
	}
	part_text(sb, series_case_name(s), strlen(series_case_name(s)), 1);
	strbuf_addc(sb, '.');
	return part_metric(sb, series_name(s), series_labels(s));
}

/* 64-bit FNV-1a through a splitmix64 finaliser: two seeds make 128 bits. */
static uint64_t mix(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

struct hash128 {
	uint64_t a, b;
};

static void hash_add(struct hash128 *h, const void *p, size_t n)
{
	/* A length first, so ("ab", "c") and ("a", "bc") differ. */
	uint64_t len = n;

	h->a = series_hash(&len, sizeof(len), h->a);
	h->b = series_hash(&len, sizeof(len), h->b);
	h->a = series_hash(p, n, h->a);
	h->b = series_hash(p, n, h->b);
}

/* The run's content: the same logs give the same test ids. */
static int content_hash(const struct ksft_metric_report *r, struct hash128 *h)
{
	struct strbuf kb = STRBUF_INIT;
	size_t i, nv;

	h->a = 0xcbf29ce484222325ull;
	h->b = 0x84222325cbf29ce4ull;
	hash_add(h, r->context_json ? r->context_json : "", r->context_json ? strlen(r->context_json) : 0);
	for (i = 0; i < r->n_series; i++) {
		const struct rp_series *s = r->series[i];
		const char *key = series_key_text(s, &kb);
		const struct rp_vals *raw;
		struct rp_vals view;

		if (!key) {
			strbuf_free(&kb);
			return -ENOMEM;
		}
		hash_add(h, key, strlen(key));
		raw = series_raw(s, &view);
		nv = raw->off ? raw->off[raw->n] : raw->n;
		hash_add(h, raw->t, raw->n * sizeof(double));
		hash_add(h, raw->v, nv * sizeof(double));
	}
	strbuf_free(&kb);
	return 0;
}

static int valid_origin(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* "ORIGIN:..." with an origin name before the colon. */
static int valid_object_id(const char *s)
{
	const char *colon = s ? strchr(s, ':') : NULL;
	char *origin;
	int ok;

	if (!colon || colon == s)
		return 0;
	origin = strndup(s, (size_t)(colon - s));
	if (!origin)
		return 0;
	ok = valid_origin(origin);
	free(origin);
	return ok;
}

/* RFC 3339 as JSON Schema's date-time: 2026-12-01T07:55:00[.f](Z|+hh:mm). */
static int valid_time(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	size_t i;

	for (i = 0; shape[i]; i++) {
		if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != shape[i])
			return 0;
	}
	s += i;
	if (*s == '.') {
		if (!(s[1] >= '0' && s[1] <= '9'))
			return 0;
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	}
	if (!strcmp(s, "Z"))
		return 1;
	return (s[0] == '+' || s[0] == '-') && s[1] >= '0' && s[1] <= '9' &&
	       s[2] >= '0' && s[2] <= '9' && s[3] == ':' && s[4] >= '0' &&
	       s[4] <= '9' && s[5] >= '0' && s[5] <= '9' && !s[6];
}

/* The compare value in the series' display unit (model/units.c). */
static void kcidb_number(struct strbuf *sb, const struct rp_display *d, double value)
{
	strbuf_adds(sb, ",\"number\":{\"value\":");
	canon_json_double(sb, value);
	if (d->unit) {
		strbuf_adds(sb, ",\"unit\":");
		canon_json_str(sb, d->unit);
	}
	strbuf_addc(sb, '}');
}

/* Object members that are null, at any depth: KCIDB allows none. */
static void drop_nulls(json_t *j)
{
	const char *k;
	json_t *v;
	void *tmp;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach_safe(j, tmp, k, v) {
			if (json_is_null(v))
				json_object_del(j, k);
			else
				drop_nulls(v);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			drop_nulls(v);
	}
}

/* The JSON text from @at to the end of @sb again, without null members. */
static int drop_nulls_from(struct strbuf *sb, size_t at)
{
	json_t *j = json_loadb(sb->data + at, sb->len - at, 0, NULL);

	if (!j)
		return -ENOMEM;	/* our own JSON: only memory fails */
	drop_nulls(j);
	sb->len = at;
	canon_json_emit(sb, j);
	json_decref(j);
	return sb->oom ? -ENOMEM : 0;
}

static int kcidb_test(struct strbuf *sb, const struct rp_series *s,
		      const struct ksft_metric_report_format_opts *o,
		      const struct hash128 *run, const char *context,
		      const struct export_rowix *ix)
{
	struct hash128 h = *run;
	struct rp_display d;
	struct export_sums m;
	char buf[96];
	struct strbuf kb = STRBUF_INIT;
	const char *key;
	size_t first = 0, n = 0, k, misc_at;
	double cmp_value = 0;

	if (export_sums_init(&m, s))
		return -ENOMEM;
	if (!(key = series_key_text(s, &kb))) {
		export_sums_free(&m);
		return -ENOMEM;
	}
	hash_add(&h, o->build_id, strlen(o->build_id));
	hash_add(&h, key, strlen(key));
	if (ix->c)
		n = export_rowix_find(ix, key, &first);
	strbuf_free(&kb);
	strbuf_adds(sb, "{\"id\":");
	snprintf(buf, sizeof(buf), "%s:ksftm-%016llx%016llx", o->origin,
		 (unsigned long long)mix(h.a), (unsigned long long)mix(h.b));
	canon_json_str(sb, buf);
	strbuf_adds(sb, ",\"build_id\":");
	canon_json_str(sb, o->build_id);
	strbuf_adds(sb, ",\"origin\":");
	canon_json_str(sb, o->origin);
	strbuf_adds(sb, ",\"path\":\"");
	if (kcidb_path(sb, s)) {
		export_sums_free(&m);
		return -ENOMEM;
	}
	strbuf_adds(sb, "\",\"status\":\"DONE\"");
	/*
	 * One number per test: arrays keep theirs in misc only. KCIDB's
	 * number.value must be a JSON number: a non-finite summary (a total
	 * past DBL_MAX, say) leaves "number" out and says why in misc
	 * (doc/decisions.rst), rather than send a clamped value as measured.
	 */
	units_display_of(m.p, &d);
	if (!m.width && m.sums[0].n) {
		cmp_value = pipeline_summary_op(&m.sums[0], m.compare);
		/* 15 digits drop the product's noise: 0.6188 * 1000 is 618.8. */
		if (d.scale != 1.0 && isfinite(cmp_value * d.scale)) {
			snprintf(buf, sizeof(buf), "%.15g", cmp_value * d.scale);
			cmp_value = strtod(buf, NULL);
		} else {
			cmp_value *= d.scale;
		}
		if (isfinite(cmp_value))
			kcidb_number(sb, &d, cmp_value);
	}
	if (o->start_time) {
		strbuf_adds(sb, ",\"start_time\":");
		canon_json_str(sb, o->start_time);
	}
	strbuf_adds(sb, ",\"misc\":");
	misc_at = sb->len;
	strbuf_adds(sb, "{\"context\":");
	strbuf_adds(sb, context);
	strbuf_adds(sb, ",\"ksft_metric\":{");
	canon_emit_identity(sb, series_path(s), series_path_len(s), series_case_name(s),
			    series_name(s), series_labels(s));
	strbuf_adds(sb, ",\"status\":\"");
	strbuf_adds(sb, canon_status_name(s->status));
	strbuf_adds(sb, "\",\"source\":\"");
	strbuf_adds(sb, canon_source_name(s->source));
	snprintf(buf, sizeof(buf), "\",\"points\":%zu,\"processed\":%zu", series_n_points(s),
		 m.pv.n);
	strbuf_adds(sb, buf);
	strbuf_adds(sb, ",\"policy\":");
	strbuf_adds(sb, series_own_policy(s) ? series_own_policy(s)->json : "null");
	strbuf_adds(sb, ",\"compare\":\"");
	strbuf_adds(sb, canon_op_name(m.compare));
	strbuf_adds(sb, "\",\"summary\":");
	export_sums_json_all(sb, &m);
	strbuf_addc(sb, ',');
	units_display_json(sb, &d);
	if (!isfinite(cmp_value)) {
		strbuf_adds(sb, ",\"number_omitted\":\"");
		strbuf_adds(sb, canon_op_name(m.compare));
		strbuf_adds(sb, isnan(cmp_value) ? " is NaN" :
			    cmp_value > 0 ? " is +Inf" : " is -Inf");
		strbuf_adds(sb, ": number.value must be a finite number\"");
	}
	if (ix->c) {
		struct cmp_row tmp;

		strbuf_adds(sb, ",\"verdicts\":[");
		for (k = 0; k < n; k++) {
			if (k)
				strbuf_addc(sb, ',');
			export_row_json(sb, cmp_row_at(ix->c, ix->order[first + k], &tmp));
		}
		strbuf_addc(sb, ']');
	}
	strbuf_adds(sb, "}}");
	export_sums_free(&m);
	if (sb->oom || drop_nulls_from(sb, misc_at))
		return -ENOMEM;
	strbuf_addc(sb, '}');
	return sb->oom ? -ENOMEM : 0;
}

int format_kcidb_write(const struct ksft_metric_report *r,
		       const struct ksft_metric_report_format_opts *o,
		       struct strbuf *sb)
{
	struct ksft_metric_report_format_opts lo;
	char *time_text = NULL;
	struct strbuf ctx_text = STRBUF_INIT;
	struct export_rowix ix;
	struct hash128 run;
	json_t *ctx;
	char head[64];
	size_t i;
	int err = 0;

	if (!valid_origin(o->origin))
		return ksftm_fail(EINVAL, "KCIDB origin '%s': must be a non-empty [a-z0-9_]+ name",
				  o->origin ? o->origin : "(none)");
	if (!valid_object_id(o->build_id))
		return ksftm_fail(EINVAL, "KCIDB build id '%s': must be ORIGIN:ID, ORIGIN a [a-z0-9_]+ name",
				  o->build_id ? o->build_id : "(none)");
	if (o->start_time && !valid_time(o->start_time))
		return ksftm_fail(EINVAL, "KCIDB start time '%s': not an RFC 3339 date-time (2026-12-01T07:55:00Z)",
				  o->start_time);
	if (o->run_id && !*o->run_id)
		return ksftm_fail(EINVAL, "KCIDB run id: empty");
	ctx = context_with(r, o->context, o->n_context, &err);
	if (!ctx)
		return err;
	canon_json_emit(&ctx_text, ctx);
	/* No start time given: the run's own (its context's "time"), never
	 * the conversion's clock, so two conversions of one log are the same
	 * bytes (issue 40); none there: left out. */
	lo = *o;
	if (!lo.start_time && json_is_string(json_object_get(ctx, "time")) &&
	    valid_time(json_string_value(json_object_get(ctx, "time"))))
		lo.start_time = time_text = strdup(json_string_value(json_object_get(ctx, "time")));
	o = &lo;
	json_decref(ctx);
	memset(&ix, 0, sizeof(ix));
	if (o->comparison && export_rowix_build(o->comparison, &ix)) {
		strbuf_free(&ctx_text);
		free(time_text);
		return -ENOMEM;
	}
	if (o->run_id) {
		run.a = 0xcbf29ce484222325ull;
		run.b = 0x84222325cbf29ce4ull;
		hash_add(&run, o->run_id, strlen(o->run_id));
	} else if (content_hash(r, &run)) {
		free(time_text);
		return -ENOMEM;
	}
	snprintf(head, sizeof(head), "{\"version\":{\"major\":%d,\"minor\":%d},\n\"tests\":[",
		 KCIDB_MAJOR, KCIDB_MINOR);
	strbuf_adds(sb, head);
	for (i = 0; !err && i < r->n_series; i++) {
		strbuf_adds(sb, i ? ",\n" : "\n");
		err = kcidb_test(sb, r->series[i], o, &run,
				 ctx_text.data ? ctx_text.data : "{}", &ix);
	}
	strbuf_adds(sb, "]}\n");
	export_rowix_free(&ix);
	strbuf_free(&ctx_text);
	free(time_text);
	return err ? err : sb->oom ? -ENOMEM : 0;
}
