/*
 * Text tables that fit a terminal (text_fit.c, issue 34): 3-4 digits,
 * one unit a row, a median with its spread, 120 or 80 columns.
 */
#ifndef KSFTM_TEXT_FIT_H
#define KSFTM_TEXT_FIT_H

#include <stddef.h>

struct strbuf;
struct table;

/* ---- text_fit.c: tables that fit a terminal (issue 34) ---- */
#define TEXT_WIDE 120
#define TEXT_NARROW 80
/* Fewer points than this show their range, not a spread. */
#define TEXT_FEW 10

/* One unit for a row: a value times @mult reads in @sym. */
struct text_unit {
	double mult;
	const char *sym;
};

/* 120 columns, or 80 with KSFT_METRIC_REPORT_TEXT_NARROW in @fmt. */
size_t text_fit_width(int fmt);
/* Decimal digits of @u into @buf (room for 20, no NUL); their count. */
size_t text_fit_utoa(char *buf, unsigned long long u);
/* @v in 3-4 significant digits ("-" when not finite): printf's "%.4g"
 * ("%.0f" from 1e4, "%.3g" under 1e-3), byte for byte. */
void text_fit_num(struct strbuf *sb, double v);
void text_fit_value(struct strbuf *sb, const struct text_unit *u, double v);
/* The median of @x (sorted in place) with its spread: "v" for one point,
 * "v (min…max)" for fewer than TEXT_FEW, else "v ± p%" (1.4826 MAD). */
void text_fit_spread(struct strbuf *sb, const struct text_unit *u, double *x, size_t n);
/* @v (a summary other than the median: the HTML report's headline) in the
 * same digits, then the spread of @x (sorted in place) as above: one rule
 * for the text and the HTML tables. */
void text_fit_value_spread(struct strbuf *sb, const struct text_unit *u, double v, double *x,
			   size_t n);
size_t text_fit_cols(const char *s);
/*
 * @t (row 0 the heads) within @width columns, every line after @indent
 * spaces: aligned columns whose last one wraps at spaces when long;
 * else two lines a row (its first cell alone, the others aligned under
 * their heads); else vertical (the first cell alone, then the others as
 * "HEAD value", wrapped). Never cuts a cell.
 */
void text_fit_render(const struct table *t, struct strbuf *sb, const int *right,
		     size_t width, size_t indent);
/* @s wrapped at spaces within @width, lines after @indent spaces. */
void text_fit_wrap(struct strbuf *sb, const char *s, size_t width, size_t indent);
/* The same, its second and later lines after @hang spaces. */
void text_fit_wrap_hang(struct strbuf *sb, const char *s, size_t width, size_t indent, size_t hang);

#endif
