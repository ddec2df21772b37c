/*
 * A young accepted level (issue 40): fewer than min_runs runs since
 * accept, and the runs before it known (store/history_window_read.c). The
 * level is its own runs'; the noise is the series' own across the accept:
 * the runs before it, moved to the new level (by the ratio of the medians
 * when every value is positive, else by their difference), then the runs
 * since, as one sequence of recent runs. Before, the gate said nothing
 * until the new level had min_runs runs of its own: a fix of the accepted
 * regression (+56 %) was NO CHANGE for five runs.
 */
#ifndef KSFTM_GATE_YOUNG_H
#define KSFTM_GATE_YOUNG_H

#include <stddef.h>

#include "gate.h"

/* @y gets @s with the merged recent runs, in *@buf (free it), and young
 * set: @return 1; 0 when @s is not a young level (or out of memory: it is
 * then judged as it is). */
int gate_young_merge(const struct gate_series *s, size_t min_runs, struct gate_series *y,
		     double **buf);

/* @s gets @y's outputs; its own inputs stay. */
void gate_young_restore(struct gate_series *s, const struct gate_series *y);

#endif
