/* One input being parsed: shared by ktap.c, metric_line.c and zperf.c. */
#ifndef KSFTM_RP_INPUT_H
#define KSFTM_RP_INPUT_H

#include <string.h>

#include "rp.h"

#define INCOMPLETE "incomplete"

struct rp_input {
	struct ksft_metric_report *r;
	const char *file;
	unsigned long lineno;
	struct rp_node *nodes;
	struct rp_node *pending[RP_MAX_DEPTH];
	unsigned long pending_line[RP_MAX_DEPTH];
	struct rp_node *group[RP_MAX_DEPTH];
	char *hint[RP_MAX_DEPTH];
	/* Name of the last result at each depth if it was a SKIP, else NULL. */
	char *last_skip[RP_MAX_DEPTH];
	struct rp_node *zperf;
	struct rp_htab tab;
	/* Policies by (node, name): one lookup per line, not a list walk. */
	struct rp_pol_entry **pol_tab;
	size_t pol_mask, n_pols, n_nodes;
	struct rp_series **list;
	size_t n_list, cap_list;
	size_t points;
	int deep_warned;
	int oom;
	/* The last path built (the parent's): series of one test share it. */
	const struct rp_node *path_parent;
	char **path;
	size_t path_len;
	/* Scratch for one metric line. */
	struct strbuf labels, name_buf, shape_buf;
	double *vals;
	size_t cap_vals, n_vals;
};

struct mline {
	const char *name, *shape;
	size_t name_len, shape_len;
	double t;
	int is_array;
};

static inline int rp_starts(const char *p, const char *end, const char *lit,
			    size_t n)
{
	return (size_t)(end - p) >= n && !memcmp(p, lit, n);
}
#define STARTS(p, end, lit) rp_starts((p), (end), (lit), sizeof(lit) - 1)

static inline const char *rp_skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* ktap.c */
struct rp_node *rp_node_new(struct rp_input *in, struct rp_node *parent);
/* Name @n (text made printable) and set its status: 0, or -ENOMEM with in->oom set. */
int rp_name_node(struct rp_input *in, struct rp_node *n, const char *s,
		 size_t len, int status);
struct rp_node *rp_case_at(struct rp_input *in, int d);
/* The policy line for metric @name of @node, or NULL. */
struct rp_pol_entry *rp_pol_find(struct rp_input *in, const struct rp_node *node,
				 const char *name);
/* Index @e (its node and name set; not yet present); -ENOMEM. */
int rp_pol_add(struct rp_input *in, struct rp_pol_entry *e);
void rp_add_point(struct rp_input *in, struct rp_node *node, int source,
		  const struct mline *m);
/* Append @v to in->vals: 0 or -ENOMEM (no message). */
int rp_push_val(struct rp_input *in, double v);

/* metric_line.c */
void rp_metric_line(struct rp_input *in, int d, const char *p, const char *end);
/*
 * The two metric payload parsers on their own (the differential fuzzer):
 * the in-place fast path (-ENOENT: not its spelling) and jansson (-EINVAL:
 * bad, after a warning); either -ENOMEM when memory ran out. Results in
 * @m, in->vals / n_vals and in->labels.
 */
int rp_metric_parse_fast(struct rp_input *in, const char *p, const char *end,
			 struct mline *m);
int rp_metric_parse_slow(struct rp_input *in, const char *p, const char *end,
			 struct mline *m);
void rp_policy_line(struct rp_input *in, int d, const char *p, const char *end);

/* zperf.c */
void rp_zperf_line(struct rp_input *in, const char *p, const char *end);

#endif
