/* The history's series rows and the multi-row statements ingest writes
 * with (history.h): below both ingest (history_ingest.c) and the gate
 * (history_gate.c), which look a run's series up once and share the ids. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "errmsg.h"
#include "history.h"
#include "strbuf.h"

/*
 * Rows per multi-row statement on PostgreSQL: a run's rows go in a few
 * statements (one round trip each), not 2-3 per series. 14 parameters a
 * result row: well under its 65,535. SQLite has no round trips, and its
 * parser's cost grows with the square of a statement's parameters: one
 * row per statement there, each statement prepared once (db_sqlite.c).
 */
size_t history_chunk_of(const struct db *db)
{
	return db_dialect(db) == DB_SQLITE ? 1 : INGEST_CHUNK;
}

/* @head, then @rows groups "(p, ..., p)" of @w parameters numbered from $1,
 * each "$N" or, @typed, "CAST($N AS TEXT)", then @tail. */
static char *multi_values(const char *head, size_t rows, int w, int typed, const char *tail)
{
	struct strbuf sb = STRBUF_INIT;
	char one[40];
	size_t k;
	int c;

	strbuf_adds(&sb, head);
	for (k = 0; k < rows; k++) {
		strbuf_adds(&sb, k ? ", (" : "(");
		for (c = 0; c < w; c++) {
			if (c)
				strbuf_adds(&sb, ", ");
			snprintf(one, sizeof(one), typed ? "CAST($%d AS TEXT)" : "$%d",
				 (int)k * w + c + 1);
			strbuf_adds(&sb, one);
		}
		strbuf_addc(&sb, ')');
	}
	strbuf_adds(&sb, tail);
	if (sb.oom) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* multi_values() of @m rows, the text kept in @sql while @m stays the
 * same (on SQLite every statement is one row: built once, not per row). */
const char *history_multi_values_of(char **sql, size_t *sql_m, const char *head, size_t m,
				    int w, int typed, const char *tail)
{
	if (!*sql || *sql_m != m) {
		free(*sql);
		*sql = multi_values(head, m, w, typed, tail);
		*sql_m = m;
	}
	return *sql;
}

/* A series' identity: its path, case, metric and labels, in one statement. */
static const char lookup_one_sql[] =
	"SELECT id FROM ksftm_series WHERE path = $1 AND case_name = $2 AND metric = $3"
	" AND labels = $4";

/* The series of the newest run, with their identities: most of a run's
 * series were in the run before it. */
static const char newest_run_series_sql[] =
	"SELECT s.id, s.path, s.case_name, s.metric, s.labels FROM ksftm_results res"
	" JOIN ksftm_series s ON s.id = res.series_id"
	" WHERE res.run_id = (SELECT MAX(id) FROM ksftm_runs)";

/* Fewer series than this are looked up one by one only. */
#define NEWEST_RUN_MIN 16

/* @h with @s mixed in eight bytes a step (an identity is 100-200 bytes:
 * a byte a step was 2 % of an ingest); equal hashes are compared whole. */
static uint64_t part_hash(uint64_t h, const char *s)
{
	size_t len = strlen(s), k;
	uint64_t w;

	for (k = 0; k + 8 <= len; k += 8) {
		memcpy(&w, s + k, 8);
		h = (h ^ w) * 1099511628211ULL;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, s + k, len - k);
	h = (h ^ w ^ (uint64_t)len << 56) * 1099511628211ULL;
	return h ^ h >> 29;
}

static unsigned long identity_hash(const char *path, const char *case_name, const char *metric,
				   const char *labels)
{
	const char *part[4] = { path, case_name, metric, labels };
	uint64_t h = 1469598103934665603ULL;
	int k;

	for (k = 0; k < 4; k++)
		h = part_hash(h, part[k] ? part[k] : "");
	return (unsigned long)h;
}

/*
 * SQLite: the ids of @keys[@todo[0..n_todo)] that the newest run holds,
 * from one query (its series with their identities, matched byte for
 * byte as the look-up's "=" compares), instead of one look-up each; the
 * others keep id 0 and are looked up one by one after (issue 45: two
 * look-ups of a 1,000-series run were 20 M of an ingest's instructions).
 */
static int lookup_newest_run(struct db *db, struct history_key *keys, const size_t *todo,
			     size_t n_todo)
{
	size_t cap = 1, k, j;
	size_t *slot;
	unsigned long *hash;
	struct db_rows *rows = NULL;
	int ret;

	while (cap < 2 * n_todo)
		cap *= 2;
	slot = malloc(cap * sizeof(*slot));
	hash = malloc((n_todo ? n_todo : 1) * sizeof(*hash));
	if (!slot || !hash) {
		free(slot);
		free(hash);
		return ksftm_oom();
	}
	for (j = 0; j < cap; j++)
		slot[j] = (size_t)-1;
	for (k = 0; k < n_todo; k++) {
		const struct history_key *it = &keys[todo ? todo[k] : k];

		hash[k] = identity_hash(it->path, it->case_name, it->metric, it->labels);
		for (j = hash[k] & (cap - 1); slot[j] != (size_t)-1; j = (j + 1) & (cap - 1))
			;
		slot[j] = k;
	}
	ret = db_query(db, newest_run_series_sql, NULL, 0, &rows);
	for (k = 0; !ret && k < db_rows_count(rows); k++) {
		const char *path = db_rows_get(rows, k, 1), *cn = db_rows_get(rows, k, 2);
		const char *metric = db_rows_get(rows, k, 3), *labels = db_rows_get(rows, k, 4);
		long long id;
		unsigned long h;

		if (!db_rows_int64(rows, k, 0, &id) || !path || !cn || !metric || !labels)
			continue;	/* not a match: the look-up says what it finds */
		h = identity_hash(path, cn, metric, labels);
		for (j = h & (cap - 1); slot[j] != (size_t)-1; j = (j + 1) & (cap - 1)) {
			struct history_key *it = &keys[todo ? todo[slot[j]] : slot[j]];

			if (hash[slot[j]] == h && it->path && it->case_name && it->metric &&
			    it->labels && !strcmp(it->path, path) &&
			    !strcmp(it->case_name, cn) && !strcmp(it->metric, metric) &&
			    !strcmp(it->labels, labels))
				it->id = id;
		}
	}
	db_rows_free(rows);
	free(slot);
	free(hash);
	return ret;
}

/*
 * One pass over the series @todo[0..@n_todo) of @keys, chunk by chunk:
 * @insert, an INSERT ... ON CONFLICT DO NOTHING of their identities; else
 * their ids: on PostgreSQL a SELECT joining a chunk (VALUES) to the unique
 * index, on SQLite the one-series look-up, prepared once.
 */
int history_series_pass(struct db *db, struct history_key *keys, size_t n, const size_t *todo,
			size_t n_todo, int insert)
{
	const char **p = calloc(INGEST_CHUNK * 5, sizeof(*p));
	char (*idx)[24] = calloc(INGEST_CHUNK, sizeof(*idx));
	struct db_rows *rows = NULL;
	size_t k, from, m, sql_m = 0;
	char *sql = NULL;
	int ret = 0, w = insert ? 4 : 5, lite_get = !insert && db_dialect(db) == DB_SQLITE;

	if (!p || !idx)
		ret = ksftm_oom();
	else if (lite_get && n_todo >= NEWEST_RUN_MIN)
		ret = lookup_newest_run(db, keys, todo, n_todo);
	for (from = 0; from < n_todo && !ret; from += m) {
		const char *text;

		m = n_todo - from < history_chunk_of(db) ? n_todo - from : history_chunk_of(db);
		if (lite_get && keys[todo ? todo[from] : from].id)
			continue;	/* the newest run had it */
		for (k = 0; k < m; k++) {
			const struct history_key *it = &keys[todo ? todo[from + k] : from + k];
			const char **q = p + (size_t)w * k;

			if (!insert && !lite_get) {
				snprintf(idx[k], sizeof(idx[k]), "%zu", todo ? todo[from + k] : from + k);
				*q++ = idx[k];
			}
			q[0] = it->path;
			q[1] = it->case_name;
			q[2] = it->metric;
			q[3] = it->labels;
		}
		if (lite_get) {
			ret = db_query(db, lookup_one_sql, p, 4, &rows);
			if (!ret && db_rows_count(rows))
				db_rows_int64(rows, 0, 0, &keys[todo ? todo[from] : from].id);
			db_rows_free(rows);
			rows = NULL;
			continue;
		}
		text = insert ? history_multi_values_of(&sql, &sql_m, "INSERT INTO ksftm_series (path,"
						 " case_name, metric, labels) VALUES ", m, 4, 0,
						 " ON CONFLICT DO NOTHING") :
			      history_multi_values_of(&sql, &sql_m, "SELECT v.column1, s.id FROM (VALUES ",
					      m, 5, 1, ") v JOIN ksftm_series s ON s.path = v.column2"
					      " AND s.case_name = v.column3 AND s.metric = v.column4"
					      " AND s.labels = v.column5");
		ret = text ? db_query(db, text, p, (int)((size_t)w * m), insert ? NULL : &rows) :
			     ksftm_oom();
		for (k = 0; !ret && k < db_rows_count(rows); k++) {
			const char *at = db_rows_get(rows, k, 0), *id = db_rows_get(rows, k, 1);
			char *end = NULL;
			unsigned long j = at ? strtoul(at, &end, 10) : 0;

			if (at && end != at && j < n && id)
				db_rows_int64(rows, k, 1, &keys[j].id);
		}
		db_rows_free(rows);
		rows = NULL;
	}
	free(sql);
	free(p);
	free(idx);
	return ret;
}

int history_series_lookup(struct db *db, struct history_key *keys, const size_t *todo,
			  size_t n_todo)
{
	return history_series_pass(db, keys, SIZE_MAX, todo, n_todo, 0);
}

int history_series_id_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}
