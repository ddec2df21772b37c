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
	"  site     write a static site over the whole run history (index + a page per series)\n"
	"\n"
	"FILE is a KTAP log, zperf console output or a twister JSON report; '-' is stdin.\n"
	"Run 'ksft-metric <command> --help' for its options.\n"
	"Exit status: 0 ok, 1 regression (compare), 2 bad usage or unreadable input.\n";


int main(int argc, char **argv)
{
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
		{ "site", cmd_site },
	};
	size_t i;

	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("ksft-metric " KSFT_METRIC_VERSION);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	cli_error("unknown command '%s'", argv[1]);
	fputs(usage, stderr);
	return EXIT_USAGE;
}
