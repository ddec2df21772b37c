/*
 * The runs the window holds (issue 40): at GATE_GUARD_ADAPT_REPEATS
 * repeats or more the gate's noise comes from the recent runs without the
 * held and flagged ones (store/history_window_read.c marks them), whose
 * jump would inflate it; runs of fewer repeats keep every recent run
 * (their spells are noise, judge/gate.h).
 */
#ifndef KSFTM_GATE_HELD_H
#define KSFTM_GATE_HELD_H

#include <stddef.h>

#include "gate.h"

/* @sn gets @s, its recent runs without the held ones in *@buf (free it;
 * NULL when none are left out). @return how many recent runs @sn has. */
size_t gate_held_out(const struct gate_series *s, struct gate_series *sn, double **buf);

#endif
