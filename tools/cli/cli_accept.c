/*
 * ksft-metric accept: accept a run's regressions as the new level. pin
 * (cli_pin.c) shares its option handling, cli_run_action().
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"

static const char accept_usage[] =
	"usage: ksft-metric accept --db DB RUN [SERIES]\n"
	"\n"
	"The level RUN started is intended: its regressions (and later runs'\n"
	"regressions of the same series) feed baselines again, and those series'\n"
	"windows start at RUN. With SERIES, only series whose title contains it,\n"
	"re-levelled even without a regression verdict (accepting a change point\n"
	"'history' shows). A level wins over an older pinned run: the series'\n"
	"window starts at RUN and follows the newest runs. Prints how many series\n"
	"were re-levelled; 'history' marks where each level starts.\n";

/* accept and pin: --db DB RUN, one action. */
int cli_run_action(int argc, char **argv, const char *name, const char *usage, int accept)
{
	static const struct option opts[] = {
		CLI_OPTION_DB,
		{ "unpin", no_argument, NULL, 'u' },
		CLI_OPTION_BASE_DIR,
		CLI_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_history *h = NULL;
	struct cli_common cc;
	int ch, ret, unpin = 0, n;

	ret = cli_common_init(&cc, name, usage, 0, argc);
	if (ret != EXIT_OK)
		return ret;
	while ((ch = cli_getopt(&cc, argc, argv, accept ? "D:C:h" : "D:uC:h", opts)) != -1) {
		if (ch == 'u') {
			unpin = 1;
		} else if ((ret = cli_common_option(&cc, ch, optarg)) != CLI_OPT_NEXT) {
			goto out;
		}
	}
	n = argc - optind;
	if (!cc.db || n < 1 || n > (accept ? 2 : 1)) {
		ret = cli_needs(&cc, !cc.db ? "--db" : accept ? "RUN [SERIES]" : "one RUN");
		goto out;
	}
	ret = EXIT_USAGE;
	h = cli_open_history_alone(&cc);
	if (!h)
		goto out;
	if (accept)
		n = ksft_metric_report_history_accept(h, argv[optind], n > 1 ? argv[optind + 1] : NULL);
	else
		n = ksft_metric_report_history_pin(h, argv[optind], !unpin);
	if (n < 0) {
		cli_error("%s: %s", cc.db_shown, ksft_metric_report_errmsg());
		goto out;
	}
	if (accept && n)
		printf("accepted run %s as the new level of %d series: %s windows start at it"
		       " and follow the newest runs (past an older pinned run: the level wins)\n",
		       argv[optind], n, n == 1 ? "its" : "their");
	else if (accept)
		printf("run %s: nothing changed: no series %s (name a SERIES to re-level one"
		       " without a regression verdict)\n", argv[optind],
		       optind + 1 < argc ? "of it matches SERIES" : "regressed in it");
	else if (unpin)
		printf("unpinned run %s: windows follow the newest runs again\n", argv[optind]);
	else
		printf("pinned run %s: windows of runs comparable with it end at it%s\n",
		       argv[optind], n ? "," : "");
	if (!accept && !unpin && n)
		printf("  except %d series whose accepted level starts after it: the level wins,"
		       " %s window starts there\n", n, n == 1 ? "its" : "their");
	ret = EXIT_OK;
out:
	ksft_metric_report_history_close(h);
	cli_common_free(&cc);
	return ret;
}

int cmd_accept(int argc, char **argv)
{
	return cli_run_action(argc, argv, "accept", accept_usage, 1);
}
