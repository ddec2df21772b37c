/*
 * The gate's own band for a picture (the history charts: tools/render/
 * chart_trend.c through the history JSON): for each series, the level the
 * gate judges against, the values a run would have to reach for the
 * run-alone (Shewhart) statistic to alarm on its own at the series'
 * budget, toward the bad direction and (the improvement control) toward
 * the good one, and the CUSUM's state. Every number is gate_judge()'s
 * (gate.h): the lines are where the gate's own residual of a run equals
 * the threshold, found by bisection on the run's value, so the picture
 * cannot drift from the rule.
 */
#ifndef KSFTM_GATE_BAND_H
#define KSFTM_GATE_BAND_H

#include <stddef.h>

#include "gate.h"

struct gate_band {
	int judged;		/* 0: the gate could not judge (too few runs, no
				   direction, no value); the rest is NaN */
	double level;		/* the gate's level (gate_series.baseline) */
	double worse, better;	/* a run at or beyond this value alarms alone
				   (regression / improvement); NaN: none */
	double z_alarm;		/* the run-alone threshold: a normal deviate */
	double budget;		/* the series' per-run budget (q / (G m)) */
	double sigma, sigma_between, sigma_within;	/* gate_series' (relative) */
	double h;		/* the CUSUM's threshold at the series' budget */
	double cusum_before;	/* the regression CUSUM before the run judged */
	double cusum, z;	/* after it and its residual (NaN: no current run) */
	size_t n_window;	/* the level's runs */
};

/*
 * Judge the @n series of one run as gate_judge() does (inputs of @s as
 * gate.h; a NaN current: the band for the next run) and fill @b[0..n).
 * @s's outputs are overwritten. @return 0 or -ENOMEM.
 */
int gate_band_judge(struct gate_series *s, size_t n, const struct gate_opts *o,
		    struct gate_band *b);

#endif
