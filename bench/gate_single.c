/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Single-run detection after a steady history (issue 31 item 17), through
 * the product path (bench/gate_product.c: compare --db, then ingest, run
 * by run, in recorded time order), beside a plain one-sided t prediction
 * interval on the same window at the same false-alarm rate.
 *
 * The corpus (bench/record_tbf.sh) holds U unchanged runs ("cap":0) and
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
 *   build/bench/gate_single [--window W] bench/corpus/iperf3-tbf-2026-12-03.jsonl
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_product.h"

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

static double value(const struct prod_rep *r, int m)
{
	return m == PM_GBPS ? r->gbps : r->cost_host;
}

/* The t statistic of @x toward worse against w[0..n) (@better +1 higher). */
static double t_worse(const double *w, size_t n, double x, int better)
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
static double threshold(const double *t, size_t n, size_t k)
{
	double *s = malloc(n * sizeof(*s)), thr;

	memcpy(s, t, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_desc);
	thr = k < n ? s[k] : -INFINITY;
	free(s);
	return thr;
}

int main(int argc, char **argv)
{
	struct prod_corpus c = { 0 };
	const struct prod_stream *u, *cap[2];
	static const int caps[2] = { 90, 95 }, better[PM_COUNT] = { 1, -1, -1 };
	size_t window = 10, j, k, a = 1;
	int m;

	if (argc > 2 && !strcmp(argv[1], "--window")) {
		window = strtoul(argv[2], NULL, 10);
		a = 3;
	}
	if (argc != (int)a + 1 || window < 5) {
		fprintf(stderr, "usage: gate_single [--window W] CORPUS.jsonl\n");
		return 2;
	}
	if (prod_corpus_load(argv[a], &c))
		return 2;
	u = stream(&c, 0);
	cap[0] = stream(&c, 90);
	cap[1] = stream(&c, 95);
	if (!u || !cap[0] || !cap[1] || u->n <= window) {
		fprintf(stderr, "%s: want cap=0 runs (more than the window), cap=90 and cap=95\n",
			argv[a]);
		return 2;
	}
	printf("Single-run detection after a steady history (%s): %zu unchanged runs, "
	       "window %zu,\nthrough compare --db then ingest in time order (r = 1); a plain "
	       "one-sided t prediction\ninterval on the same window beside it.\n\n",
	       argv[a], u->n, window);
	for (m = PM_GBPS; m <= PM_COST_HOST; m++) {
		struct prod_corpus one = { 0 };
		struct prod_stream s = *u;
		size_t idx = 0, fa = 0, judged = u->n - window, found[2] = { 0, 0 };
		size_t t_found[2][2] = { { 0 } };
		double *t_u = malloc(judged * sizeof(*t_u)), thr[2];
		double *w = malloc(window * sizeof(*w));
		struct prod_plan p = { .streams = &idx, .n_streams = 1, .repeats = 1,
				       .target = SIZE_MAX, .shift_at = SIZE_MAX,
				       .cost_scale = 1, .window = window };
		struct prod_result r;

		one.s = &s;
		one.n = 1;
		/* False alarms: the unchanged runs in order. */
		if (prod_replay(&one, &p, &r))
			return 1;
		for (j = window; j < u->n; j++) {
			fa += prod_flagged(&r, j, 0, m);
			for (k = 0; k < window; k++)
				w[k] = value(&u->rep[j - window + k], m);
			t_u[j - window] = t_worse(w, window, value(&u->rep[j], m), better[m]);
		}
		prod_result_free(&r);
		thr[0] = threshold(t_u, judged, fa);
		thr[1] = threshold(t_u, judged, 1);
		for (k = 0; k < window; k++)
			w[k] = value(&u->rep[u->n - window + k], m);
		/* Each capped run after the same steady history. */
		s.rep = malloc((u->n + 1) * sizeof(*s.rep));
		memcpy(s.rep, u->rep, u->n * sizeof(*s.rep));
		s.n = u->n + 1;
		p.judge_only_last = 1;
		for (a = 0; a < 2; a++)
			for (j = 0; j < cap[a]->n; j++) {
				double t;

				s.rep[u->n] = cap[a]->rep[j];
				if (prod_replay(&one, &p, &r))
					return 1;
				found[a] += prod_flagged(&r, u->n, 0, m);
				prod_result_free(&r);
				t = t_worse(w, window, value(&cap[a]->rep[j], m), better[m]);
				t_found[a][0] += t > thr[0];
				t_found[a][1] += t > thr[1];
			}
		printf("%s (%s is worse):\n", m == PM_GBPS ? "throughput" : "cpu.cost (host)",
		       better[m] > 0 ? "lower" : "higher");
		printf("  %-44s  FA %2zu/%zu   cap 90%%: %2zu/%zu   cap 95%%: %2zu/%zu\n",
		       "the gate (compare --db, ingest)", fa, judged, found[0], cap[0]->n,
		       found[1], cap[1]->n);
		printf("  %-44s  FA %2zu/%zu   cap 90%%: %2zu/%zu   cap 95%%: %2zu/%zu\n",
		       "t prediction interval, same FA (t > ...)", fa, judged, t_found[0][0],
		       cap[0]->n, t_found[1][0], cap[1]->n);
		printf("  %-44s  FA %2zu/%zu   cap 90%%: %2zu/%zu   cap 95%%: %2zu/%zu\n",
		       "t prediction interval at 1 false alarm", (size_t)1, judged,
		       t_found[0][1], cap[0]->n, t_found[1][1], cap[1]->n);
		printf("  (t thresholds %.2f and %.2f)\n\n", thr[0], thr[1]);
		free(s.rep);
		free(t_u);
		free(w);
	}
	for (a = 0; a < 2; a++) {
		double mean = 0, med;
		double *v = malloc(u->n * sizeof(*v));

		for (j = 0; j < u->n; j++)
			v[j] = u->rep[j].gbps;
		qsort(v, u->n, sizeof(*v), cmp_desc);
		med = u->n % 2 ? v[u->n / 2] : (v[u->n / 2 - 1] + v[u->n / 2]) / 2;
		for (j = 0; j < cap[a]->n; j++)
			mean += cap[a]->rep[j].gbps / (double)cap[a]->n;
		printf("cap %d%%: mean %.2f Gbit/s, %.1f%% of the unchanged median %.2f\n", caps[a],
		       mean, 100 * mean / med, med);
		free(v);
	}
	prod_corpus_free(&c);
	return 0;
}
