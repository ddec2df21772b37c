/*
 * The test tree of one input (tree.c): its nodes and the policies
 * attached to them.
 */
#ifndef KSFTM_TREE_H
#define KSFTM_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "rp_policy.h"

struct rp_input;
struct rp_node;

/* A node of the KTAP test tree: a case, or a test enclosing cases. */
struct rp_pol_entry {
	char *name;
	struct rp_policy pol;
	struct rp_pol_entry *next;	/* the node's, for freeing */
	const struct rp_node *node;
	uint64_t hash;			/* of (node id, name) */
	struct rp_pol_entry *hnext;	/* chain of rp_input.pol_tab */
};

struct rp_node {
	char *name;		/* NULL until the result line names it */
	char *hint;		/* "Subtest:" name, used if it never gets one */
	struct rp_node *parent;
	struct rp_node *next_all;
	struct rp_pol_entry *policies;
	size_t id;		/* order of creation in its input */
	int status;
	size_t children;
	size_t metric_lines;	/* ktap-metric-json lines read for it */
	const char *abort;	/* ktap-metric-abort-json reason (report's) */
	const char *reason;	/* directive text ("# SKIP why"; report's) */
	int stream;		/* write-through frames seen: 1 begin, 2 end too */
	const char *pooled;	/* the name, copied to the pool once (ktap_finish.c) */
	struct rp_case *kase;	/* its series' case record, made once (ktap_finish.c) */
	size_t first_series;	/* in->n_list when it was made: its series come after */
};

struct rp_node *tree_node_new(struct rp_input *in, struct rp_node *parent);
/* Name @n (text made printable) and set its status: 0, or -ENOMEM with in->oom set. */
int tree_name_node(struct rp_input *in, struct rp_node *n, const char *s,
		   size_t len, int status);
struct rp_node *tree_case_at(struct rp_input *in, int d);
/* The policy line for metric @name of @node, or NULL. */
struct rp_pol_entry *tree_pol_find(struct rp_input *in, const struct rp_node *node,
				   const char *name);
/* Index @e (its node and name set; not yet present); -ENOMEM. */
int tree_pol_add(struct rp_input *in, struct rp_pol_entry *e);

#endif
