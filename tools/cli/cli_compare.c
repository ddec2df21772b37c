/* ksft-metric compare: the regression gate. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "seed_runs.h"
#include "verdict_vocab.h"

static const char compare_usage[] =
	"usage: ksft-metric compare --baseline B.json [--baseline ...] [--tolerance PCT]\n"
	"                           [--max-tolerance PCT] [--alpha A] [--allow-missing]\n"
	"                           [--allow-context-mismatch]\n"
	"                           [--format text|json|csv|reply]\n"
	"                           [--bisect] [-o OUT] [--base-dir DIR] FILE...\n"
	"       ksft-metric compare --db DB [--window N] [--fdr Q] [--context KEY=VALUE ...]\n"
	"                           [--order KEY] [--first-run] [--allow-missing]\n"
	"                           [--bisect] [--format ...] FILE...\n"
	"\n"
	"Compare each series' compare value (its regression policy's \"compare\")\n"
	"with the median over the baseline runs. A value worse than the baseline\n"
	"by more than max(relative_tolerance * |baseline|, absolute_tolerance) is\n"
	"a regression. With several samples on both sides a two-sided Mann-Whitney\n"
	"U p-value is shown: a change without p < --alpha is TOO NOISY (where so\n"
	"few samples cannot reach --alpha, samples all apart let the tolerance\n"
	"decide). A change the samples show within the tolerance is NO CHANGE\n"
	"with its size and the tolerance: +3.40% (5% allowed). Logs that name\n"
	"their seed (ksft-vm --seed, one boot a log), against a baseline saved\n"
	"from such logs, are judged seed by seed: one value a boot, the exact\n"
	"rank test over seeds, the shift (Hodges-Lehmann) and its interval.\n"
	"\n"
	"With --db, judge the inputs (several FILEs: repeats of one run) against\n"
	"the last N comparable runs of the history instead: a change is a\n"
	"regression or improvement when the series' own run-to-run noise cannot\n"
	"explain it (a CUSUM, doc/regression-gate.rst; Benjamini-Hochberg across\n"
	"the run's series: Q is the rate of runs with any false alarm) and it\n"
	"exceeds the policy's tolerance. P is adjusted.\n"	"\n"
	"Verdicts: REGRESSION, IMPROVEMENT, NO CHANGE, TOO NOISY (too noisy to\n"
	"tell: a line after the table says what would settle it), DISTURBED (the\n"
	"machine was measurably disturbed: rerun), NEW, MISSING, CASE FAILED (its\n"
	"case failed: not judged), NOT COMPARABLE (a debug kernel or\n"
	"KSFT_MACHINE_SLOW), UNTRACKED (no regression policy).\n"
	"JSON and CSV spell them in snake_case: no_change, too_noisy, ...\n"
	"The text table: tracked series (--all: all) by case, ~ for no change,\n"
	"120 columns (80, vertical, when $COLUMNS or the terminal is narrower).\n";

/* The options: a second literal (one would pass C99's 4095 characters). */
static const char compare_usage_options[] =
	"\n"
	"  -b, --baseline FILE  baseline file (repeat for more runs)\n"
	"  -D, --db DB          run history (SQLite file or postgresql://...)\n"
	"  -w, --window N       comparable runs judged against (30)\n"
	"  -F, --fdr Q          run-level false-alarm rate of regressions (0.01;\n"
	"                       improvements apart, at the same rate)\n"
	"  -x, --context K=V    the current run's context over its logs' (decides\n"
	"                       which runs are comparable); repeat\n"
	"  -O, --order KEY      the current run's CI order: only earlier runs count\n"
	"      --first-run      the history starts here: judge every series NEW when\n"
	"                       --db does not exist yet, holds no run, or holds this\n"
	"                       run's series only under other contexts (without it\n"
	"                       those are errors, exit 2, naming the contexts found)\n"
	"      --bisect         exit status for 'git bisect run': 0 no regression,\n"
	"                       1 regression, 125 cannot tell (a tracked series too\n"
	"                       noisy, not comparable, missing or new), 128 an error\n"
	"      --max-tolerance PCT\n"
	"                       tighten every gated series, a policy's too: its\n"
	"                       allowance is at most PCT percent of the baseline\n"
	"                       (exploration, a deterministic ksft-vm guest); not\n"
	"                       with --db\n"
	"  -t, --tolerance PCT  gate series without a regression policy too: a drop\n"
	"                       of more than PCT percent regresses (zperf default 5);\n"
	"                       '5%' and '5' are both 5 percent (a policy's\n"
	"                       relative_tolerance is a fraction: 0.05); not with\n"
	"                       --db, which uses each policy's tolerance\n"
	"      --all            the text table shows untracked series too\n"
	"  -a, --alpha A        with repeats on both sides a change also needs\n"
	"                       p < A (0.05; 0: the tolerance alone); not with --db\n"
	"  -m, --allow-missing  a gated series missing (or its case failed) does\n"
	"                       not fail\n"
	"      --allow-context-mismatch\n"
	"                       judge against a baseline measured otherwise (its\n"
	"                       context's clock, cpu_count, cpu_model, qemu,\n"
	"                       qemu_cpu or icount_shift differ), the difference\n"
	"                       printed; without it exit 2 naming the keys\n"
	"  -f, --format FMT     text (default), json, csv or reply: a summary\n"
	"                       to paste into a mailing-list reply (both runs'\n"
	"                       kernels, QEMU, CPU model, icount, vCPUs and\n"
	"                       seeds from their contexts, then old -> new\n"
	"                       (+x.x %) a tracked series; 72 columns)\n"
	"  -o, --output OUT     write the table there instead of stdout\n"
	"  -C, --base-dir DIR   every file read or written must resolve under DIR\n"
	"  -q, --quiet          do not print input warnings\n"
	"  -h, --help           this help\n"
	"\n"
	"Exit status: 0 no regression, 1 regression (or a gated series missing\n"
	"or its case failed, without --allow-missing: RESULT: CASE FAILED if only\n"
	"that), 2 bad usage, unreadable input, a baseline measured otherwise\n"
	"(--allow-context-mismatch) or a --db that cannot judge the run (see\n"
	"--first-run); --bisect changes them (128 for each of these errors).\n"
	"TOO NOISY, DISTURBED, NEW, NOT COMPARABLE, UNTRACKED and CANNOT BE\n"
	"GATED never fail the gate.\n";

enum { OPT_BISECT = 256, OPT_ALL, OPT_MAX_TOLERANCE };

/* --bisect's exit status for git bisect run: an error aborts the bisection. */
#define EXIT_BISECT_ABORT 128
#define EXIT_BISECT_SKIP 125

/*
 * --bisect: 1 when a tracked series regressed; 125 (git bisect's "cannot
 * tell") when none did but one was too noisy, disturbed, not comparable,
 * missing or new, or none was judged at all; 0 otherwise.
 */
static int bisect_status(const struct ksft_metric_report_comparison *cmp)
{
	size_t i, n = ksft_metric_report_comparison_rows(cmp), judged = 0, unsure = 0;

	for (i = 0; i < n; i++) {
		struct ksft_metric_report_row row = { .sz = sizeof(row) };

		if (ksft_metric_report_comparison_row(cmp, i, &row) || !row.better)
			continue;	/* untracked: no direction, never a verdict */
		if (!strcmp(row.verdict, KSFTM_VERDICT_REGRESSION))
			return EXIT_REGRESSION;
		if (!strcmp(row.verdict, KSFTM_VERDICT_NO_CHANGE) ||
		    !strcmp(row.verdict, KSFTM_VERDICT_IMPROVEMENT))
			judged++;
		else
			unsure++;
	}
	return unsure || !judged ? EXIT_BISECT_SKIP : EXIT_OK;
}

/*
 * The JSON of a comparison the history could not judge: its rows (each
 * verdict no_history, failing), "result": "error" and the reason.
 */
static char *unusable_json(const char *text, const char *why, size_t *len)
{
	json_t *doc = json_loads(text, 0, NULL), *row;
	char *out, *dump;
	size_t i;

	if (!doc)
		return NULL;
	json_array_foreach(json_object_get(doc, "rows"), i, row) {
		json_object_set_new(row, "verdict", json_string(KSFTM_VERDICT_NO_HISTORY));
		json_object_set_new(row, "fails", json_true());
	}
	json_object_set_new(doc, "failing", json_integer((json_int_t)json_array_size(
					json_object_get(doc, "rows"))));
	json_object_set_new(doc, "result", json_string("error"));
	json_object_set_new(doc, "error", json_string(why));
	dump = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	if (!dump || asprintf(&out, "%s\n", dump) < 0)
		out = NULL;
	free(dump);
	if (out)
		*len = strlen(out);
	return out;
}

/* save's first bytes: a file that starts otherwise is loaded first, as before. */
static const char save_head[] = "{\"format\":\"ksft-metric-baseline\",\"version\":1,\"runs\":[";

/*
 * compare --baseline FILE LOG, one of each and no --db (issue 45): the log
 * read first, its warnings held back, and the baseline left open in *@bf
 * for ksft_metric_report_compare_fd() to read as a stream; what is said,
 * and in which order, stays the old way's (doc/decisions.rst). A file
 * that does not start as save writes it, or a log without metrics, is
 * read first and whole, as cli_load() reads it (*@bf NULL). Returns an
 * exit code.
 */
static int load_log_first(struct cli_common *cc, char *const *files, FILE **bf)
{
	char head[sizeof(save_head) - 1];
	struct stat st;
	FILE *f;
	int ret;

	*bf = NULL;
	if (cli_load_begin(cc, NULL) != EXIT_OK)
		return EXIT_USAGE;
	f = confine_open_read(&cc->c, cc->baselines[0]);	/* confined, said why not */
	if (!f)
		return EXIT_USAGE;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) ||
	    pread(fileno(f), head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
	    memcmp(head, save_head, sizeof(head))) {
		fclose(f);	/* read first and whole, as cli_load() does */
		ret = cli_read_baselines(&cc->c, cc->b, cc->baselines, 1);
		return ret != EXIT_OK ? ret : cli_read_inputs(&cc->c, cc->r, files, 1, cc->quiet);
	}
	ret = cli_read_logs(&cc->c, cc->r, files, 1);
	if (ret == EXIT_OK && !ksft_metric_report_series_count(cc->r)) {
		/* An error either way: the baseline's first, as before. */
		ret = cli_read_baselines(&cc->c, cc->b, cc->baselines, 1);
		if (ret == EXIT_OK)
			ret = cli_inputs_checked(&cc->c, cc->r, files, 1, cc->quiet);
	}
	if (ret == EXIT_OK)
		*bf = f;
	else
		fclose(f);
	return ret;
}

/*
 * ksft_metric_report_compare_fd() of the baseline left open: its error as
 * cli_read_baselines() says it (no log warnings before it, as when it was
 * read first); else the log's warnings, then a refusal of its context.
 * The failing rows, or -1 after an error message.
 */
static int compare_open_baseline(struct cli_common *cc, char *const *files, FILE *bf,
				 struct ksft_metric_report_comparison **cmp)
{
	int failing = ksft_metric_report_compare_fd(cc->r, fileno(bf), cc->baselines[0],
						   &cc->copts, cmp);

	if (failing < 0 && failing != -EXDEV) {
		char *sniff = malloc(65536);
		ssize_t n = sniff ? pread(fileno(bf), sniff, 65536, 0) : -1;

		cli_baseline_error(cc->baselines[0], sniff, n > 0 ? (size_t)n : 0);
		free(sniff);
		return -1;
	}
	if (cli_inputs_checked(&cc->c, cc->r, files, 1, cc->quiet) != EXIT_OK)
		return -1;
	if (failing < 0) {
		cli_error("%s", ksft_metric_report_errmsg());
		return -1;
	}
	return failing;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_OPTION_BASELINE,
		CLI_OPTION_TOLERANCE,
		CLI_OPTION_ALPHA,
		{ "allow-missing", no_argument, NULL, 'm' },
		CLI_OPTION_FORMAT,
		CLI_OPTION_OUTPUT,
		CLI_OPTION_BASE_DIR,
		CLI_OPTION_QUIET,
		CLI_OPTION_HELP,
		CLI_OPTION_DB,
		CLI_OPTION_CONTEXT,
		CLI_OPTIONS_GATE,
		CLI_OPTION_FIRST_RUN,
		{ "bisect", no_argument, NULL, OPT_BISECT },
		{ "all", no_argument, NULL, OPT_ALL },
		CLI_OPTION_ALLOW_CONTEXT,
		{ "max-tolerance", required_argument, NULL, OPT_MAX_TOLERANCE },
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_gate_opts go = KSFT_METRIC_REPORT_GATE_OPTS_INIT;
	struct ksft_metric_report_history *h = NULL;
	struct ksft_metric_report_comparison *cmp = NULL;
	struct ksft_metric_report_baseline *seeds = NULL;
	struct cli_common cc;
	FILE *bf = NULL;	/* the baseline, read as a stream */
	int ch, ret, failing, bisect = 0, all = 0, n_seeds, gate;
	char *text, *usage;
	size_t len;

	if (asprintf(&usage, "%s%s", compare_usage, compare_usage_options) < 0) {
		cli_error("out of memory");
		return EXIT_USAGE;
	}
	ret = cli_common_init(&cc, "compare", usage, 0, argc);
	if (ret != EXIT_OK) {
		free(usage);
		return ret;
	}
	while ((ch = cli_getopt(&cc, argc, argv, "b:t:a:mf:o:C:qhD:x:w:F:O:", opts)) != -1) {
		ret = EXIT_USAGE;
		if (ch == OPT_BISECT) {
			bisect = 1;
		} else if (ch == OPT_ALL) {
			all = KSFT_METRIC_REPORT_COMPARE_ALL;
		} else if (ch == OPT_MAX_TOLERANCE) {
			if (cli_parse_tolerance(optarg, &cc.copts.max_tolerance_pct))
				goto out;
			if (!(cc.copts.max_tolerance_pct > 0)) {
				cli_error("--max-tolerance %s: must be above 0 percent", optarg);
				goto out;
			}
		} else if (ch == 'f' && !strcmp(optarg, "reply")) {
			cc.fmt = KSFT_METRIC_REPORT_REPLY;	/* compare's own format */
		} else if (ch == 'f' && strcmp(optarg, "text") && strcmp(optarg, "json") &&
			   strcmp(optarg, "csv")) {
			cli_error("unknown --format '%s' (text, json, csv, reply)", optarg);
			goto out;
		} else if (ch == 'm') {
			cc.copts.allow_missing = go.allow_missing = 1;
		} else if ((gate = cli_gate_option(ch, optarg, &go.window, &go.fdr, &go.order))) {
			if (gate < 0)
				goto out;
		} else if ((ret = cli_common_option(&cc, ch, optarg)) != CLI_OPT_NEXT) {
			goto out;
		}
	}
	ret = cli_judging(&cc, 1, 1);
	if (ret != EXIT_OK)
		goto out;
	if (cc.n_baselines == 1 && !cc.db && argc - optind == 1 && strcmp(cc.baselines[0], "-"))
		ret = load_log_first(&cc, argv + optind, &bf);
	else
		ret = cli_load(&cc, argv + optind, argc - optind, NULL);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_USAGE;
	if (cc.copts.max_tolerance_pct > 0 && cc.db) {
		cli_error("--max-tolerance is for --baseline files: --db judges each series with"
			  " its policy's tolerance and its history's noise");
		goto out;
	}
	if (cc.first_run && !cc.db) {
		cli_error("--first-run is for --db (a run history that starts here)");
		goto out;
	}
	if (cc.db) {
		failing = cli_history_judge(&cc, &go, &h, &cmp);
		if (failing == CLI_JUDGE_ERROR)
			goto out;
	} else {
		/* Logs that name their seed: the run's boots, one a seed. */
		seeds = ksft_metric_report_baseline_new();
		if (!seeds) {
			cli_error("%s", ksft_metric_report_errmsg());
			goto out;
		}
		n_seeds = seed_runs_add(&cc.c, argv + optind, argc - optind, cc.r, seeds);
		if (n_seeds < 0)
			goto out;
		if (n_seeds)
			cc.copts.seeds = seeds;
		if (bf) {
			failing = compare_open_baseline(&cc, argv + optind, bf, &cmp);
			if (failing < 0)
				goto out;
		} else {
			failing = ksft_metric_report_compare(cc.r, cc.b, &cc.copts, &cmp);
			if (failing < 0) {
				cli_error("%s", ksft_metric_report_errmsg());
				goto out;
			}
		}
		if (ksft_metric_report_comparison_context_diff(cmp))
			cli_error("judged across how the runs were measured (--allow-context-mismatch): %s",
				  ksft_metric_report_comparison_context_diff(cmp));
	}
	if (failing == CLI_JUDGE_UNUSABLE) {
		/* A history that cannot judge this run (said why): exit 2, the rows in JSON. */
		if (cc.fmt == KSFT_METRIC_REPORT_JSON &&
		    !ksft_metric_report_comparison_format(cmp, cc.fmt, &text, &len)) {
			char *doc = unusable_json(text, cc.unusable ? cc.unusable :
						  "no run history at --db", &len);

			ksft_metric_report_text_free(text);
			if (doc)
				confine_write(&cc.c, cc.out ? cc.out : "-", doc, len);
			free(doc);
		}
		goto out;
	}
	ret = cli_emit_comparison(&cc.c, cc.out, cmp, cc.fmt == KSFT_METRIC_REPORT_TEXT ?
				  cli_text_fmt(&cc) | all : cc.fmt);
	if (ret == EXIT_OK && failing)
		ret = EXIT_REGRESSION;
	if (ret != EXIT_USAGE && bisect)
		ret = bisect_status(cmp);
out:
	if (bf)
		fclose(bf);
	if (bisect && ret == EXIT_USAGE)
		ret = EXIT_BISECT_ABORT;
	ksft_metric_report_history_close(h);
	ksft_metric_report_comparison_free(cmp);
	ksft_metric_report_baseline_free(seeds);
	cli_common_free(&cc);
	free(usage);
	return ret;
}
