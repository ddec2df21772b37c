/* What a series the gate cannot judge would need (compare_needs.h). */
#include <ksftmetric/report.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "canon.h"
#include "compare_needs.h"
#include "comparison.h"
#include "strbuf.h"

int compare_needs_has(const struct cmp_row *row)
{
	const struct cmp_side *sd = cmp_side_of(row);

	return row->blind || (!strcmp(row->verdict, KSFTM_VERDICT_TOO_NOISY) &&
			      (isfinite(sd->noise_pct) || isfinite(sd->need_runs)));
}

/* A change toward worse of @pct percent (a magnitude): "-25.1%", "+40.2%",
 * or "12 times the baseline" for a rise past 1,000 %. */
static void worse_text(char *buf, size_t len, double pct, int better)
{
	if (better < 0 && pct >= 1000)
		snprintf(buf, len, "%.0f times the baseline", 1 + pct / 100);
	else
		snprintf(buf, len, "%c%.1f%%", better > 0 ? '-' : '+', pct);
}

void compare_needs_sentence(struct strbuf *out, const struct cmp_row *row)
{
	const struct cmp_side *sd = cmp_side_of(row);
	double tol = fabs(row->baseline) > 0 ? 100 * row->allowance / fabs(row->baseline) : NAN;
	char buf[200], w[64];

	if (!isfinite(sd->noise_pct)) {
		snprintf(buf, sizeof(buf), "the history is too short to know its noise: %.0f more"
			 " run%s", sd->need_runs, sd->need_runs == 1 ? "" : "s");
		strbuf_adds(out, buf);
		return;
	}
	snprintf(buf, sizeof(buf), "noise %.1f%% a run", sd->noise_pct);
	strbuf_adds(out, buf);
	if (row->blind) {
		strbuf_adds(out, row->better > 0 ? "; no run can fail it here (it would have to"
			    " fall by 100% or more)" : "; no run can fail it here");
	} else if (isfinite(sd->smallest_pct)) {
		worse_text(w, sizeof(w), sd->smallest_pct, row->better);
		snprintf(buf, sizeof(buf), "; one run fails only beyond %s", w);
		strbuf_adds(out, buf);
	}
	if (!(tol > 0) || isnan(sd->need_runs))
		return;
	worse_text(w, sizeof(w), tol, row->better);
	if (sd->need_runs <= 1)
		snprintf(buf, sizeof(buf), "; a lasting %s shows in one run", w);
	else if (isfinite(sd->need_runs))
		snprintf(buf, sizeof(buf), "; a lasting %s needs about %.0f runs", w, sd->need_runs);
	else
		snprintf(buf, sizeof(buf), "; a lasting %s would not show in any number of runs", w);
	strbuf_adds(out, buf);
	if (isfinite(sd->need_repeats) && sd->need_repeats > 1) {
		snprintf(buf, sizeof(buf), ", or in one run of %.0f repeats", sd->need_repeats);
		strbuf_adds(out, buf);
	} else if (isinf(sd->need_repeats) && isfinite(sd->need_runs)) {
		strbuf_adds(out, " (more repeats in one run do not help: the noise between runs"
			    " is too large)");
	}
}

static void num_field(struct strbuf *sb, const char *key, double v)
{
	strbuf_addc(sb, ',');
	canon_json_str(sb, key);
	strbuf_addc(sb, ':');
	canon_json_double(sb, v);
}

void compare_needs_json(struct strbuf *sb, const struct cmp_row *row)
{
	const struct cmp_side *sd = cmp_side_of(row);
	struct strbuf say = STRBUF_INIT;
	double sign = row->better > 0 ? -1 : 1;

	if (!compare_needs_has(row))
		return;
	strbuf_adds(sb, ",\"needs\":{\"noise_pct\":");
	canon_json_double(sb, sd->noise_pct);
	/* No run can show a drop past 100 %: null, "blind" says why. */
	num_field(sb, "smallest_change_pct", row->blind ? NAN : sign * sd->smallest_pct);
	num_field(sb, "tolerance_pct", fabs(row->baseline) > 0 ?
		  sign * 100 * row->allowance / fabs(row->baseline) : NAN);
	num_field(sb, "runs", sd->need_runs);
	num_field(sb, "repeats", sd->need_repeats);
	strbuf_adds(sb, row->blind ? ",\"blind\":true,\"text\":" : ",\"blind\":false,\"text\":");
	compare_needs_sentence(&say, row);
	canon_json_str(sb, say.data ? say.data : "");
	strbuf_free(&say);
	strbuf_addc(sb, '}');
}

/* The interference row that made @row DISTURBED (in @tmp or stored), or NULL. */
static const struct cmp_row *disturber(const struct ksft_metric_report_comparison *c,
				       const struct cmp_row *row, struct cmp_row *tmp)
{
	const struct cmp_side *sd = cmp_side_of(row);

	if (strcmp(row->verdict, KSFTM_VERDICT_DISTURBED) || sd->disturbed_by < 0 ||
	    (size_t)sd->disturbed_by >= c->n)
		return NULL;
	return cmp_row_at(c, (size_t)sd->disturbed_by, tmp);
}

int compare_needs_has_disturbed(const struct ksft_metric_report_comparison *c, const struct cmp_row *row)
{
	struct cmp_row tmp;

	return disturber(c, row, &tmp) != NULL;
}

/* "interference.others_cpu{host=local}": the case is the row's own
 * (the labels in braces, as every series name is written). */
static void intf_name(struct strbuf *out, const struct cmp_row *by)
{
	size_t before;

	strbuf_adds(out, cmp_row_name(by));
	before = out->len;
	strbuf_addc(out, '{');
	canon_labels_text(out, cmp_row_labels(by));
	if (out->oom)
		return;
	if (out->len == before + 1) {
		out->len = before;
		out->data[before] = '\0';
	} else {
		strbuf_addc(out, '}');
	}
}

void compare_needs_disturbed_sentence(struct strbuf *out, const struct ksft_metric_report_comparison *c,
				      const struct cmp_row *row)
{
	struct cmp_row tmp;
	const struct cmp_row *by = disturber(c, row, &tmp);
	char buf[160];

	if (!by)
		return;
	intf_name(out, by);
	if (isfinite(by->change_pct))
		snprintf(buf, sizeof(buf), " was %+.1f%% above its history's level", by->change_pct);
	else
		snprintf(buf, sizeof(buf), " was above its history's level");
	strbuf_adds(out, buf);
	if (isfinite(cmp_side_of(by)->disturb_z)) {
		snprintf(buf, sizeof(buf), " (%.1f sd)", cmp_side_of(by)->disturb_z);
		strbuf_adds(out, buf);
	}
	strbuf_adds(out, ": the machine was disturbed, rerun the case");
}

void compare_needs_disturbed_json(struct strbuf *sb, const struct ksft_metric_report_comparison *c,
				  const struct cmp_row *row)
{
	struct cmp_row tmp;
	const struct cmp_row *by = disturber(c, row, &tmp);
	struct strbuf say = STRBUF_INIT;

	if (!by)
		return;
	strbuf_adds(sb, ",\"disturbed_by\":{\"series\":");
	intf_name(&say, by);
	canon_json_str(sb, say.data ? say.data : "");
	num_field(sb, "change_pct", by->change_pct);
	num_field(sb, "z", cmp_side_of(by)->disturb_z);
	strbuf_adds(sb, ",\"text\":");
	say.len = 0;
	compare_needs_disturbed_sentence(&say, c, row);
	canon_json_str(sb, say.data ? say.data : "");
	strbuf_free(&say);
	strbuf_addc(sb, '}');
}
