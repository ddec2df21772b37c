// SPDX-License-Identifier: GPL-2.0
/*
 * ksft-metric: the consumer of ktap-metric lines. Summaries (report),
 * baselines (save), the regression gate (compare) and pictures (plot) from
 * KTAP logs, zperf console output and twister JSON reports, the same at a
 * desk as on a CI runner.
 */
#define _GNU_SOURCE
#include <errno.h>
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
	"  compare  compare the inputs with baseline files; exit 1 on a regression\n"
	"  plot     draw a self-contained SVG\n"
	"\n"
	"FILE is a KTAP log, zperf console output or a twister JSON report; '-' is stdin.\n"
	"Run 'ksft-metric <command> --help' for its options.\n"
	"Exit status: 0 ok, 1 regression (compare), 2 bad usage or unreadable input.\n";

int cli_parse_format(const char *s, int allow_openmetrics, int *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = KSFT_METRIC_REPORT_TEXT;
	else if (!strcmp(s, "json"))
		*fmt = KSFT_METRIC_REPORT_JSON;
	else if (!strcmp(s, "csv"))
		*fmt = KSFT_METRIC_REPORT_CSV;
	else if (allow_openmetrics && !strcmp(s, "openmetrics"))
		*fmt = KSFT_METRIC_REPORT_OPENMETRICS;
	else {
		cli_error("unknown --format '%s' (text, json, csv%s)", s,
			  allow_openmetrics ? ", openmetrics" : "");
		return -1;
	}
	return 0;
}

int cli_parse_double(const char *opt, const char *s, double min, double max,
		     double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max) {
		cli_error("%s: '%s' is not a number in [%g, %g]", opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static void print_warnings(const struct ksft_metric_report *r, size_t from)
{
	const struct ksft_metric_report_warning *w;
	size_t total, n = ksft_metric_report_warnings(r, &w, &total), i;

	for (i = from; i < n; i++) {
		if (w[i].line)
			fprintf(stderr, "%s:%lu: warning: %s\n", w[i].file, w[i].line,
				w[i].reason);
		else
			fprintf(stderr, "%s: warning: %s\n", w[i].file, w[i].reason);
	}
}

int cli_read_inputs(const struct confine *c, struct ksft_metric_report *r,
		    char *const *files, int n, int quiet)
{
	size_t total, kept;
	int i, stdin_used = 0;

	if (n <= 0) {
		cli_error("no input files (use '-' for stdin)");
		return EXIT_USAGE;
	}
	for (i = 0; i < n; i++) {
		FILE *f;
		int ret;

		if (!strcmp(files[i], "-") && stdin_used++) {
			cli_error("'-' given more than once");
			return EXIT_USAGE;
		}
		f = confine_open_read(c, files[i]);
		if (!f)
			return EXIT_USAGE;
		ret = ksft_metric_report_read_file(r, f, files[i]);
		if (f != stdin)
			fclose(f);
		if (ret < 0) {
			cli_error("%s: %s", files[i], ksft_metric_report_errmsg());
			return EXIT_USAGE;
		}
	}
	kept = ksft_metric_report_warnings(r, NULL, &total);
	if (!quiet) {
		print_warnings(r, 0);
		if (total > kept)
			fprintf(stderr, "ksft-metric: %zu more warnings not shown\n",
				total - kept);
	}
	if (!ksft_metric_report_series_count(r)) {
		cli_error("no metrics found in the input%s", total ? " (see warnings)" : "");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cli_read_baselines(const struct confine *c,
		       struct ksft_metric_report_baseline *b,
		       char *const *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *data;
		size_t len;
		int ret;

		if (confine_read_all(c, files[i], &data, &len))
			return EXIT_USAGE;
		ret = ksft_metric_report_baseline_load(b, data, len, files[i]);
		free(data);
		if (ret < 0) {
			cli_error("%s", ksft_metric_report_errmsg());
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
}

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
