/* ktap-metric-json and ktap-metric-policy-json payloads (metric_line.c). */
#ifndef KSFTM_METRIC_LINE_H
#define KSFTM_METRIC_LINE_H

struct mline;
struct rp_input;

void metric_line_read(struct rp_input *in, int d, const char *p, const char *end);
/*
 * The two metric payload parsers on their own (the differential fuzzer):
 * the in-place fast path (-ENOENT: not its spelling) and jansson (-EINVAL:
 * bad, after a warning); either -ENOMEM when memory ran out. Results in
 * @m, in->vals / n_vals and in->labels.
 */
int metric_line_parse_fast(struct rp_input *in, const char *p, const char *end,
			   struct mline *m);
int metric_line_parse_slow(struct rp_input *in, const char *p, const char *end,
			   struct mline *m);
void metric_line_policy(struct rp_input *in, int d, const char *p, const char *end);

#endif
