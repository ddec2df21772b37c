/*
 * The run history: every ingested run's series (identity, policy, processed
 * samples, summaries, case status) with its context and CI order, in SQLite
 * or PostgreSQL (db.h), under one versioned schema. Built on the public
 * report API only: what is stored is what every consumer sees.
 */
#ifndef KSFTM_HISTORY_H
#define KSFTM_HISTORY_H

#include <stddef.h>

#include <ksftmetric/report.h>

#include "db.h"

/* Schema version this code writes; older ones are migrated at open. */
#define HISTORY_SCHEMA_VERSION 3

struct history;

/*
 * Open (creating or migrating the schema). @return 0, -ENOTSUP, -EIO,
 * -EPROTO (a schema newer than this code), -ENOMEM.
 */
int history_open(const char *url, struct history **out);
/* The same, creating or migrating up to @version only (the migration
 * tests make old histories with it). */
int history_open_version(const char *url, long version, struct history **out);
void history_close(struct history *h);
struct db *history_db(struct history *h);
/* The history behind a public handle (history_api.c). */
struct ksft_metric_report_history;
struct history *history_of(struct ksft_metric_report_history *k);

/*
 * Before writing: create or migrate the schema (in its own write
 * transaction) when the open found it older. Before reading: an older
 * schema is -EPROTO saying that a writer migrates it first (readers never
 * write or take the write lock). @return 0 or a negative errno.
 */
int history_writable(struct history *h);
int history_readable(struct history *h);
/* Readable by a query that needs only what schema @version has (the
 * history check, which ingest asks before it migrates). */
int history_readable_from(struct history *h, long version);

/*
 * A JSON column of a row (@column "table.column", the row named by @row,
 * e.g. "ksftm_runs.id = 3"): NULL or malformed text is -EBADMSG naming
 * them, never "out of memory". history_path_parts() also wants an array
 * of strings, and gives them as @parts (free() it; they live in @path).
 */
struct json_t;
int history_json(struct db *db, const char *text, const char *column, const char *row,
		 struct json_t **out);
int history_path_parts(struct db *db, const char *text, const char *row, struct json_t **path,
		       const char ***parts, size_t *n);

/*
 * A run's order (run_order.c). The stored order is the CI's text (an ISO
 * 8601 date-time with a zone converted to UTC, "YYYY-MM-DDTHH:MM:SS.ffffffZ",
 * so that offsets compare), then HISTORY_ORDER_SEP and the run id: a total
 * order, ties broken by the id (derived from the content by default), never
 * by when a run was ingested. Orders and ids hold no control character, so
 * the separator sorts before anything that could follow a shorter order.
 */
#define HISTORY_ORDER_SEP "\x01"
/* The run context's key for when the run started (UTC ISO 8601). */
#define HISTORY_CONTEXT_TIME "time"
struct json_t;
/* @order as stored (malloc'd in @out); -EINVAL naming @what when it looks
 * like a date-time but is not one. */
int run_order_normalise(const char *what, const char *order, char **out);
/* The order of a run the CI gave none: the context's HISTORY_CONTEXT_TIME,
 * else the database's clock (PostgreSQL's server, not this client's), and
 * never before the newest run of machines @cmp when that is a time. */
int run_order_default(struct db *db, struct json_t *ctx, const char *cmp, char **out);
/* The stored order (with its run id) of the run of content key @content
 * and comparability key @cmp, malloc'd in *@out; NULL when there is none
 * (run_order.c). 0 or a negative errno. */
int history_stored_order(struct db *db, const char *content, const char *cmp, char **out);
/* @order HISTORY_ORDER_SEP @run_key (malloc'd; NULL: out of memory). */
char *run_order_key(const char *order, const char *run_key);
/* How much of a stored order is the CI's text (before the separator). */
size_t run_order_shown_len(const char *stored);


/*
 * A stored scalar result (its value @val when @has_val, else NULL, the
 * compare statistic it was stored as @stored_op, NULL: p50, its summaries' JSON @summary) as
 * statistic @op: the value when stored as @op, else @op from the
 * summaries, so a policy that moved from p50 to p90 judges p90 against
 * p90 (issue 31). 1 and *@x, 0 (no such number), or -EAGAIN: the
 * summaries are needed and @summary is NULL (not read); no message.
 */
int history_value_as(int has_val, double val, const char *stored_op, const char *summary,
		     const char *op, double *x);

/* One run to ingest. */
struct history_run {
	const char *run_key;	/* unique; NULL: derived from the content */
	const char *order;	/* CI order (commit date...); NULL: run_order_default() */
	/* Context keys: "KEY=VALUE" items, over the logs' context lines. */
	const char *const *context;
	size_t n_context;
	size_t window;		/* the gate's window at ingest (0: 30) */
	double fdr;		/* and its false-alarm rate (0: 0.01) */
};

/*
 * The history document (history_query.c), in steps judge/history_document.c
 * takes: the options checked (the history readable, --context items);
 * the series with their points (@all; for the band, "_sid" on each series,
 * its id, and "_rep", "_cmp", "_ord" on each point, its repeats, machines
 * and stored order) and the comparable keys (*@keys, JSON text); with
 * @bands and o->report, the report's comparability key (*@run_cmp); then
 * the document around @all (those private keys removed; @all stays the
 * caller's).
 */
int history_query_check(struct history *h, const struct ksft_metric_report_history_opts *o);
int history_query_series(struct history *h, const struct ksft_metric_report_history_opts *o,
			 int bands, struct json_t **all, char **keys, char **run_cmp);
int history_query_document(struct json_t *all, const char *keys, struct json_t **out);

/* Triage (history_triage.c). Accept @run_key's regressions (series title
 * containing @series, NULL: all): see ksft_metric_report_history_accept();
 * @return the number of series re-levelled. Pin: @return the number of
 * series whose accepted level starts after the pinned run (the level wins). */
int history_accept(struct history *h, const char *run_key, const char *series);
int history_pin(struct history *h, const char *run_key, int pinned);
/*
 * Delete the runs that no judgement of a next run reads, keeping the
 * newest @keep of each series and machines (history_prune.c): -EINVAL
 * when @keep is under the window (@window runs, 0: the default) or the
 * gate's recent runs. *@runs and *@results: what was (@dry_run: would
 * be) deleted. One write transaction.
 */
int history_prune(struct history *h, size_t keep, size_t window, int dry_run,
		  size_t *runs, unsigned long long *results);

/* A run id or order as the history keeps it: valid UTF-8 without control
 * characters. @return 0 or -EINVAL with a message naming @field. */
int history_check_text(const char *field, const char *s);

/*
 * The comparability key of a run context: its values of the keys named by
 * the JSON array @keys_json, all as text, as canonical JSON (malloc'd;
 * NULL: out of memory).
 */
char *history_comparable(struct json_t *ctx, const char *keys_json);

/* A run's context: its logs' context lines, @run's KEY=VALUE items over
 * them. @return 0, -EINVAL (a bad item), -ENOMEM. */
int history_run_context(const struct ksft_metric_report *r, const struct history_run *run,
			struct json_t **out);

/* The comparable keys this history uses (malloc'd JSON array). */
int history_comparable_keys(struct history *h, char **keys_json);

/* Is a result of this case status a measurement that may feed baselines
 * (HISTORY_MEASURED_STATUSES)? */
int history_status_measured(const char *status);

/* A series' identity as the history stores it: the path as JSON text. */
char *history_path_json(const char *const *path, size_t n);

/* One series' identity as ksftm_series keeps it, and its id (0: none). */
struct history_key {
	const char *path;	/* history_path_json() */
	const char *case_name, *metric, *labels;
	long long id;
	/* Ingest's (has_first): series_summary() by the gate's statistic,
	 * its count and first value, for the gate's reader. */
	int has_first, width;
	double first;
};

/*
 * The ids of @keys[@todo[0..@n_todo)] (all of @keys when @todo is NULL;
 * an identity the history lacks keeps id 0): per INGEST_CHUNK series one
 * statement on PostgreSQL, one prepared look-up per series on SQLite.
 * @return 0 or a negative errno.
 */
int history_series_lookup(struct db *db, struct history_key *keys, const size_t *todo,
			  size_t n_todo);

/*
 * One pass over the series @todo[0..@n_todo) of @keys[0..@n) (history_series.c):
 * @insert, an INSERT ... ON CONFLICT DO NOTHING of their identities; else
 * their ids. @return 0 or a negative errno.
 */
int history_series_pass(struct db *db, struct history_key *keys, size_t n, const size_t *todo,
			size_t n_todo, int insert);

/* qsort()/bsearch() order of series ids (long long), history_series.c:
 * the readers that keep a sorted set of ids share it. */
int history_series_id_cmp(const void *a, const void *b);

/*
 * Rows per multi-row statement on PostgreSQL: a run's rows go in a few
 * statements (one round trip each), not 2-3 per series; SQLite, one row
 * per statement, each prepared once (history_series.c).
 */
#define INGEST_CHUNK 256
/*
 * A run's results on SQLite, rows per INSERT: a statement's own cost (its
 * cursors opened, its end) shared by 16 rows was 22 % of inserting one
 * (issue 45: 29 k instructions a row alone, 23 k in 16); preparing a
 * statement of 16 rows (224 parameters) costs about half a million, once.
 */
#define INGEST_LITE_CHUNK 16
size_t history_chunk_of(const struct db *db);

/* @head, @m groups "(p, ..., p)" of @w parameters ($N or, @typed,
 * CAST($N AS TEXT)), @tail; the text kept in @sql while @m stays the same.
 * NULL when out of memory. */
const char *history_multi_values_of(char **sql, size_t *sql_m, const char *head, size_t m,
				    int w, int typed, const char *tail);

/* How the gate judges one run against the history: what its window
 * reads (history_window_read.c) and how judge/history_gate.c judges. */
struct hgate_opts {
	const char *comparable;	/* the run's comparability key */
	const char *order;	/* windows hold runs before it; NULL: all */
	int incomparable;	/* the run itself is ruled out */
	size_t window;
	double fdr;
	int allow_missing;
	/* Not the series the run lacks: the band, and ingest, which keeps
	 * only the run's own series' verdicts (history_compare_verdicts();
	 * a lacking series' row changes no other row's verdict). */
	int windows_only;
	/* Only the run's verdicts are kept (ingest, its replays): an
	 * untracked scalar series is "untracked" whatever its window holds
	 * once it holds a value (judge/history_gate.c: no tolerance, no
	 * test, no budget of the run's), so its newest value alone is read
	 * (history_window_probe()); not an interference series, whose
	 * window tells a disturbed run. */
	int verdicts_only;
};

#endif
