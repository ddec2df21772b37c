/* A point joins its series (point.c). */
#ifndef KSFTM_POINT_H
#define KSFTM_POINT_H

struct mline;
struct rp_input;
struct rp_node;

void point_add(struct rp_input *in, struct rp_node *node, int source,
	       const struct mline *m);
/* Append @v to in->vals: 0 or -ENOMEM (no message). */
int point_push_val(struct rp_input *in, double v);

#endif
