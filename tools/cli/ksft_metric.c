// SPDX-License-Identifier: GPL-2.0
/*
 * ksft-metric: the consumer of ktap-metric lines. Summaries (report),
 * baselines (save), the regression gate (compare) and pictures (plot) from
 * KTAP logs, zperf console output and twister JSON reports, the same at a
 * desk as on a CI runner.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
	"usage: ksft-metric <command> [options] FILE...\n"
	"\n"
	"Commands:\n"
	"  report   one row per series with its summary (text, json, csv, openmetrics)\n"
	"  save     write a baseline file from the inputs\n"
	"  compare  compare the inputs with baseline files or a run history (--db);\n"
	"           exit 1 on a regression\n"
	"  plot     draw a self-contained SVG\n"
	"  html     write a self-contained HTML report (verdicts, numbers, charts)\n"
	"  ingest   store the inputs as one run in a run history (SQLite or PostgreSQL)\n"
	"  history  each series' values run by run, with their change points\n"
	"  accept   accept a run's regressions as the new level\n"
	"  pin      freeze (or thaw) the baseline at a run\n"
	"  prune    delete old runs of a run history, keeping what judging needs\n"
	"  site     write a static site over the whole run history (index + a page per series)\n"
	"  ab       judge variant B against A from the pairs of an A/B run\n"
	"  profile-diff  where the instructions went between two profiles (ksft-vm --profile)\n"
	"\n"
	"FILE is a KTAP log, zperf console output or a twister JSON report; '-' is stdin.\n"
	"Run 'ksft-metric help <command>' (or '<command> --help') for its options;\n"
	"'--version' prints the version (after any command too).\n"
	"Exit status: 0 ok, 1 regression (compare), 2 bad usage or unreadable input.\n";


static const struct {
	const char *name;
	int (*fn)(int, char **);
} cmds[] = {
	{ "report", cmd_report },
	{ "save", cmd_save },
	{ "compare", cmd_compare },
	{ "plot", cmd_plot },
	{ "html", cmd_html },
	{ "ingest", cmd_ingest },
	{ "history", cmd_history },
	{ "accept", cmd_accept },
	{ "pin", cmd_pin },
	{ "prune", cmd_prune },
	{ "site", cmd_site },
	{ "ab", cmd_ab },
	{ "profile-diff", cmd_profile_diff },
};
#define N_CMDS (sizeof(cmds) / sizeof(cmds[0]))

static int find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < N_CMDS; i++)
		if (!strcmp(name, cmds[i].name))
			return (int)i;
	return -ENOENT;
}

/* "unknown command 'reprot'; did you mean 'report'?" and where the list is. */
static int unknown_cmd(const char *name)
{
	const char *names[N_CMDS], *best;
	size_t i;

	for (i = 0; i < N_CMDS; i++)
		names[i] = cmds[i].name;
	best = cli_closest(name, strlen(name), names, N_CMDS);
	if (best)
		cli_error("unknown command '%s'; did you mean '%s'?", name, best);
	else
		cli_error("unknown command '%s'", name);
	fputs("Run 'ksft-metric --help' for the commands.\n", stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	int k;

	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help")) {
		/* help CMD: that command's --help. */
		char *help_argv[] = { argv[2], (char *)"--help", NULL };

		if (argc < 3) {
			fputs(usage, stdout);
			return EXIT_OK;
		}
		k = find_cmd(argv[2]);
		if (k < 0)
			return unknown_cmd(argv[2]);
		return cmds[k].fn(2, help_argv);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		puts("ksft-metric " KSFT_METRIC_VERSION);
		return EXIT_OK;
	}
	k = find_cmd(argv[1]);
	if (k >= 0) {
		cli_sqlite_process_setup();
		return cmds[k].fn(argc - 1, argv + 1);
	}
	if (argv[1][0] == '-') {
		cli_error("unknown option '%s' (a command comes first)", argv[1]);
		fputs("Run 'ksft-metric --help' for the commands.\n", stderr);
		return EXIT_USAGE;
	}
	return unknown_cmd(argv[1]);
}
