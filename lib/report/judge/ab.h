/*
 * Paired A/B judging (issue 21's A/B mode: repeats labelled variant A and
 * B, run in pairs on the same machine state): a verdict on B/A from the
 * pairs alone, no history. Each pair gives d = log(B / A) (or B - A when
 * a value is not positive); the
 * Wilcoxon signed-rank test on the d (exact null distribution up to
 * AB_EXACT_MAX non-zero pairs, else normal with tie correction; zero
 * differences dropped) is one-sided toward the metric's bad direction, and
 * the ratio is the Hodges-Lehmann estimate exp(median of the Walsh
 * averages (d_i + d_j) / 2). B regresses when the test says so at @alpha
 * and the ratio is beyond the tolerance; an improvement has its own test.
 */
#ifndef KSFTM_AB_H
#define KSFTM_AB_H

#include <stddef.h>

#include "gate.h"

#define AB_EXACT_MAX 30

struct ab_result {
	size_t n_pairs;		/* usable pairs: both values finite */
	int diff;		/* 1: judged on B - A (a value <= 0: no ratio) */
	double ratio;		/* B / A, Hodges-Lehmann (NaN when diff) */
	double shift;		/* B - A, Hodges-Lehmann (NaN unless diff) */
	double change_pct;	/* the change in percent of A (NaN: A's median is 0) */
	double p_worse;		/* one-sided p that B is worse */
	double p_better;	/* one-sided p that B is better */
	size_t pairs_needed;	/* the fewest pairs that can reach @alpha */
	enum gate_verdict verdict;
};

/*
 * The fewest pairs whose exact one-sided signed-rank test can reach
 * @alpha: every pair on one side gives p = 2^-n, so n >= log2(1 / alpha).
 */
size_t ab_pairs_needed(double alpha);

/*
 * Judge B against A from @n pairs (@a[i], @b[i]); @better +1 higher is
 * better, -1 lower; @rel_tol and @abs_tol the policy's tolerances (NaN:
 * none). A pair with a value not finite is skipped. With every value
 * positive the test is on log(B/A) and the change a ratio; when a value
 * is 0 or negative (a count that starts at 0) the ratio is undefined and
 * the test is on B - A, the change a shift, the relative tolerance taken
 * of A's median. Fewer usable pairs than ab_pairs_needed(@alpha) cannot
 * tell anything: TOO NOISY whatever the estimate, never NO CHANGE.
 * @return 0 or -ENOMEM.
 */
int ab_judge(const double *a, const double *b, size_t n, int better, double rel_tol,
	     double abs_tol, double alpha, struct ab_result *out);

#endif
