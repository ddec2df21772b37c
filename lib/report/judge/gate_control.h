/*
 * The gate's run-level control (gate.h): the series of one run are grouped
 * (a test case's series move together: forward and reverse throughput,
 * throughput and cost, both endpoints), each group's p-value is Simes'
 * combination of its series' (valid for positively dependent series), the
 * groups go through Benjamini-Hochberg at q, and the series of a selected
 * group through Benjamini-Hochberg at q * R / G (R of G groups selected:
 * Benjamini and Bogomolov, "Selective inference on multiple families of
 * hypotheses", JRSS B 2014). Under "nothing changed" a run alarms only when
 * a group does, so q bounds the run-level false-alarm rate however many
 * series each group has. Regressions (p_value) and improvements
 * (p_improve) are controlled apart.
 */
#ifndef KSFTM_GATE_CONTROL_H
#define KSFTM_GATE_CONTROL_H

#include <stddef.h>

struct gate_series;

/* Fill q_value and q_improve of the @n series at run level @q (a series is
 * selected when its value is at most @q). @return 0 or -ENOMEM. */
int gate_control(struct gate_series *s, size_t n, double q);

/* The per-run budget of series @i when it alone moves: q / (G * m), G the
 * groups with a tested series, m the tested series of its group. */
double gate_control_series_budget(const struct gate_series *s, size_t n, size_t i, double q);

#endif
