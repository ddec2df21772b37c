/*
 * ksft-metric ab: paired A/B judging of a log the runners' A/B mode wrote
 * (ksft-iperf3 / ksft-kperf --ab-a/--ab-b: every repeat labelled
 * variant=A|B and pair=N). No history: the pairs are the evidence, each
 * pair measured on the same machine state, so the machine's drift cancels
 * in B/A. The test is lib/report/judge/ab.c (signed-rank on log(B/A),
 * Hodges-Lehmann ratio), compiled into the tool; doc/run-history.rst,
 * "A/B runs".
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "cli.h"
#include "order_stats.h"
#include "verdict_vocab.h"

static const char ab_usage[] =
	"usage: ksft-metric ab [--alpha A] [--tolerance PCT] [--format text|json]\n"
	"                      [-o OUT] [--base-dir DIR] [--quiet] FILE...\n"
	"\n"
	"Judge variant B against variant A from the pairs of an A/B run (the\n"
	"runners' --ab-a/--ab-b mode: repeats labelled variant=A|B and pair=N).\n"
	"Each pair's value is the median of its repeats; the verdict on B/A is a\n"
	"one-sided Wilcoxon signed-rank test on log(B/A) toward the metric's bad\n"
	"direction, with the Hodges-Lehmann ratio; a change must also exceed the\n"
	"policy's tolerance. Only series whose policy has a direction are judged.\n"
	"\n"
	"  -a, --alpha A      the run's false-alarm rate, split over the judged\n"
	"                     series (Bonferroni; default 0.01)\n"
	"  -t, --tolerance P  the tolerance in percent ('5%' or '5'), in place of\n"
	"                     each policy's relative_tolerance\n"
	"  -f, --format FMT   text (default) or json\n"
	"  -o, --output OUT   write there instead of stdout\n"
	"  -C, --base-dir DIR every file read or written must resolve under DIR\n"
	"  -q, --quiet        do not print input warnings\n"
	"  -h, --help         this help\n"
	"\n"
	"Exit status: 0 no regression, 1 B regressed in a judged series, 2 bad\n"
	"usage or unreadable input (also: no A/B pairs in the input).\n";

#define AB_ALPHA 0.01

/* One metric of one case, its labels without variant and pair. */
struct ab_group {
	char *case_name, *name, *labels;
	int better;
	double rel_tol;
	size_t n;		/* pairs slots: index = pair number */
	double *v[2];		/* [A, B][pair], NaN: not measured */
	struct ab_result res;
	int judged;
};

struct ab_groups {
	struct ab_group *g;
	size_t n, cap;
};

static void groups_free(struct ab_groups *gs)
{
	size_t i;

	for (i = 0; i < gs->n; i++) {
		free(gs->g[i].case_name);
		free(gs->g[i].name);
		free(gs->g[i].labels);
		free(gs->g[i].v[0]);
		free(gs->g[i].v[1]);
	}
	free(gs->g);
}

static struct ab_group *group_of(struct ab_groups *gs, const char *case_name, const char *name,
				 const char *labels)
{
	struct ab_group *g;
	size_t i;

	for (i = 0; i < gs->n; i++)
		if (!strcmp(gs->g[i].case_name, case_name) && !strcmp(gs->g[i].name, name) &&
		    !strcmp(gs->g[i].labels, labels))
			return &gs->g[i];
	if (gs->n == gs->cap) {
		size_t cap = gs->cap ? 2 * gs->cap : 8;
		struct ab_group *ng = realloc(gs->g, cap * sizeof(*ng));

		if (!ng)
			return NULL;
		gs->g = ng;
		gs->cap = cap;
	}
	g = &gs->g[gs->n];
	memset(g, 0, sizeof(*g));
	g->case_name = strdup(case_name);
	g->name = strdup(name);
	g->labels = strdup(labels);
	if (!g->case_name || !g->name || !g->labels) {
		free(g->case_name);
		free(g->name);
		free(g->labels);
		return NULL;
	}
	gs->n++;
	return g;
}

/* Slot @pair of @g's arrays, grown with NaN; -1 on no memory. */
static int group_slot(struct ab_group *g, size_t pair)
{
	size_t k, n = pair + 1;
	int t;

	if (pair < g->n)
		return 0;
	for (t = 0; t < 2; t++) {
		double *nv = realloc(g->v[t], n * sizeof(*nv));

		if (!nv)
			return -1;
		for (k = g->n; k < n; k++)
			nv[k] = NAN;
		g->v[t] = nv;
	}
	g->n = n;
	return 0;
}

/* The median of series @i's processed scalar points (NaN: none or arrays). */
static double pair_value(const struct ksft_metric_report *r, size_t i)
{
	struct ksft_metric_report_values v = { 0 };
	double m = NAN, *x;
	size_t k, n = 0;

	if (ksft_metric_report_series_values(r, i, KSFT_METRIC_REPORT_PROCESSED, &v) ||
	    v.width != 1 || !v.n || !(x = malloc(v.n * sizeof(*x)))) {
		ksft_metric_report_values_release(&v);
		return NAN;
	}
	for (k = 0; k < v.n; k++)
		if (isfinite(v.v[k]))
			x[n++] = v.v[k];
	if (n)
		m = ksftm_median(x, n);
	free(x);
	ksft_metric_report_values_release(&v);
	return m;
}

/*
 * Series @i into its group when its labels name a variant (A or B) and a
 * pair (an integer >= 0). Returns 1 when taken, 0 when not an A/B series,
 * -1 on no memory.
 */
static int take_series(const struct ksft_metric_report *r, size_t i, struct ab_groups *gs)
{
	struct ksft_metric_report_series s = { .sz = sizeof(s) };
	json_t *labels, *variant, *pair;
	struct ab_group *g;
	char *rest;
	size_t pn;
	int ret = 0, t;

	if (ksft_metric_report_series_get(r, i, &s))
		return 0;
	labels = json_loads(s.labels_json, 0, NULL);
	variant = json_object_get(labels, "variant");
	pair = json_object_get(labels, "pair");
	t = json_is_string(variant) ? (!strcmp(json_string_value(variant), "A") ? 0 :
				       !strcmp(json_string_value(variant), "B") ? 1 : -1) : -1;
	if (t < 0 || !json_is_integer(pair) || json_integer_value(pair) < 0 ||
	    json_integer_value(pair) > 100000) {
		json_decref(labels);
		return 0;
	}
	pn = (size_t)json_integer_value(pair);	/* before del frees it */
	json_object_del(labels, "variant");
	json_object_del(labels, "pair");
	rest = json_dumps(labels, JSON_COMPACT | JSON_SORT_KEYS);
	g = rest ? group_of(gs, s.case_name ? s.case_name : "", s.name, rest) : NULL;
	if (!g || group_slot(g, pn)) {
		ret = -1;
	} else {
		g->better = !s.better ? 0 : !strcmp(s.better, "higher") ? 1 : -1;
		g->rel_tol = s.relative_tolerance;
		g->v[t][pn] = pair_value(r, i);
		ret = 1;
	}
	free(rest);
	json_decref(labels);
	return ret;
}

/* The verdict's code (JSON) or, with @text, its name (verdict_vocab.h). */
static const char *verdict_text(const struct ab_group *g, int text)
{
	const char *code;

	if (!g->judged)
		code = KSFTM_VERDICT_UNTRACKED;
	else if (g->res.verdict == GATE_REGRESSION)
		code = KSFTM_VERDICT_REGRESSION;
	else if (g->res.verdict == GATE_IMPROVEMENT)
		code = KSFTM_VERDICT_IMPROVEMENT;
	else if (g->res.verdict == GATE_TOO_NOISY)
		code = KSFTM_VERDICT_TOO_NOISY;
	else
		code = KSFTM_VERDICT_NO_CHANGE;
	return text ? ksftm_verdict_name(code) : code;
}

static void print_text(FILE *f, const struct ab_groups *gs, size_t judged, double alpha,
		       int failing)
{
	size_t i;

	fprintf(f, "%-48s %5s %9s %8s %9s  %s\n", "SERIES", "PAIRS", "B/A", "CHANGE", "P",
		"VERDICT");
	for (i = 0; i < gs->n; i++) {
		const struct ab_group *g = &gs->g[i];
		char title[512];
		double p = !g->judged ? NAN : g->better ? g->res.p_worse : NAN;

		snprintf(title, sizeof(title), "%s %s%s", g->case_name, g->name,
			 strcmp(g->labels, "{}") ? g->labels : "");
		fprintf(f, "%-48s %5zu %9.4f %+7.2f%% %9.2g  %s\n", title, g->res.n_pairs,
			g->res.ratio, 100 * (g->res.ratio - 1), p, verdict_text(g, 1));
	}
	fprintf(f, "\n%zu series, %zu judged at alpha %g each (%g over the run)\n"
		"RESULT: %s\n", gs->n, judged, judged ? alpha / (double)judged : alpha, alpha,
		failing ? "REGRESSION" : "OK");
}

static int print_json(FILE *f, const struct ab_groups *gs, double alpha, int failing)
{
	json_t *doc = json_pack("{s:s,s:i,s:f,s:s,s:[]}", "format", "ksft-metric-ab",
				"version", 1, "alpha", alpha, "result",
				failing ? "regression" : "ok", "rows");
	json_t *rows = json_object_get(doc, "rows");
	size_t i;
	int ret = doc ? 0 : -1;

	for (i = 0; !ret && i < gs->n; i++) {
		const struct ab_group *g = &gs->g[i];
		json_t *labels = json_loads(g->labels, 0, NULL);
		json_t *row = json_pack("{s:s,s:s,s:o,s:I,s:o,s:o,s:s}", "case", g->case_name,
					"metric", g->name, "labels", labels ? labels : json_object(),
					"pairs", (json_int_t)g->res.n_pairs,
					"ratio", isfinite(g->res.ratio) ? json_real(g->res.ratio) :
					json_null(), "p_worse", g->judged && isfinite(g->res.p_worse) ?
					json_real(g->res.p_worse) : json_null(),
					"verdict", verdict_text(g, 0));

		ret = row ? json_array_append_new(rows, row) : -1;
	}
	if (!ret)
		ret = json_dumpf(doc, f, JSON_COMPACT) || fputc('\n', f) == EOF ? -1 : 0;
	json_decref(doc);
	return ret;
}

int cmd_ab(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_OPTION_ALPHA, CLI_OPTION_TOLERANCE, CLI_OPTION_FORMAT, CLI_OPTION_OUTPUT,
		CLI_OPTION_BASE_DIR, CLI_OPTION_QUIET, CLI_OPTION_HELP, { 0 }
	};
	struct ab_groups gs = { 0 };
	struct cli_common cc;
	size_t i, n, judged = 0;
	double alpha;
	int ch, ret, failing = 0, took = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	ret = cli_common_init(&cc, "ab", ab_usage, 0, argc);
	if (ret != EXIT_OK)
		return ret;
	cc.copts.alpha = 0;
	while ((ch = cli_getopt(&cc, argc, argv, "a:t:f:o:C:qhV", opts)) != -1)
		if ((ret = cli_common_option(&cc, ch, optarg)) != CLI_OPT_NEXT)
			goto out;
	ret = EXIT_USAGE;
	if (optind >= argc) {
		ret = cli_needs(&cc, "at least one FILE");
		goto out;
	}
	if (cc.fmt != KSFT_METRIC_REPORT_TEXT && cc.fmt != KSFT_METRIC_REPORT_JSON) {
		fputs("ksft-metric ab: --format is text or json\n", stderr);
		goto out;
	}
	if ((ret = cli_load(&cc, argv + optind, argc - optind, NULL)) != EXIT_OK)
		goto out;
	ret = EXIT_USAGE;
	alpha = cc.copts.alpha > 0 ? cc.copts.alpha : AB_ALPHA;
	n = ksft_metric_report_series_count(cc.r);
	for (i = 0; i < n; i++) {
		int t = take_series(cc.r, i, &gs);

		if (t < 0) {
			fputs("ksft-metric ab: out of memory\n", stderr);
			goto out;
		}
		took += t;
	}
	if (!took) {
		fprintf(stderr, "ksft-metric ab: no A/B pairs in the input (no series labelled "
			"variant=A|B and pair=N; run a runner with --ab-a/--ab-b)\n");
		goto out;
	}
	for (i = 0; i < gs.n; i++)
		judged += gs.g[i].better != 0;
	for (i = 0; i < gs.n; i++) {
		struct ab_group *g = &gs.g[i];
		double tol = cc.copts.tolerance_pct >= 0 ? cc.copts.tolerance_pct / 100 : g->rel_tol;
		/* Pairs with both variants measured, in pair order. */
		double *a = malloc((g->n ? g->n : 1) * sizeof(*a));
		double *b = malloc((g->n ? g->n : 1) * sizeof(*b));
		size_t k, m = 0;

		if (!a || !b) {
			free(a);
			free(b);
			fputs("ksft-metric ab: out of memory\n", stderr);
			goto out;
		}
		for (k = 0; k < g->n; k++)
			if (isfinite(g->v[0][k]) && isfinite(g->v[1][k])) {
				a[m] = g->v[0][k];
				b[m++] = g->v[1][k];
			}
		/* Untracked series still show their ratio (+1: the direction
		 * only picks the one-sided test's side). */
		if (ab_judge(a, b, m, g->better ? g->better : 1, tol,
			     alpha / (double)(judged ? judged : 1), &g->res)) {
			free(a);
			free(b);
			fputs("ksft-metric ab: out of memory\n", stderr);
			goto out;
		}
		free(a);
		free(b);
		g->judged = g->better != 0;
		failing |= g->judged && g->res.verdict == GATE_REGRESSION;
	}
	/* Built in memory, written through the confinement (--base-dir). */
	if (!(out = open_memstream(&text, &len))) {
		fputs("ksft-metric ab: out of memory\n", stderr);
		goto out;
	}
	ch = 0;
	if (cc.fmt == KSFT_METRIC_REPORT_JSON)
		ch = print_json(out, &gs, alpha, failing);
	else
		print_text(out, &gs, judged, alpha, failing);
	if (fclose(out) || ch) {
		fputs("ksft-metric ab: out of memory\n", stderr);
		goto out;
	}
	if (confine_write(&cc.c, cc.out ? cc.out : "-", text, len))
		goto out;
	ret = failing ? EXIT_REGRESSION : EXIT_OK;
out:
	free(text);
	groups_free(&gs);
	cli_common_free(&cc);
	return ret;
}
