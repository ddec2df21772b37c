/*
 * Two instruction profiles in cachegrind's format compared: every function
 * and module with its count on each side (per unit of work when both say
 * their work), the functions by change. profile-diff prints it as text or
 * as an A/B summary's lines; html puts it beside the verdicts.
 */
#ifndef KSFT_METRIC_PROFILE_DIFF_H
#define KSFT_METRIC_PROFILE_DIFF_H

#include <stddef.h>

#include "cachegrind_read.h"

struct confine;

/* One (module, function) in both profiles, or a module (@fn ""); counts
 * per unit of work when the diff has a unit, else raw. */
struct profile_diff_row {
	const char *file, *fn;
	double a, b;
};

struct profile_diff {
	struct cg_profile pa, pb;	/* own the rows' names */
	double work_a, work_b;		/* 1 when raw */
	const char *unit;		/* the work's unit; NULL: raw counts */
	const char *event;		/* the event counted ("Ir") */
	double total_a, total_b;	/* the totals, per unit when @unit */
	double gross;			/* the functions' changes summed, unsigned */
	/* By change, largest first (ties by name); the changed ones lead. */
	struct profile_diff_row *rows, *mods;
	size_t n, changed, n_mods, mods_changed;
};

/* What profile_diff_load() is told on the command line. */
struct profile_diff_opts {
	double work_a, work_b;	/* --work-a, --work-b (0: from the files) */
	const char *unit;	/* --unit (NULL: the files', else "unit") */
	const char *event;	/* --event, NULL: "Ir" */
};

/*
 * Read the profiles @path_a and @path_b (beneath @c) and compare them into
 * @d: per unit of work from @o's work, else both files' "desc: work:" lines
 * (one without the other, or two units, is an error). 0, or an exit code
 * after cli_error() said why (file, line, reason). profile_diff_free()
 * either way.
 */
int profile_diff_load(const struct confine *c, const char *path_a, const char *path_b,
		      const struct profile_diff_opts *o, struct profile_diff *d);
void profile_diff_free(struct profile_diff *d);

/* The change the first @k changed functions explain together. */
double profile_diff_top_change(const struct profile_diff *d, size_t k);
/* Gains and losses cancel: the total moved less than a tenth of the
 * functions' changes summed, so shares of it are large. */
int profile_diff_cancels(const struct profile_diff *d);
/* "instructions" for Ir, else the event's name. */
const char *profile_diff_event_name(const char *event);

/* A count as every profile output prints it: raw, a whole number; per
 * unit, 5 significant digits; signed when @sign (no change reads "0"). */
void profile_diff_value_text(char *buf, size_t sz, double v, int per_unit, int sign);
/* @part's share of @total, "12.3 %" ("-" when @total is 0). */
void profile_diff_share_text(char *buf, size_t sz, double part, double total);

#endif
