/* ksft-metric report and ksft-metric save. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char report_usage[] =
	"usage: ksft-metric report [--format text|json|csv|openmetrics] [-o OUT]\n"
	"                          [--base-dir DIR] [--quiet] FILE...\n"
	"\n"
	"One row per series (case, metric, labels): status, point count and the\n"
	"summary its policy asks for (distribution when it has none).\n"
	"\n"
	"  -f, --format FMT   text (default), json, csv or openmetrics\n"
	"  -o, --output OUT   write there instead of stdout\n"
	"  -C, --base-dir DIR every file read or written must resolve under DIR\n"
	"  -q, --quiet        do not print input warnings\n"
	"  -h, --help         this help\n";

static const char save_usage[] =
	"usage: ksft-metric save -o BASELINE.json [--append] [--base-dir DIR] FILE...\n"
	"\n"
	"Write the inputs' series as one baseline run: each series' samples after\n"
	"its transform and aggregation, with its identity and policy.\n"
	"\n"
	"  -o, --output FILE  the baseline file (required; '-' for stdout)\n"
	"  -a, --append       add the run to FILE's runs (FILE may not exist yet)\n"
	"  -C, --base-dir DIR every file read or written must resolve under DIR\n"
	"  -q, --quiet        do not print input warnings\n"
	"  -h, --help         this help\n";

static int emit(const struct confine *c, const char *out, char *text, size_t len)
{
	int ret = confine_write(c, out ? out : "-", text, len);

	ksft_metric_report_text_free(text);
	return ret ? EXIT_USAGE : EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "base-dir", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report *r;
	struct confine c;
	const char *out = NULL, *base = NULL;
	int fmt = KSFT_METRIC_REPORT_TEXT, quiet = 0, ch, ret;
	char *text;
	size_t len;

	while ((ch = getopt_long(argc, argv, "f:o:C:qh", opts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			if (cli_parse_format(optarg, 1, &fmt))
				return EXIT_USAGE;
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
			fputs(report_usage, stdout);
			return EXIT_OK;
		default:
			fputs(report_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (confine_init(&c, base))
		return EXIT_USAGE;
	if (out && confine_check_write(&c, out)) {
		confine_free(&c);
		return EXIT_USAGE;
	}
	r = ksft_metric_report_new(NULL);
	if (!r) {
		cli_error("%s", ksft_metric_report_errmsg());
		confine_free(&c);
		return EXIT_USAGE;
	}
	ret = cli_read_inputs(&c, r, argv + optind, argc - optind, quiet);
	if (ret == EXIT_OK) {
		if (ksft_metric_report_format(r, fmt, &text, &len)) {
			cli_error("%s", ksft_metric_report_errmsg());
			ret = EXIT_USAGE;
		} else {
			ret = emit(&c, out, text, len);
		}
	}
	ksft_metric_report_free(r);
	confine_free(&c);
	return ret;
}

int cmd_save(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "append", no_argument, NULL, 'a' },
		{ "base-dir", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_baseline *b = NULL;
	struct ksft_metric_report *r = NULL;
	struct confine_target t = { -1, NULL, NULL, NULL };
	struct confine c;
	const char *out = NULL, *base = NULL;
	int append = 0, quiet = 0, ch, ret;
	char *text;
	size_t len;

	while ((ch = getopt_long(argc, argv, "o:aC:qh", opts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			out = optarg;
			break;
		case 'a':
			append = 1;
			break;
		case 'C':
			base = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(save_usage, stdout);
			return EXIT_OK;
		default:
			fputs(save_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (!out) {
		cli_error("save needs -o BASELINE.json");
		fputs(save_usage, stderr);
		return EXIT_USAGE;
	}
	if (append && !strcmp(out, "-")) {
		cli_error("--append needs a file, not stdout");
		return EXIT_USAGE;
	}
	if (confine_init(&c, base))
		return EXIT_USAGE;
	ret = EXIT_USAGE;
	/* Its directory is held from here on: checked, read and replaced there. */
	if (strcmp(out, "-") && confine_target_open(&c, out, &t))
		goto out;
	r = ksft_metric_report_new(NULL);
	b = ksft_metric_report_baseline_new();
	if (!r || !b) {
		cli_error("%s", ksft_metric_report_errmsg());
		goto out;
	}
	ret = cli_read_inputs(&c, r, argv + optind, argc - optind, quiet);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_USAGE;
	if (append) {
		char *data;
		size_t dlen;
		int got;

		/* Locked from the read to the rename: concurrent appends queue up. */
		if (confine_target_lock(&t))
			goto out;
		got = confine_target_read(&t, &data, &dlen);
		if (got < 0)
			goto out;
		if (!got) {
			got = ksft_metric_report_baseline_load(b, data, dlen, out);
			free(data);
			if (got < 0) {
				cli_error("%s", ksft_metric_report_errmsg());
				goto out;
			}
		}
	}
	if (ksft_metric_report_baseline_add_report(b, r,
			(const char *const *)(argv + optind),
			(size_t)(argc - optind)) < 0 ||
	    ksft_metric_report_baseline_format(b, &text, &len)) {
		cli_error("%s", ksft_metric_report_errmsg());
		goto out;
	}
	if (t.name) {
		ret = confine_target_write(&t, text, len) ? EXIT_USAGE : EXIT_OK;
		ksft_metric_report_text_free(text);
	} else {
		ret = emit(&c, "-", text, len);
	}
	if (ret == EXIT_OK && strcmp(out, "-"))
		fprintf(stderr, "ksft-metric: saved %zu series as run %zu of %s\n",
			ksft_metric_report_series_count(r),
			ksft_metric_report_baseline_runs(b), out);
out:
	confine_target_close(&t);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
	confine_free(&c);
	return ret;
}
