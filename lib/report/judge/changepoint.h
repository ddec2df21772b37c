/*
 * Change points in a series' history: where its level shifted.
 *
 * Method: E-divisive means (Matteson & James, "A Nonparametric Approach for
 * Multiple Change Point Analysis of Multivariate Data", JASA 2014), with
 * alpha = 1, to *locate* each candidate by binary segmentation, and a
 * Welch t-test between the two segments a candidate separates to *judge*
 * it, as Apache Otava (formerly Hunter: Fleming et al., ICPE 2023) does
 * instead of E-divisive's permutation test, which costs hundreds of
 * re-computations per candidate. Long histories are scanned in overlapping
 * windows, so the cost is O(n * window), not O(n^2) or worse.
 */
#ifndef KSFTM_CHANGEPOINT_H
#define KSFTM_CHANGEPOINT_H

#include <math.h>
#include <stddef.h>

#include "rel_change.h"	/* rel_change() */

struct cp_opts {
	double max_p;		/* keep a candidate when its p-value is below (0.001) */
	double min_change;	/* ... and |after/before - 1| at least this (0) */
	size_t min_size;	/* points on each side of a change, at least (3) */
	size_t window;		/* points scanned at once (64) */
};

#define CP_OPTS_DEFAULT { 0.001, 0.0, 3, 64 }

struct changepoint {
	size_t index;		/* the first point of the new level */
	double before;		/* mean of the segment before */
	double after;		/* mean of the segment after */
	double change;		/* rel_change(after, before) */
	double p_value;		/* how sure: the larger of the two below */
	double detect_p;	/* permutation test of the split where it was found */
	double welch_p;		/* Welch t-test between its neighbouring segments */
};

/*
 * Change points of @x[0..n), in index order, each judged between its
 * neighbouring change points (or the ends). @out is malloc'd (free()).
 * @return the number found, or -ENOMEM.
 */
int changepoint_find(const double *x, size_t n, const struct cp_opts *opts,
		     struct changepoint **out);

/* Two-sided p-value of Welch's t-test between @a[0..na) and @b[0..nb). */
double changepoint_welch_p(const double *a, size_t na, const double *b, size_t nb);

#endif
