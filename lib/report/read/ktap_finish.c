/*
 * One input's end (ktap.c reads its lines): every series named by its
 * case and the tests around it, given its policy, and joined with those
 * of earlier inputs; the tree freed. A case that ends cleanly hands its
 * series their names at its result line and is freed there
 * (ktap_case_done(): a whole run's tree of cases was a sixth of the
 * reader's peak, issue 45).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "grow.h"
#include "ktap.h"
#include "report.h"
#include "rp.h"
#include "rp_input.h"
#include "rp_policy.h"
#include "series.h"
#include "strbuf.h"
#include "strpool.h"
#include "tree.h"

/* Copied to the pool once a node: its series (and its children's paths)
 * share it; only called at the input's end, when no name changes any
 * more. Not interned: case names are mostly unique, and an intern table
 * of 200,000 of them is 12 MB (issue 45); every reader compares names by
 * their text. */
static const char *node_name(struct rp_input *in, struct rp_node *n)
{
	const char *name = n->name ? n->name : INCOMPLETE;

	if (!n->pooled)
		n->pooled = strpool_copy(in->r->pool, name, strlen(name));
	return n->pooled;
}

/* The names of @parent and its ancestors, outermost first (the pool's). */
static int path_of(struct rp_input *in, struct rp_node *parent)
{
	struct rp_node *a;
	size_t depth = 0, i;
	char **path;

	if (in->path && in->path_parent == parent)
		return 0;
	for (a = parent; a; a = a->parent)
		depth++;
	path = strpool_alloc(in->r->pool, (depth ? depth : 1) * sizeof(char *));
	if (!path)
		return -ENOMEM;
	for (a = parent, i = depth; a; a = a->parent)
		if (!(path[--i] = (char *)node_name(in, a)))
			return -ENOMEM;
	in->path = path;
	in->path_len = depth;
	in->path_parent = parent;
	return 0;
}

/* The case record of @n's series (made once): its name, status reason
 * and input; its path set at the input's end (case_path()). */
static struct rp_case *node_case(struct rp_input *in, struct rp_node *n)
{
	const struct rp_case_src *src;
	const char *name;

	if (n->kase)
		return n->kase;
	name = n->name ? n->name : INCOMPLETE;
	if (n->abort || n->reason)
		src = series_case_src(in->r->pool, in->file, n->abort, n->reason);
	else if (!(src = in->plain_src))	/* the input's other cases share it */
		src = in->plain_src = series_case_src(in->r->pool, in->file, NULL, NULL);
	n->kase = src ? series_case_new(in->r->pool, name, strlen(name), src) : NULL;
	if (!n->kase)
		return NULL;
	n->kase->parent = n->parent;
	if (!n->pooled)
		n->pooled = n->kase->name;
	return n->kase;
}

/* @k's path from the node it holds, once. */
static int case_path(struct rp_input *in, struct rp_case *k)
{
	if (k->pathed)
		return 0;
	if (path_of(in, k->parent))
		return -ENOMEM;
	k->path = in->path;
	k->path_len = (uint32_t)in->path_len;
	k->pathed = 1;
	return 0;
}

static int resolve(struct rp_input *in, struct rp_series *s)
{
	struct rp_node *n = s->node;
	struct rp_pol_entry *e;
	struct rp_policy *p;
	const struct rp_metric *m = s->metric;
	const unsigned char *c;

	if (!s->reading) {	/* its case said the rest (ktap_case_done()) */
		if (case_path(in, (struct rp_case *)s->kase))
			return -ENOMEM;
	} else {
		if (!node_case(in, n) || case_path(in, n->kase))
			return -ENOMEM;
		s->kase = n->kase;
		s->reading = 0;
		s->status = (unsigned int)n->status;
		e = tree_pol_find(in, n, m->name);
		if (e && (!(p = rp_policy_dup(&e->pol)) || series_take_policy(s, p))) {
			rp_policy_free(p);
			return -ENOMEM;
		}
	}
	for (c = (const unsigned char *)m->name; *c >= 0x20 && *c < 0x7f; c++)
		;
	if (*c) {	/* no controls in tables */
		char *clean = canon_text_dup(m->name, strlen(m->name));

		if (!clean)
			return -ENOMEM;
		s->metric = series_metric(in->r, clean, strlen(clean), m->labels, m->labels_len,
					  m->shape, strlen(m->shape));
		free(clean);
		if (!s->metric)
			return -ENOMEM;
	}
	return 0;
}

void ktap_case_done(struct rp_input *in, struct rp_node *n)
{
	struct rp_node **pp;
	struct rp_case *k;
	size_t i;

	/* What the input's end still needs of a case stays: its policies,
	 * its failure (keep_failed()), a framed or zperf one; a test with
	 * subtests is a group, never a case. */
	if (n->children || n->policies || n->stream || n == in->zperf || !n->name ||
	    canon_status_failed(n->status))
		return;
	k = node_case(in, n);
	if (!k) {
		in->oom = 1;
		return;
	}
	for (i = n->first_series; i < in->n_list; i++) {
		struct rp_series *s = in->list[i];

		if (!s->reading || s->node != n)
			continue;
		/* Out of the join table: a later case may reuse n's address. */
		series_htab_remove(&in->tab, in->list, i);
		s->kase = k;
		s->reading = 0;
		s->status = (unsigned int)n->status;
	}
	for (pp = &in->nodes; *pp && *pp != n; pp = &(*pp)->next_all)
		;
	if (*pp)
		*pp = n->next_all;
	free(n->name);
	free(n->hint);
	free(in->spare_node);
	in->spare_node = n;	/* tree_node_new() takes it */
}

static void free_nodes(struct rp_input *in)
{
	struct rp_node *n, *next;
	struct rp_pol_entry *e, *enext;

	for (n = in->nodes; n; n = next) {
		next = n->next_all;
		for (e = n->policies; e; e = enext) {
			enext = e->next;
			rp_policy_clear(&e->pol);
			free(e->name);
			free(e);
		}
		free(n->name);
		free(n->hint);
		free(n);
	}
	in->nodes = NULL;
}

static void input_free(struct rp_input *in, size_t from)
{
	size_t i;
	int d;

	for (i = from; i < in->n_list; i++)
		series_free(in->list[i]);
	if (!in->list_given)
		free(in->list);
	series_htab_free(&in->tab);
	free(in->pol_tab);
	free_nodes(in);
	free(in->spare_node);
	for (d = 0; d < RP_MAX_DEPTH; d++) {
		free(in->hint[d]);
		free(in->last_skip[d]);
	}
	strbuf_free(&in->labels);
	strbuf_free(&in->name_buf);
	strbuf_free(&in->shape_buf);
	free(in->vals);
	free(in);
}

void ktap_input_abort(struct rp_input *in)
{
	if (in)
		input_free(in, 0);
}

/* Keep the cases that failed, series or not (compare_case_failed()). */
static int keep_failed(struct rp_input *in)
{
	struct ksft_metric_report *r = in->r;
	struct rp_node *n;
	int ret;

	for (n = in->nodes; n; n = n->next_all) {
		if (n->children || !canon_status_failed(n->status))
			continue;
		if ((ret = ksftm_grow((void **)&r->failed, &r->cap_failed, r->n_failed + 1,
				      sizeof(*r->failed), 8)) || (ret = path_of(in, n->parent)))
			return ret;
		r->failed[r->n_failed] = (struct rp_failed_case){ in->path, in->path_len,
								  node_name(in, n) };
		if (!r->failed[r->n_failed].name)
			return -ENOMEM;
		r->n_failed++;
	}
	return 0;
}

int ktap_input_end(struct rp_input *in, int was_oom)
{
	size_t i, points = in->points;
	int ret = was_oom ? -ENOMEM : 0;

	if (!ret && in->n_list && in->n_list < in->cap_list) {	/* no slack */
		struct rp_series **v = realloc(in->list, in->n_list * sizeof(*v));

		if (v) {
			in->list = v;
			in->cap_list = in->n_list;
		}
	}
	/* The first input's list becomes the report's array: series are
	 * adopted in its order, never ahead of the one read. */
	if (!ret) {
		ret = series_adopt_reserve(in->r, in->n_list, in->list, in->cap_list);
		in->list_given = in->r->series == in->list;
	}
	for (i = 0; !ret && i < in->n_list; i++) {
		ret = resolve(in, in->list[i]);
		if (ret)
			series_free(in->list[i]);
		else
			ret = series_adopt(in->r, in->list[i]);	/* takes it */
	}
	if (!ret)
		ret = keep_failed(in);
	input_free(in, i);
	if (ret)
		return ret;
	return points > 0x7fffffff ? 0x7fffffff : (int)points;
}
