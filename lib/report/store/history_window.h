/*
 * The rows the history gate judges, read from the history
 * (history_window.c): each series' window, its recent runs, whether it
 * has any result at all, the accepted levels and the latest pin, the
 * series a run lacks. judge/history_gate.c judges them.
 */
#ifndef KSFTM_HISTORY_WINDOW_H
#define KSFTM_HISTORY_WINDOW_H

#include <stddef.h>
#include <string.h>

#include "db.h"
#include "history.h"
#include "history_sql.h"
#include "window_rule.h"

/*
 * Rows @from..@from+@n of @rows, columns from @col: one series' window or
 * recent runs, a query of its own (SQLite: an index range scan prepared
 * once) or a slice of one batched query for many series (PostgreSQL: one
 * round trip per batch of series, not one per series).
 */
struct history_window_span {
	struct db_rows *rows;
	size_t from, n;
	int col;
	int owned;	/* @rows is this span's alone */
};

static inline const char *history_window_span_get(const struct history_window_span *sp,
						   size_t k, int c)
{
	return db_rows_get(sp->rows, sp->from + k, sp->col + c);
}

/* Cell @c of row @k as a number (db_rows_double()): 1 and *@x, 0 for NULL. */
static inline int history_window_span_double(const struct history_window_span *sp, size_t k,
					     int c, double *x)
{
	return db_rows_double(sp->rows, sp->from + k, sp->col + c, x);
}

static inline void history_window_span_release(struct history_window_span *sp)
{
	if (sp->owned)
		db_rows_free(sp->rows);
	memset(sp, 0, sizeof(*sp));
}

struct history_window_level;

/* What the gate reads of one run's machines (hgate_opts). */
struct history_window {
	struct db *db;
	const struct ksft_metric_report *r;
	const struct hgate_opts *o;
	const struct history_key *keys;	/* series i's identity and id (0: none) */
	char *pinned;		/* latest pinned run's order, or NULL */
	struct history_window_level *levels;	/* accepted levels, by id */
	size_t n_levels;
	struct db_rows *level_rows;	/* their storage */
	char window_q[sizeof(HISTORY_WINDOW_SQL) + 24];
	char scalar_q[sizeof(HISTORY_WINDOW_SQL) + 24];	/* the same without the summaries */
	/* The two before an order, for a series with no pin and no level
	 * to bound its window (three parameters, not five). */
	char window_plain_q[sizeof(HISTORY_WINDOW_SQL) + 24];
	char scalar_plain_q[sizeof(HISTORY_WINDOW_SQL) + 24];
	/* The scalar ones' newest value only (history_window_probe()). */
	char probe_q[sizeof(HISTORY_WINDOW_SQL) + 24];
	char probe_plain_q[sizeof(HISTORY_WINDOW_SQL) + 24];
	struct history_window_span *win;	/* PostgreSQL: every series' window */
	struct history_window_span *shift;	/* and its recent runs */
	struct history_window_span *any;	/* a row if an empty window's series has any */
	struct db_rows **batches;	/* their storage */
	size_t n_batches, cap_batches;
};

/* @w for run @r on @db with @o and its series' @keys: the latest pin and
 * the accepted levels read once. history_window_close() in any case. */
int history_window_open(struct history_window *w, struct db *db,
			const struct ksft_metric_report *r, const struct hgate_opts *o,
			const struct history_key *keys);
void history_window_close(struct history_window *w);

/* The order where series @id's accepted level starts, or NULL. */
const char *history_window_level(const struct history_window *w, long long id);
/* The pinned order that ends series @id's window, or NULL. */
const char *history_window_pin(const struct history_window *w, long long id);

/* PostgreSQL: every known series' window (and whether an empty one's
 * series has any result), batched; nothing on SQLite. */
int history_window_prefetch(struct history_window *w, size_t n);
/* The window of series @i, newest first (@scalar: its values only, not
 * the summaries an array's elements need). */
int history_window_of(struct history_window *w, size_t i, int scalar,
		      struct history_window_span *out);
/* Series @i's window's newest value alone (a scalar series whose
 * verdict only its window's being empty or not can change); on
 * PostgreSQL, whose batch fetched the window, all of it. */
int history_window_probe(struct history_window *w, size_t i, struct history_window_span *out);
/* Has series @i any result on these machines before the run? */
int history_window_has_any(struct history_window *w, size_t i, int *any);

/* PostgreSQL: the recent runs of the series @idx[0..m), batched. */
int history_window_prefetch_recent(struct history_window *w, const size_t *idx, size_t m);
/* The recent runs of series @i (id @id), newest first (HISTORY_SHIFT_SQL's
 * columns). */
int history_window_recent(struct history_window *w, size_t i, long long id,
			  struct history_window_span *out);

/* Series @id's runs before its accepted level (HISTORY_SHIFT_SQL's
 * columns, newest first; none without a level): the noise the series
 * showed before it, while the new level has few runs of its own. */
int history_window_before_level(struct history_window *w, long long id,
				struct history_window_span *out);

/* The series of the recent comparable runs (series id, ?better), checked. */
int history_window_missing(struct history_window *w, struct db_rows **rows);
/* Series @id's row (path, case name, metric, labels), checked, with its
 * path's @parts[0..*m) (free() @parts; they live in @path, json_decref()
 * it). */
int history_window_series(struct history_window *w, long long id, struct db_rows **rows,
			  struct json_t **path, const char ***parts, size_t *m);

/* @r's series' identities, the first @upto of them (the others zero),
 * ids 0 (not looked up yet); the paths are the caller's to free (also on
 * error: *@out is set). history_window_keys_fill(): series [@from, @to)'s. */
int history_window_keys(const struct ksft_metric_report *r, size_t upto, struct history_key **out);
int history_window_keys_fill(const struct ksft_metric_report *r, struct history_key *keys,
			     size_t from, size_t to);
/* @r's series' identities and ids (0: not in the history), one look-up
 * for the run; the paths are the caller's to free. */
int history_window_lookup_keys(struct db *db, const struct ksft_metric_report *r,
			       struct history_key **out);

/* One element's window, plain values (history_window_read()). */
struct history_window_elem {
	double *window;		/* the level's runs oldest first, then transients back */
	size_t n_window;
	size_t n_level;		/* of which the level's runs (before the transients) */
	char *oldest;		/* the oldest of them's run order (NULL: none) */
	char **orders;		/* a scalar tracked series': each level run's order,
				   oldest first (to hold runs out, read_recent()) */
};

/* What the gate judges series i of a run with, read from the history. */
struct history_window_in {
	const char *op;		/* the statistic it is judged by */
	int read;		/* its window was read: known, comparable, not failed */
	int width;		/* if read: series_summary(op)'s count and first */
	double first;		/* value, for the gate (not computed twice) */
	size_t n_rows;		/* the window's runs, whatever their statistic */
	int any;		/* an empty window's series has results before */
	int pinned;		/* its window ends at a pinned run */
	struct history_window_elem *elem;	/* the scalar at [0], else element e at [e] */
	size_t n_elem;
	int wants_recent;	/* and then its recent runs, oldest first: */
	double *recent;
	size_t *repeats;	/* each one's repeats */
	double *within;		/* and their variance */
	unsigned char *held;	/* 1: out of the level's window (flagged or held
				   out, window_rule.h, and no transient) */
	size_t n_recent;
	double *prior;		/* a young accepted level's: the runs before it,
				   oldest first, for their noise (else NULL) */
	size_t *prior_repeats;
	double *prior_within;
	size_t n_prior;
	int better;		/* the series' direction */
};

/* A series the recent comparable runs have and the run lacks. */
struct history_window_gone {
	long long id;
	int better;
	char **parts;		/* its path */
	size_t n_parts;
	char *case_name, *metric, *labels;
};

/* Everything the gate judges one run with (judge/history_gate.c). */
struct history_window_set {
	struct history_window_in *in;	/* per series of the run */
	size_t n;
	struct history_window_gone *gone;
	size_t n_gone;
};

/*
 * The gate's inputs for run @r on @db with @o, its series' @keys (id 0:
 * not in the history), read in one pass (history_window_read.c): windows,
 * then the series it lacks, then recent runs. history_window_set_free()
 * on success; nothing to free on error. @return 0 or a negative errno.
 */
int history_window_read(struct db *db, const struct ksft_metric_report *r,
			const struct hgate_opts *o, const struct history_key *keys,
			struct history_window_set *out);
void history_window_set_free(struct history_window_set *set);

#endif
