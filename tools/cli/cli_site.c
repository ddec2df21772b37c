/*
 * ksft-metric site: a static site over the whole run history, as asv's
 * published pages or Perfherder's graphs: index.html lists every series
 * grouped by case with its sparkline, latest value and latest verdict;
 * one page per series (its trend with the gate's marks, its runs, its
 * change points) named by the series' anchor, so links stay stable from
 * one build of the site to the next. Inline CSS and SVG, no script,
 * nothing fetched.
 *
 * Files are written only inside DIR: names are our own slugs
 * ([a-z0-9-] and ".html"), each opened relative to DIR's descriptor with
 * O_NOFOLLOW and replaced by rename, so nothing outside DIR is touched.
 * DIR must be empty, missing, or a previous site (its marker file), unless
 * --force.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "html.h"
#include "verdict_vocab.h"

#define SITE_MARKER ".ksft-metric-site"
#define SITE_LAST 200		/* runs per series (the page's chart) */

static const char site_usage[] =
	"usage: ksft-metric site --db DB -o DIR [--context K=V ...] [--last N]\n"
	"                        [--title TEXT] [--force] [--quiet]\n"
	"\n"
	"A static site over the whole history: DIR/index.html lists every series,\n"
	"grouped by case, with its trend (a sparkline), latest value and latest\n"
	"verdict; DIR/s-....html is one page per series (its trend over the runs\n"
	"with the gate's band (where one run alone alarms), change points,\n"
	"accepted levels and pinned baselines; its runs and change points). A\n"
	"series' page name is its anchor (a slug of the series plus a hash), the\n"
	"same in every build of the site and in html's pages. Self-contained:\n"
	"inline CSS and SVG.\n"
	"\n"
	"  -D, --db DB          the history (SQLite file or postgresql://...)\n"
	"  -o, --output DIR     the site's directory (created; must be empty or\n"
	"                       a previous site)\n"
	"  -x, --context K=V    only runs whose context has this value; repeat\n"
	"  -n, --last N         the last N runs of each series (200)\n"
	"  -T, --title TEXT     the index's title (default: the history's name)\n"
	"  -F, --force          write into a non-empty DIR that is not a site\n"
	"  -q, --quiet          do not say what was written\n"
	"  -h, --help           this help\n";

static const char site_css[] =
	"body{font:14px/1.4 sans-serif;margin:0 auto;max-width:1000px;padding:0 12px 24px;"
	"color:#222;background:#fff}\n"
	"h1{font-size:20px;margin:14px 0 4px}h2{font-size:16px;border-bottom:1px solid #ccc;"
	"margin:18px 0 6px}\n"
	"table{border-collapse:collapse;margin:4px 0}th,td{padding:2px 8px;text-align:left;"
	"border-bottom:1px solid #eee;vertical-align:middle}th{border-bottom:1px solid #bbb}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"td.series{max-width:460px;overflow-wrap:anywhere}td.spark{padding:0 4px}\n"
	".regression{color:#b00020;font-weight:bold}.improvement{color:#1b7f2a;font-weight:bold}\n"
	".meta,.note{color:#555}figure.chart{margin:6px 0;border:1px solid #ddd}"
	"figure.chart svg{display:block}\n";

static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* Write @data as DIR/@name: a temporary file renamed over it. */
static int write_at(int dirfd, const char *dir, const char *name, const struct svg *data)
{
	char tmp[300];
	size_t off = 0;
	int fd;

	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		cli_error("%s/%s: %s", dir, tmp, strerror(errno));
		return -EIO;
	}
	while (off < data->len) {
		ssize_t n = write(fd, data->data + off, data->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			cli_error("%s/%s: %s", dir, tmp, strerror(n < 0 ? errno : EIO));
			close(fd);
			unlinkat(dirfd, tmp, 0);
			return -EIO;
		}
		off += (size_t)n;
	}
	if (close(fd) || renameat(dirfd, tmp, dirfd, name)) {
		cli_error("%s/%s: %s", dir, name, strerror(errno));
		unlinkat(dirfd, tmp, 0);
		return -EIO;
	}
	return 0;
}

/* Open DIR (created when missing): empty, a previous site, or --force. */
static int open_site_dir(const char *dir, int force)
{
	int fd, empty = 1, site = 0;
	struct dirent *e;
	DIR *d;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		cli_error("%s: cannot create the directory: %s", dir, strerror(errno));
		return -EIO;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		cli_error("%s: %s", dir, errno == ENOTDIR ? "not a directory" : strerror(errno));
		return -EIO;
	}
	d = fdopendir(dup(fd));
	if (!d) {
		cli_error("%s: %s", dir, strerror(errno));
		close(fd);
		return -EIO;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		empty = 0;
		site |= !strcmp(e->d_name, SITE_MARKER);
	}
	closedir(d);
	if (!empty && !site && !force) {
		cli_error("%s: not empty and not a site ksft-metric wrote (no %s); "
			  "use another directory, or --force", dir, SITE_MARKER);
		close(fd);
		return -EEXIST;
	}
	return fd;
}

static void page_head(struct svg *o, const char *title)
{
	html_printf(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		    "style-src 'unsafe-inline'; img-src data:\">\n<title>");
	html_escape(o, title);
	html_printf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", site_css);
	html_escape(o, title);
	html_printf(o, "</h1>\n");
}

static void page_foot(struct svg *o)
{
	html_printf(o, "<footer><p class=\"meta\">ksft-metric " KSFT_METRIC_VERSION
		    "</p></footer>\n</body>\n</html>\n");
}

/* The series' display units from its newest policy (NaN / NULL: none). */
static double unit_scale(json_t *s)
{
	json_t *v = json_object_get(s, "display_scale");

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *unit_label(json_t *s)
{
	return json_string_value(json_object_get(s, "display_label"));
}

static json_t *newest(json_t *s)
{
	json_t *pts = json_object_get(s, "points");

	return json_array_get(pts, json_array_size(pts) - 1);
}

/*
 * The context keys (string values) whose value is not the same in every
 * run of @points (a key some run lacks differs): a run's row shows only
 * those, the keys every run shares are said once above the table (issue
 * 34: every row repeated the full context). A new object, NULL on OOM.
 */
static json_t *differing_keys(json_t *points)
{
	json_t *first = json_object_get(json_array_get(points, 0), "context");
	json_t *keys = json_object(), *pt, *ctx, *v;
	const char *key;
	size_t i;

	if (!keys)
		return NULL;
	json_array_foreach(points, i, pt) {
		ctx = json_object_get(pt, "context");
		json_object_foreach(ctx, key, v) {
			json_t *f = json_object_get(first, key);

			if (json_is_string(v) && (!json_is_string(f) ||
			    strcmp(json_string_value(f), json_string_value(v))) &&
			    json_object_set_new(keys, key, json_true()))
				goto oom;
		}
		json_object_foreach(first, key, v)
			if (json_is_string(v) && !json_is_string(json_object_get(ctx, key)) &&
			    json_object_set_new(keys, key, json_true()))
				goto oom;
	}
	return keys;
oom:
	json_decref(keys);
	return NULL;
}

/* How many string keys of @ctx are not in @keys (every run shares them). */
static size_t shared_keys(json_t *ctx, json_t *keys)
{
	const char *key;
	size_t n = 0;
	json_t *v;

	json_object_foreach(ctx, key, v)
		n += json_is_string(v) && !json_object_get(keys, key);
	return n;
}

/* "k=v, k=v" of @ctx's string values, those in @keys (@want) or not. */
static void context_text(struct svg *o, json_t *ctx, json_t *keys, int want)
{
	const char *key;
	int first = 1;
	json_t *v;

	json_object_foreach(ctx, key, v) {
		if (!json_is_string(v) || !!json_object_get(keys, key) != want)
			continue;
		html_printf(o, "%s", first ? "" : ", ");
		html_escape(o, key);
		html_printf(o, "=");
		html_escape(o, json_string_value(v));
		first = 0;
	}
}

/* One series' page: its trend, its runs newest first, its change points. */
static int series_page(json_t *s, const char *anchor, const char *site_title, struct svg *o)
{
	json_t *points = json_object_get(s, "points"), *pt, *c, *keys;
	struct trend_marks mk = { 0 };
	size_t i;
	char buf[96];

	page_head(o, jstr(s, "series"));
	html_printf(o, "<p class=\"meta\"><a href=\"index.html#%s\">", anchor);
	html_escape(o, site_title);
	html_printf(o, "</a> &middot; compared by ");
	html_escape(o, jstr(s, "compare"));
	if (json_string_value(json_object_get(s, "better"))) {
		html_printf(o, ", ");
		html_escape(o, jstr(s, "better"));
		html_printf(o, " is better");
	}
	html_printf(o, " &middot; %zu runs &middot; %zu change points</p>\n",
		    json_array_size(points), json_array_size(json_object_get(s, "changes")));
	mk.title = jstr(s, "series");
	mk.scale = unit_scale(s);
	mk.unit = unit_label(s);
	html_printf(o, "<figure class=\"chart trend\" id=\"t%s\">", anchor + 1);
	if (trend_chart(o, s, &mk, 960, 240) < 0)
		return -ENOMEM;	/* its one failure */
	html_printf(o, "</figure>\n");
	if (json_array_size(json_object_get(s, "changes"))) {
		html_printf(o, "<h2>Change points</h2>\n<table class=\"changes\"><thead><tr>"
			    "<th>Run</th><th>Order</th><th>Before</th><th>After</th><th>Change</th>"
			    "<th>p</th></tr></thead><tbody>\n");
		json_array_foreach(json_object_get(s, "changes"), i, c) {
			html_printf(o, "<tr><td>");
			html_escape(o, jstr(c, "run"));
			html_printf(o, "</td><td>");
			html_escape(o, jstr(c, "order"));
			ksft_metric_report_value_text(buf, sizeof(buf),
					json_number_value(json_object_get(c, "before")),
					mk.scale, mk.unit);
			/* Values carry the display_label: text from a log. */
			html_printf(o, "</td><td class=\"num\">");
			html_escape(o, buf);
			ksft_metric_report_value_text(buf, sizeof(buf),
					json_number_value(json_object_get(c, "after")),
					mk.scale, mk.unit);
			html_printf(o, "</td><td class=\"num\">");
			html_escape(o, buf);
			html_printf(o, "</td><td class=\"num\">%+.1f%%</td>"
				    "<td class=\"num\">%.2g</td></tr>\n",
				    json_number_value(json_object_get(c, "change_pct")),
				    json_number_value(json_object_get(c, "p_value")));
		}
		html_printf(o, "</tbody></table>\n");
	}
	if (!(keys = differing_keys(points)))
		return -ENOMEM;
	html_printf(o, "<h2>Runs (newest first)</h2>\n");
	if (shared_keys(json_object_get(json_array_get(points, 0), "context"), keys)) {
		html_printf(o, "<p class=\"meta common\">Every run: ");
		context_text(o, json_object_get(json_array_get(points, 0), "context"), keys, 0);
		html_printf(o, "</p>\n");
	}
	html_printf(o, "<table class=\"runs\"><thead><tr><th>Run</th>"
		    "<th>Order</th><th>Value</th><th>Verdict at ingest</th>%s</tr></thead><tbody>\n",
		    json_object_size(keys) ? "<th>Context (what differs)</th>" : "");
	for (i = json_array_size(points); i-- > 0;) {
		pt = json_array_get(points, i);
		ksft_metric_report_value_text(buf, sizeof(buf),
				json_number_value(json_object_get(pt, "value")), mk.scale, mk.unit);
		html_printf(o, "<tr id=\"run-%zu\"><td>", i);
		html_escape(o, jstr(pt, "run"));
		html_printf(o, "</td><td>");
		html_escape(o, jstr(pt, "order"));
		html_printf(o, "</td><td class=\"num\">");
		html_escape(o, buf);
		html_printf(o, "</td><td class=\"");
		html_escape(o, jstr(pt, "state"));
		html_printf(o, "\">");
		html_escape(o, ksftm_verdict_name(jstr(pt, "state")));
		if (json_is_true(json_object_get(pt, "pinned")))
			html_printf(o, ", pinned");
		if (json_object_size(keys)) {
			html_printf(o, "</td><td class=\"meta\">");
			context_text(o, json_object_get(pt, "context"), keys, 1);
		}
		html_printf(o, "</td></tr>\n");
	}
	json_decref(keys);
	html_printf(o, "</tbody></table>\n");
	page_foot(o);
	return o->oom ? -ENOMEM : 0;
}

/* The latest verdicts a look is worth first. */
static int state_rank(const char *st)
{
	static const char *const order[] = { KSFTM_VERDICT_REGRESSION, KSFTM_VERDICT_IMPROVEMENT,
					     KSFTM_VERDICT_TOO_NOISY, KSFTM_VERDICT_NO_CHANGE,
					     KSFTM_VERDICT_ACCEPTED, KSFTM_VERDICT_NEW };
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(st, order[i]))
			return (int)i;
	return (int)(sizeof(order) / sizeof(order[0]));
}

static void index_row(struct html_page *pg, json_t *s, const char *anchor)
{
	json_t *last = newest(s);
	char buf[96];

	html_printf(&pg->out, "<tr id=\"%s\"><td class=\"series\"><a href=\"%s.html\">", anchor,
		    anchor);
	html_escape(&pg->out, jstr(s, "series"));
	html_printf(&pg->out, "</a></td>");
	html_sparkline(pg, anchor, unit_scale(s), unit_label(s));
	ksft_metric_report_value_text(buf, sizeof(buf),
				      json_number_value(json_object_get(last, "value")),
				      unit_scale(s), unit_label(s));
	html_printf(&pg->out, "<td class=\"num\">");
	html_escape(&pg->out, buf);
	html_printf(&pg->out, "</td><td class=\"verdict ");
	html_escape(&pg->out, jstr(last, "state"));
	html_printf(&pg->out, "\">");
	html_escape(&pg->out, ksftm_verdict_name(jstr(last, "state")));
	html_printf(&pg->out, "</td><td>");
	html_escape(&pg->out, jstr(last, "run"));
	html_printf(&pg->out, "</td><td class=\"num\">%zu</td></tr>\n",
		    json_array_size(json_object_get(s, "points")));
}

/*
 * index.html: the counts of the latest verdicts, then per case (in the
 * history's order) its series, the latest verdicts worth a look first.
 */
/* "KEY=VALUE, ..." of one machine (a "pooled_contexts" entry) to @f or @o. */
static void machine_keys(FILE *f, struct svg *o, json_t *machine)
{
	const char *key;
	json_t *v;
	int first = 1;

	json_object_foreach(machine, key, v) {
		if (f) {
			fputs(first ? "" : ", ", f);
			cli_put_printable(f, key);
			fputc('=', f);
			cli_put_printable(f, json_string_value(v) ? json_string_value(v) : "?");
		} else {
			html_printf(o, "%s", first ? "" : ", ");
			html_escape(o, key);
			html_printf(o, "=");
			html_escape(o, json_string_value(v) ? json_string_value(v) : "?");
		}
		first = 0;
	}
}

/*
 * Trends that pool several machines' runs (no --context, issue 40): said
 * on the index page, and on stderr by the command.
 */
static void pooled_note(struct svg *o, json_t *pooled)
{
	json_t *m;
	size_t i;

	if (!json_array_size(pooled))
		return;
	html_printf(o, "<p class=\"meta\">Note: these trends pool the runs of %zu machines (",
		    json_array_size(pooled));
	json_array_foreach(pooled, i, m) {
		html_printf(o, "%s", i ? "; " : "");
		machine_keys(NULL, o, m);
	}
	html_printf(o, "): <code>--context KEY=VALUE</code> draws one machine's.</p>\n");
}

static void pooled_warning(json_t *pooled)
{
	json_t *m;
	size_t i;

	if (!json_array_size(pooled))
		return;
	fprintf(stderr, "ksft-metric: site: warning: the trends pool the runs of %zu machines (",
		json_array_size(pooled));
	json_array_foreach(pooled, i, m) {
		fputs(i ? "; " : "", stderr);
		machine_keys(stderr, NULL, m);
	}
	fputs("): --context KEY=VALUE draws one machine's\n", stderr);
}

static int index_page(struct html_page *pg, const char *title, const char *db)
{
	json_t *series = json_object_get(pg->history, "series"), *s;
	size_t n = json_array_size(series), i, j, counts[7] = { 0 };
	static const char *const names[] = { KSFTM_VERDICT_REGRESSION, KSFTM_VERDICT_IMPROVEMENT,
					     KSFTM_VERDICT_TOO_NOISY, KSFTM_VERDICT_NO_CHANGE,
					     KSFTM_VERDICT_ACCEPTED, KSFTM_VERDICT_NEW, "other" };
	char **anchors = calloc(n + 1, sizeof(char *));
	char *done = calloc(n + 1, 1);
	int ret = -1, r;
	struct svg body = { 0 };
	char low[32];

	if (!anchors || !done)
		goto out;
	json_array_foreach(series, i, s) {
		if (!(anchors[i] = history_anchor(s)))
			goto out;
		counts[state_rank(jstr(newest(s), "state"))]++;
	}
	page_head(&body, title);
	html_printf(&body, "<p class=\"meta\">History ");
	html_escape(&body, db);
	html_printf(&body, " &middot; %zu series; latest verdicts:", n);
	for (i = 0; i < 7; i++)
		if (counts[i])
			html_printf(&body, " <span class=\"%s\">%zu %s</span>", names[i], counts[i],
				    ksftm_verdict_lower(names[i], low, sizeof(low)));
	html_printf(&body, "</p>\n");
	pooled_note(&body, json_object_get(pg->history, "pooled_contexts"));
	/* Cases in order of first appearance, each gathered in one pass over
	 * the series left: quadratic in the cases only in the worst case. */
	for (i = 0; i < n; i++) {
		const char *cname;

		if (done[i])
			continue;
		cname = jstr(json_array_get(series, i), "case");
		html_printf(&body, "<section class=\"case\"><h2>");
		html_escape(&body, cname);
		html_printf(&body, "</h2>\n<table class=\"index\"><thead><tr><th>Series</th>"
			    "<th>Trend</th><th>Latest</th><th>Verdict</th><th>Run</th><th>Runs</th>"
			    "</tr></thead><tbody>\n");
		for (r = 0; r <= 6; r++)
			for (j = i; j < n; j++) {
				s = json_array_get(series, j);
				if (done[j] || strcmp(jstr(s, "case"), cname) ||
				    state_rank(jstr(newest(s), "state")) != r)
					continue;
				done[j] = 1;
				pg->out.len = 0;
				index_row(pg, s, anchors[j]);
				html_printf(&body, "%.*s", (int)pg->out.len,
					    pg->out.data ? pg->out.data : "");
			}
		html_printf(&body, "</tbody></table></section>\n");
	}
	page_foot(&body);
	if (!body.oom && !pg->out.oom) {
		svg_free(&pg->out);
		pg->out = body;
		body = (struct svg){ 0 };
		ret = 0;
	}
out:
	svg_free(&body);
	for (i = 0; anchors && i < n; i++)
		free(anchors[i]);
	free(anchors);
	free(done);
	return ret;
}

int cmd_site(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_OPTION_DB,
		CLI_OPTION_OUTPUT,
		CLI_OPTION_CONTEXT,
		{ "last", required_argument, NULL, 'n' },
		{ "title", required_argument, NULL, 'T' },
		{ "force", no_argument, NULL, 'F' },
		CLI_OPTION_QUIET,
		CLI_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_history_opts ho = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
	const char *title = NULL;
	struct html_page pg;
	struct cli_common cc;
	struct svg one = { 0 };
	json_error_t err;
	json_t *s;
	char *text = NULL;
	size_t len, i;
	int ch, ret, force = 0, dirfd = -1;

	memset(&pg, 0, sizeof(pg));
	ho.last = SITE_LAST;
	ret = cli_common_init(&cc, "site", site_usage, 0, argc);
	if (ret != EXIT_OK)
		return ret;
	while ((ch = cli_getopt(&cc, argc, argv, "D:o:x:n:T:Fqh", opts)) != -1) {
		ret = EXIT_USAGE;
		if (ch == 'n') {
			if (cli_parse_size("--last", optarg, 100000, &ho.last))
				goto out;
		} else if (ch == 'T') {
			title = optarg;
		} else if (ch == 'F') {
			force = 1;
		} else if ((ret = cli_common_option(&cc, ch, optarg)) != CLI_OPT_NEXT) {
			goto out;
		}
	}
	ret = EXIT_USAGE;
	if (!cc.db || !cc.out || optind < argc) {
		ret = cli_needs(&cc, !cc.db ? "--db" : !cc.out ? "-o DIR" : "no FILE arguments");
		goto out;
	}
	if (!strcmp(cc.out, "-")) {
		cli_error("site: -o is a directory, not '-'");
		goto out;
	}
	if (confine_init(&cc.c, NULL) ||
	    cli_history_text(&cc, &ho, KSFT_METRIC_REPORT_JSON, &text, &len) != EXIT_OK)
		goto out;
	pg.history = json_loadb(text, len, 0, &err);
	ksft_metric_report_text_free(text);
	if (!pg.history || html_history_index(&pg)) {
		cli_error("%s: cannot read its history", cc.db_shown);
		goto out;
	}
	if ((dirfd = open_site_dir(cc.out, force)) < 0)
		goto out;
	pooled_warning(json_object_get(pg.history, "pooled_contexts"));
	json_array_foreach(json_object_get(pg.history, "series"), i, s) {
		char *a = history_anchor(s), name[300];
		int bad;

		if (!a) {
			cli_oom(NULL);
			goto out;
		}
		snprintf(name, sizeof(name), "%s.html", a);
		one.len = 0;
		bad = series_page(s, a, title ? title : cc.db_shown, &one) ||
		      write_at(dirfd, cc.out, name, &one);
		free(a);
		if (bad)
			goto out;
	}
	if (index_page(&pg, title ? title : cc.db_shown, cc.db_shown) ||
	    write_at(dirfd, cc.out, "index.html", &pg.out))
		goto out;
	one.len = 0;
	html_printf(&one, "A site ksft-metric site wrote: it may write here again.\n");
	if (write_at(dirfd, cc.out, SITE_MARKER, &one))
		goto out;
	if (!cc.quiet)
		fprintf(stderr, "ksft-metric: site: %s/index.html and %zu series pages\n", cc.out,
			json_array_size(json_object_get(pg.history, "series")));
	ret = EXIT_OK;
out:
	if (dirfd >= 0)
		close(dirfd);
	svg_free(&one);
	svg_free(&pg.out);
	rank_map_free(&pg.hist_idx);
	series_anchors_reset();
	json_decref(pg.history);
	cli_common_free(&cc);
	return ret;
}
