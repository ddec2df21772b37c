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
	"\n"
	"Compare each series' compare value (its regression policy's \"compare\")\n"
	"with the median over the baseline runs. A value worse than the baseline\n"
	"by more than max(relative_tolerance * |baseline|, absolute_tolerance) is\n"
	"a regression. With several samples on both sides a two-sided Mann-Whitney\n"
	"U p-value is shown.\n"
	"\n"
	"  -b, --baseline FILE  baseline file (repeat for more runs; required)\n"
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
	"Exit status: 0 no regression, 1 regression, 2 bad usage or unreadable input.\n";

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
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_comparison *cmp = NULL;
	struct cli_common cc;
	int ch, ret, failing;
	char *text;
	size_t len;

	ret = cli_common_init(&cc, "compare", compare_usage, 0, argc);
	if (ret != EXIT_OK)
		return ret;
	while ((ch = getopt_long(argc, argv, "b:t:a:mf:o:C:qh", opts, NULL)) != -1) {
		if (ch == 'm') {
			cc.copts.allow_missing = 1;
			continue;
		}
		ret = cli_common_option(&cc, ch, optarg);
		if (ret != CLI_OPT_NEXT)
			goto out;
	}
	if (!cc.n_baselines) {
		ret = cli_needs(&cc, "at least one --baseline");
		goto out;
	}
	ret = cli_load(&cc, argv + optind, argc - optind, NULL);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_USAGE;
	failing = ksft_metric_report_compare(cc.r, cc.b, &cc.copts, &cmp);
	if (failing < 0 ||
	    ksft_metric_report_comparison_format(cmp, cc.fmt, &text, &len)) {
		cli_error("%s", ksft_metric_report_errmsg());
		goto out;
	}
	ret = cli_emit(&cc.c, cc.out, text, len);
	if (ret == EXIT_OK && failing)
		ret = EXIT_REGRESSION;
out:
	ksft_metric_report_comparison_free(cmp);
	cli_common_free(&cc);
	return ret;
}
