/*
 * ksft-metric report's text table (issue 34): the series of each case
 * under its name, one row each with n, the median and its spread, and
 * the unit once; the run context folded to the keys that matter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "format_text.h"
#include "pipeline.h"
#include "report.h"
#include "rp_export.h"
#include "rp_policy.h"
#include "series.h"
#include "sink.h"
#include "strbuf.h"
#include "table.h"
#include "text_fit.h"
#include "units.h"
#include "vals.h"

/* The series' one display unit and scale (model/units.c), whatever the
 * value's size: the same unit as JSON, CSV, HTML and the exports. */
void format_text_unit_pick(struct text_unit *u, double ref, double scale, const char *label)
{
	struct rp_display d;

	(void)ref;
	units_display_choose(scale, label, 0, &d);
	u->mult = d.scale;
	u->sym = d.unit ? d.unit : "";
}

/* Text for people: control characters (C0, DEL, C1) shown as '?', never a
 * line break, never an escape sequence for the terminal. */
static void add_printable(struct strbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) {
			strbuf_addc(out, '?');	/* C1 (U+0080-U+009F), e.g. CSI */
			p++;
			continue;
		}
		strbuf_addc(out, *p < 0x20 || *p == 0x7f ? '?' : (char)*p);
	}
}

/*
 * The keys that tell what was measured where: those that make runs
 * comparable by default (store/history.c) and the kernel. The others
 * (a start time, the governor, ...) are shown with -v; a flag that
 * spoils a measurement (a debug kernel, KSFT_MACHINE_SLOW) always is.
 */
static const char *const context_keys[] = {
	"kernel", "arch", "cpu_model", "cpu_count", "hostname", "device", "placement",
	"runner", "clock", "qemu", "vm_kernel",
};

static int key_matters(const char *key, json_t *v)
{
	size_t i;

	for (i = 0; i < sizeof(context_keys) / sizeof(context_keys[0]); i++)
		if (!strcmp(key, context_keys[i]))
			return 1;
	return (!strcmp(key, "debug_kernel") || !strcmp(key, "ksft_machine_slow")) &&
	       json_is_true(v);
}

/* "run context: kernel=... arch=... (9 more keys: -v)", wrapped to @width,
 * above the table when the logs carried a context line (strings bare,
 * other values as JSON). */
static void context_text(struct strbuf *out, const struct ksft_metric_report *r, int fmt)
{
	struct strbuf line = STRBUF_INIT;
	int verbose = fmt & KSFT_METRIC_REPORT_TEXT_VERBOSE;
	size_t more = 0;
	const char *key;
	json_t *v, *ctx;
	char buf[64];

	if (!r->context_json || !strcmp(r->context_json, "{}"))
		return;
	/* The canonical text, parsed again: its keys in sorted order. */
	ctx = json_loads(r->context_json, 0, NULL);
	strbuf_adds(&line, "run context:");
	json_object_foreach(ctx, key, v) {
		char *text;

		if (!verbose && !key_matters(key, v)) {
			more++;
			continue;
		}
		text = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		strbuf_addc(&line, ' ');
		add_printable(&line, key);
		strbuf_addc(&line, '=');
		add_printable(&line, json_is_string(v) ? json_string_value(v) : text ? text : "?");
		free(text);
	}
	json_decref(ctx);
	if (more) {
		snprintf(buf, sizeof(buf), " (%zu more key%s: -v)", more, more == 1 ? "" : "s");
		strbuf_adds(&line, buf);
	}
	if (line.oom)
		out->oom = 1;
	else
		text_fit_wrap(out, line.data, text_fit_width(fmt), 0);
	strbuf_addc(out, '\n');
	strbuf_free(&line);
}

/* Series @s's row: metric{labels}, n, median with its spread, unit;
 * @x (of @cap) is scratch for its values, kept for the next row. */
static int series_row(struct table *t, const struct rp_series *s, struct strbuf *sb,
		      double **x, size_t *cap)
{
	struct rp_policy scratch;
	const struct rp_policy *p = series_policy(s, &scratch);
	struct text_unit u = { 1.0, "" };
	struct rp_vals view;
	size_t n = 0;
	char buf[32];
	int ret = 0;

	/* An array's elements pooled: one row per series (JSON and CSV keep
	 * each element's summary). */
	if (pipeline_pooled(series_raw(s, &view), p, x, cap, &n))
		ret = -ENOMEM;
	sb->len = 0;
	canon_series_title(sb, NULL, 0, "", series_name(s), series_labels(s), -1);
	ret |= sb->len ? table_cell_n(t, sb->data + 1, sb->len - 1) : table_cell(t, "");
	buf[text_fit_utoa(buf, series_n_points(s))] = '\0';
	ret |= table_cell(t, buf);
	sb->len = 0;
	if (n) {
		struct rp_display d;
		double mid;

		text_fit_spread(sb, &u, *x, n);
		mid = n % 2 ? (*x)[n / 2] : ((*x)[n / 2 - 1] + (*x)[n / 2]) / 2;
		/* The series' display unit (aggregated values: busy cores). */
		units_display_of(p, &d);
		(void)mid;
		if (d.unit || d.scale != 1.0) {
			u.mult = d.scale;
			u.sym = d.unit ? d.unit : "";
			sb->len = 0;
			text_fit_spread(sb, &u, *x, n);
		}
	} else {
		strbuf_addc(sb, '-');
	}
	ret |= sb->data ? table_cell_sb(t, sb) : table_cell(t, "-");
	ret |= table_cell(t, u.sym);
	return ret || sb->oom ? -ENOMEM : 0;
}

static int same_case(const struct rp_series *a, const struct rp_series *b)
{
	const struct rp_case *x = a->kase, *y = b->kase;
	size_t i;

	if (x == y)	/* one case's series share its record */
		return 1;
	if (x->path_len != y->path_len || strcmp(x->name, y->name))
		return 0;
	for (i = 0; i < x->path_len; i++)
		if (strcmp(x->path[i], y->path[i]))
			return 0;
	return 1;
}

int format_text_write(const struct ksft_metric_report *r, int fmt, struct strbuf *out,
		      struct export_sink *ks)
{
	static const char *const head[] = { "METRIC", "N", "VALUE", "UNIT" };
	static const int right[] = { 0, 1, 0, 0 };
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0, j, k, width = text_fit_width(fmt), xcap = 0;
	double *x = NULL;
	struct table t;
	int ret = 0;

	context_text(out, r, fmt);
	/* One table, emptied down to its heads for each case: its memory is
	 * kept (issue 45). */
	if (r->n_series && table_init(&t, 4))
		return -ENOMEM;	/* the caller says so, never a cut table */
	for (k = 0; r->n_series && k < 4; k++)
		ret |= table_cell(&t, head[k]);
	while (!ret && i < r->n_series) {
		const struct rp_series *s = r->series[i];
		char buf[24];

		/* The case once, above its series; its rows say the rest. */
		for (j = i + 1; j < r->n_series && same_case(r->series[j], s); j++)
			;
		sb.len = 0;
		for (k = 0; k < series_path_len(s); k++) {
			strbuf_adds(&sb, series_path(s)[k]);
			strbuf_adds(&sb, " / ");
		}
		strbuf_adds(&sb, series_case_name(s));
		strbuf_adds(&sb, ": ");
		strbuf_adds(&sb, canon_status_name(s->status));
		strbuf_adds(&sb, ", ");
		strbuf_add(&sb, buf, text_fit_utoa(buf, j - i));
		strbuf_adds(&sb, " series");
		if (i)
			strbuf_addc(out, '\n');
		if (!sb.oom)
			text_fit_wrap(out, sb.data, width, 0);
		table_reset_keep_heads(&t);
		for (; !ret && i < j; i++)
			ret |= series_row(&t, r->series[i], &sb, &x, &xcap);
		if (!ret)
			text_fit_render(&t, out, right, width, 2);
		export_sink_flush(ks, out, 0);	/* after a line's end */
	}
	if (r->n_series)
		table_free(&t);
	if (!r->n_series)
		strbuf_adds(out, "no series\n");
	if (r->n_series) {
		strbuf_addc(out, '\n');
		text_fit_wrap(out, "N: points; VALUE: the median, with its range (fewer than 10"
			      " points) or \xc2\xb1 its robust spread (1.4826 MAD) as a percentage",
			      width, 0);
	}
	strbuf_free(&sb);
	free(x);
	return ret || out->oom ? -ENOMEM : 0;
}
