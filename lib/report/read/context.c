/*
 * The run context: the context lines of all inputs merged into one object
 * (ksft_metric_report_context_json()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "errmsg.h"
#include "report.h"
#include "warn.h"

/*
 * Each test program of a run may print its context line (run_kselftest
 * nests them); they describe one machine and kernel, so they are merged.
 * A key whose value differs between lines is kept from the first, with a
 * warning: two machines in one log are not one run.
 */
void context_merge(struct ksft_metric_report *r, const char *file,
		   unsigned long line, json_t *obj)
{
	const char *key;
	json_t *v, *old;
	char *text;

	if (!r->context && !(r->context = json_object()))
		return;
	json_object_foreach(obj, key, v) {
		old = json_object_get(r->context, key);
		if (!old)
			json_object_set(r->context, key, v);
		else if (!strcmp(key, "time") && json_is_string(old) && json_is_string(v)) {
			/* Each program and each repeat says when it started: the
			 * run started at the earliest (UTC text sorts as time). */
			if (strcmp(json_string_value(v), json_string_value(old)) < 0)
				json_object_set(r->context, key, v);
		} else if (!strcmp(key, "seed") || !strncmp(key, "seed_", 5)) {
			/* A run of several ksft-vm boots, one a seed (issue 42): the
			 * seeds, and what each produced (seed_spin, seed_urandom),
			 * differ by design; compare and save read each log's. */
		} else if (!json_equal(old, v))
			warn_add(r, file, line, "run context \"%s\" differs from an earlier "
				 "context line; the first is kept", key);
	}
	text = json_dumps(r->context, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	if (text) {
		free(r->context_json);
		r->context_json = text;
	}
}

KSFT_METRIC_REPORT_API const char *
ksft_metric_report_context_json(const struct ksft_metric_report *r)
{
	return r && r->context_json ? r->context_json : "{}";
}

json_t *context_with(const struct ksft_metric_report *r,
		     const char *const *kv, size_t n, int *err)
{
	json_t *ctx = r->context_json ? json_loads(r->context_json, 0, NULL)
				      : json_object();
	size_t i;

	*err = 0;
	if (!ctx)
		ctx = json_object();
	for (i = 0; ctx && i < n; i++) {
		const char *eq = kv[i] ? strchr(kv[i], '=') : NULL;
		char *key;
		json_t *v;

		if (!eq || eq == kv[i]) {
			*err = ksftm_fail(EINVAL, "context entry %zu '%s': not KEY=VALUE with a non-empty KEY",
					  i + 1, kv[i] ? kv[i] : "(null)");
			json_decref(ctx);
			return NULL;
		}
		key = strndup(kv[i], (size_t)(eq - kv[i]));
		v = json_string(eq + 1);
		if (!v) {	/* jansson refuses invalid UTF-8 */
			free(key);
			*err = ksftm_fail(EINVAL, "context entry %zu '%s': the value is not UTF-8 text",
					  i + 1, kv[i]);
			json_decref(ctx);
			return NULL;
		}
		if (!key || json_object_set_new(ctx, key, v)) {
			free(key);
			json_decref(ctx);
			ctx = NULL;
			break;
		}
		free(key);
	}
	if (!ctx)
		*err = ksftm_oom();
	return ctx;
}
