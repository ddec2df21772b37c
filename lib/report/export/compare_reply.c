/*
 * ksft-metric compare --format reply: the comparison as a summary to paste
 * into a mailing-list reply (issue 41, item 8). One header naming both
 * runs by their contexts (each kernel by its full release, QEMU, the
 * clock, the CPU model, the vCPUs, the layout seeds), then each tracked
 * series under its case as `old -> new (+x.x %)` with its verdict; never
 * wider than REPLY_WIDTH columns. tools/vm/ksft_vm/reply.py writes the
 * same layout for ksft-vm-ab.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "comparison.h"
#include "rp_export.h"
#include "strbuf.h"
#include "units.h"
#include "verdict_vocab.h"

#define REPLY_WIDTH 72

/* A context key's value as text, @dflt when absent or empty. */
static void ctx_value(struct strbuf *sb, json_t *ctx, const char *key, const char *dflt)
{
	json_t *v = ctx ? json_object_get(ctx, key) : NULL;
	char *t;

	if (json_is_string(v) && *json_string_value(v)) {
		strbuf_adds(sb, json_string_value(v));
	} else if (v && !json_is_null(v) && !json_is_string(v) &&
		   (t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT))) {
		strbuf_adds(sb, t);
		free(t);
	} else {
		strbuf_adds(sb, dflt);
	}
}

/* The value both sides share, or "A/B" when they differ. */
static void ctx_both(struct strbuf *sb, json_t *a, json_t *b, const char *key, const char *dflt)
{
	struct strbuf va = STRBUF_INIT, vb = STRBUF_INIT;

	ctx_value(&va, a, key, dflt);
	ctx_value(&vb, b, key, dflt);
	if (va.data && vb.data) {
		strbuf_adds(sb, va.data);
		if (strcmp(va.data, vb.data)) {
			strbuf_addc(sb, '/');
			strbuf_adds(sb, vb.data);
		}
	}
	sb->oom |= va.oom || vb.oom;
	strbuf_free(&va);
	strbuf_free(&vb);
}

/* The run's kernel: the guest's (vm_kernel), else the host's (kernel). */
static void ctx_kernel(struct strbuf *sb, json_t *ctx)
{
	struct strbuf k = STRBUF_INIT;

	ctx_value(&k, ctx, "kernel", "?");
	ctx_value(sb, ctx, "vm_kernel", k.data ? k.data : "?");
	sb->oom |= k.oom;
	strbuf_free(&k);
}

static json_t *ctx_object(const char *text)
{
	json_t *o = text ? json_loads(text, 0, NULL) : NULL;

	if (o && !json_is_object(o)) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

/*
 * @text wrapped at spaces into lines of at most REPLY_WIDTH columns, each
 * line after the first starting with @indent spaces; a word longer than a
 * line is cut.
 */
static void new_line(struct strbuf *out, size_t indent, size_t *col)
{
	strbuf_addc(out, '\n');
	for (*col = 0; *col < indent; (*col)++)
		strbuf_addc(out, ' ');
}

static void wrap(struct strbuf *out, const char *text, size_t indent)
{
	size_t col = 0, lead, n;

	for (; *text == ' '; text++, col++)
		strbuf_addc(out, ' ');	/* the first line's own indent */
	lead = col;
	while (*text) {
		for (; *text == ' '; text++)
			;
		if (!*text)
			break;
		n = strcspn(text, " ");
		if (col > lead && col + 1 + n > REPLY_WIDTH) {
			new_line(out, indent, &col);
			lead = col;
		} else if (col > lead) {
			strbuf_addc(out, ' ');
			col++;
		}
		while (col + n > REPLY_WIDTH) {	/* a word longer than a line: cut */
			strbuf_add(out, text, REPLY_WIDTH - col);
			text += REPLY_WIDTH - col;
			n -= REPLY_WIDTH - col;
			new_line(out, indent, &col);
			lead = col;
		}
		strbuf_add(out, text, n);
		col += n;
		text += n;
	}
	strbuf_addc(out, '\n');
}

/* The seeds a side: the most any row was judged over (0: none). */
static void seeds_of(const struct ksft_metric_report_comparison *c, size_t *a, size_t *b)
{
	size_t i;

	*a = *b = 0;
	for (i = 0; i < c->n; i++) {
		const struct cmp_side *sd = cmp_row_side_at(c, i);

		if (sd->seeds_a > *a)
			*a = sd->seeds_a;
		if (sd->seeds_b > *b)
			*b = sd->seeds_b;
	}
}

static void header(struct strbuf *out, const struct ksft_metric_report_comparison *c)
{
	json_t *a = ctx_object(c->context_a), *b = ctx_object(c->context_b);
	struct strbuf sb = STRBUF_INIT, v = STRBUF_INIT;
	size_t seeds_a, seeds_b;
	char buf[96];

	ctx_kernel(&sb, a);
	strbuf_adds(&sb, " -> ");
	ctx_kernel(&sb, b);
	strbuf_adds(&sb, ", QEMU ");
	ctx_both(&sb, a, b, "qemu", "?");
	strbuf_addc(&sb, ' ');
	ctx_both(&v, a, b, "clock", "native");
	if (v.data && !strcmp(v.data, "icount")) {
		strbuf_adds(&sb, "TCG icount shift ");
		ctx_both(&sb, a, b, "icount_shift", "?");
	} else {
		strbuf_adds(&sb, v.data ? v.data : "");
	}
	strbuf_adds(&sb, ", ");
	ctx_both(&sb, a, b, "qemu_cpu", "?");
	strbuf_adds(&sb, ", ");
	v.len = 0;
	ctx_both(&v, a, b, "cpu_count", "?");
	strbuf_adds(&sb, v.data ? v.data : "");
	strbuf_adds(&sb, v.data && !strcmp(v.data, "1") ? " vCPU, " : " vCPUs, ");
	seeds_of(c, &seeds_a, &seeds_b);
	if (!seeds_a && !seeds_b)
		snprintf(buf, sizeof(buf), "1 boot a kernel (no layout seeds)");
	else if (seeds_a == seeds_b)
		snprintf(buf, sizeof(buf), "%zu layout seeds a kernel", seeds_a);
	else
		snprintf(buf, sizeof(buf), "%zu/%zu layout seeds a kernel", seeds_a, seeds_b);
	strbuf_adds(&sb, buf);
	strbuf_adds(&sb, ", bit-identical per seed");
	if (sb.data)
		wrap(out, sb.data, 0);
	out->oom |= sb.oom || v.oom;
	strbuf_free(&sb);
	strbuf_free(&v);
	json_decref(a);
	json_decref(b);
}

/* 4 significant digits, no exponent for the usual sizes; "-" for none. */
static void number(struct strbuf *sb, double v)
{
	char buf[64];
	int digits;

	if (!isfinite(v)) {
		strbuf_addc(sb, '-');
		return;
	}
	if (v == 0) {
		strbuf_addc(sb, '0');
		return;
	}
	digits = 3 - (int)floor(log10(fabs(v)));
	digits = digits < 0 ? 0 : digits > 9 ? 9 : digits;
	snprintf(buf, sizeof(buf), "%.*f", digits, v);
	strbuf_adds(sb, buf);
}

/* "old -> new (+x.x %)" in @d's unit and the verdict unless it is no
 * change. */
static void values(struct strbuf *sb, const struct cmp_row *row, const struct rp_display *d)
{
	const char *name;
	char buf[48];
	size_t i;

	number(sb, row->baseline * d->scale);
	strbuf_adds(sb, " -> ");
	number(sb, row->current * d->scale);
	if (isfinite(row->change_pct))
		snprintf(buf, sizeof(buf), " (%+.1f %%)", row->change_pct);
	else
		snprintf(buf, sizeof(buf), " (n/a)");
	strbuf_adds(sb, buf);
	if (!strcmp(row->verdict, KSFTM_VERDICT_NO_CHANGE))
		return;
	name = ksftm_verdict_name(row->verdict);
	strbuf_addc(sb, ' ');
	for (i = 0; name[i]; i++)
		strbuf_addc(sb, row->fails ? toupper((unsigned char)name[i]) :
			    tolower((unsigned char)name[i]));
}

static void series_line(struct strbuf *out, const struct cmp_row *row, struct strbuf *name,
			struct strbuf *vals)
{
	struct rp_display d;
	size_t pad;

	/* The unit the numbers are in, times scale (units.c's one rule). */
	units_display_choose(cmp_row_disp_scale(row), cmp_row_disp_label(row), row->aggregated, &d);
	name->len = vals->len = 0;
	/* Two spaces in: the title starts with its (empty) case's space. */
	strbuf_addc(name, ' ');
	canon_series_title(name, NULL, 0, "", cmp_row_name(row), cmp_row_labels(row), row->element);
	if (d.unit) {
		strbuf_adds(name, ", ");
		strbuf_adds(name, d.unit);
	}
	values(vals, row, &d);
	if (name->oom || vals->oom)
		return;
	if (name->len + 2 + vals->len <= REPLY_WIDTH) {
		strbuf_adds(out, name->data);
		for (pad = name->len + vals->len; pad < REPLY_WIDTH; pad++)
			strbuf_addc(out, ' ');
	} else {
		/* A long name on its own lines, the values right-aligned below. */
		wrap(out, name->data, 4);
		pad = vals->len < REPLY_WIDTH - 6 ? REPLY_WIDTH - vals->len : 6;
		while (pad--)
			strbuf_addc(out, ' ');
	}
	strbuf_adds(out, vals->data);
	strbuf_addc(out, '\n');
}

int compare_reply_write(const struct ksft_metric_report_comparison *c, struct strbuf *out)
{
	struct strbuf name = STRBUF_INIT, vals = STRBUF_INIT;
	const char *cas = NULL;
	size_t i;
	int any = 0;

	header(out, c);
	strbuf_addc(out, '\n');
	for (i = 0; i < c->n; i++) {
		struct cmp_row tmp;
		const struct cmp_row *row = cmp_row_at(c, i, &tmp);
		const char *rc = cmp_row_case(row) && *cmp_row_case(row) ? cmp_row_case(row) : "(no case)";

		if (!row->better)
			continue;	/* untracked: no direction, not a result */
		if (!any || strcmp(rc, cas)) {
			wrap(out, rc, 4);
			cas = rc;
			any = 1;
		}
		series_line(out, row, &name, &vals);
	}
	if (!any)
		strbuf_adds(out, "(no tracked series)\n");
	out->oom |= name.oom || vals.oom;
	strbuf_free(&name);
	strbuf_free(&vals);
	return out->oom ? -ENOMEM : 0;
}
