/* ksft-metric compare: the regression gate. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char compare_usage[] =
	"usage: ksft-metric compare --baseline B.json [--baseline ...] [--tolerance PCT]\n"
	"                           [--alpha A] [--allow-missing] [--format text|json|csv]\n"
	"                           [-o OUT] [--base-dir DIR] FILE...\n"
	"       ksft-metric compare --db DB [--window N] [--fdr Q] [--context KEY=VALUE ...]\n"
	"                           [--order KEY] [--allow-missing] [--format ...] FILE...\n"
	"\n"
	"Compare each series' compare value (its regression policy's \"compare\")\n"
	"with the median over the baseline runs. A value worse than the baseline\n"
	"by more than max(relative_tolerance * |baseline|, absolute_tolerance) is\n"
	"a regression. With several samples on both sides a two-sided Mann-Whitney\n"
	"U p-value is shown.\n"
	"\n"
	"With --db, judge the inputs (several FILEs: repeats of one run) against\n"
	"the last N comparable runs of the history instead: a change is a\n"
	"regression or improvement when the series' own run-to-run noise cannot\n"
	"explain it (prediction interval; Benjamini-Hochberg across the run's\n"
	"series, so Q is the rate of runs with any false alarm) and it exceeds the\n"
	"policy's tolerance. Verdicts: REGRESSION, IMPROVEMENT, OK (no change),\n"
	"NOISE (too noisy to tell), NEW, MISSING, INCOMPARABLE (a debug kernel or\n"
	"KSFT_MACHINE_SLOW), UNTRACKED. P is the adjusted p-value.\n"
	"\n"
	"  -b, --baseline FILE  baseline file (repeat for more runs)\n"
	"  -D, --db DB          run history (SQLite file or postgresql://...)\n"
	"  -w, --window N       comparable runs judged against (30)\n"
	"  -F, --fdr Q          run-level false-alarm rate of regressions (0.01;\n"
	"                       improvements apart, at the same rate)\n"
	"  -x, --context K=V    the current run's context over its logs' (decides\n"
	"                       which runs are comparable); repeat\n"
	"  -O, --order KEY      the current run's CI order: only earlier runs count\n"
	"  -t, --tolerance PCT  gate series without a regression policy too: a drop\n"
	"                       of more than PCT percent regresses (zperf default 5)\n"
	"  -a, --alpha A        a regression also needs p < A (when a p is known)\n"
	"  -m, --allow-missing  a gated series missing from FILE does not fail\n"
	"  -f, --format FMT     text (default), json or csv\n"
	"  -o, --output OUT     write the table there instead of stdout\n"
	"  -C, --base-dir DIR   every file read or written must resolve under DIR\n"
	"  -q, --quiet          do not print input warnings\n"
	"  -h, --help           this help\n"
	"\n"
	"Exit status: 0 no regression, 1 regression (or a gated series missing\n"
	"without --allow-missing), 2 bad usage or unreadable input. NOISE, NEW,\n"
	"INCOMPARABLE and UNTRACKED never fail the gate.\n";

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
		{ "window", required_argument, NULL, 'w' },
		{ "fdr", required_argument, NULL, 'F' },
		{ "order", required_argument, NULL, 'O' },
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_gate_opts go = KSFT_METRIC_REPORT_GATE_OPTS_INIT;
	struct ksft_metric_report_history *h = NULL;
	struct ksft_metric_report_comparison *cmp = NULL;
	struct cli_common cc;
	int ch, ret, failing;
	char *text;
	size_t len;

	ret = cli_common_init(&cc, "compare", compare_usage, 0, argc);
	if (ret != EXIT_OK)
		return ret;
	while ((ch = getopt_long(argc, argv, "b:t:a:mf:o:C:qhD:x:w:F:O:", opts, NULL)) != -1) {
		ret = EXIT_USAGE;
		if (ch == 'm') {
			cc.copts.allow_missing = go.allow_missing = 1;
		} else if (ch == 'w') {
			if (cli_parse_size("--window", optarg, 100000, &go.window))
				goto out;
		} else if (ch == 'F') {
			if (cli_parse_double("--fdr", optarg, 1e-9, 0.5, &go.fdr))
				goto out;
		} else if (ch == 'O') {
			go.order = optarg;
		} else if ((ret = cli_common_option(&cc, ch, optarg)) != CLI_OPT_NEXT) {
			goto out;
		}
	}
	ret = cli_judging(&cc, 1, 1);
	if (ret != EXIT_OK)
		goto out;
	ret = cli_load(&cc, argv + optind, argc - optind, NULL);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_USAGE;
	if (cc.db) {
		go.context = cc.context;
		go.n_context = cc.n_context;
		h = cli_open_history(&cc);
		if (!h)
			goto out;
		failing = ksft_metric_report_history_compare(h, cc.r, &go, &cmp);
	} else {
		failing = ksft_metric_report_compare(cc.r, cc.b, &cc.copts, &cmp);
	}
	if (failing < 0 ||
	    ksft_metric_report_comparison_format(cmp, cc.fmt, &text, &len)) {
		cli_error("%s", ksft_metric_report_errmsg());
		goto out;
	}
	ret = cli_emit(&cc.c, cc.out, text, len);
	if (ret == EXIT_OK && failing)
		ret = EXIT_REGRESSION;
out:
	ksft_metric_report_history_close(h);
	ksft_metric_report_comparison_free(cmp);
	cli_common_free(&cc);
	return ret;
}
