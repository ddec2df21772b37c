/*
 * The test tree of one input: its nodes (groups and cases, made as their
 * lines arrive), their names, and the policies attached to them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "report.h"
#include "rp_input.h"
#include "series.h"
#include "tree.h"

struct rp_node *tree_node_new(struct rp_input *in, struct rp_node *parent)
{
	/* The case freed at its result line is the next one's: no calloc
	 * and free a case. */
	struct rp_node *n = in->spare_node;

	if (n) {
		in->spare_node = NULL;
		memset(n, 0, sizeof(*n));
	} else if (!(n = calloc(1, sizeof(*n)))) {
		in->oom = 1;
		return NULL;
	}
	n->parent = parent;
	n->id = in->n_nodes++;
	n->first_series = in->n_list;
	n->next_all = in->nodes;
	in->nodes = n;
	if (parent)
		parent->children++;
	return n;
}

static uint64_t pol_hash(const struct rp_node *node, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)node->id * 0x9e3779b97f4a7c15ull);

	return series_hash(name, strlen(name), h);
}

struct rp_pol_entry *tree_pol_find(struct rp_input *in, const struct rp_node *node,
				   const char *name)
{
	uint64_t h = pol_hash(node, name);
	struct rp_pol_entry *e;

	if (!in->pol_tab)
		return NULL;
	for (e = in->pol_tab[h & in->pol_mask]; e; e = e->hnext) {
		in->r->policy_probes++;
		if (e->hash == h && e->node == node && !strcmp(e->name, name))
			return e;
	}
	return NULL;
}

int tree_pol_add(struct rp_input *in, struct rp_pol_entry *e)
{
	size_t i;

	e->hash = pol_hash(e->node, e->name);
	if (in->n_pols >= in->pol_mask) {
		size_t mask = in->pol_mask ? in->pol_mask * 2 + 1 : 63;
		struct rp_pol_entry **b = calloc(mask + 1, sizeof(*b));

		if (!b)
			return -ENOMEM;
		for (i = 0; in->pol_tab && i <= in->pol_mask; i++) {
			struct rp_pol_entry *x = in->pol_tab[i], *next;

			for (; x; x = next) {
				next = x->hnext;
				x->hnext = b[x->hash & mask];
				b[x->hash & mask] = x;
			}
		}
		free(in->pol_tab);
		in->pol_tab = b;
		in->pol_mask = mask;
	}
	e->hnext = in->pol_tab[e->hash & in->pol_mask];
	in->pol_tab[e->hash & in->pol_mask] = e;
	in->n_pols++;
	return 0;
}

static struct rp_node *group_at(struct rp_input *in, int d)
{
	struct rp_node *parent;

	if (d <= 0)
		return NULL;
	if (in->group[d])
		return in->group[d];
	parent = group_at(in, d - 1);
	if (d > 1 && !parent)
		return NULL;	/* out of memory */
	in->group[d] = tree_node_new(in, parent);
	if (in->group[d]) {
		in->group[d]->hint = in->hint[d];
		in->hint[d] = NULL;
	}
	return in->group[d];
}

struct rp_node *tree_case_at(struct rp_input *in, int d)
{
	struct rp_node *parent;

	if (in->pending[d])
		return in->pending[d];
	parent = group_at(in, d);
	if (d > 0 && !parent)
		return NULL;
	in->pending[d] = tree_node_new(in, parent);
	in->pending_line[d] = in->lineno;
	return in->pending[d];
}

int tree_name_node(struct rp_input *in, struct rp_node *n, const char *s,
		     size_t len, int status)
{
	n->name = canon_text_dup(s, len);
	n->status = status;
	if (!n->name) {
		in->oom = 1;
		return -ENOMEM;
	}
	return 0;
}
