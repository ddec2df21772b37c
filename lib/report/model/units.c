/*
 * Units for display: a display_label that names a known SI or binary unit
 * ("Gbps", "bit/s", "B", "us", "Latency (us)") is shown scaled to the
 * prefix that reads best ("7.981e9 bps" -> "7.981 Gbit/s"); any other
 * label is shown as given after the number. The one place the text
 * tables, the HTML page and the plot turn a value into words.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/report.h>

#include "rp.h"
#include "strbuf.h"

enum unit_kind {
	UNIT_SI,	/* powers of 1000 upwards: k M G T */
	UNIT_IEC,	/* powers of 1024 upwards: Ki Mi Gi Ti */
	UNIT_TIME,	/* powers of 1000 downwards: ms us ns */
};

/* A unit family: its symbol at each prefix level (level 0 first). */
static const struct unit_family {
	enum unit_kind kind;
	const char *sym[5];
} fam_bitrate = { UNIT_SI, { "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s" } },
  fam_byterate = { UNIT_SI, { "B/s", "kB/s", "MB/s", "GB/s", "TB/s" } },
  fam_byterate_iec = { UNIT_IEC, { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s" } },
  fam_bytes = { UNIT_IEC, { "B", "KiB", "MiB", "GiB", "TiB" } },
  fam_bytes_si = { UNIT_SI, { "B", "kB", "MB", "GB", "TB" } },
  fam_bits = { UNIT_SI, { "bit", "kbit", "Mbit", "Gbit", "Tbit" } },
  fam_time = { UNIT_TIME, { "s", "ms", "us", "ns", NULL } },
  fam_hz = { UNIT_SI, { "Hz", "kHz", "MHz", "GHz", "THz" } },
  fam_pps = { UNIT_SI, { "pps", "kpps", "Mpps", "Gpps", "Tpps" } },
  fam_iops = { UNIT_SI, { "IOPS", "kIOPS", "MIOPS", "GIOPS", "TIOPS" } },
  fam_ops = { UNIT_SI, { "ops/s", "kops/s", "Mops/s", "Gops/s", "Tops/s" } };

/* Every spelling we recognise, case-sensitive, with its family and level. */
static const struct unit_spelling {
	const char *label;
	const struct unit_family *fam;
	int level;
} spellings[] = {
	{ "bit/s", &fam_bitrate, 0 }, { "bps", &fam_bitrate, 0 }, { "b/s", &fam_bitrate, 0 },
	{ "kbit/s", &fam_bitrate, 1 }, { "Kbit/s", &fam_bitrate, 1 },
	{ "kbps", &fam_bitrate, 1 }, { "Kbps", &fam_bitrate, 1 },
	{ "Mbit/s", &fam_bitrate, 2 }, { "Mbps", &fam_bitrate, 2 },
	{ "Gbit/s", &fam_bitrate, 3 }, { "Gbps", &fam_bitrate, 3 },
	{ "Tbit/s", &fam_bitrate, 4 }, { "Tbps", &fam_bitrate, 4 },
	{ "B/s", &fam_byterate, 0 }, { "bytes/s", &fam_byterate, 0 },
	{ "kB/s", &fam_byterate, 1 }, { "KB/s", &fam_byterate, 1 },
	{ "MB/s", &fam_byterate, 2 }, { "GB/s", &fam_byterate, 3 },
	{ "TB/s", &fam_byterate, 4 },
	{ "KiB/s", &fam_byterate_iec, 1 }, { "MiB/s", &fam_byterate_iec, 2 },
	{ "GiB/s", &fam_byterate_iec, 3 }, { "TiB/s", &fam_byterate_iec, 4 },
	{ "B", &fam_bytes, 0 }, { "bytes", &fam_bytes, 0 },
	{ "KiB", &fam_bytes, 1 }, { "MiB", &fam_bytes, 2 }, { "GiB", &fam_bytes, 3 },
	{ "TiB", &fam_bytes, 4 },
	{ "kB", &fam_bytes_si, 1 }, { "KB", &fam_bytes_si, 1 }, { "MB", &fam_bytes_si, 2 },
	{ "GB", &fam_bytes_si, 3 }, { "TB", &fam_bytes_si, 4 },
	{ "bit", &fam_bits, 0 }, { "bits", &fam_bits, 0 }, { "kbit", &fam_bits, 1 },
	{ "Mbit", &fam_bits, 2 }, { "Gbit", &fam_bits, 3 },
	{ "s", &fam_time, 0 }, { "sec", &fam_time, 0 }, { "seconds", &fam_time, 0 },
	{ "ms", &fam_time, 1 }, { "us", &fam_time, 2 }, { "\xc2\xb5s", &fam_time, 2 },
	{ "ns", &fam_time, 3 },
	{ "Hz", &fam_hz, 0 }, { "kHz", &fam_hz, 1 }, { "MHz", &fam_hz, 2 },
	{ "GHz", &fam_hz, 3 },
	{ "pps", &fam_pps, 0 }, { "kpps", &fam_pps, 1 }, { "Kpps", &fam_pps, 1 },
	{ "Mpps", &fam_pps, 2 }, { "Gpps", &fam_pps, 3 },
	{ "IOPS", &fam_iops, 0 }, { "kIOPS", &fam_iops, 1 }, { "KIOPS", &fam_iops, 1 },
	{ "ops/s", &fam_ops, 0 },
};

const char *rp_unit_word(const char *label, size_t *len)
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

static const struct unit_spelling *unit_lookup(const char *label)
{
	const char *word;
	size_t i, len;

	if (!label)
		return NULL;
	word = rp_unit_word(label, &len);
	for (i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++)
		if (strlen(spellings[i].label) == len && !strncmp(spellings[i].label, word, len))
			return &spellings[i];
	return NULL;
}

static double step(const struct unit_family *f)
{
	return f->kind == UNIT_IEC ? 1024.0 : 1000.0;
}

/* Levels run 0..4 upwards (SI, IEC) or 0..3 downwards (time). */
static int max_level(const struct unit_family *f)
{
	return f->kind == UNIT_TIME ? 3 : 4;
}

/* @v in the unit at @level into the level that reads best: @return it. */
static int best_level(const struct unit_family *f, int level, double *v)
{
	double st = step(f), a = fabs(*v);
	int top = max_level(f);

	if (a == 0.0 || !isfinite(a))
		return level;
	if (f->kind == UNIT_TIME) {
		/* Smaller units are higher levels: 1500 us -> 1.5 ms. */
		while (level > 0 && a >= st) {
			a /= st;
			*v /= st;
			level--;
		}
		while (level < top && a < 1.0) {
			a *= st;
			*v *= st;
			level++;
		}
		return level;
	}
	while (level < top && a >= st) {
		a /= st;
		*v /= st;
		level++;
	}
	while (level > 0 && a < 1.0) {
		a *= st;
		*v *= st;
		level--;
	}
	return level;
}

int rp_unit_text(char *buf, size_t size, double v, const char *label)
{
	const struct unit_spelling *u = unit_lookup(label);
	char num[64];
	int level;

	if (!isfinite(v))
		return snprintf(buf, size, "-");
	if (!u)
		return snprintf(buf, size, "%.6g%s%s", v, label ? " " : "", label ? label : "");
	level = best_level(u->fam, u->level, &v);
	snprintf(num, sizeof(num), "%.6g", v);
	/* Rounding can reach the next prefix: 999.96 kbit/s -> 1 Mbit/s. */
	if (fabs(strtod(num, NULL)) >= step(u->fam) &&
	    (u->fam->kind == UNIT_TIME ? level > 0 : level < max_level(u->fam))) {
		v /= step(u->fam);
		level += u->fam->kind == UNIT_TIME ? -1 : 1;
		snprintf(num, sizeof(num), "%.6g", v);
	}
	return snprintf(buf, size, "%s %s", num, u->fam->sym[level]);
}

void rp_unit_pick(double v, const char *label, double *mult, const char **sym)
{
	const struct unit_spelling *u = unit_lookup(label);
	double x = v;
	int level, k;

	*mult = 1.0;
	*sym = label ? label : "";
	if (!u)
		return;
	level = best_level(u->fam, u->level, &x);
	/* Levels count upwards in size for SI and IEC, downwards for time. */
	k = u->fam->kind == UNIT_TIME ? level - u->level : u->level - level;
	for (; k > 0; k--)
		*mult *= step(u->fam);
	for (; k < 0; k++)
		*mult /= step(u->fam);
	*sym = u->fam->sym[level];
}

/*
 * A value as people read it: times @scale (when finite) and followed by
 * its unit (when @label is given; a known unit is scaled to its best
 * prefix); a policy without display_* shows the bare number.
 */
void rp_text_display(struct strbuf *sb, double v, double scale, const char *label)
{
	char buf[128];

	if (!label || !isfinite(v)) {
		rp_text_number(sb, isfinite(scale) ? v * scale : v);
		return;
	}
	if (isfinite(scale))
		v *= scale;
	if (unit_lookup(label)) {
		rp_unit_text(buf, sizeof(buf), v, label);
		strbuf_adds(sb, buf);
		return;
	}
	rp_text_number(sb, v);
	strbuf_addc(sb, ' ');
	strbuf_adds(sb, label);
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_value_text(char *buf, size_t size, double value, double scale,
			      const char *label)
{
	if (!buf && size)
		return -EINVAL;
	return rp_unit_text(buf, size, isfinite(scale) ? value * scale : value, label);
}
