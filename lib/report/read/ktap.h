/* Reading one input's KTAP lines (ktap.c) and its end (ktap_finish.c). */
#ifndef KSFTM_KTAP_H
#define KSFTM_KTAP_H

#include <stddef.h>

struct ksft_metric_report;
struct rp_input;

/* Parse state of one input (ktap.c). */
struct rp_input *ktap_input_new(struct ksft_metric_report *r, const char *name);
int ktap_input_line(struct rp_input *in, const char *s, size_t n);
void ktap_input_long_line(struct rp_input *in);
int ktap_input_finish(struct rp_input *in);	/* resolves and merges; frees */
void ktap_input_abort(struct rp_input *in);
/* Case @n's result line has named it: its series take their case's name,
 * status and reasons now, and a case the input's end needs no more is
 * freed (ktap_finish.c). */
struct rp_node;
void ktap_case_done(struct rp_input *in, struct rp_node *n);
/* ktap_input_finish() after the input's last line closed everything
 * (@was_oom: in->oom before that): names, policies, the join with
 * earlier inputs; frees @in. */
int ktap_input_end(struct rp_input *in, int was_oom);

#endif
