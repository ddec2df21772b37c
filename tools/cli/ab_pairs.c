/* ksft-metric ab's groups of pairs (ab_pairs.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab_pairs.h"

/* The identity as one unambiguous string: a JSON array of its parts. */
static char *identity_key(const struct ksft_metric_report_series *s, const char *labels)
{
	json_t *a = json_array();
	char *key = NULL;
	size_t i;
	int bad = !a;

	for (i = 0; !bad && i < s->path_len; i++)
		bad = json_array_append_new(a, json_string(s->path[i]));
	if (!bad)
		bad = json_array_append_new(a, json_string(s->case_name ? s->case_name : "")) ||
		      json_array_append_new(a, json_string(s->name)) ||
		      json_array_append_new(a, json_string(labels));
	if (!bad)
		key = json_dumps(a, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(a);
	return key;
}

static void group_free(struct ab_group *g)
{
	size_t i;

	for (i = 0; i < g->path_len; i++)
		free(g->path[i]);
	free(g->path);
	free(g->case_name);
	free(g->name);
	free(g->labels);
	free(g->display_label);
	free(g->obs);
}

static int group_init(struct ab_group *g, const struct ksft_metric_report_series *s,
		      const char *labels)
{
	size_t i;

	memset(g, 0, sizeof(*g));
	g->path = calloc(s->path_len ? s->path_len : 1, sizeof(char *));
	if (!g->path)
		return -ENOMEM;
	for (i = 0; i < s->path_len; i++)
		if (!(g->path[g->path_len++] = strdup(s->path[i])))
			return -ENOMEM;
	g->case_name = strdup(s->case_name ? s->case_name : "");
	g->name = strdup(s->name);
	g->labels = strdup(labels);
	g->display_label = s->display_label ? strdup(s->display_label) : NULL;
	g->display_scale = s->display_scale;
	g->better = !s->better ? 0 : !strcmp(s->better, "higher") ? 1 : -1;
	g->rel_tol = s->relative_tolerance;
	g->abs_tol = s->absolute_tolerance;
	return g->case_name && g->name && g->labels &&
	       (!s->display_label || g->display_label) ? 0 : -1;
}

struct ab_group *ab_group_of(struct ab_groups *gs, const struct ksft_metric_report_series *s,
			     const char *labels)
{
	char *key = identity_key(s, labels);
	json_t *at;
	struct ab_group *g;

	if (!key || (!gs->index && !(gs->index = json_object()))) {
		free(key);
		return NULL;
	}
	at = json_object_get(gs->index, key);
	if (at) {
		free(key);
		g = &gs->g[json_integer_value(at)];
		/* A later series of the identity with a direction sets it. */
		if (!g->better && s->better) {
			g->better = !strcmp(s->better, "higher") ? 1 : -1;
			g->rel_tol = s->relative_tolerance;
			g->abs_tol = s->absolute_tolerance;
		}
		return g;
	}
	if (gs->n == gs->cap) {
		size_t cap = gs->cap ? 2 * gs->cap : 8;
		struct ab_group *ng = realloc(gs->g, cap * sizeof(*ng));

		if (!ng) {
			free(key);
			return NULL;
		}
		gs->g = ng;
		gs->cap = cap;
	}
	g = &gs->g[gs->n];
	if (group_init(g, s, labels) ||
	    json_object_set_new(gs->index, key, json_integer((json_int_t)gs->n))) {
		group_free(g);
		free(key);
		return NULL;
	}
	free(key);
	gs->n++;
	return g;
}

int ab_group_add(struct ab_group *g, long long pair, int variant, double value)
{
	if (g->n_obs == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 8;
		struct ab_obs *no = realloc(g->obs, cap * sizeof(*no));

		if (!no)
			return -ENOMEM;
		g->obs = no;
		g->cap = cap;
	}
	g->obs[g->n_obs] = (struct ab_obs){ pair, variant, value, g->n_obs };
	g->n_obs++;
	return 0;
}

/* By pair, then variant, then the order given (stable: the last wins). */
static int obs_cmp(const void *x, const void *y)
{
	const struct ab_obs *a = x, *b = y;

	if (a->pair != b->pair)
		return a->pair < b->pair ? -1 : 1;
	if (a->variant != b->variant)
		return a->variant - b->variant;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int ab_group_pairs(struct ab_group *g, double **a, double **b, size_t *n)
{
	size_t i, j, m = 0;

	*a = malloc((g->n_obs ? g->n_obs : 1) * sizeof(double));
	*b = malloc((g->n_obs ? g->n_obs : 1) * sizeof(double));
	if (!*a || !*b) {
		free(*a);
		free(*b);
		*a = *b = NULL;
		return -ENOMEM;
	}
	qsort(g->obs, g->n_obs, sizeof(*g->obs), obs_cmp);
	for (i = 0; i < g->n_obs; i = j) {
		double v[2] = { NAN, NAN };

		for (j = i; j < g->n_obs && g->obs[j].pair == g->obs[i].pair; j++)
			v[g->obs[j].variant] = g->obs[j].value;
		if (isfinite(v[0]) && isfinite(v[1])) {
			(*a)[m] = v[0];
			(*b)[m++] = v[1];
		}
	}
	*n = m;
	return 0;
}

void ab_groups_free(struct ab_groups *gs)
{
	size_t i;

	for (i = 0; i < gs->n; i++)
		group_free(&gs->g[i]);
	free(gs->g);
	json_decref(gs->index);
	memset(gs, 0, sizeof(*gs));
}
