/*
 * report --format openmetrics: the OpenMetrics text format, one gauge
 * family per sanitized metric name, a sample per shown summary, label
 * names made unique and valid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "errmsg.h"
#include "pipeline.h"
#include "report.h"
#include "rp_export.h"
#include "rp_policy.h"
#include "series.h"
#include "strbuf.h"

static void om_name(struct strbuf *sb, const char *s, int metric)
{
	const char *p;

	if (!metric && *s >= '0' && *s <= '9')
		strbuf_addc(sb, '_');	/* families have our prefix already */
	for (p = s; *p; p++) {
		char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || (metric && c == ':');

		strbuf_addc(sb, ok ? c : '_');
	}
}

static void om_escape(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_adds(sb, "\\\\");
		else if (*s == '"')
			strbuf_adds(sb, "\\\"");
		else if (*s == '\n')
			strbuf_adds(sb, "\\n");
		else
			strbuf_addc(sb, *s);
	}
}

static void om_value(struct strbuf *sb, const char *s)
{
	strbuf_addc(sb, '"');
	om_escape(sb, s);
	strbuf_addc(sb, '"');
}

/*
 * A set of strings (label names of a series, label sets of a family,
 * family names), so that uniqueness costs O(1) per lookup: one series
 * with 100,000 labels or a report of 200,000 families stays linear.
 */
struct om_set {
	char **v;
	size_t *id;
	size_t mask, n;
};

static void om_set_free(struct om_set *t)
{
	size_t i;

	for (i = 0; t->v && i <= t->mask; i++)
		free(t->v[i]);
	free(t->v);
	free(t->id);
	memset(t, 0, sizeof(*t));
}

/*
 * Add @s unless present. Returns 1 if added (its id is @id), 0 if it was
 * there (*@found = its id, if @found), -ENOMEM.
 */
static int om_set_add(struct om_set *t, const char *s, size_t id, size_t *found)
{
	size_t i, len = strlen(s);

	if (!t->v || (t->n + 1) * 2 > t->mask + 1) {
		struct om_set g = { NULL, NULL, t->mask ? t->mask * 2 + 1 : 15, 0 };

		g.v = calloc(g.mask + 1, sizeof(*g.v));
		g.id = calloc(g.mask + 1, sizeof(*g.id));
		if (!g.v || !g.id) {
			om_set_free(&g);
			return -ENOMEM;
		}
		for (i = 0; t->v && i <= t->mask; i++) {
			size_t h;

			if (!t->v[i])
				continue;
			h = series_hash(t->v[i], strlen(t->v[i]), 0xcbf29ce484222325ull);
			while (g.v[h & g.mask])
				h++;
			g.v[h & g.mask] = t->v[i];
			g.id[h & g.mask] = t->id[i];
			t->v[i] = NULL;
		}
		g.n = t->n;
		om_set_free(t);
		*t = g;
	}
	for (i = series_hash(s, len, 0xcbf29ce484222325ull); t->v[i & t->mask]; i++)
		if (!strcmp(t->v[i & t->mask], s)) {
			if (found)
				*found = t->id[i & t->mask];
			return 0;
		}
	t->v[i & t->mask] = strdup(s);
	if (!t->v[i & t->mask])
		return -ENOMEM;
	t->id[i & t->mask] = id;
	t->n++;
	return 1;
}

/* Our own labels; a series label spelled like one is renamed. */
static const char *const om_reserved[] = {
	"case", "path", "metric", "summary", "element", "series",
};

/*
 * Label names of one series, unique: sanitizing may map two keys to one
 * name ("a.b" and "a_b"). Keys that are valid names as they are keep
 * them; the others take their sanitized name ("label_" before a reserved
 * or empty one), with "_2", "_3", ... appended until it is free. Keys are visited
 * in canonical (sorted) order, so the result is deterministic.
 */
static int om_labels(struct strbuf *sb, const struct rp_series *s)
{
	json_t *j = json_loads(series_labels(s), 0, NULL), *v;
	struct strbuf name = STRBUF_INIT, val = STRBUF_INIT;
	struct om_set used = { NULL, NULL, 0, 0 };
	const char *k;
	size_t i, nk, ki;
	char **names = NULL;
	int pass, ret = 0;

	if (!j)
		return 0;
	nk = json_object_size(j);
	names = calloc(nk ? nk : 1, sizeof(*names));
	if (!names)
		goto oom;
	for (i = 0; i < sizeof(om_reserved) / sizeof(om_reserved[0]); i++)
		if (om_set_add(&used, om_reserved[i], 0, NULL) < 0)
			goto oom;
	for (pass = 0; pass < 2; pass++) {
		ki = 0;
		json_object_foreach(j, k, v) {
			size_t base, n;
			int exact;

			strbuf_free(&name);
			om_name(&name, k, 0);
			if (name.oom)
				goto oom;
			for (i = 0; i < sizeof(om_reserved) / sizeof(om_reserved[0]); i++)
				if (name.len && !strcmp(name.data, om_reserved[i]))
					break;
			if (!name.len || !strncmp(name.data, "__", 2) ||
			    i < sizeof(om_reserved) / sizeof(om_reserved[0])) {
				struct strbuf renamed = STRBUF_INIT;

				strbuf_adds(&renamed, "label_");
				if (name.len)
					strbuf_add(&renamed, name.data, name.len);
				strbuf_free(&name);
				name = renamed;
			}
			exact = name.data && !strcmp(name.data, k);
			if (exact != !pass) {
				ki++;
				continue;
			}
			base = name.len;
			for (n = 2; !name.oom; n++) {
				int added = om_set_add(&used, name.data, 0, NULL);
				char buf[32];

				if (added < 0)
					goto oom;
				if (added)
					break;
				name.len = base;
				/* "_" + "_2" would be reserved ("__"). */
				snprintf(buf, sizeof(buf), "%s%zu",
					 name.data[base - 1] == '_' ? "" : "_", n);
				strbuf_adds(&name, buf);
			}
			names[ki++] = strbuf_detach(&name, NULL);
			if (!names[ki - 1])
				goto oom;
		}
	}
	ki = 0;
	json_object_foreach(j, k, v) {
		val.len = 0;
		if (json_is_string(v))
			strbuf_adds(&val, json_string_value(v));
		else
			canon_json_emit(&val, v);
		strbuf_addc(sb, ',');
		strbuf_adds(sb, names[ki++]);
		strbuf_addc(sb, '=');
		om_value(sb, val.data ? val.data : "");
	}
	goto out;
oom:
	ret = -ENOMEM;
out:
	for (i = 0; names && i < nk; i++)
		free(names[i]);
	free(names);
	om_set_free(&used);
	json_decref(j);
	strbuf_free(&name);
	strbuf_free(&val);
	return ret;
}

/*
 * "family{case=...,path=...,metric=...,labels...": the part every sample
 * of series @s shares. Two series can still spell the same set (path
 * ["a / b"] and ["a", "b"], label values 1 and "1", keys "a.b" and "a_b"
 * in different series); a repeated set in a family gets series="2", "3"...
 */
static int om_series_labels(struct strbuf *sb, const char *family,
			    const struct rp_series *s, struct om_set *seen)
{
	size_t i, base, n;
	char buf[48];
	int added;

	strbuf_adds(sb, family);
	strbuf_adds(sb, "{case=");
	om_value(sb, series_case_name(s));
	strbuf_adds(sb, ",path=\"");
	for (i = 0; i < series_path_len(s); i++) {
		if (i)
			strbuf_adds(sb, " / ");
		om_escape(sb, series_path(s)[i]);
	}
	strbuf_adds(sb, "\",metric=");
	om_value(sb, series_name(s));
	if (om_labels(sb, s) || sb->oom)
		return -ENOMEM;
	base = sb->len;
	for (n = 2;; n++) {
		added = om_set_add(seen, sb->data, 0, NULL);
		if (added < 0)
			return -ENOMEM;
		if (added)
			return 0;
		sb->len = base;
		snprintf(buf, sizeof(buf), ",series=\"%zu\"", n);
		strbuf_adds(sb, buf);
		if (sb->oom)
			return -ENOMEM;
	}
}

static void om_sample(struct strbuf *sb, const char *labels,
		      const char *summary, long elem, double v)
{
	char buf[32];

	strbuf_adds(sb, labels);
	strbuf_adds(sb, ",summary=\"");
	strbuf_adds(sb, summary);
	strbuf_addc(sb, '"');
	if (elem >= 0) {
		snprintf(buf, sizeof(buf), ",element=\"%ld\"", elem);
		strbuf_adds(sb, buf);
	}
	strbuf_adds(sb, "} ");
	/* OpenMetrics spells the non-finite values; JSON's null is no value. */
	if (isnan(v))
		strbuf_adds(sb, "NaN");
	else if (isinf(v))
		strbuf_adds(sb, v > 0 ? "+Inf" : "-Inf");
	else
		canon_json_double(sb, v);
	strbuf_addc(sb, '\n');
}

/*
 * A family's # UNIT and # HELP. The unit only when every series of the
 * family names the same one and the family name already ends in it, as
 * the OpenMetrics text format requires (names are never changed to fit).
 * HELP is the first display_label among the family's series.
 */
static void om_metadata(struct strbuf *sb, const struct ksft_metric_report *r,
			const char *family, const size_t *order, size_t left,
			const size_t *fid)
{
	const char *help = NULL, *unit = NULL;
	size_t j, flen = strlen(family), ulen;
	int same_unit = 1;

	for (j = 0; j < left && fid[order[j]] == fid[order[0]]; j++) {
		struct rp_policy scratch;
		const struct rp_policy *p = series_policy(r->series[order[j]], &scratch);
		const char *om = export_om_unit(p);

		if (!help && p->disp_label)
			help = p->disp_label;
		if (!j)
			unit = om;
		else if (!unit || !om || strcmp(unit, om))
			same_unit = 0;
	}
	ulen = unit ? strlen(unit) : 0;
	if (unit && same_unit && flen > ulen + 1 && family[flen - ulen - 1] == '_' &&
	    !strcmp(family + flen - ulen, unit)) {
		strbuf_adds(sb, "# UNIT ");
		strbuf_adds(sb, family);
		strbuf_addc(sb, ' ');
		strbuf_adds(sb, unit);
		strbuf_addc(sb, '\n');
	}
	if (help) {
		strbuf_adds(sb, "# HELP ");
		strbuf_adds(sb, family);
		strbuf_addc(sb, ' ');
		om_escape(sb, help);
		strbuf_addc(sb, '\n');
	}
}

/*
 * One gauge family per sanitized metric name. Names that sanitize alike
 * ("a.b", "a_b") share the family, told apart by the metric label: a
 * family name appears once. Families in order of first appearance,
 * series in report order within them (a counting sort: linear).
 */
int format_openmetrics_write(const struct ksft_metric_report *r, struct strbuf *sb)
{
	size_t ns = r->n_series;
	char **family = calloc(ns + 1, sizeof(char *));
	size_t *fid = calloc(ns + 1, sizeof(size_t));
	size_t *start = calloc(ns + 2, sizeof(size_t));
	size_t *order = calloc(ns + 1, sizeof(size_t));
	struct om_set fams = { NULL, NULL, 0, 0 }, seen = { NULL, NULL, 0, 0 };
	struct strbuf lab = STRBUF_INIT;
	size_t i, j, e, k, nf = 0;
	int ret = 0;

	if (!family || !fid || !start || !order)
		goto oom;
	for (i = 0; i < ns; i++) {
		struct strbuf f = STRBUF_INIT;
		int added;

		strbuf_adds(&f, "ksft_metric_");
		om_name(&f, series_name(r->series[i]), 1);
		family[i] = strbuf_detach(&f, NULL);
		if (!family[i])
			goto oom;
		added = om_set_add(&fams, family[i], nf, &fid[i]);
		if (added < 0)
			goto oom;
		if (added)
			fid[i] = nf++;
		start[fid[i] + 1]++;
	}
	for (i = 0; i < nf; i++)
		start[i + 1] += start[i];
	for (i = 0; i < ns; i++)
		order[start[fid[i]]++] = i;	/* start[f] ends as f + 1's start */
	for (i = 0; i < ns; i++) {
		size_t first = order[i];

		if (i && fid[order[i - 1]] == fid[first])
			continue;
		om_set_free(&seen);
		strbuf_adds(sb, "# TYPE ");
		strbuf_adds(sb, family[first]);
		strbuf_adds(sb, " gauge\n");
		om_metadata(sb, r, family[first], order + i, ns - i, fid);
		for (j = i; j < ns && fid[order[j]] == fid[first]; j++) {
			const struct rp_series *s = r->series[order[j]];
			struct export_sums row;
			size_t n;

			lab.len = 0;
			if (om_series_labels(&lab, family[first], s, &seen))
				goto oom;
			if (export_sums_init(&row, s))
				goto oom;
			n = row.width ? row.width : 1;
			for (e = 0; e < n; e++) {
				if (!row.sums[e].n)
					continue;
				for (k = 0; k < row.nops; k++)
					om_sample(sb, lab.data,
						  canon_op_name(row.ops[k]),
						  row.width ? (long)e : -1,
						  pipeline_summary_op(&row.sums[e], row.ops[k]));
			}
			export_sums_free(&row);
		}
	}
	strbuf_adds(sb, "# EOF\n");
	goto out;
oom:
	ret = -ENOMEM;
out:
	for (i = 0; family && i < ns; i++)
		free(family[i]);
	free(family);
	free(fid);
	free(start);
	free(order);
	om_set_free(&fams);
	om_set_free(&seen);
	strbuf_free(&lab);
	return ret ? ret : sb->oom ? -ENOMEM : 0;
}
