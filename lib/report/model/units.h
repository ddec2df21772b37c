/*
 * A series' display unit and scale, the one rule every output follows
 * (units.c).
 */
#ifndef KSFTM_UNITS_H
#define KSFTM_UNITS_H

#include <stddef.h>

struct rp_policy;
struct strbuf;

/* @v times @scale (NaN: 1) and " @label" (NULL: none), for tables; the
 * label as written, never another prefix (model/units.c). */
void units_text_display(struct strbuf *sb, double v, double scale,
			const char *label);
/*
 * A series' display unit and scale (model/units.c, the one rule every
 * output follows): a value times @scale is in @unit (NULL: no unit; the
 * label as the author wrote it, "busy cores" for an aggregated series).
 */
struct rp_display {
	double scale;
	const char *unit;
};
void units_display_choose(double display_scale, const char *label, int aggregated,
			  struct rp_display *d);
void units_display_of(const struct rp_policy *p, struct rp_display *d);
/* "unit":...,"scale":... (no braces) for the machine formats. */
void units_display_json(struct strbuf *sb, const struct rp_display *d);
/* The unit part of a display label: all of it, or "us" of "Latency (us)". */
const char *units_word(const char *label, size_t *len);
/* @v (in @label's unit) as text into @buf, snprintf()'s return. */
int units_text(char *buf, size_t size, double v, const char *label);

#endif
