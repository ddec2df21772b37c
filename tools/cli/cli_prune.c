/* ksft-metric prune: retention, the old runs of a run history deleted. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static const char prune_usage[] =
	"usage: ksft-metric prune --db DB --keep N [--window N] [--dry-run]\n"
	"\n"
	"Delete the old runs of a run history: a run goes when it holds none of\n"
	"the newest N results of any of its series (a series that runs rarely\n"
	"keeps its own newest N), is not among the newest N runs of its machines,\n"
	"is not pinned and is not among the N runs up to a pinned one. What\n"
	"compare --db and ingest read to judge a next run stays, so their\n"
	"verdicts do not change. N must be at least the window (--window, 30 by\n"
	"default) and the 63 recent runs the gate reads for level shifts: prune\n"
	"refuses a smaller N. One write transaction. SQLite reuses the freed\n"
	"pages (VACUUM gives them back to the file system); PostgreSQL's\n"
	"autovacuum does the same.\n"
	"\n"
	"  -D, --db DB        the run history (SQLite file or postgresql:// URL)\n"
	"  -k, --keep N       results kept per series and machines, newest first\n"
	"  -w, --window N     the window compare --db and ingest judge with (30)\n"
	"  -n, --dry-run      count what would go, delete nothing\n"
	"  -C, --base-dir DIR a SQLite --db resolved beneath DIR\n";

int cmd_prune(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_OPTION_DB,
		{ "keep", required_argument, NULL, 'k' },
		{ "window", required_argument, NULL, 'w' },
		{ "dry-run", no_argument, NULL, 'n' },
		CLI_OPTION_BASE_DIR,
		CLI_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_history *h = NULL;
	unsigned long long results = 0;
	size_t keep = 0, window = 0;
	struct cli_common cc;
	unsigned flags = 0;
	int ch, ret, n;

	ret = cli_common_init(&cc, "prune", prune_usage, 0, argc);
	if (ret != EXIT_OK)
		return ret;
	while ((ch = cli_getopt(&cc, argc, argv, "D:k:w:nC:h", opts)) != -1) {
		if (ch == 'k' || ch == 'w') {
			ret = EXIT_USAGE;
			if (cli_parse_size(ch == 'k' ? "--keep" : "--window", optarg, 100000000,
					   ch == 'k' ? &keep : &window))
				goto out;
		} else if (ch == 'n') {
			flags |= KSFT_METRIC_REPORT_PRUNE_DRY_RUN;
		} else if ((ret = cli_common_option(&cc, ch, optarg)) != CLI_OPT_NEXT) {
			goto out;
		}
	}
	if (!cc.db || !keep || optind != argc) {
		ret = cli_needs(&cc, !cc.db ? "--db" : !keep ? "--keep N" : "no FILE");
		goto out;
	}
	ret = EXIT_USAGE;
	h = cli_open_history_alone(&cc);
	if (!h)
		goto out;
	n = ksft_metric_report_history_prune(h, keep, window, flags, &results);
	if (n < 0) {
		cli_error("%s: %s", cc.db_shown, ksft_metric_report_errmsg());
		goto out;
	}
	printf("%s %d run%s (%llu result rows) of %s; the newest %zu results of every series"
	       " kept\n", flags ? "would prune" : "pruned", n, n == 1 ? "" : "s", results,
	       cc.db_shown, keep);
	ret = EXIT_OK;
out:
	ksft_metric_report_history_close(h);
	cli_common_free(&cc);
	return ret;
}
