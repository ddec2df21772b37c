// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers every ksft-metric command shares: option parsing (format,
 * sizes, numbers, the common options), reading inputs and baselines, and
 * writing the output. ksft_metric.c only dispatches to the commands.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

int cli_text_fmt(const struct cli_common *cc)
{
	const char *cols = getenv("COLUMNS");
	long width = 0;
	struct winsize ws;
	char *end;

	if (cc->fmt != KSFT_METRIC_REPORT_TEXT)
		return cc->fmt;
	if (cols && *cols) {
		width = strtol(cols, &end, 10);
		if (*end)
			width = 0;
	} else if (!cc->out && isatty(STDOUT_FILENO) &&
		   !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws)) {
		width = ws.ws_col;
	}
	return cc->fmt | (width > 0 && width < 120 ? KSFT_METRIC_REPORT_TEXT_NARROW : 0) |
	       (cc->verbose ? KSFT_METRIC_REPORT_TEXT_VERBOSE : 0);
}

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
	else if (allow_openmetrics && !strcmp(s, "kcidb"))
		*fmt = KSFT_METRIC_REPORT_KCIDB;
	else if (allow_openmetrics && !strcmp(s, "nipa"))
		*fmt = KSFT_METRIC_REPORT_NIPA;
	else {
		cli_error("unknown --format '%s' (text, json, csv%s)", s,
			  allow_openmetrics ? ", openmetrics, kcidb, nipa" : "");
		return -EINVAL;
	}
	return 0;
}

int cli_parse_size(const char *opt, const char *s, size_t max, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < 1 || v > max) {
		cli_error("%s: '%s' is not a count in [1, %zu]", opt, s, max);
		return -EINVAL;
	}
	*out = (size_t)v;
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
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int cli_gate_option(int ch, const char *arg, size_t *window, double *fdr, const char **order)
{
	int ret;

	switch (ch) {
	case 'w':
		ret = cli_parse_size("--window", arg, CLI_MAX_WINDOW, window);
		return ret < 0 ? ret : 1;
	case 'F':
		ret = cli_parse_double("--fdr", arg, 1e-9, 0.5, fdr);
		return ret < 0 ? ret : 1;
	case 'O':
		*order = arg;
		return 1;
	}
	return 0;
}

int cli_parse_tolerance(const char *s, double *pct)
{
	size_t n = strlen(s);
	char *num;
	int ret;

	/* "5%" and "5" are 5 percent. */
	num = strndup(s, n && s[n - 1] == '%' ? n - 1 : n);
	if (!num)
		return -ENOMEM;
	ret = cli_parse_double("--tolerance", num, 0, 1e9, pct);
	if (!ret && *pct > 0 && *pct < 1 && s[n - 1] != '%')
		fprintf(stderr, "ksft-metric: note: --tolerance %s is %s percent, not the"
			" fraction a policy's relative_tolerance is (write %g%% for that)\n",
			s, num, *pct * 100);
	free(num);
	return ret;
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

int cli_read_logs(const struct confine *c, struct ksft_metric_report *r,
		  char *const *files, int n)
{
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
			const char *kind = cli_path_kind(c, files[i]);

			if (*kind)
				cli_error("%s: %s (this is %s)", files[i], ksft_metric_report_errmsg(),
					  kind);
			else
				cli_error("%s: %s", files[i], ksft_metric_report_errmsg());
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
}

int cli_inputs_checked(const struct confine *c, const struct ksft_metric_report *r,
		       char *const *files, int n, int quiet)
{
	size_t total, kept;
	int i;

	kept = ksft_metric_report_warnings(r, NULL, &total);
	if (!quiet) {
		print_warnings(r, 0);
		if (total > kept)
			fprintf(stderr, "ksft-metric: %zu more warnings not shown\n",
				total - kept);
	}
	if (!ksft_metric_report_series_count(r)) {
		/* Each file named, with what it is. */
		for (i = 0; i < n; i++) {
			const char *kind = cli_path_kind(c, files[i]);

			cli_error("no metrics found in %s%s%s%s", strcmp(files[i], "-") ? files[i] :
				  "stdin", *kind ? ": it is " : "", kind,
				  total && i == n - 1 ? " (see warnings)" : "");
		}
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cli_read_inputs(const struct confine *c, struct ksft_metric_report *r,
		    char *const *files, int n, int quiet)
{
	int ret = cli_read_logs(c, r, files, n);

	return ret != EXIT_OK ? ret : cli_inputs_checked(c, r, files, n, quiet);
}

void cli_baseline_error(const char *file, const char *data, size_t len)
{
	const char *kind = cli_file_kind(data, len);

	if (strncmp(kind, "a baseline", 10))
		cli_error("%s: this is %s; --baseline wants a file written by"
			  " 'ksft-metric save'", file, kind);
	else
		cli_error("%s", ksft_metric_report_errmsg());
}

int cli_read_baselines(const struct confine *c,
		       struct ksft_metric_report_baseline *b,
		       char *const *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *data;
		size_t len;
		int ret, mapped;

		if (confine_map_all(c, files[i], &data, &len, &mapped))
			return EXIT_USAGE;
		ret = ksft_metric_report_baseline_load(b, data, len, files[i]);
		if (ret < 0) {
			cli_baseline_error(files[i], data, len);
			confine_release(data, len, mapped);
			return EXIT_USAGE;
		}
		confine_release(data, len, mapped);
	}
	return EXIT_OK;
}

int cli_common_init(struct cli_common *cc, const char *name,
		    const char *cmd_usage, int allow_openmetrics, int argc)
{
	static const struct ksft_metric_report_compare_opts copts =
		KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;

	memset(cc, 0, sizeof(*cc));
	cc->name = name;
	cc->usage = cmd_usage;
	cc->allow_openmetrics = allow_openmetrics;
	cc->fmt = KSFT_METRIC_REPORT_TEXT;
	cc->copts = copts;
	cc->c.fd = -1;
	/* Room for every argument: each --baseline or --context is at most one. */
	cc->baselines = calloc((size_t)argc + 1, sizeof(char *));
	cc->context = calloc((size_t)argc + 1, sizeof(char *));
	return cc->baselines && cc->context ? EXIT_OK : EXIT_USAGE;
}

size_t cli_edit_distance(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t row[64], i, j, diag, up;

	if (alen >= 64 || blen >= 64)
		return (size_t)-1;
	for (j = 0; j <= blen; j++)
		row[j] = j;
	for (i = 1; i <= alen; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= blen; j++) {
			size_t best = diag + (a[i - 1] != b[j - 1]);

			up = row[j];
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[blen];
}

const char *cli_closest(const char *s, size_t len, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t i, d, best_d = (size_t)-1, limit = len < 4 ? 1 : len < 8 ? 2 : 3;

	for (i = 0; i < n; i++) {
		size_t nl = strlen(names[i]);

		d = cli_edit_distance(s, len, names[i], nl);
		/* A prefix of an option's name is its start typed out, not a typo. */
		if (len >= 3 && nl > len && !strncmp(s, names[i], len))
			d = 1;
		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
	}
	return best_d <= limit ? best : NULL;
}

int cli_getopt(struct cli_common *cc, int argc, char **argv, const char *optstring,
	       const struct option *opts)
{
	cc->argv = argv;
	cc->optstring = optstring;
	cc->opts = opts;
	opterr = 0;	/* bad_option() says it, naming the command */
	return getopt_long(argc, argv, optstring, opts, NULL);
}

/*
 * After getopt_long() returned '?': "ksft-metric CMD: unknown option
 * '--x'" (or "needs a value"), the closest option's name, and a one-line
 * hint instead of the whole usage.
 */
static void bad_option(const struct cli_common *cc)
{
	const char *arg = cc->argv && optind > 0 ? cc->argv[optind - 1] : "?";
	const char *names[64], *best = NULL;
	size_t n = 0, len;
	int known = 0, i;
	char shown[3] = { '-', 0, 0 };

	if (optopt && cc->opts) {
		for (i = 0; cc->opts[i].name; i++)
			known |= cc->opts[i].val == optopt && cc->opts[i].has_arg;
		known |= cc->optstring && strchr(cc->optstring, optopt) && optopt != ':';
	}
	if (known) {
		fprintf(stderr, "ksft-metric %s: option '%s' needs a value\n", cc->name, arg);
	} else {
		if (optopt || !arg || strncmp(arg, "--", 2)) {
			shown[1] = (char)optopt;
			arg = optopt ? shown : arg;
		}
		fprintf(stderr, "ksft-metric %s: unknown option '%.*s'", cc->name,
			(int)strcspn(arg, "="), arg);
		for (i = 0; cc->opts && cc->opts[i].name && n < 64; i++)
			names[n++] = cc->opts[i].name;
		if (!strncmp(arg, "--", 2)) {
			len = strcspn(arg + 2, "=");
			best = cli_closest(arg + 2, len, names, n);
		}
		if (best)
			fprintf(stderr, "; did you mean '--%s'?", best);
		fputc('\n', stderr);
	}
	fprintf(stderr, "Run 'ksft-metric %s --help' for its options.\n", cc->name);
}

int cli_common_option(struct cli_common *cc, int ch, char *arg)
{
	switch (ch) {
	case 'b':
		cc->baselines[cc->n_baselines++] = arg;
		return CLI_OPT_NEXT;
	case 't':
		if (cli_parse_tolerance(arg, &cc->copts.tolerance_pct))
			return EXIT_USAGE;
		return CLI_OPT_NEXT;
	case 'a':
		if (cli_parse_double("--alpha", arg, 0, 1, &cc->copts.alpha))
			return EXIT_USAGE;
		cc->alpha_given = 1;
		return CLI_OPT_NEXT;
	case 'f':
		if (cli_parse_format(arg, cc->allow_openmetrics, &cc->fmt))
			return EXIT_USAGE;
		return CLI_OPT_NEXT;
	case 'o':
		cc->out = arg;
		return CLI_OPT_NEXT;
	case 'C':
		cc->base = arg;
		return CLI_OPT_NEXT;
	case 'q':
		cc->quiet = 1;
		return CLI_OPT_NEXT;
	case 'v':
		cc->verbose = 1;
		return CLI_OPT_NEXT;
	case 'N':
		cc->first_run = 1;
		return CLI_OPT_NEXT;
	case CLI_OPT_ALLOW_CONTEXT:
		cc->copts.allow_context_mismatch = 1;
		return CLI_OPT_NEXT;
	case 'D':
		cc->db = arg;
		ksft_metric_report_history_redact(arg, cc->db_shown, sizeof(cc->db_shown));
		return CLI_OPT_NEXT;
	case 'x':
		if (!strchr(arg, '=') || arg[0] == '=') {
			cli_error("--context '%s' is not KEY=VALUE", arg);
			return EXIT_USAGE;
		}
		cc->context[cc->n_context++] = arg;
		return CLI_OPT_NEXT;
	case 'h':
		fputs(cc->usage, stdout);
		return EXIT_OK;
	case 'V':
		puts("ksft-metric " KSFT_METRIC_VERSION);
		return EXIT_OK;
	default:
		bad_option(cc);
		return EXIT_USAGE;
	}
}

int cli_needs(const struct cli_common *cc, const char *what)
{
	cli_error("%s needs %s", cc->name, what);
	fputs(cc->usage, stderr);
	return EXIT_USAGE;
}

int cli_confine(struct cli_common *cc, struct confine_target *t)
{
	int ret = confine_init(&cc->c, cc->base);

	if (ret || !cc->out)
		return ret;
	if (t && strcmp(cc->out, "-"))
		return confine_target_open(&cc->c, cc->out, t);
	return confine_check_write(&cc->c, cc->out);
}

int cli_load_begin(struct cli_common *cc, struct confine_target *t)
{
	if (cli_confine(cc, t))
		return EXIT_USAGE;
	cc->r = ksft_metric_report_new(NULL);
	cc->b = ksft_metric_report_baseline_new();
	if (!cc->r || !cc->b) {
		cli_error("%s", ksft_metric_report_errmsg());
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cli_load(struct cli_common *cc, char *const *files, int n,
	     struct confine_target *t)
{
	int ret;

	if (cli_load_begin(cc, t) != EXIT_OK)
		return EXIT_USAGE;
	ret = cli_read_baselines(&cc->c, cc->b, cc->baselines, cc->n_baselines);
	if (ret != EXIT_OK)
		return ret;
	return cli_read_inputs(&cc->c, cc->r, files, n, cc->quiet);
}

int cli_judging(const struct cli_common *cc, int db_ok, int needed)
{
	if (cc->n_baselines && cc->db)
		return cli_needs(cc, "--baseline files or --db, not both");
	if (cc->db && !db_ok) {
		cli_error("%s judges against --baseline files only: --db is not supported"
			  " (html draws and judges a run history)", cc->name);
		fputs(cc->usage, stderr);
		return EXIT_USAGE;
	}
	if (needed && !cc->n_baselines && !cc->db)
		return cli_needs(cc, "either --baseline files or --db");
	/*
	 * The history gate judges with each policy's tolerance and the series'
	 * own noise: accepting these with --db and ignoring them would let a
	 * mis-set CI step believe it had tightened the gate.
	 */
	if (cc->db && (cc->copts.tolerance_pct >= 0 || cc->alpha_given)) {
		cli_error("--%s is for --baseline files: --db judges each series with its"
			  " policy's tolerance and its history's noise (--fdr sets the"
			  " false-alarm rate)", cc->copts.tolerance_pct >= 0 ? "tolerance" : "alpha");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cli_judge(struct cli_common *cc, struct ksft_metric_report_gate_opts *go,
	      struct ksft_metric_report_history **h,
	      struct ksft_metric_report_comparison **cmp)
{
	if (cc->db && cli_history_judge(cc, go, h, cmp) < 0)	/* said why */
		return EXIT_USAGE;
	if (cc->n_baselines && ksft_metric_report_compare(cc->r, cc->b, &cc->copts, cmp) < 0) {
		cli_error("%s", ksft_metric_report_errmsg());
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cli_load_picture(struct cli_common *cc, const char *name, const char *cmd_usage,
		     int argc, char **argv, const char *optstring,
		     const struct option *opts, int db_ok, const char *what,
		     int (*own_option)(void *ctx, int ch, char *arg), void *own_ctx)
{
	int ch, ret = cli_common_init(cc, name, cmd_usage, 0, argc);

	if (ret != EXIT_OK)
		return ret;
	cc->picture_option = own_option;
	cc->picture_ctx = own_ctx;
	while ((ch = cli_getopt(cc, argc, argv, optstring, opts)) != -1) {
		if (ch == 'T') {
			cc->title = optarg;
			continue;
		}
		if (cc->picture_option) {
			ret = cc->picture_option(cc->picture_ctx, ch, optarg);
			if (ret == CLI_OPT_NEXT)
				continue;
			if (ret)
				return ret;
		}
		ret = cli_common_option(cc, ch, optarg);
		if (ret != CLI_OPT_NEXT)
			return ret;
	}
	if (!cc->out)
		return cli_needs(cc, what);
	ret = cli_judging(cc, db_ok, 0);
	if (ret != EXIT_OK)
		return ret;
	return cli_load(cc, argv + optind, argc - optind, NULL);
}

void cli_common_free(struct cli_common *cc)
{
	ksft_metric_report_baseline_free(cc->b);
	ksft_metric_report_free(cc->r);
	confine_free(&cc->c);
	free(cc->baselines);
	free(cc->context);
	free(cc->unusable);
	cc->unusable = NULL;
	cc->context = NULL;
	cc->b = NULL;
	cc->r = NULL;
	cc->baselines = NULL;
}

int cli_emit(const struct confine *c, const char *out, char *text, size_t len)
{
	int ret = confine_write(c, out ? out : "-", text, len);

	ksft_metric_report_text_free(text);
	return ret ? EXIT_USAGE : EXIT_OK;
}

/* One of the two below for confine_write_by(). */
struct emit {
	const struct ksft_metric_report *r;
	const struct ksft_metric_report_format_opts *opts;
	const struct ksft_metric_report_comparison *cmp;
	int fmt;
};

static int emit_fill(FILE *f, void *arg)
{
	const struct emit *e = arg;
	int ret = e->cmp ? ksft_metric_report_comparison_write(e->cmp, e->fmt, f) :
			   ksft_metric_report_write(e->r, e->fmt, e->opts, f);

	if (!ret)
		return 0;
	if (ferror(f))
		return ret;	/* a failed write: confine_write_by() names the file */
	cli_error("%s", ksft_metric_report_errmsg());
	return 1;
}

int cli_emit_report(const struct confine *c, const char *out,
		    const struct ksft_metric_report *r, int fmt,
		    const struct ksft_metric_report_format_opts *opts)
{
	struct emit e = { r, opts, NULL, fmt };

	return confine_write_by(c, out ? out : "-", emit_fill, &e) ? EXIT_USAGE : EXIT_OK;
}

int cli_emit_comparison(const struct confine *c, const char *out,
			const struct ksft_metric_report_comparison *cmp, int fmt)
{
	struct emit e = { NULL, NULL, cmp, fmt };

	return confine_write_by(c, out ? out : "-", emit_fill, &e) ? EXIT_USAGE : EXIT_OK;
}

int cli_emit_doc(const struct cli_common *cc, char *doc, size_t len)
{
	int ret;

	if (!doc) {
		cli_oom(NULL);
		return EXIT_USAGE;
	}
	ret = confine_write(&cc->c, cc->out, doc, len) ? EXIT_USAGE : EXIT_OK;
	free(doc);
	return ret;
}
