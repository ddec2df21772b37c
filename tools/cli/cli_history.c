/* ksft-metric history: each series' values run by run, with their change points. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"

static const char history_usage[] =
	"usage: ksft-metric history --db DB [--context KEY=VALUE ...] [--last N]\n"
	"                           [--all-status] [--format text|json|csv] [-o OUT]\n"
	"                           [--verbose] [SERIES]\n"
	"\n"
	"Each series' compare value run by run, in CI order, with the change\n"
	"points found in it (E-divisive means, each judged by a Welch t-test:\n"
	"where the level shifted, before and after, by how much, how sure).\n"
	"SERIES keeps the series whose title contains it. The text shows tracked\n"
	"series first, one row each (runs, newest value, median and spread,\n"
	"newest VERDICT, change points), then the change points; -v each run.\n"
	"It fits 120 columns, or 80 when $COLUMNS or the terminal is narrower.\n"
	"\n"
	"  -D, --db DB          the history\n"
	"  -x, --context K=V    only runs whose context has this value; repeat\n"
	"  -n, --last N         the last N runs of each series (1000)\n"
	"  -A, --all-status     also cases that did not pass\n"
	"  -f, --format FMT     text (default), json or csv\n"
	"  -o, --output OUT     write there instead of stdout\n"
	"  -v, --verbose        text: each run of each series too\n"
	"  -C, --base-dir DIR   every file read or written must resolve under DIR\n"
	"  -h, --help           this help\n";

int cmd_history(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_OPTION_DB,
		CLI_OPTION_CONTEXT,
		{ "last", required_argument, NULL, 'n' },
		{ "all-status", no_argument, NULL, 'A' },
		CLI_OPTION_FORMAT,
		CLI_OPTION_OUTPUT,
		CLI_OPTION_VERBOSE,
		CLI_OPTION_BASE_DIR,
		CLI_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_history_opts ho = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
	struct cli_common cc;
	char *text;
	size_t len;
	int ch, ret;

	ret = cli_common_init(&cc, "history", history_usage, 0, argc);
	if (ret != EXIT_OK)
		return ret;
	while ((ch = cli_getopt(&cc, argc, argv, "D:x:n:Af:o:C:vh", opts)) != -1) {
		ret = EXIT_USAGE;
		if (ch == 'n') {
			if (cli_parse_size("--last", optarg, 10000000, &ho.last))
				goto out;
		} else if (ch == 'A') {
			ho.all_status = 1;
		} else if ((ret = cli_common_option(&cc, ch, optarg)) != CLI_OPT_NEXT) {
			goto out;
		}
	}
	if (!cc.db || argc - optind > 1) {
		ret = cli_needs(&cc, !cc.db ? "--db" : "at most one SERIES");
		goto out;
	}
	ret = EXIT_USAGE;
	if (cli_confine(&cc, NULL))
		goto out;
	ho.series = optind < argc ? argv[optind] : NULL;
	ret = cli_history_text(&cc, &ho, cli_text_fmt(&cc), &text, &len);
	if (ret == EXIT_OK)
		ret = cli_emit(&cc.c, cc.out, text, len);
out:
	cli_common_free(&cc);
	return ret;
}
