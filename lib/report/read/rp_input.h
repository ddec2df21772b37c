/* One input being parsed: shared by ktap.c, metric_line.c and zperf.c. */
#ifndef KSFTM_RP_INPUT_H
#define KSFTM_RP_INPUT_H

#include <stddef.h>
#include <string.h>

#include "rp.h"
#include "series.h"
#include "strbuf.h"

struct ksft_metric_report;
struct rp_node;
struct rp_pol_entry;

#define INCOMPLETE "incomplete"

struct rp_input {
	struct ksft_metric_report *r;
	const char *file;
	unsigned long lineno;
	struct rp_node *nodes;
	struct rp_node *spare_node;	/* a freed case's, for the next */
	struct rp_node *pending[RP_MAX_DEPTH];
	unsigned long pending_line[RP_MAX_DEPTH];
	struct rp_node *group[RP_MAX_DEPTH];
	char *hint[RP_MAX_DEPTH];
	/* A case's death was warned about since the last result line: the
	 * enclosing test and the plan it leaves unfinished are not said again. */
	int death_said;
	/* Each depth's plan ("1..N": N; -1 none) and the highest test number
	 * of a result under it. */
	long plan[RP_MAX_DEPTH];
	long results[RP_MAX_DEPTH];
	/* Name of the last result at each depth if it was a SKIP, else NULL. */
	char *last_skip[RP_MAX_DEPTH];
	struct rp_node *zperf;
	struct rp_htab tab;
	/* Policies by (node, name): one lookup per line, not a list walk. */
	struct rp_pol_entry **pol_tab;
	size_t pol_mask, n_pols, n_nodes;
	struct rp_series **list;
	size_t n_list, cap_list;
	int list_given;		/* @list is the report's series array now */
	/* Where the cases that ended plainly were read (ktap_finish.c). */
	const struct rp_case_src *plain_src;
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

static inline int rp_input_starts(const char *p, const char *end, const char *lit,
				  size_t n)
{
	return (size_t)(end - p) >= n && !memcmp(p, lit, n);
}
#define STARTS(p, end, lit) rp_input_starts((p), (end), (lit), sizeof(lit) - 1)

static inline const char *rp_input_skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

#endif
