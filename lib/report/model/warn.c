/*
 * Warnings about the inputs (warn_add(), ksft_metric_report_warnings()) and
 * the strings the handle keeps for them and for the series it returns.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <ksftmetric/report.h>

#include "canon.h"
#include "report.h"
#include "warn.h"

static const char *keep_owned(struct ksft_metric_report *r, char *s)
{
	if (!s)
		return NULL;
	if (r->n_strings == r->cap_strings) {
		size_t cap = r->cap_strings ? r->cap_strings * 2 : 32;
		char **v = realloc(r->strings, cap * sizeof(*v));

		if (!v) {
			free(s);
			return NULL;
		}
		r->strings = v;
		r->cap_strings = cap;
	}
	r->strings[r->n_strings++] = s;
	return s;
}

const char *warn_keep_string(struct ksft_metric_report *r, const char *s)
{
	return keep_owned(r, canon_text_dup(s, strlen(s)));
}

void warn_add(struct ksft_metric_report *r, const char *file,
	      unsigned long line, const char *fmt, ...)
{
	struct rp_warning_store *w = &r->warn;
	const char *reason;
	char *s;
	va_list ap;

	w->total++;
	if (w->n >= r->max_warnings)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	/* Reasons quote the input: keep them printable, valid UTF-8. */
	reason = s ? warn_keep_string(r, s) : NULL;
	free(s);
	if (!reason)
		return;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		struct ksft_metric_report_warning *v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n].file = file;
	w->v[w->n].line = line;
	w->v[w->n].reason = reason;
	w->n++;
}

KSFT_METRIC_REPORT_API size_t
ksft_metric_report_warnings(const struct ksft_metric_report *r,
			    const struct ksft_metric_report_warning **list,
			    size_t *total)
{
	if (!r) {
		if (list)
			*list = NULL;
		if (total)
			*total = 0;
		return 0;
	}
	if (list)
		*list = r->warn.v;
	if (total)
		*total = r->warn.total;
	return r->warn.n;
}

/* A producer's refused call ("ktap-metric-warning-json"): one warning. */
void warn_reject_line(struct ksft_metric_report *r, const char *file,
		      unsigned long line, const char *p, const char *end)
{
	json_t *j = json_loadb(p, (size_t)(end - p), 0, NULL);
	const char *call = json_string_value(json_object_get(j, "call"));
	const char *name = json_string_value(json_object_get(j, "name"));
	const char *msg = json_string_value(json_object_get(j, "message"));
	const char *en = json_string_value(json_object_get(j, "errno"));
	json_int_t count = json_integer_value(json_object_get(j, "count"));

	if (!json_is_object(j) || !call || !msg)
		warn_add(r, file, line, "ktap-metric-warning-json is not a refused-call object; ignored");
	else if (count > 1)
		warn_add(r, file, line, "producer call refused: %s(%s): %s%s%s (%lld times)",
			 call, name ? name : "", en ? en : "", en ? ": " : "", msg,
			 (long long)count);
	else
		warn_add(r, file, line, "producer call refused: %s(%s): %s%s%s",
			 call, name ? name : "", en ? en : "", en ? ": " : "", msg);
	json_decref(j);
}
