/*
 * The change points of each series of the history document (history.h):
 * E-divisive means over the points' values, each judged by a Welch
 * t-test (changepoint.h), as the series' "changes".
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "changepoint.h"
#include "errmsg.h"
#include "history_judge.h"

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Series @series' change points (points without a value are skipped). */
static int add_changes(json_t *series, json_t *points)
{
	size_t n = json_array_size(points), m = 0, k;
	double *x = malloc((n ? n : 1) * sizeof(*x));
	size_t *at = malloc((n ? n : 1) * sizeof(*at));
	json_t *changes = json_array(), *p;
	struct changepoint *cp = NULL;
	int found;

	if (!x || !at || !changes) {
		free(x);
		free(at);
		json_decref(changes);
		return ksftm_oom();
	}
	json_array_foreach(points, k, p) {
		json_t *v = json_object_get(p, "value");

		if (json_is_number(v)) {
			x[m] = json_number_value(v);
			at[m++] = k;
		}
	}
	found = changepoint_find(x, m, NULL, &cp);
	for (k = 0; found > 0 && k < (size_t)found; k++) {
		json_t *pt = json_array_get(points, at[cp[k].index]);

		json_array_append_new(changes, json_pack("{s:I,s:O,s:O,s:o,s:o,s:o,s:o}",
			"index", (json_int_t)at[cp[k].index],
			"run", json_object_get(pt, "run"), "order", json_object_get(pt, "order"),
			"before", num_or_null(cp[k].before), "after", num_or_null(cp[k].after),
			"change_pct", num_or_null(cp[k].change * 100.0),
			"p_value", num_or_null(cp[k].p_value)));
	}
	free(cp);
	free(x);
	free(at);
	json_object_set_new(series, "changes", changes);
	return found < 0 ? ksftm_oom() : 0;
}

int history_changes_add(json_t *all)
{
	json_t *series;
	size_t i;
	int ret = 0;

	json_array_foreach(all, i, series)
		if ((ret = add_changes(series, json_object_get(series, "points"))))
			break;
	return ret;
}
