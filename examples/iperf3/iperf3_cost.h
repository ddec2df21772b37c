/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Price each iperf3 repeat in CPU time: hooks that wrap the client run in
 * a ksft_cpu_cost meter (cpu.cost per endpoint, counters per byte).
 * Built only with the system monitor (libnl).
 */
#ifndef KSFTM_EXAMPLE_IPERF3_COST_H
#define KSFTM_EXAMPLE_IPERF3_COST_H

#include "cpu_cost.h"
#include "iperf3_runner.h"

/**
 * iperf3_opts_cpu_cost() - make iperf3_run() measure with @meter around
 * every repeat: begin before the client starts, end with the bytes the
 * receiver got. The meter must outlive the run.
 */
void iperf3_opts_cpu_cost(struct iperf3_opts *o, struct ksft_cpu_cost *meter);

#endif
