/*
 * A series' test path as the history stores it (a JSON array of names) and
 * the JSON columns read back with their checks (a value as another compare
 * statistic, from its summaries). Storing (history_ingest.c),
 * querying (history_query.c) and judging (history_gate.c) all use them.
 */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "errmsg.h"
#include "history.h"

/* Is @s printable ASCII that JSON quotes as it is (no '"', no '\\')? */
static int plain_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f || *s == '"' || *s == '\\')
			return 0;
	return 1;
}

/*
 * The path as jansson's compact, ASCII-escaped dump writes it, which is the
 * series' identity in the history: printable ASCII names (all a kselftest
 * path holds) are quoted directly, byte for byte what jansson writes; any
 * other name sends the whole path through jansson.
 */
char *history_path_json(const char *const *path, size_t n)
{
	json_t *a;
	size_t k, len = 3;
	char *s, *at;

	for (k = 0; k < n && path[k] && plain_ascii(path[k]); k++)
		len += strlen(path[k]) + 3;
	if (k == n) {
		at = s = malloc(len);
		if (!s)
			return NULL;
		*at++ = '[';
		for (k = 0; k < n; k++) {
			size_t m = strlen(path[k]);

			if (k)
				*at++ = ',';
			*at++ = '"';
			memcpy(at, path[k], m);
			at += m;
			*at++ = '"';
		}
		*at++ = ']';
		*at = '\0';
		return s;
	}
	a = json_array();

	for (k = 0; k < n; k++)
		json_array_append_new(a, json_string(path[k]));
	s = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII |
			  JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
	json_decref(a);
	return s;
}

int history_json(struct db *db, const char *text, const char *column, const char *row,
		 json_t **out)
{
	json_error_t err;

	*out = NULL;
	if (!text)
		return ksftm_fail(EBADMSG, "history database %s: %s is NULL in the row with %s",
				  db_name(db), column, row);
	*out = json_loads(text, JSON_DECODE_ANY, &err);
	if (!*out)
		return ksftm_fail(EBADMSG, "history database %s: %s in the row with %s is not"
				  " JSON: %s", db_name(db), column, row, err.text);
	return 0;
}

int history_path_parts(struct db *db, const char *text, const char *row, json_t **path,
		       const char ***parts, size_t *n)
{
	size_t k, m;
	int ret = history_json(db, text, "ksftm_series.path", row, path);

	*parts = NULL;
	*n = 0;
	if (ret)
		return ret;
	m = json_array_size(*path);
	for (k = 0; k < m && json_is_string(json_array_get(*path, k)); k++)
		;
	if (!json_is_array(*path) || k < m) {
		json_decref(*path);
		*path = NULL;
		return ksftm_fail(EBADMSG, "history database %s: ksftm_series.path in the row with"
				  " %s is not an array of strings", db_name(db), row);
	}
	*parts = calloc(m ? m : 1, sizeof(**parts));
	if (!*parts) {
		json_decref(*path);
		*path = NULL;
		return ksftm_oom();
	}
	for (k = 0; k < m; k++)
		(*parts)[k] = json_string_value(json_array_get(*path, k));
	*n = m;
	return 0;
}

int history_value_as(int has_val, double val, const char *stored_op, const char *summary,
		     const char *op, double *x)
{
	json_t *sum, *one;
	int got;

	if (!strcmp(stored_op ? stored_op : "p50", op)) {
		if (has_val)
			*x = val;
		return has_val;
	}
	if (!summary)
		return -EAGAIN;	/* read again with the summaries */
	sum = json_loads(summary, 0, NULL);
	one = json_object_get(sum, op);
	got = json_is_number(one);
	if (got)
		*x = json_number_value(one);
	json_decref(sum);
	return got;
}
