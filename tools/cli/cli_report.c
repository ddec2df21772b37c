/* ksft-metric report. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char report_usage[] =
	"usage: ksft-metric report [--format text|json|csv|openmetrics|kcidb|nipa]\n"
	"                          [-o OUT] [--name-style ktap|nipa]\n"
	"                          [--origin O --build-id B [--start-time T] [--run-id R]]\n"
	"                          [--context KEY=VALUE ...]\n"
	"                          [--baseline B.json ... [--tolerance PCT] [--alpha A]\n"
	"                           | --db DB [--window N] [--fdr Q] [--order O]]\n"
	"                          [--base-dir DIR] [--quiet] [--verbose] FILE...\n"
	"\n"
	"Text: each case's series, one row each: point count, the median with\n"
	"its range (fewer than 10 points) or its robust spread, and the unit once;\n"
	"it fits 120 columns, or 80 (rows go vertical) when $COLUMNS or the\n"
	"terminal is narrower. JSON and CSV: the summary each series' policy\n"
	"asks for (distribution when it has none).\n"
	"\n"
	"  -f, --format FMT   text (default), json, csv, openmetrics, kcidb (KCIDB\n"
	"                     I/O v5, one test per series) or nipa (a metrics\n"
	"                     sidecar for NIPA's results)\n"
	"  -o, --output OUT   write there instead of stdout\n"
	"      --name-style S ktap (default: as logged) or nipa (NIPA's names)\n"
	"      --origin O     kcidb: the submitting CI system ([a-z0-9_]+)\n"
	"      --build-id B   kcidb: the tested build's id (O:...)\n"
	"      --start-time T kcidb: the run's start, RFC 3339 (default: the logs'\n"
	"                     context time, else none: never the clock, so one\n"
	"                     log converts to the same bytes every time)\n"
	"      --run-id R     kcidb: tells runs of one build apart in test ids\n"
	"                     (default: a hash of the inputs' content)\n"
	"      --context K=V  kcidb, nipa: add to the run context (repeatable)\n"
	"  -b, --baseline B   kcidb, nipa: add verdicts against these baselines\n"
	"  -t, --tolerance P, -a, --alpha A   as for compare\n"
	"      --allow-context-mismatch       as for compare\n"
	"  -D, --db DB        kcidb, nipa: add verdicts against the run history\n"
	"                     (--context describes this run, as for compare --db)\n"
	"  -w, --window N, -F, --fdr Q, -O, --order O, --first-run   as for compare --db\n"
	"  -C, --base-dir DIR every file read or written must resolve under DIR\n"
	"  -q, --quiet        do not print input warnings\n"
	"  -v, --verbose      text: the whole run context (else the keys that tell\n"
	"                     what was measured where)\n"
	"  -h, --help         this help\n";

enum {
	OPT_NAME_STYLE = 256,
	OPT_ORIGIN,
	OPT_BUILD_ID,
	OPT_START_TIME,
	OPT_RUN_ID,
};

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_OPTION_FORMAT,
		CLI_OPTION_OUTPUT,
		CLI_OPTION_BASELINE,
		CLI_OPTION_ALLOW_CONTEXT,
		CLI_OPTION_TOLERANCE,
		CLI_OPTION_ALPHA,
		CLI_OPTION_BASE_DIR,
		CLI_OPTION_QUIET,
		CLI_OPTION_VERBOSE,
		CLI_OPTION_HELP,
		CLI_OPTION_FIRST_RUN,
		CLI_OPTION_DB,
		CLI_OPTION_CONTEXT,
		CLI_OPTIONS_GATE,
		{ "name-style", required_argument, NULL, OPT_NAME_STYLE },
		{ "origin", required_argument, NULL, OPT_ORIGIN },
		{ "build-id", required_argument, NULL, OPT_BUILD_ID },
		{ "start-time", required_argument, NULL, OPT_START_TIME },
		{ "run-id", required_argument, NULL, OPT_RUN_ID },
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_format_opts fo = KSFT_METRIC_REPORT_FORMAT_OPTS_INIT;
	struct ksft_metric_report_gate_opts go = KSFT_METRIC_REPORT_GATE_OPTS_INIT;
	struct ksft_metric_report_comparison *cmp = NULL;
	struct ksft_metric_report_history *h = NULL;
	struct cli_common cc;
	int ch, ret;

	ret = cli_common_init(&cc, "report", report_usage, 1, argc);
	if (ret != EXIT_OK)
		return ret;
	while ((ch = cli_getopt(&cc, argc, argv, "f:o:b:t:a:C:qvhD:x:w:F:O:", opts)) != -1) {
		ret = cli_gate_option(ch, optarg, &go.window, &go.fdr, &go.order);
		if (ret) {
			if (ret < 0) {
				ret = EXIT_USAGE;
				goto out;
			}
			continue;
		}
		switch (ch) {
		case OPT_NAME_STYLE:
			if (!strcmp(optarg, "ktap")) {
				fo.name_style = KSFT_METRIC_REPORT_NAMES_KTAP;
			} else if (!strcmp(optarg, "nipa")) {
				fo.name_style = KSFT_METRIC_REPORT_NAMES_NIPA;
			} else {
				cli_error("unknown --name-style '%s' (ktap, nipa)", optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			continue;
		case OPT_ORIGIN:
			fo.origin = optarg;
			continue;
		case OPT_BUILD_ID:
			fo.build_id = optarg;
			continue;
		case OPT_START_TIME:
			fo.start_time = optarg;
			continue;
		case OPT_RUN_ID:
			fo.run_id = optarg;
			continue;
		}
		ret = cli_common_option(&cc, ch, optarg);
		if (ret != CLI_OPT_NEXT)
			goto out;
	}
	ret = cli_judging(&cc, 1, 0);
	if (ret != EXIT_OK)
		goto out;
	/* The run's context: for the output, and for the history gate. */
	fo.context = go.context = (const char *const *)cc.context;
	fo.n_context = go.n_context = cc.n_context;
	if (cc.fmt == KSFT_METRIC_REPORT_KCIDB && (!fo.origin || !fo.build_id)) {
		ret = cli_needs(&cc, "--origin and --build-id for --format kcidb");
		goto out;
	}
	ret = cli_load(&cc, argv + optind, argc - optind, NULL);
	if (ret != EXIT_OK)
		goto out;
	ret = cli_judge(&cc, &go, &h, &cmp);
	if (ret != EXIT_OK)
		goto out;
	fo.comparison = cmp;
	ret = cli_emit_report(&cc.c, cc.out, cc.r, cli_text_fmt(&cc), &fo);
out:
	ksft_metric_report_history_close(h);
	ksft_metric_report_comparison_free(cmp);
	cli_common_free(&cc);
	return ret;
}
