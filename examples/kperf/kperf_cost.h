/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Price each kperf client run in CPU time: hooks that wrap it in a
 * ksft_cpu_cost meter (cpu.cost per endpoint, counters per byte), the
 * bytes being the Target's received count. Built only with the system
 * monitor (libnl).
 */
#ifndef KSFTM_EXAMPLE_KPERF_COST_H
#define KSFTM_EXAMPLE_KPERF_COST_H

#include "cpu_cost.h"
#include "kperf_runner.h"

/**
 * kperf_opts_cpu_cost() - make every kperf client run measure with @meter
 * (which must outlive the runner).
 */
void kperf_opts_cpu_cost(struct kperf_opts *o, struct ksft_cpu_cost *meter);

#endif
