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
#include <stddef.h>

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

struct cmp_row {
	char **path;
	size_t path_len;
	char *case_name, *name, *labels;
	long element;
	double baseline, current, change_pct, allowance, p_value;
	size_t n_baseline, n_current, baseline_runs;
	const char *verdict;	/* KSFTM_VERDICT_* (verdict_vocab.h) */
	double disp_scale;	/* the policy's display_scale, NaN: none */
	char *disp_label;	/* its display_label, NULL: none */
	long series;		/* index in the current report; -1: none */
	struct cmp_side *side;	/* NULL: none (cmp_side_of() gives the defaults) */
	/* Baseline: with --baseline the pooled samples of its runs, with --db
	 * the window's run values; current: this run's samples. */
	struct cmp_spread base_spread, cur_spread;
	/* The small codes and flags packed at the end: a whole run's
	 * comparison holds hundreds of thousands of rows (issue 45). */
	signed char compare;	/* RP_OP_* */
	signed char better;	/* +1, -1, 0 */
	unsigned char fails;
	unsigned char beyond_floor;	/* the samples show a change (p < alpha, or
				   all apart where alpha is out of reach, or
				   single values that differ) whatever the
				   verdict: the text shows its size even within
				   the tolerance */
	unsigned char has_current;
	unsigned char aggregated;	/* compared in busy cores (units.c's rule) */
	unsigned char blind;	/* no value of this run could fail the series here */
};

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

/* Room for @n rows in all: 0 or -ENOMEM. */
int compare_rows_reserve(struct ksft_metric_report_comparison *c, size_t n);
/* Append a row (identity copied; numbers NaN); NULL: out of memory. */
struct cmp_row *compare_row_new(struct ksft_metric_report_comparison *c,
				char *const *path, size_t path_len,
				const char *case_name, const char *name,
				const char *labels, long element);

struct ksft_metric_report_comparison {
	struct rp_strpool *pool;	/* rows' identity strings (made on first use) */
	struct cmp_row *rows;
	size_t n, cap;
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

#endif
