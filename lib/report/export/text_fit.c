/*
 * Text tables that fit a terminal (issue 34): numbers in 3-4 significant
 * digits, one unit per row, a value with its spread and n, and a table
 * that wraps its last column, or goes vertical, rather than cut a name.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/report.h>

#include "order_stats.h"
#include "table.h"
#include "text_fit.h"

size_t text_fit_width(int fmt)
{
	return fmt & KSFT_METRIC_REPORT_TEXT_NARROW ? TEXT_NARROW : TEXT_WIDE;
}

/* Decimal digits of @u (at most 20) into @buf; returns their count. */
size_t text_fit_utoa(char *buf, unsigned long long u)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/*
 * printf's "%.4g" of @v for 1e-3 <= |v| < 1e4 and "%.0f" for
 * 1e4 <= |v| < 1e15, written without printf: the value scaled to its four
 * digits (or its integer) by a power of ten that is exact, rounded half to
 * even as printf rounds the exact binary value. A scaled value within
 * 1e-9 of a tie, or four digits that round to a fifth, is left to
 * snprintf (returns 0): the scaling's one rounding error (1e-12 here)
 * cannot move a value that far from a tie, so the digits are printf's.
 */
static size_t num_fast(char *buf, double v, double a)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6 };
	unsigned long long m, div;
	double x, f;
	size_t n = 0, d;
	int e;

	if (v < 0)
		buf[n++] = '-';
	if (a >= 1e4) {
		if (a >= 9007199254740992.0)	/* 2^53: not every integer exact */
			return 0;
		x = nearbyint(a);	/* half to even, as printf */
		return n + text_fit_utoa(buf + n, (unsigned long long)x);
	}
	e = a >= 1e3 ? 3 : a >= 1e2 ? 2 : a >= 1e1 ? 1 : a >= 1e0 ? 0 :
	    a >= 1e-1 ? -1 : a >= 1e-2 ? -2 : -3;
	x = a * p10[3 - e];		/* about 1000 <= x < 10000 */
	f = x - floor(x);
	if (fabs(f - 0.5) < 1e-9)
		return 0;
	m = (unsigned long long)nearbyint(x);
	if (m < 1000 || m > 9999)
		return 0;
	d = (size_t)(3 - e);		/* digits after the point */
	div = (unsigned long long)p10[d];
	n += text_fit_utoa(buf + n, m / div);
	if (d) {
		unsigned long long frac = m % div;
		char digits[8];
		size_t k;

		for (k = d; k--; frac /= 10)
			digits[k] = (char)('0' + frac % 10);
		while (d && digits[d - 1] == '0')
			d--;
		if (d) {
			buf[n++] = '.';
			memcpy(buf + n, digits, d);
			n += d;
		}
	}
	return n;
}

void text_fit_num(struct strbuf *sb, double v)
{
	double a = fabs(v);
	char buf[64];
	size_t n;

	if (!isfinite(v)) {
		strbuf_addc(sb, '-');
		return;
	}
	/* Data with 1-40 % noise: more digits would be noise; big counts
	 * stay whole rather than go to an exponent. */
	if (a == 0.0) {
		strbuf_addc(sb, '0');
		return;
	}
	if (a >= 1e-3 && a < 1e15 && (n = num_fast(buf, v, a))) {
		strbuf_add(sb, buf, n);
		return;
	}
	if (a >= 1e4 && a < 1e15)
		snprintf(buf, sizeof(buf), "%.0f", v);
	else if (a >= 1e-3)
		snprintf(buf, sizeof(buf), "%.4g", v);
	else
		snprintf(buf, sizeof(buf), "%.3g", v);
	strbuf_adds(sb, buf);
}

void text_fit_value(struct strbuf *sb, const struct text_unit *u, double v)
{
	text_fit_num(sb, isfinite(v) ? v * u->mult : v);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double sorted_median(const double *x, size_t n)
{
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2.0;
}

/* The spread of @x (sorted, @n > 0) after a value: its range for a few
 * points, else " ± p%" of the median. */
static void spread_of(struct strbuf *sb, const struct text_unit *u, const double *x, size_t n)
{
	double med = sorted_median(x, n), *dev;
	size_t i;
	char buf[48];

	if (n == 1 || x[0] == x[n - 1])
		return;
	if (n < TEXT_FEW) {	/* a spread of a few points would mislead: their range */
		strbuf_adds(sb, " (");
		text_fit_value(sb, u, x[0]);
		strbuf_adds(sb, "\xe2\x80\xa6");	/* U+2026 */
		text_fit_value(sb, u, x[n - 1]);
		strbuf_addc(sb, ')');
		return;
	}
	/* The robust spread: 1.4826 MAD, the standard deviation of normal data. */
	dev = malloc(n * sizeof(*dev));
	if (!dev) {
		sb->oom = 1;
		return;
	}
	for (i = 0; i < n; i++)
		dev[i] = fabs(x[i] - med);
	qsort(dev, n, sizeof(*dev), dbl_cmp);
	med = med != 0.0 ? 100.0 * 1.4826 * sorted_median(dev, n) / fabs(med) : NAN;
	strbuf_adds(sb, " \xc2\xb1 ");		/* U+00B1 */
	if (isfinite(med)) {
		snprintf(buf, sizeof(buf), med == 0.0 || med >= 1.0 ? "%.0f%%" : "%.1f%%", med);
		strbuf_adds(sb, buf);
	} else {
		text_fit_value(sb, u, 1.4826 * sorted_median(dev, n));
	}
	free(dev);
}

void text_fit_spread(struct strbuf *sb, const struct text_unit *u, double *x, size_t n)
{
	if (!n) {
		strbuf_addc(sb, '-');
		return;
	}
	ksftm_sort_doubles(x, n);	/* dbl_cmp's order, without qsort for one */
	text_fit_value(sb, u, sorted_median(x, n));
	spread_of(sb, u, x, n);
}

void text_fit_value_spread(struct strbuf *sb, const struct text_unit *u, double v, double *x,
			   size_t n)
{
	text_fit_value(sb, u, v);
	if (!n || !isfinite(v))
		return;
	qsort(x, n, sizeof(*x), dbl_cmp);
	spread_of(sb, u, x, n);
}

/* Display columns of @s (UTF-8 continuation bytes do not count). */
size_t text_fit_cols(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void pad(struct strbuf *sb, size_t n)
{
	static const char spaces[] = "                                ";

	while (n >= sizeof(spaces) - 1) {
		strbuf_add(sb, spaces, sizeof(spaces) - 1);
		n -= sizeof(spaces) - 1;
	}
	strbuf_add(sb, spaces, n);
}

/* Drop the spaces before the line end just written. */
static void end_line(struct strbuf *sb)
{
	while (sb->len && sb->data[sb->len - 1] == ' ')
		sb->len--;
	strbuf_addc(sb, '\n');
}

/*
 * @s from column @at (already reached) up to @width, continued on lines
 * that start at column @col: broken at spaces, a word longer than a line
 * at the line's end. Returns the column after it.
 */
/* Has @s[0..n) two spaces in a row? (memchr's pace, not memmem's.) */
static int two_spaces(const char *s, size_t n)
{
	const char *p = s, *end = s + n;

	while ((p = memchr(p, ' ', (size_t)(end - p))) && p + 1 < end) {
		if (p[1] == ' ')
			return 1;
		p += 2;
	}
	return 0;
}

static size_t wrap_at(struct strbuf *sb, const char *s, size_t at, size_t col, size_t width)
{
	const char *p;
	size_t fit = 0, n = strlen(s);
	int first = 1;

	/* Most text fits where it is: one word after another, single spaces,
	 * no space at either end, is written as it is. Its bytes fit: then so
	 * do its columns, and it is checked without a step a byte. */
	if (at + n <= width && (!n || (s[0] != ' ' && s[n - 1] != ' ' &&
				       !two_spaces(s, n)))) {
		strbuf_add(sb, s, n);
		return at + table_cols(s, n);
	}
	for (p = s; *p && fit + at <= width; p++) {
		if (*p == ' ' && (p == s || p[1] == ' ' || !p[1]))
			break;
		fit += ((unsigned char)*p & 0xc0) != 0x80;
	}
	if (!*p && at + fit <= width) {
		strbuf_add(sb, s, (size_t)(p - s));
		return at + fit;
	}
	while (*s) {
		const char *e = strchr(s, ' '), *word = s;
		size_t len = e ? (size_t)(e - s) : strlen(s), wlen = len, w = 0, i;

		for (i = 0; i < wlen; i++)
			w += ((unsigned char)word[i] & 0xc0) != 0x80;
		if (!first || at > col) {
			if (at + !first + w > width) {
				end_line(sb);
				pad(sb, col);
				at = col;
			} else if (!first) {
				strbuf_addc(sb, ' ');
				at++;
			}
		}
		first = 0;
		while (at + w > width && width > col + 1) {	/* longer than a line */
			size_t room = width - at, k = 0, c = 0;

			while (k < wlen && c < room) {
				k++;
				while (k < wlen && ((unsigned char)word[k] & 0xc0) == 0x80)
					k++;
				c++;
			}
			strbuf_add(sb, word, k);
			word += k;
			wlen -= k;
			w -= c;
			end_line(sb);
			pad(sb, col);
			at = col;
		}
		strbuf_add(sb, word, wlen);
		at += w;
		s += len;
		while (*s == ' ')
			s++;
	}
	return at;
}

/* The smallest room the last column may wrap into before the table goes vertical. */
#define LAST_MIN 16

/* Row @r's cells from column @c0 on, after @indent spaces, aligned; the
 * last one (starting at column @last) wrapped within @width. */
static void row_line(const struct table *t, size_t r, size_t c0, struct strbuf *sb,
		     const int *right, size_t indent, size_t last, size_t width)
{
	size_t c, need = indent, i;
	char *o;

	/* The cells before the last written in place, into room reserved
	 * once: a cell's bytes are its offsets apart (each keeps its NUL). */
	for (c = c0; c + 1 < t->cols; c++) {
		i = r * t->cols + c;
		need += t->off[i + 1] - t->off[i] - 1 + t->width[c] - t->cw[i] + 2;
	}
	if (strbuf_reserve(sb, need + t->width[t->cols - 1]))
		return;
	o = sb->data + sb->len;
	memset(o, ' ', indent);
	o += indent;
	for (c = c0; c < t->cols; c++) {
		const char *cell = table_text(t, r * t->cols + c);
		size_t gap = t->width[c] - t->cw[r * t->cols + c];
		size_t len = c + 1 < t->cols ? t->off[r * t->cols + c + 1] -
					       t->off[r * t->cols + c] - 1 : 0;

		if (right && right[c]) {
			memset(o, ' ', gap);
			o += gap;
		}
		if (c == t->cols - 1) {
			sb->len = (size_t)(o - sb->data);
			sb->data[sb->len] = '\0';
			wrap_at(sb, cell, last + (right && right[c] ? gap : 0), last, width);
			o = NULL;
			break;
		}
		memcpy(o, cell, len);
		o += len;
		if (!(right && right[c])) {
			memset(o, ' ', gap);
			o += gap;
		}
		o[0] = o[1] = ' ';
		o += 2;
	}
	if (o) {
		sb->len = (size_t)(o - sb->data);
		sb->data[sb->len] = '\0';
	}
	end_line(sb);
}

void text_fit_render(const struct table *t, struct strbuf *sb, const int *right,
		     size_t width, size_t indent)
{
	size_t rows = t->n / t->cols, total = indent, last, last2, r, c;

	for (c = 0; c < t->cols; c++)
		total += t->width[c] + (c ? 2 : 0);
	last = total - t->width[t->cols - 1];
	if (total <= width || last + LAST_MIN <= width) {
		for (r = 0; r < rows; r++)
			row_line(t, r, 0, sb, right, indent, last, width);
		return;
	}
	/* Two lines a row: its first cell (a name, never cut) alone, then
	 * the other cells aligned under their heads, 4 further in. */
	last2 = last - t->width[0] - 2 + 4;
	if (t->cols > 1 && last2 + LAST_MIN <= width) {
		for (r = 0; r < rows; r++) {
			pad(sb, indent);
			wrap_at(sb, table_text(t, r * t->cols), indent, indent, width);
			end_line(sb);
			row_line(t, r, 1, sb, right, indent + 4, last2, width);
		}
		return;
	}
	/* Vertical: a row's first cell on its own line, then its other
	 * cells as "HEAD value", wrapped; the header row is not printed. */
	for (r = 1; r < rows; r++) {
		size_t at;

		pad(sb, indent);
		wrap_at(sb, table_text(t, r * t->cols), indent, indent, width);
		end_line(sb);
		pad(sb, indent + 4);
		at = indent + 4;
		for (c = 1; c < t->cols; c++) {
			const char *cell = table_text(t, r * t->cols + c);
			char *item;

			if (!*cell)
				continue;
			if (asprintf(&item, "%s %s", table_text(t, c), cell) < 0) {
				sb->oom = 1;
				return;
			}
			if (at > indent + 4 && at + 2 + text_fit_cols(item) > width) {
				end_line(sb);
				pad(sb, indent + 4);
				at = indent + 4;
			} else if (at > indent + 4) {
				strbuf_adds(sb, "  ");
				at += 2;
			}
			/* An item's own words wrap, at the line's start. */
			at = wrap_at(sb, item, at, indent + 4, width);
			free(item);
		}
		end_line(sb);
	}
}

void text_fit_wrap(struct strbuf *sb, const char *s, size_t width, size_t indent)
{
	text_fit_wrap_hang(sb, s, width, indent, indent);
}

void text_fit_wrap_hang(struct strbuf *sb, const char *s, size_t width, size_t indent, size_t hang)
{
	pad(sb, indent);
	wrap_at(sb, s, indent, hang, width);
	end_line(sb);
}
