/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metric policies of the network benchmark runners (iperf3 and kperf),
 * defined once so that both always register the same ones: a second,
 * different registration of a name in one case would be rejected.
 */
#ifndef KSFTM_EXAMPLE_NET_POLICY_H
#define KSFTM_EXAMPLE_NET_POLICY_H

/** Policy names, as the kernel's runners use them. */
#define EX_POLICY_THROUGHPUT "throughput"
#define EX_POLICY_RETRANSMITS "tcp.retransmits"
#define EX_POLICY_INTERVAL "throughput.interval"

/**
 * ex_net_policies_register() - register "throughput" (distribution,
 * regression p50 higher, 5% relative tolerance) and "tcp.retransmits"
 * (max) in the open case.
 * @return 0, or a negative errno with *@err (if @err) = a malloc'd message.
 */
int ex_net_policies_register(char **err);

/**
 * ex_net_throughput_unit - display_label of "throughput" and
 * "throughput.interval" (their values are Gbps); NULL (the default, as the
 * kernel's runners register them) for none. Set before the first case.
 */
extern const char *ex_net_throughput_unit;

/**
 * ex_trial_set() - labels that every runner observation carries from now
 * on, besides its host: the A/B mode's "variant" ("A"/"B") and "pair"
 * (its number). @variant NULL clears them. One thread only.
 */
void ex_trial_set(const char *variant, int pair);

/**
 * ex_record_double() / ex_record_int() - ksft_metric_double/int() with the
 * label host=@host plus the trial's labels. @return the library's result.
 */
int ex_record_double(const char *name, double v, const char *host);
int ex_record_int(const char *name, long long v, const char *host);

#endif
