/*
 * The run context: the context lines of all inputs merged into one object
 * (ksft_metric_report_context_json()).
 */
#include <jansson.h>
#include <stdlib.h>

#include "rp.h"

/*
 * Each test program of a run may print its context line (run_kselftest
 * nests them); they describe one machine and kernel, so they are merged.
 * A key whose value differs between lines is kept from the first, with a
 * warning: two machines in one log are not one run.
 */
void rp_context_merge(struct ksft_metric_report *r, const char *file,
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
		else if (!json_equal(old, v))
			rp_warn(r, file, line, "run context \"%s\" differs from an earlier "
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
