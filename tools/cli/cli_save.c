/* ksft-metric save: the inputs' series as one run of a baseline file. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "seed_runs.h"

static const char save_usage[] =
	"usage: ksft-metric save -o BASELINE.json [--append] [--force] [--base-dir DIR] FILE...\n"
	"\n"
	"Write the inputs' series as one baseline run: each series' samples after\n"
	"its transform and aggregation, with its identity, policy and the run's\n"
	"context. Logs whose context names a seed (ksft-vm --seed: one boot a\n"
	"log) are written as one run a seed, for compare to judge seed by seed.\n"
	"\n"
	"  -o, --output FILE  the baseline file (required; '-' for stdout)\n"
	"  -a, --append       add the run to FILE's runs (FILE may not exist yet)\n"
	"  -F, --force        replace FILE even when it is not a baseline (without it,\n"
	"                     save refuses to overwrite a log or any other file)\n"
	"  -C, --base-dir DIR every file read or written must resolve under DIR\n"
	"  -q, --quiet        do not print input warnings\n"
	"  -h, --help         this help\n";

int cmd_save(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_OPTION_OUTPUT,
		{ "append", no_argument, NULL, 'a' },
		{ "force", no_argument, NULL, 'F' },
		CLI_OPTION_BASE_DIR,
		CLI_OPTION_QUIET,
		CLI_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct confine_target t = { -1, NULL, NULL, NULL };
	struct cli_common cc;
	const char *out;
	int append = 0, force = 0, ch, ret, seeds = 0;
	size_t before;
	struct stat st;
	char *text;
	size_t len;

	ret = cli_common_init(&cc, "save", save_usage, 0, argc);
	if (ret != EXIT_OK)
		return ret;
	while ((ch = cli_getopt(&cc, argc, argv, "o:aFC:qh", opts)) != -1) {
		if (ch == 'a') {	/* --append here, not --alpha */
			append = 1;
			continue;
		}
		if (ch == 'F') {
			force = 1;
			continue;
		}
		ret = cli_common_option(&cc, ch, optarg);
		if (ret != CLI_OPT_NEXT)
			goto out;
	}
	out = cc.out;
	if (!out) {
		ret = cli_needs(&cc, "-o BASELINE.json");
		goto out;
	}
	ret = EXIT_USAGE;
	if (append && !strcmp(out, "-")) {
		cli_error("--append needs a file, not stdout");
		goto out;
	}
	/* Its directory is held from here on: checked, read and replaced there. */
	ret = cli_load(&cc, argv + optind, argc - optind, &t);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_USAGE;
	if (!append && !force && t.name && !fstatat(t.dirfd, t.name, &st, 0) &&
	    S_ISREG(st.st_mode)) {	/* a device or FIFO is written, never read */
		char *data;
		size_t dlen;
		int got = confine_target_read(&t, &data, &dlen);
		const char *kind;

		if (got < 0)
			goto out;
		/* Replacing a baseline is what save does; anything else is refused. */
		kind = got ? "" : dlen ? cli_file_kind(data, dlen) : "a baseline";
		if (!got)
			free(data);
		if (*kind && strncmp(kind, "a baseline", 10)) {
			cli_error("refusing to overwrite %s: it is %s, not a baseline (--force"
				  " replaces it)", out, kind);
			goto out;
		}
	}
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
			got = ksft_metric_report_baseline_load(cc.b, data, dlen, out);
			free(data);
			if (got < 0) {
				cli_error("%s", ksft_metric_report_errmsg());
				goto out;
			}
		}
	}
	/* Logs that name their seed (ksft-vm --seed): one run a seed. */
	before = ksft_metric_report_baseline_runs(cc.b);
	seeds = seed_runs_add(&cc.c, argv + optind, argc - optind, cc.r, cc.b);
	if (seeds < 0)
		goto out;
	if ((!seeds && ksft_metric_report_baseline_add_report(cc.b, cc.r,
			(const char *const *)(argv + optind),
			(size_t)(argc - optind)) < 0) ||
	    ksft_metric_report_baseline_format(cc.b, &text, &len)) {
		cli_error("%s", ksft_metric_report_errmsg());
		goto out;
	}
	if (t.name) {
		ret = confine_target_write(&t, text, len) ? EXIT_USAGE : EXIT_OK;
		ksft_metric_report_text_free(text);
	} else {
		ret = cli_emit(&cc.c, "-", text, len);
	}
	if (ret == EXIT_OK && strcmp(out, "-") && seeds)
		fprintf(stderr, "ksft-metric: saved %zu series as runs %zu-%zu of %s, one a"
			" seed (%d seeds)\n", ksft_metric_report_series_count(cc.r), before + 1,
			ksft_metric_report_baseline_runs(cc.b), out, seeds);
	else if (ret == EXIT_OK && strcmp(out, "-"))
		fprintf(stderr, "ksft-metric: saved %zu series as run %zu of %s\n",
			ksft_metric_report_series_count(cc.r),
			ksft_metric_report_baseline_runs(cc.b), out);
out:
	confine_target_close(&t);
	cli_common_free(&cc);
	return ret;
}
