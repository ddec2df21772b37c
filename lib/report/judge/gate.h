/*
 * The history gate's statistics: is one run's value of a series outside
 * what the series' own history says its noise is, judged for all series of
 * the run together so that the run, not each series, keeps its false-alarm
 * rate.
 *
 * Per series, the window is the compare values of the last N usable,
 * comparable runs (each the same summary of its own repeats as the current
 * run's value). Under "nothing changed" the current value is one more draw
 * from the same distribution, so the test is a prediction interval
 * (Student t with N - 1 degrees of freedom on the window's mean and
 * standard deviation, scaled by sqrt(1 + 1/N)), not a two-sample test:
 * the window's spread already holds every source of run-to-run noise
 * (between boots, between repeats), whatever its structure. The test runs
 * on logarithms or on the values themselves, whichever makes the window
 * more symmetric (smaller |skewness|; logarithms need every value
 * positive): noise that grows with the level (latencies, costs) is
 * log-normal, but noise under a ceiling (a saturated link's throughput)
 * is skewed to the left, and logarithms skew it further. A run fails on
 * a tail event, so the wrong scale multiplies the false alarms: on
 * recorded iperf3 runs (bench/gate_accuracy, doc/regression-gate.rst)
 * always-logarithms failed 12% of unchanged 40-series runs at q = 1%,
 * the more symmetric scale 0.8% (with medians of 3 or 5 repeats, 5-7%:
 * doc/regression-gate.rst says where the gate still loses).
 *
 * Across the run's series the p-values go through Benjamini-Hochberg at
 * level q. When nothing changed (every null hypothesis true) the false
 * discovery rate equals the probability that the run reports any false
 * regression, so q is the run-level false-alarm rate CI sees, for any
 * number of series, while a real change in a few series is still found.
 *
 * A change must also be larger than the policy's tolerance to be a
 * regression or an improvement: statistics say whether it is real, the
 * policy says whether it matters.
 */
#ifndef KSFTM_GATE_H
#define KSFTM_GATE_H

#include <stddef.h>

#include "changepoint.h"	/* rel_change() */

struct gate_opts {
	double fdr;		/* run-level false-alarm rate q (0.01) */
	size_t min_runs;	/* fewer window runs: too noisy to tell (5) */
};

#define GATE_OPTS_DEFAULT { 0.01, 5 }

enum gate_verdict {
	GATE_NO_CHANGE,
	GATE_REGRESSION,
	GATE_IMPROVEMENT,
	GATE_TOO_NOISY,		/* a change beyond tolerance that the noise
				   (or too few runs to know it) leaves unproven */
	GATE_UNTRACKED,		/* no direction (better) or no value */
};

struct gate_series {
	/* In. */
	const double *window;	/* compare values of the window's runs */
	size_t n_window;
	double current;		/* the current run's compare value */
	int better;		/* +1 higher is better, -1 lower, 0 none */
	double rel_tol;		/* the policy's tolerances, NaN: none */
	double abs_tol;
	/* Out. */
	double baseline;	/* the window's median */
	double change;		/* rel_change(current, baseline) */
	double allowance;	/* tolerance in the metric's units */
	double p_value;		/* prediction-interval p, NaN: not tested */
	double q_value;		/* Benjamini-Hochberg adjusted p */
	enum gate_verdict verdict;
};

/*
 * Judge the @n series of one run together (fills each one's outputs).
 * @return 0 or -ENOMEM.
 */
int gate_judge(struct gate_series *s, size_t n, const struct gate_opts *o);

/* The prediction-interval p-value of @x against @w[0..n) (n >= 2), on
 * logarithms or values, whichever is more symmetric in @w; NaN when
 * undefined. */
double gate_prediction_p(const double *w, size_t n, double x);

/*
 * A level shift: a run judged alone cannot see a drop of one or two
 * standard deviations at a 1 % false-alarm rate, but a few runs at the
 * new level can. @x[0..n) is the series' recent history, oldest first,
 * with the current value last. The latest change point in it
 * (changepoint.h) going the wrong way by more than the tolerance, with the
 * current value still beyond it, and its Welch p-value at most @max_p,
 * is a regression: @return 1 and fill
 * @before (the old level) and @p_value; 0 when not; -ENOMEM.
 */
int gate_level_shift(const double *x, size_t n, int better, double rel_tol, double abs_tol,
		     double max_p, double *before, double *p_value);

/* gate_level_shift()'s max_p in compare --db: the Welch p-value the
 * latest change point needs (bench/gate_accuracy tunes it). */
#define GATE_SHIFT_P 1e-5

/* Name of a verdict as the comparison rows spell it. */
const char *gate_verdict_name(enum gate_verdict v);

#endif
