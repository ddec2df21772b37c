/*
 * ksft-metric ab: paired A/B judging, of a log the runners' A/B mode wrote
 * (ksft-iperf3 / ksft-kperf --ab-a/--ab-b: every repeat labelled
 * variant=A|B and pair=N) or of any two commands that print KTAP metrics
 * (--run-a/--run-b: ab_run.c runs them in pairs). No history: the pairs
 * are the evidence, each pair measured on the same machine state, so the
 * machine's drift cancels in B/A. The test is lib/report/judge/ab.c
 * (signed-rank on log(B/A), or on B - A where a value is not positive;
 * Hodges-Lehmann estimate), compiled into the tool; the series are
 * grouped by identity in ab_pairs.c; doc/run-history.rst, "A/B runs".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "ab_pairs.h"
#include "ab_run.h"
#include "cli.h"
#include "order_stats.h"
#include "table.h"
#include "text_fit.h"
#include "verdict_vocab.h"

static const char ab_usage[] =
	"usage: ksft-metric ab [--alpha A] [--tolerance PCT] [--format text|json]\n"
	"                      [-o OUT] [--base-dir DIR] [--quiet] FILE...\n"
	"       ksft-metric ab --run-a CMD --run-b CMD [--pairs N] [--seed S]\n"
	"                      [--alpha A] [--tolerance PCT] [--format text|json]\n"
	"                      [-o OUT] [--quiet]\n"
	"\n"
	"Judge variant B against variant A from pairs: the pairs of an A/B run\n"
	"(the runners' --ab-a/--ab-b mode: repeats labelled variant=A|B and\n"
	"pair=N), or, with --run-a/--run-b, N pairs of two commands that print\n"
	"KTAP metrics (a patched and an unpatched test, a script that runs a test\n"
	"on one kernel or another), each pair running both once in a random\n"
	"order. A series is a case's metric with its labels (variant and pair\n"
	"aside) under its full test path. Each pair's value is the median of its\n"
	"repeats; the verdict on B against A is a one-sided Wilcoxon signed-rank\n"
	"test toward the metric's bad direction, on log(B/A), or on B - A when a\n"
	"value is 0 or below, with the Hodges-Lehmann estimate of the change; a\n"
	"change must also exceed the policy's tolerance. Only series whose policy\n"
	"has a direction are judged. Too few pairs to reach the significance\n"
	"asked for is TOO NOISY, with the number of pairs needed.\n"
	"\n"
	"  -A, --run-a CMD    variant A's command (split on blanks, no shell); its\n"
	"                     standard output is read as a KTAP log\n"
	"  -B, --run-b CMD    variant B's command\n"
	"  -n, --pairs N      pairs to run (default 10)\n"
	"  -s, --seed S       the order inside each pair (default: random, printed)\n"
	"  -a, --alpha A      the run's false-alarm rate, split over the judged\n"
	"                     series (Bonferroni; default 0.01)\n"
	"  -t, --tolerance P  the tolerance in percent ('5%' or '5'), in place of\n"
	"                     each policy's relative_tolerance\n"
	"      --allow-context-mismatch\n"
	"                     judge runs measured otherwise (their contexts' clock,\n"
	"                     cpu_count, cpu_model, qemu, qemu_cpu or icount_shift\n"
	"                     differ), the difference printed; without it exit 2\n"
	"  -f, --format FMT   text (default: fits 120 columns, 80 when $COLUMNS or\n"
	"                     the terminal is narrower) or json\n"
	"  -o, --output OUT   write there instead of stdout\n"
	"  -C, --base-dir DIR every file read or written must resolve under DIR\n"
	"  -q, --quiet        do not print input warnings\n"
	"  -h, --help         this help\n"
	"\n"
	"Exit status: 0 no regression, 1 B regressed in a judged series, 2 bad\n"
	"usage or unreadable input (also: no A/B pairs in the input, a command\n"
	"that cannot run, or --run-a/--run-b runs measured otherwise).\n";

#define AB_ALPHA 0.01
#define AB_PAIRS 10

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
 * Series @i of @r into its group. @variant < 0: its labels name the
 * variant (A or B) and the pair (an integer >= 0), else it is no A/B
 * series; otherwise (--run-a/-b) the run's @variant and @pair. Returns 1
 * when taken, 0 when not an A/B series, -1 on no memory.
 */
static int take_series(const struct ksft_metric_report *r, size_t i, struct ab_groups *gs,
		       int variant, long long pair)
{
	struct ksft_metric_report_series s = { .sz = sizeof(s) };
	json_t *labels;
	struct ab_group *g;
	char *rest;
	int ret = 0;

	if (ksft_metric_report_series_get(r, i, &s))
		return 0;
	labels = json_loads(s.labels_json, 0, NULL);
	if (!labels)
		return -ENOMEM;
	if (variant < 0) {
		json_t *v = json_object_get(labels, "variant"), *p = json_object_get(labels, "pair");
		const char *vs = json_string_value(v);

		variant = !vs ? -1 : !strcmp(vs, "A") ? 0 : !strcmp(vs, "B") ? 1 : -1;
		if (variant < 0 || !json_is_integer(p) || json_integer_value(p) < 0) {
			json_decref(labels);
			return 0;
		}
		pair = json_integer_value(p);
		json_object_del(labels, "variant");
		json_object_del(labels, "pair");
	}
	rest = json_dumps(labels, JSON_COMPACT | JSON_SORT_KEYS);
	g = rest ? ab_group_of(gs, &s, rest) : NULL;
	if (!g || ab_group_add(g, pair, variant, pair_value(r, i)))
		ret = -ENOMEM;
	else
		ret = 1;
	free(rest);
	json_decref(labels);
	return ret;
}

struct run_ctx {
	struct ab_groups *gs;
	size_t took;
	char *first_context;	/* the first run's context: every run is measured alike */
	const char *first_name;
	int allow_context_mismatch, said;
};

/* One clock for both variants (issue 42): each run's context against the
 * first's; -1 after the error, or 0 (the difference said once when
 * allowed). */
static int same_instrument(struct run_ctx *c, const struct ksft_metric_report *r,
			   int variant, size_t pair)
{
	const char *ctx = ksft_metric_report_context_json(r);
	char *diff = NULL;
	int n;

	if (!c->first_context) {
		if (!(c->first_context = strdup(ctx)))
			return cli_oom("ab");
		c->first_name = variant ? "B" : "A";
		return 0;
	}
	n = ksft_metric_report_context_mismatch(c->first_context, ctx, &diff);
	if (n < 0)
		return cli_oom("ab");
	if (n && !c->allow_context_mismatch) {
		cli_error("ab: variant %c, pair %zu was measured otherwise than the first %s"
			  " run: %s (--allow-context-mismatch judges anyway)", variant ? 'B' : 'A',
			  pair, c->first_name, diff);
		ksft_metric_report_text_free(diff);
		return -1;
	}
	if (n && !c->said++)
		cli_error("ab: judged across how the runs were measured (--allow-context-mismatch):"
			  " variant %c, pair %zu against the first %s run: %s", variant ? 'B' : 'A',
			  pair, c->first_name, diff);
	ksft_metric_report_text_free(diff);
	return 0;
}

static int take_run(void *ctx, const struct ksft_metric_report *r, int variant, size_t pair)
{
	struct run_ctx *c = ctx;
	size_t i, n = ksft_metric_report_series_count(r);

	if (same_instrument(c, r, variant, pair))
		return -1;

	for (i = 0; i < n; i++) {
		int t = take_series(r, i, c->gs, variant, (long long)pair);

		if (t < 0) {
			return cli_oom("ab");
		}
		c->took += (size_t)t;
	}
	return 0;
}

/* The verdict's code (verdict_vocab.h): ksftm_verdict_name() gives its name. */
static const char *verdict_code(const struct ab_group *g)
{
	if (!g->judged)
		return KSFTM_VERDICT_UNTRACKED;
	switch (g->res.verdict) {
	case GATE_REGRESSION:
		return KSFTM_VERDICT_REGRESSION;
	case GATE_IMPROVEMENT:
		return KSFTM_VERDICT_IMPROVEMENT;
	case GATE_NO_CHANGE:
		return KSFTM_VERDICT_NO_CHANGE;
	default:
		return KSFTM_VERDICT_TOO_NOISY;
	}
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "path / case metric{k=v,k=v}" as compare's table writes a series,
 * every control character '?'. */
static char *series_title(const struct ab_group *g)
{
	json_t *labels = json_loads(g->labels, 0, NULL), *v;
	const char **keys = NULL, *k;
	char *out = NULL;
	size_t len = 0, i, n = json_object_size(labels);
	FILE *m = open_memstream(&out, &len);

	if (!m) {
		json_decref(labels);
		return NULL;
	}
	for (i = 0; i < g->path_len; i++) {
		cli_put_printable(m, g->path[i]);
		fputs(" / ", m);
	}
	cli_put_printable(m, g->case_name);
	fputc(' ', m);
	cli_put_printable(m, g->name);
	if (n && (keys = malloc(n * sizeof(*keys)))) {
		i = 0;
		json_object_foreach(labels, k, v)
			keys[i++] = k;
		qsort(keys, n, sizeof(*keys), key_cmp);
		fputc('{', m);
		for (i = 0; i < n; i++) {
			char *text;

			v = json_object_get(labels, keys[i]);
			text = json_is_string(v) ? NULL :
			       json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
			fputs(i ? "," : "", m);
			cli_put_printable(m, keys[i]);
			fputc('=', m);
			cli_put_printable(m, json_is_string(v) ? json_string_value(v) :
					  text ? text : "?");
			free(text);
		}
		fputc('}', m);
		free(keys);
	}
	json_decref(labels);
	if (fclose(m)) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * One unit for a row, picked as the library's tables pick it (for @ref),
 * read off the public ksft_metric_report_value_text(): "8.047 Gbit/s".
 */
static void row_unit(struct text_unit *u, char *sym, size_t size, double ref, double scale,
		     const char *label)
{
	double raw = isfinite(scale) ? ref * scale : ref, shown;
	char buf[128], *end;

	u->mult = isfinite(scale) ? scale : 1.0;
	snprintf(sym, size, "%s", label ? label : "");
	u->sym = sym;
	if (!label || !isfinite(raw) || raw == 0.0 ||
	    ksft_metric_report_value_text(buf, sizeof(buf), ref, scale, label) < 0)
		return;
	shown = strtod(buf, &end);
	if (*end == ' ' && shown != 0.0) {
		u->mult *= shown / raw;
		snprintf(sym, size, "%s", end + 1);
	}
}

/* The change: "~" when not judged a change (benchstat's mark), else a
 * percentage of A, or B - A in the row's unit. */
static void change_cell(struct strbuf *sb, const struct ab_group *g, const struct text_unit *u)
{
	char buf[32];

	if (!strcmp(verdict_code(g), KSFTM_VERDICT_NO_CHANGE)) {
		strbuf_addc(sb, '~');
	} else if (isfinite(g->res.change_pct)) {
		snprintf(buf, sizeof(buf), fabs(g->res.change_pct) < 10 ? "%+.2f%%" :
			 fabs(g->res.change_pct) < 100 ? "%+.1f%%" : "%+.0f%%", g->res.change_pct);
		strbuf_adds(sb, buf);
	} else if (g->res.diff && isfinite(g->res.shift)) {
		strbuf_adds(sb, g->res.shift > 0 ? "+" : "");
		text_fit_value(sb, u, g->res.shift);
	} else {
		strbuf_addc(sb, '-');
	}
}

static void p_cell(char *buf, size_t n, double p)
{
	if (!isfinite(p))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2g", p);
}

static const char ab_legend[] =
	"A, B: the median of the pairs' values, in the row's UNIT; CHANGE: B against A (the"
	" Hodges-Lehmann estimate: a ratio as a percentage, or B - A where a value is 0 or"
	" below; ~: no change); PAIRS: pairs with both variants measured; P: the one-sided"
	" signed-rank p that B is worse.";

/* The text fits 120 columns, or 80 when $COLUMNS or the terminal says so. */
static int print_text(FILE *f, const struct ab_groups *gs, size_t judged, double alpha,
		      int failing, size_t width)
{
	static const char *const head[] = { "SERIES", "A", "B", "CHANGE", "PAIRS", "P",
					    "VERDICT", "UNIT" };
	static const int right[] = { 0, 1, 1, 1, 1, 1, 0, 0 };
	struct strbuf sb = STRBUF_INIT, cell = STRBUF_INIT;
	struct table t;
	size_t i, k, few = 0, most = 0;
	int ret;

	if (table_init(&t, 8))
		return -ENOMEM;
	for (k = 0, ret = 0; k < 8; k++)
		ret |= table_cell(&t, head[k]);
	for (i = 0; i < gs->n && !ret; i++) {
		const struct ab_group *g = &gs->g[i];
		char *title = series_title(g), buf[64], sym[96];
		struct text_unit u;

		row_unit(&u, sym, sizeof(sym), isfinite(g->med_a) ? g->med_a : g->med_b,
			 g->display_scale, g->display_label);
		ret |= table_cell(&t, title ? title : "?");
		free(title);
		cell.len = 0;
		text_fit_value(&cell, &u, g->med_a);
		ret |= table_cell(&t, cell.data ? cell.data : "-");
		cell.len = 0;
		text_fit_value(&cell, &u, g->med_b);
		ret |= table_cell(&t, cell.data ? cell.data : "-");
		cell.len = 0;
		change_cell(&cell, g, &u);
		ret |= table_cell(&t, cell.data ? cell.data : "-");
		snprintf(buf, sizeof(buf), "%zu", g->res.n_pairs);
		ret |= table_cell(&t, buf);
		p_cell(buf, sizeof(buf), g->judged ? g->res.p_worse : NAN);
		ret |= table_cell(&t, buf);
		ret |= table_cell(&t, ksftm_verdict_name(verdict_code(g)));
		ret |= table_cell(&t, u.sym);
		ret |= cell.oom;
		if (g->judged && g->res.n_pairs < g->res.pairs_needed) {
			few++;
			most = g->res.pairs_needed;
		}
	}
	if (!ret) {
		text_fit_render(&t, &sb, right, width, 0);
		text_fit_wrap(&sb, ab_legend, width, 0);
	}
	table_free(&t);
	strbuf_free(&cell);
	if (ret || sb.oom) {
		strbuf_free(&sb);
		return -ENOMEM;
	}
	fputs(sb.data ? sb.data : "", f);
	strbuf_free(&sb);
	if (few)
		fprintf(f, "\nTOO FEW PAIRS: %zu judged series ha%s fewer than %zu pairs: n pairs "
			"cannot give p below 1/2^n,\nand p <= %g per series needs %zu (run more "
			"pairs).\n", few, few == 1 ? "s" : "ve", most,
			alpha / (double)(judged ? judged : 1), most);
	fprintf(f, "\n%zu series, %zu judged at alpha %g each (%g over the run)\n"
		"RESULT: %s\n", gs->n, judged, judged ? alpha / (double)judged : alpha, alpha,
		failing ? "REGRESSION" : "OK");
	return 0;
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static int print_json(FILE *f, const struct ab_groups *gs, double alpha, int failing)
{
	json_t *doc = json_pack("{s:s,s:i,s:f,s:s,s:[]}", "format", "ksft-metric-ab",
				"version", 2, "alpha", alpha, "result",
				failing ? "regression" : "ok", "rows");
	json_t *rows = json_object_get(doc, "rows");
	size_t i, k;
	int ret = doc ? 0 : -ENOMEM;

	for (i = 0; !ret && i < gs->n; i++) {
		const struct ab_group *g = &gs->g[i];
		json_t *labels = json_loads(g->labels, 0, NULL), *path = json_array();
		json_t *row;

		for (k = 0; path && k < g->path_len; k++)
			json_array_append_new(path, json_string(g->path[k]));
		row = json_pack("{s:o,s:s,s:s,s:o,s:I,s:I,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:s}",
				"path", path ? path : json_array(), "case", g->case_name,
				"metric", g->name, "labels", labels ? labels : json_object(),
				"pairs", (json_int_t)g->res.n_pairs,
				"pairs_needed", (json_int_t)g->res.pairs_needed,
				"method", g->res.diff ? "difference" : "ratio",
				"a", num_or_null(g->med_a), "b", num_or_null(g->med_b),
				"ratio", num_or_null(g->res.ratio),
				"shift", num_or_null(g->res.shift),
				"change_pct", num_or_null(g->res.change_pct),
				"p_worse", num_or_null(g->judged ? g->res.p_worse : NAN),
				"verdict", verdict_code(g));
		ret = row && !json_array_append_new(rows, row) ? 0 : -ENOMEM;
	}
	if (!ret)
		ret = json_dumpf(doc, f, JSON_COMPACT) || fputc('\n', f) == EOF ? -EIO : 0;
	json_decref(doc);
	return ret;
}

/* Judge every group; 1 when one judged series regressed, -1 on no memory. */
static int judge_all(struct ab_groups *gs, size_t judged, double alpha, double tol_pct)
{
	size_t i;
	int failing = 0;

	for (i = 0; i < gs->n; i++) {
		struct ab_group *g = &gs->g[i];
		double tol = tol_pct >= 0 ? tol_pct / 100 : g->rel_tol, *a, *b;
		size_t m;
		int bad;

		if (ab_group_pairs(g, &a, &b, &m))
			return -ENOMEM;
		/* Untracked series still show their change (+1: the direction
		 * only picks the one-sided test's side). */
		bad = ab_judge(a, b, m, g->better ? g->better : 1, tol,
			       tol_pct >= 0 ? NAN : g->abs_tol,
			       alpha / (double)(judged ? judged : 1), &g->res);
		g->med_a = m ? ksftm_median(a, m) : NAN;
		g->med_b = m ? ksftm_median(b, m) : NAN;
		free(a);
		free(b);
		if (bad)
			return -ENOMEM;
		g->judged = g->better != 0;
		failing |= g->judged && g->res.verdict == GATE_REGRESSION;
	}
	return failing;
}

int cmd_ab(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run-a", required_argument, NULL, 'A' },
		{ "run-b", required_argument, NULL, 'B' },
		{ "pairs", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "allow-context-mismatch", no_argument, NULL, 'M' },
		CLI_OPTION_ALPHA, CLI_OPTION_TOLERANCE, CLI_OPTION_FORMAT, CLI_OPTION_OUTPUT,
		CLI_OPTION_BASE_DIR, CLI_OPTION_QUIET, CLI_OPTION_HELP, { 0 }
	};
	struct ab_run_opts ro = { .pairs = AB_PAIRS };
	struct ab_groups gs = { 0 };
	struct run_ctx rc = { &gs, 0, NULL, NULL, 0, 0 };
	struct cli_common cc;
	size_t i, judged = 0, few = 0, needed = 0;
	double alpha;
	int ch, ret, failing = 0, seeded = 0;
	char *text = NULL, *end;
	size_t len = 0;
	FILE *out;

	ret = cli_common_init(&cc, "ab", ab_usage, 0, argc);
	if (ret != EXIT_OK)
		return ret;
	cc.copts.alpha = 0;
	while ((ch = cli_getopt(&cc, argc, argv, "A:B:n:s:a:t:f:o:C:qhVM", opts)) != -1) {
		ret = EXIT_USAGE;
		if (ch == 'M') {
			rc.allow_context_mismatch = 1;
		} else if (ch == 'A' || ch == 'B') {
			int v = ch == 'B';

			ab_words_free(ro.argv[v]);
			ro.shown[v] = optarg;
			if (!(ro.argv[v] = ab_words(optarg))) {
				cli_error("ab: --run-%c: no command in '%s'", v ? 'b' : 'a', optarg);
				goto out;
			}
		} else if (ch == 'n') {
			if (cli_parse_size("--pairs", optarg, 1000000, &ro.pairs))
				goto out;
			if (!ro.pairs) {
				cli_error("ab: --pairs: at least 1");
				goto out;
			}
		} else if (ch == 's') {
			ro.seed = strtoull(optarg, &end, 0);
			if (end == optarg || *end) {
				cli_error("ab: --seed: not a number: %s", optarg);
				goto out;
			}
			seeded = 1;
		} else if ((ret = cli_common_option(&cc, ch, optarg)) != CLI_OPT_NEXT) {
			goto out;
		}
	}
	ret = EXIT_USAGE;
	if (!ro.argv[0] != !ro.argv[1]) {
		cli_error("ab: --run-a and --run-b go together (one command for each variant)");
		goto out;
	}
	if (ro.argv[0] ? optind < argc : optind >= argc) {
		ret = cli_needs(&cc, ro.argv[0] ? "no FILE with --run-a/--run-b" :
				"at least one FILE (or --run-a and --run-b)");
		goto out;
	}
	if (cc.fmt != KSFT_METRIC_REPORT_TEXT && cc.fmt != KSFT_METRIC_REPORT_JSON) {
		cli_error("ab: --format is text or json");
		goto out;
	}
	if (ro.argv[0]) {
		if (cli_confine(&cc, NULL))
			goto out;
		ro.seed = seeded ? ro.seed : ab_default_seed();
		ro.quiet = cc.quiet;
		if (ab_run(&ro, take_run, &rc))
			goto out;
	} else {
		if ((ret = cli_load(&cc, argv + optind, argc - optind, NULL)) != EXIT_OK)
			goto out;
		ret = EXIT_USAGE;
		for (i = 0; i < ksft_metric_report_series_count(cc.r); i++) {
			int t = take_series(cc.r, i, &gs, -1, 0);

			if (t < 0) {
				cli_oom("ab");
				goto out;
			}
			rc.took += (size_t)t;
		}
	}
	if (!rc.took) {
		cli_error(ro.argv[0] ? "ab: no metrics in any run's output (the commands must "
			  "print KTAP with ktap-metric-json lines)" :
			  "ab: no A/B pairs in the input (no series labelled variant=A|B and "
			  "pair=N; run a runner with --ab-a/--ab-b, or use --run-a/--run-b)");
		goto out;
	}
	alpha = cc.copts.alpha > 0 ? cc.copts.alpha : AB_ALPHA;
	for (i = 0; i < gs.n; i++)
		judged += gs.g[i].better != 0;
	failing = judge_all(&gs, judged, alpha, cc.copts.tolerance_pct);
	if (failing < 0) {
		cli_oom("ab");
		goto out;
	}
	for (i = 0; i < gs.n; i++)
		if (gs.g[i].better && gs.g[i].res.n_pairs < gs.g[i].res.pairs_needed) {
			few++;
			needed = gs.g[i].res.pairs_needed;
		}
	if (few && !cc.quiet)
		cli_error("ab: warning: %zu judged series ha%s fewer pairs than the %zu needed to "
			  "reach p <= %g per series: TOO NOISY whatever the numbers (run more "
			  "pairs)", few, few == 1 ? "s" : "ve", needed,
			  alpha / (double)(judged ? judged : 1));
	/* Built in memory, written through the confinement (--base-dir). */
	if (!(out = open_memstream(&text, &len))) {
		cli_oom("ab");
		goto out;
	}
	ch = cc.fmt == KSFT_METRIC_REPORT_JSON ? print_json(out, &gs, alpha, failing) :
	     print_text(out, &gs, judged, alpha, failing,
				(cli_text_fmt(&cc) & KSFT_METRIC_REPORT_TEXT_NARROW) ? 80 : 120);
	if (fclose(out) || ch) {
		cli_oom("ab");
		goto out;
	}
	if (confine_write(&cc.c, cc.out ? cc.out : "-", text, len))
		goto out;
	ret = failing ? EXIT_REGRESSION : EXIT_OK;
out:
	free(text);
	free(rc.first_context);
	ab_words_free(ro.argv[0]);
	ab_words_free(ro.argv[1]);
	ab_groups_free(&gs);
	cli_common_free(&cc);
	return ret;
}
