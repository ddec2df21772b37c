/*
 * A series' display unit and scale, decided in one place for every output
 * (text tables, HTML, plots, JSON, CSV, NIPA, KCIDB, the history): the
 * author's display_label as written and display_scale, from the policy
 * alone, so a series reads the same in every output and in every run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/report.h>

#include "canon.h"
#include "rp.h"
#include "rp_policy.h"
#include "strbuf.h"
#include "units.h"

/* What an aggregated series' summaries count (not the label's unit). */
#define BUSY_CORES "busy cores"

const char *units_word(const char *label, size_t *len)
{
	const char *word = label;

	*len = strlen(label);
	/* "Latency (us)": the unit at the end in parentheses. */
	if (*len > 2 && label[*len - 1] == ')') {
		const char *open = strrchr(label, '(');

		if (open && open > label && open[-1] == ' ') {
			word = open + 1;
			*len = (size_t)(label + *len - 1 - word);
		}
	}
	return word;
}

/*
 * The one rule. The label describes a value after display_scale and per
 * element: an aggregated series' values are busy cores, unscaled. No
 * prefix is ever chosen for the author: "MB/s" stays "MB/s" whatever the
 * numbers, so two runs, or two outputs, of a series never differ in unit.
 */
void units_display_choose(double display_scale, const char *label, int aggregated,
			  struct rp_display *d)
{
	if (aggregated) {
		d->scale = 1.0;
		d->unit = BUSY_CORES;
		return;
	}
	d->scale = isfinite(display_scale) && display_scale > 0 ? display_scale : 1.0;
	d->unit = label && *label ? label : NULL;
}

void units_display_of(const struct rp_policy *p, struct rp_display *d)
{
	units_display_choose(p->disp_scale, p->disp_label, p->aggregation != RP_AGG_NONE, d);
}

void units_display_json(struct strbuf *sb, const struct rp_display *d)
{
	strbuf_adds(sb, "\"unit\":");
	if (d->unit)
		canon_json_str(sb, d->unit);
	else
		strbuf_adds(sb, "null");
	strbuf_adds(sb, ",\"scale\":");
	canon_json_double(sb, d->scale);
}

int units_text(char *buf, size_t size, double v, const char *label)
{
	if (!isfinite(v))
		return snprintf(buf, size, "-");
	return snprintf(buf, size, "%.6g%s%s", v, label ? " " : "", label ? label : "");
}

/*
 * A value as people read it: times @scale (when finite) and followed by
 * @label as the author wrote it; a policy without display_* shows the
 * bare number.
 */
void units_text_display(struct strbuf *sb, double v, double scale, const char *label)
{
	if (isfinite(scale))
		v *= scale;
	canon_text_number(sb, v);
	if (label && isfinite(v)) {
		strbuf_addc(sb, ' ');
		strbuf_adds(sb, label);
	}
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_value_text(char *buf, size_t size, double value, double scale,
			      const char *label)
{
	if (!buf && size)
		return -EINVAL;
	return units_text(buf, size, isfinite(scale) ? value * scale : value, label);
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_display_unit(double display_scale, const char *display_label,
				const char *aggregation, double *scale,
				const char **unit)
{
	struct rp_display d;

	if (!scale || !unit)
		return -EINVAL;
	units_display_choose(display_scale, display_label, aggregation && *aggregation, &d);
	*scale = d.scale;
	*unit = d.unit;
	return 0;
}
