/*
 * The history window's rule (window_rule.c), in one place: how
 * many runs the gate judges against, how many recent runs it reads, when
 * a flagged run is a transient back in the level's window, and a run's
 * repeats. store/history_window_read.c reads the gate's inputs by it, and
 * the gate (judge/history_gate.c) and the chart band (judge/history_band.c)
 * both take what it reads, so they cannot drift apart. In model/, below
 * both the store and the judge that use it; its names keep the history's
 * prefix (history_window_rule_*(), HISTORY_*) they had in store/.
 */
#ifndef KSFTM_WINDOW_RULE_H
#define KSFTM_WINDOW_RULE_H

#include <stddef.h>

/* Runs judged against when the caller says 0 (compare --db's default). */
#define HISTORY_WINDOW_DEFAULT 30

/* How many recent runs the gate reads (HISTORY_SHIFT_SQL and
 * history_window.c's batched copy; the band alike): a run's verdict can
 * depend on no run further back among them (history_replay.c stops
 * judging later runs again past it). */
#define HISTORY_RECENT_RUNS 63
/* The same as SQL text, for a LIMIT. */
#define HISTORY_RULE_STR_(x) #x
#define HISTORY_RULE_STR(x) HISTORY_RULE_STR_(x)
#define HISTORY_RECENT_RUNS_SQL HISTORY_RULE_STR(HISTORY_RECENT_RUNS)

/* A flagged run followed by this many runs back at the old level (judged
 * no change or better) is a transient: back in the level's window
 * (doc/run-history.rst). */
#define HISTORY_TRANSIENT_AFTER 2

/*
 * Held out (issue 40): a run the gate judged too noisy that lies on the
 * worse side of the window's level by more than HISTORY_HOLD_Z of the
 * series' run-to-run noise looks like a change going on unproven. It
 * stays out of the level's window, as a flagged run does, until it is
 * flagged, accepted, or HISTORY_TRANSIENT_AFTER newer runs are back at
 * the level (the transient rule puts it back). A lasting change thus
 * cannot sink the level, one unproven run at a time, and the runs after it
 * are judged against the level before it (the gate's recent-runs test,
 * judge/gate.c, takes the held runs together with the current one).
 * 2 sd: an unchanged run lies that far out in about 2 % of runs, and is
 * back in the window two runs later.
 */
#define HISTORY_HOLD_Z 2.0
/* Only runs of this many repeats or more are held out: a single run's
 * spells (a neighbour's episode of a few runs) outlast the transient
 * rule, and holding them out biased the level (the time-ordered replay
 * at r = 1, doc/gate-record.rst), as the guard band found before
 * (judge/gate.h, GATE_GUARD_ADAPT_REPEATS, the same 3). */
#define HISTORY_HOLD_MIN_REPEATS 3

/* An accepted level with fewer window runs than this is young: the gate
 * also reads the runs before it, for their noise (history_window_read.c,
 * judge/gate.c: the level from its own runs, the noise from both). */
#define HISTORY_PRIOR_UNDER 10

/* The window asked for (runs; 0: the default). */
static inline size_t history_window_rule_size(size_t asked)
{
	return asked ? asked : HISTORY_WINDOW_DEFAULT;
}

/* The transient scan over a series' recent runs, newest first. */
struct history_window_rule_scan {
	size_t clean;	/* runs back at the level seen so far (newer ones) */
};

/*
 * The next recent run (newest first) at position @k of the scan, with its
 * verdict @code (NULL: none) and whether it is @flagged (an unaccepted
 * regression), for a window of @window runs: 1 if it is a flagged run
 * that was a transient (back in the level's window), else 0.
 */
int history_window_rule_transient(struct history_window_rule_scan *s, size_t k, size_t window,
				  const char *code, int flagged);

/*
 * The lenient line of a series whose recent runs are @v[0..n) (newest
 * first, any order will do) around the window's level @level, toward the
 * worse side @better (+1: higher is better, -1: lower): a too-noisy run
 * beyond it is held out (HISTORY_HOLD_Z robust sd of successive
 * differences, on logarithms when every value is positive). @scratch
 * holds 2 * n doubles. NaN: no line (fewer than 4 runs, no spread, no
 * direction).
 */
double history_window_rule_hold_line(const double *v, size_t n, double level, int better,
				     double *scratch);

/* Count and variance of a run's stored repeats (@samples: a JSON array of
 * numbers; *@n 0 and *@var NaN when not; *@var NaN for one repeat). */
void history_window_rule_repeats(const char *samples, size_t *n, double *var);

/* The recent runs, read newest first, turned oldest first (the order the
 * gate's CUSUM runs in): @value, @within, @repeats and @held (NULL: none),
 * @n of each. */
void history_window_rule_oldest_first(double *value, double *within, size_t *repeats,
				      unsigned char *held, size_t n);

#endif
