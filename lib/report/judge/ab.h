/*
 * Paired A/B judging (issue 21's A/B mode: repeats labelled variant A and
 * B, run in pairs on the same machine state): a verdict on B/A from the
 * pairs alone, no history. Each pair gives d = log(B / A); the
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
	size_t n_pairs;		/* pairs with both values positive */
	double ratio;		/* B / A, Hodges-Lehmann */
	double p_worse;		/* one-sided p that B is worse */
	double p_better;	/* one-sided p that B is better */
	enum gate_verdict verdict;
};

/*
 * Judge B against A from @n pairs (@a[i], @b[i]); @better +1 higher is
 * better, -1 lower; @rel_tol the policy's relative tolerance (NaN: none).
 * A pair with a value not positive is skipped. Fewer than 5 usable pairs
 * cannot reach p <= 0.05: too noisy. @return 0 or -ENOMEM.
 */
int ab_judge(const double *a, const double *b, size_t n, int better, double rel_tol,
	     double alpha, struct ab_result *out);

#endif
