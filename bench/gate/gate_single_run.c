/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Single-run detection after a steady history (gate_single.h), through
 * the product path (bench/gate/gate_product.c: compare --db, then ingest, run
 * by run, in recorded time order), beside a plain one-sided t prediction
 * interval on the same window at the same false-alarm rate.
 *
 * The corpus (bench/record/record_tbf.sh) holds U unchanged runs ("cap":0) and
 * single runs capped by tbf ("cap":90, "cap":95: percent of the unchanged
 * median). False alarms: the unchanged runs ingested in order, each judged
 * first, from run W + 1 on (W the window). Detection: each capped run
 * judged as run U + 1 after the U unchanged ones (not ingested: every
 * capped run meets the same steady history). The t interval: the mean and
 * sd of the W runs before the judged one (its window), t = (mean - x) /
 * (sd sqrt(1 + 1/W)) toward worse; its threshold is set to give the
 * gate's false-alarm count on the same unchanged runs (the smallest
 * threshold with no more alarms), and at the count the issue measured
 * (1 of 30) too.
 *
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_single.h"

static const struct prod_stream *stream(const struct prod_corpus *c, int cap)
{
	char name[48];
	size_t k;

	snprintf(name, sizeof(name), "cap=%d", cap);
	for (k = 0; k < c->n; k++)
		if (!strcmp(c->s[k].name, name))
			return &c->s[k];
	return NULL;
}

double single_value(const struct prod_rep *r, int m)
{
	return m == PM_GBPS ? r->gbps : r->cost_host;
}

double single_t_worse(const double *w, size_t n, double x, int better)
{
	double mean = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		mean += w[i] / (double)n;
	for (i = 0; i < n; i++)
		ss += (w[i] - mean) * (w[i] - mean);
	return (better > 0 ? mean - x : x - mean) / (sqrt(ss / (double)(n - 1)) *
						      sqrt(1 + 1.0 / (double)n));
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y) - (x > y);
}

/* The smallest threshold at which at most @k of t[0..n) exceed it. */
static double threshold(double *t, size_t n, size_t k)
{
	qsort(t, n, sizeof(*t), cmp_desc);
	return k < n ? t[k] : -INFINITY;
}

int single_run_power(const struct prod_corpus *c, size_t window, int m,
		     struct single_power *out)
{
	const struct prod_stream *u = stream(c, 0), *cap[2] = { stream(c, 90), stream(c, 95) };
	int better = m == PM_GBPS ? 1 : -1, ret = -1;
	struct prod_corpus one = { 0 };
	struct prod_stream s;
	size_t idx = 0, j, k, a;
	struct prod_plan p = { .streams = &idx, .n_streams = 1, .repeats = 1,
			       .target = SIZE_MAX, .shift_at = SIZE_MAX,
			       .cost_scale = 1, .window = window };
	struct prod_result r;
	double *t_u = NULL, *w = NULL;

	memset(out, 0, sizeof(*out));
	if (!u || !cap[0] || !cap[1] || u->n <= window || window < 2) {
		fprintf(stderr, "gate_single: want cap=0 runs (more than the window), "
			"cap=90 and cap=95\n");
		return -1;
	}
	s = *u;
	one.s = &s;
	one.n = 1;
	out->judged = u->n - window;
	t_u = malloc(out->judged * sizeof(*t_u));
	w = malloc(window * sizeof(*w));
	s.rep = malloc((u->n + 1) * sizeof(*s.rep));
	if (!t_u || !w || !s.rep)
		goto out;
	/* False alarms: the unchanged runs in order, each judged, then ingested. */
	memcpy(s.rep, u->rep, u->n * sizeof(*s.rep));
	if (prod_replay(&one, &p, &r))
		goto out;
	for (j = window; j < u->n; j++) {
		out->fa += prod_flagged(&r, j, 0, m);
		for (k = 0; k < window; k++)
			w[k] = single_value(&u->rep[j - window + k], m);
		t_u[j - window] = single_t_worse(w, window, single_value(&u->rep[j], m), better);
	}
	prod_result_free(&r);
	out->thr = threshold(t_u, out->judged, out->fa);
	out->thr1 = threshold(t_u, out->judged, 1);
	for (k = 0; k < window; k++)
		w[k] = single_value(&u->rep[u->n - window + k], m);
	/* Each capped run judged after the same steady history, not ingested. */
	s.n = u->n + 1;
	p.judge_only_last = 1;
	for (a = 0; a < 2; a++) {
		out->n_cap[a] = cap[a]->n;
		for (j = 0; j < cap[a]->n; j++) {
			double t = single_t_worse(w, window, single_value(&cap[a]->rep[j], m), better);

			s.rep[u->n] = cap[a]->rep[j];
			if (prod_replay(&one, &p, &r))
				goto out;
			out->found[a] += prod_flagged(&r, u->n, 0, m);
			prod_result_free(&r);
			out->t_found[a] += t > out->thr;
			out->t1_found[a] += t > out->thr1;
		}
	}
	ret = 0;
out:
	free(s.rep);
	free(t_u);
	free(w);
	return ret;
}

size_t single_t_found(const struct prod_corpus *c, size_t window, int m, int cap, double thr)
{
	const struct prod_stream *u = stream(c, 0), *s = stream(c, cap);
	int better = m == PM_GBPS ? 1 : -1;
	size_t j, k, found = 0;
	double w[64];

	if (!u || !s || u->n < window || window > sizeof(w) / sizeof(w[0]))
		return 0;
	for (k = 0; k < window; k++)
		w[k] = single_value(&u->rep[u->n - window + k], m);
	for (j = 0; j < s->n; j++)
		found += single_t_worse(w, window, single_value(&s->rep[j], m), better) > thr;
	return found;
}
