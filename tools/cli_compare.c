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
		{ "baseline", required_argument, NULL, 'b' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "allow-missing", no_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "base-dir", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_compare_opts copts = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_comparison *cmp = NULL;
	struct ksft_metric_report_baseline *b = NULL;
	struct ksft_metric_report *r = NULL;
	char **baselines = NULL;
	size_t n_baselines = 0, len;
	const char *out = NULL, *base = NULL;
	int fmt = KSFT_METRIC_REPORT_TEXT, quiet = 0, ch, ret = EXIT_USAGE, failing;
	struct confine c = { NULL };
	char *text;

	baselines = calloc((size_t)argc + 1, sizeof(char *));
	if (!baselines)
		return EXIT_USAGE;
	while ((ch = getopt_long(argc, argv, "b:t:a:mf:o:C:qh", opts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			baselines[n_baselines++] = optarg;
			break;
		case 't':
			if (cli_parse_double("--tolerance", optarg, 0, 1e9,
					     &copts.tolerance_pct))
				goto out;
			break;
		case 'a':
			if (cli_parse_double("--alpha", optarg, 0, 1, &copts.alpha))
				goto out;
			break;
		case 'm':
			copts.allow_missing = 1;
			break;
		case 'f':
			if (cli_parse_format(optarg, 0, &fmt))
				goto out;
			break;
		case 'o':
			out = optarg;
			break;
		case 'C':
			base = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(compare_usage, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			fputs(compare_usage, stderr);
			goto out;
		}
	}
	if (!n_baselines) {
		cli_error("compare needs at least one --baseline");
		fputs(compare_usage, stderr);
		goto out;
	}
	if (confine_init(&c, base) || (out && confine_check_write(&c, out)))
		goto out;
	r = ksft_metric_report_new(NULL);
	b = ksft_metric_report_baseline_new();
	if (!r || !b) {
		cli_error("%s", ksft_metric_report_errmsg());
		goto out;
	}
	ret = cli_read_baselines(&c, b, baselines, n_baselines);
	if (ret != EXIT_OK)
		goto out;
	ret = cli_read_inputs(&c, r, argv + optind, argc - optind, quiet);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_USAGE;
	failing = ksft_metric_report_compare(r, b, &copts, &cmp);
	if (failing < 0 ||
	    ksft_metric_report_comparison_format(cmp, fmt, &text, &len)) {
		cli_error("%s", ksft_metric_report_errmsg());
		goto out;
	}
	if (confine_write(&c, out ? out : "-", text, len)) {
		ksft_metric_report_text_free(text);
		goto out;
	}
	ksft_metric_report_text_free(text);
	ret = failing ? EXIT_REGRESSION : EXIT_OK;
out:
	ksft_metric_report_comparison_free(cmp);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
	confine_free(&c);
	free(baselines);
	return ret;
}
