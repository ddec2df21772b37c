/*
 * The comparison table (comparison.c): its rows as the judges make them
 * (judge/compare.c against baseline files, judge/history_gate.c against
 * the history) and the writers render them (export/compare_format.c and
 * the others), with the spread of the values behind a row. In model/,
 * below both the judge and the export.
 */
#ifndef KSFTM_COMPARISON_H
#define KSFTM_COMPARISON_H

#include <ksftmetric/report.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "series.h"
#include "verdict_vocab.h"

struct rp_strpool;

/*
 * The values behind a row's baseline or current, for the text table's
 * "value (min…max)" or "value ± spread" (issue 34): their number, range,
 * median and robust spread (1.4826 MAD, the standard deviation of normal
 * data), in the values' own unit; n 0: none known.
 */
struct cmp_spread {
	size_t n;
	double lo, hi, mid, sd;
};

/*
 * What only some rows have, apart (issue 45: in every row they were a
 * third of a 344-byte row): the history gate's and seed judging's.
 * cmp_side_of() reads a row's, or the defaults below when it has none.
 */
struct cmp_side {
	/* What a series the history gate cannot judge would need (NaN: not
	 * known): its run-to-run noise and the smallest change this run could
	 * have shown (percent), the runs a lasting change of the tolerance
	 * takes to show and the repeats one run needs to show it (Inf: none). */
	double noise_pct, smallest_pct, need_runs, need_repeats;
	/* Why the history gate had no window for it (a static text), or NULL:
	 * an empty window is said, never silent (issue 31). */
	const char *why;
	/* DISTURBED: the interference row (index in the comparison's rows)
	 * that tripped it, -1: none; on that interference row, its z against
	 * its history's level (NaN: it did not trip). */
	long disturbed_by;
	double disturb_z;
	/* Judged seed by seed (compare_seeds.c): seeds a side (0: not), the
	 * shift's interval in percent of the baseline (NaN: unbounded), the
	 * seeds a side the rank test needs to reach alpha, the pairs when A
	 * and B were paired by seed, and the smallest
	 * change (percent) these seeds could show. */
	size_t seeds_a, seeds_b, seeds_needed;
	size_t seeds_paired;	/* seeds judged as pairs (0: not paired) */
	double shift_lo_pct, shift_hi_pct, seeds_resolution_pct;
};

/*
 * A row's spread of one side, compact (issue 45: two struct cmp_spread
 * were 80 of a row's 240 bytes, and most rows hold one value a side):
 * none, the one finite value itself, or several (malloc'd, freed with
 * the comparison). Its kind is the row's base_kind or cur_kind.
 */
enum { CMP_SPREAD_NONE, CMP_SPREAD_ONE, CMP_SPREAD_MANY };
union cmp_spread_slot {
	double one;
	struct cmp_spread *many;
};

/* A row's two sides, for compare_row_spread_of() and compare_row_spread(). */
enum { CMP_BASE, CMP_CUR };

/* A row's identity where it is not a held report's series: its own, in
 * the comparison's pool (rows of one series share it). */
struct cmp_ident {
	char **path;
	char *case_name, *name, *labels;
	size_t path_len;
};

struct cmp_row {
	/* Its identity (cmp_row_path() and the others read it): a series of
	 * c->held when held_series (issue 45: the identity was five fields,
	 * 40 bytes a row), else its own. */
	union {
		const struct rp_series *s;
		const struct cmp_ident *id;
	} who;
	double baseline, current, change_pct, allowance, p_value;
	const char *verdict;	/* KSFTM_VERDICT_* (verdict_vocab.h) */
	/* The policy's display_scale and display_label, one for the rows
	 * that share them (compare_display()); NULL: none (NaN, NULL). */
	const struct cmp_display *disp;
	struct cmp_side *side;	/* NULL: none (cmp_side_of() gives the defaults) */
	/* Baseline: with --baseline the pooled samples of its runs, with --db
	 * the window's run values; current: this run's samples
	 * (compare_row_spread() reads them whole). */
	union cmp_spread_slot spread[2];	/* [CMP_BASE], [CMP_CUR] */
	/* Counts in 32 bits (issue 45; 4 G values would be 32 GB). */
	uint32_t n_baseline, n_current, baseline_runs;
	int element;		/* an array's element; -1: a scalar */
	int series;		/* index in the current report; -1: none */
	/* The small codes and flags packed at the end: a whole run's
	 * comparison holds hundreds of thousands of rows (issue 45). */
	signed char compare;	/* RP_OP_* */
	signed char better;	/* +1, -1, 0 */
	unsigned char fails;
	unsigned char spread_kind[2];	/* CMP_SPREAD_* of spread[] */
	unsigned char beyond_floor : 1;	/* the samples show a change (p < alpha, or
				   all apart where alpha is out of reach, or
				   single values that differ) whatever the
				   verdict: the text shows its size even within
				   the tolerance */
	unsigned char has_current : 1;
	unsigned char aggregated : 1;	/* compared in busy cores (units.c's rule) */
	unsigned char blind : 1;	/* no value of this run could fail the series here */
	unsigned char held_series : 1;	/* who.s, not who.id */
};

/* A display a comparison's rows share (issue 45: a row's copy of its
 * label, and the scale beside it, were 16 bytes and a malloc a row). */
struct cmp_display {
	double scale;		/* NaN: none */
	char *label;		/* NULL: none */
	struct cmp_display *next;
};

/* The display of @scale and @label in @c (made on first use; none:
 * NULL); NULL with -ENOMEM in *@err. */
const struct cmp_display *compare_display(struct ksft_metric_report_comparison *c,
					  double scale, const char *label, int *err);

static inline double cmp_row_disp_scale(const struct cmp_row *row)
{
	return row->disp ? row->disp->scale : NAN;
}

static inline const char *cmp_row_disp_label(const struct cmp_row *row)
{
	return row->disp ? row->disp->label : NULL;
}

/* A row's identity. */
static inline char **cmp_row_path(const struct cmp_row *row)
{
	return row->held_series ? series_path(row->who.s) : row->who.id->path;
}

static inline size_t cmp_row_path_len(const struct cmp_row *row)
{
	return row->held_series ? series_path_len(row->who.s) : row->who.id->path_len;
}

static inline const char *cmp_row_case(const struct cmp_row *row)
{
	return row->held_series ? series_case_name(row->who.s) : row->who.id->case_name;
}

static inline const char *cmp_row_name(const struct cmp_row *row)
{
	return row->held_series ? series_name(row->who.s) : row->who.id->name;
}

static inline const char *cmp_row_labels(const struct cmp_row *row)
{
	return row->held_series ? series_labels(row->who.s) : row->who.id->labels;
}

/* What a row without a side record reads (NaN; disturbed_by -1; why
 * NULL; no seeds). */
extern const struct cmp_side cmp_side_none;

/* @row's side record, or the defaults when it has none. */
static inline const struct cmp_side *cmp_side_of(const struct cmp_row *row)
{
	return row->side ? row->side : &cmp_side_none;
}
/* @row's side record to fill, made (with the defaults) on first use and
 * freed with the comparison; NULL: out of memory. */
struct cmp_side *cmp_side_get(struct cmp_row *row);

/* Fill @s from the @n values x[0], x[stride], ... (left as they are);
 * -ENOMEM, or 0. */
int compare_spread_of(struct cmp_spread *s, const double *x, size_t n, size_t stride);
/* compare_spread_of() element @e (-1: a scalar's value) of each point of @v. */
int compare_spread_at(struct cmp_spread *s, const struct ksft_metric_report_values *v, long e);
/* compare_spread_of() into side @side (CMP_BASE, CMP_CUR) of @row, kept
 * compactly (replacing what it held); -ENOMEM, or 0. */
int compare_row_spread_of(struct cmp_row *row, int side, const double *x, size_t n,
			  size_t stride);
/* compare_spread_at() into side @side of @row. */
int compare_row_spread_at(struct cmp_row *row, int side,
			  const struct ksft_metric_report_values *v, long e);
/* Side @side of @row's spread, whole, into @s. */
void compare_row_spread(const struct cmp_row *row, int side, struct cmp_spread *s);

/*
 * A row as a --baseline comparison mostly holds it (issue 45: 400,000 rows
 * of 120 bytes were 48 MB of compare's peak): a scalar series of c->held
 * (who.s = c->held->series[at]) with a value or none a side, its verdict
 * and display by their index in the comparison's tables, and every other
 * field implied (comparison.c's row_expand(): change_pct from the two
 * values, no allowance, p-value or side record). A row is kept so only
 * when expanding it gives back the row bit for bit (doc/decisions.rst,
 * "Compact comparison rows are lossless by
 * construction"); any other row is kept
 * whole, in c->rows[at] (CROW_FULL).
 */
struct cmp_crow {
	uint32_t at;		/* the series' index in c->held; CROW_FULL: c->rows' */
	unsigned char codes;	/* verdict index << 4 | display index */
	signed char compare, better;
	unsigned char flags;	/* CROW_* */
	double baseline, current;
};

enum {
	CROW_FULL = 1,		/* kept whole: c->rows[at] */
	CROW_FAILS = 2,
	CROW_BEYOND_FLOOR = 4,
	CROW_HAS_CURRENT = 8,
	CROW_AGGREGATED = 16,
	CROW_UNMEASURED = 32,	/* a side without a value: its spread slot 0
				   bits, not NaN (never measured: a failed
				   case's row). A blind row (the history
				   gate's) has no flag: kept whole */
	CROW_ONE_BASE = 64,	/* n_baseline = baseline_runs = 1 (else 0) */
	CROW_ONE_CUR = 128,	/* n_current 1 (else 0) */
};

#define CMP_CODES 16		/* verdicts, displays a compact row can name */

/* Row @i of @c: its stored row, or @tmp filled from its compact form
 * (valid until @tmp changes). */
static inline const struct cmp_row *cmp_row_at(const struct ksft_metric_report_comparison *c,
					       size_t i, struct cmp_row *tmp);
/* Row @i of @c to change: only a comparison that keeps every row whole
 * (c->compact 0: the history judges) has one; NULL for a compact row. */
static inline struct cmp_row *cmp_row_mut(struct ksft_metric_report_comparison *c, size_t i);
/* Seal the row made last (comparison.c keeps it compactly when it can):
 * the judge is done with it. c->compact only; the next row made seals it
 * too. */
void compare_rows_seal(struct ksft_metric_report_comparison *c);
/* Tests: 1 keeps every row whole even where the judge asks for compact
 * rows (the same comparison, to compare with). The library only reads
 * it; set it while no comparison is being made. */
extern int compare_rows_compact_off;

/* Free @c (NULL: nothing) but its c->held report: the judge's
 * ksft_metric_report_comparison_free() lets go of that. */
void comparison_free(struct ksft_metric_report_comparison *c);
/* Room for @n rows in all: 0 or -ENOMEM. */
int compare_rows_reserve(struct ksft_metric_report_comparison *c, size_t n);
/* Append a row of series @s of c->held, the report @c holds (numbers
 * NaN); NULL: out of memory. */
struct cmp_row *compare_row_new_held(struct ksft_metric_report_comparison *c,
				     const struct rp_series *s, long element);
/* Append a row (identity copied; numbers NaN); NULL: out of memory. */
struct cmp_row *compare_row_new(struct ksft_metric_report_comparison *c,
				char *const *path, size_t path_len,
				const char *case_name, const char *name,
				const char *labels, long element);

struct ksft_metric_report_comparison {
	struct rp_strpool *pool;	/* rows' identity strings (made on first use) */
	/* The report whose identity strings its rows point at
	 * (compare_row_new_held()), held (report_hold()) until the
	 * comparison is freed; NULL: none. */
	struct ksft_metric_report *held;
	struct cmp_display *displays;	/* its rows' (compare_display()) */
	/* Its n rows: c->rows[i] when it keeps them whole (compact 0), else
	 * crows[i], whose rows that do not fit are in rows[] (n_full of them,
	 * the last one pending: the judge's, until sealed). Read them with
	 * cmp_row_at(). */
	struct cmp_row *rows;
	size_t n, cap;
	int compact;		/* set by the judge before its first row */
	size_t pending;		/* 1 + the index of the row made last, unsealed
				   (rows[n_full - 1]); 0: none */
	struct cmp_crow *crows;
	size_t n_full, ccap;
	size_t series_hint;	/* where the last compact row's series was in c->held */
	/* A compact row's verdict (a const char *) and display (a const
	 * struct cmp_display *) by their index. */
	const void *verdicts[CMP_CODES], *disps[CMP_CODES];
	unsigned n_verdicts, n_disps;
	size_t failing;
	size_t failed_cases;	/* failing rows that are CASE FAILED, not regressions */
	size_t disturbed;	/* regressions held out as "disturbed" (rerun) */
	char *context_diff;	/* judged across how the runs were measured
				   (--allow-context-mismatch): the difference;
				   NULL: none (measuring_context.c) */
	char *context_a, *context_b;	/* --baseline: the first baseline run's
				   context and the current run's (JSON text,
				   NULL: unknown) for compare --format reply */
};

/* Fill @row from compact row @cr of @c. */
void compare_row_expand(const struct ksft_metric_report_comparison *c,
			const struct cmp_crow *cr, struct cmp_row *row);

static inline const struct cmp_row *cmp_row_at(const struct ksft_metric_report_comparison *c,
					       size_t i, struct cmp_row *tmp)
{
	if (!c->crows)
		return &c->rows[i];
	if (c->crows[i].flags & CROW_FULL)
		return &c->rows[c->crows[i].at];
	compare_row_expand(c, &c->crows[i], tmp);
	return tmp;
}


/* Row @i of @c as stored whole; NULL: a compact row. */
static inline const struct cmp_row *cmp_row_whole_at(const struct ksft_metric_report_comparison *c,
						     size_t i)
{
	if (!c->crows)
		return &c->rows[i];
	return c->crows[i].flags & CROW_FULL ? &c->rows[c->crows[i].at] : NULL;
}

/* What a pass over every row reads most, without expanding a compact row
 * (issue 45: expanding was a reader's cost a row): cmp_side_of() row @i
 * (a compact row: none), its verdict, fails and blind (a compact row: 0). */
static inline const struct cmp_side *cmp_row_side_at(const struct ksft_metric_report_comparison *c,
						     size_t i)
{
	const struct cmp_row *row = cmp_row_whole_at(c, i);

	return row ? cmp_side_of(row) : &cmp_side_none;
}

static inline const char *cmp_row_verdict_at(const struct ksft_metric_report_comparison *c,
					      size_t i)
{
	const struct cmp_row *row = cmp_row_whole_at(c, i);

	return row ? row->verdict : (const char *)c->verdicts[c->crows[i].codes >> 4];
}

static inline int cmp_row_fails_at(const struct ksft_metric_report_comparison *c, size_t i)
{
	const struct cmp_row *row = cmp_row_whole_at(c, i);

	return row ? row->fails : !!(c->crows[i].flags & CROW_FAILS);
}

static inline int cmp_row_blind_at(const struct ksft_metric_report_comparison *c, size_t i)
{
	const struct cmp_row *row = cmp_row_whole_at(c, i);

	return row ? row->blind : 0;
}

static inline struct cmp_row *cmp_row_mut(struct ksft_metric_report_comparison *c, size_t i)
{
	return (struct cmp_row *)cmp_row_whole_at(c, i);
}

#endif
