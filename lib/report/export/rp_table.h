/* Aligned text tables and CSV fields (table.c). */
#ifndef KSFTM_RP_TABLE_H
#define KSFTM_RP_TABLE_H

#include <stddef.h>

#include "strbuf.h"

struct table {
	size_t cols;
	char **cells;		/* row-major */
	size_t n, cap;
	size_t *width;
};

/* table_init() and table_cell(): 0 or -ENOMEM. */
int table_init(struct table *t, size_t cols);
void table_free(struct table *t);
int table_cell(struct table *t, const char *text);
/* Columns separated by two spaces; @right[col] != 0 aligns right. */
void table_render(const struct table *t, struct strbuf *sb, const int *right);
/* One CSV text field, quoted when it needs to be; formulas neutralised. */
void csv_field(struct strbuf *sb, const char *s);


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
/* The series' display unit and scale (model/units.c's one rule) under the
 * policy's display_scale @scale (NaN or <= 0: 1) and display_label @label;
 * @ref is not used (a unit never follows a value's size). */
void text_unit_pick(struct text_unit *u, double ref, double scale, const char *label);
/* @v in 3-4 significant digits ("-" when not finite). */
void text_num(struct strbuf *sb, double v);
void text_value(struct strbuf *sb, const struct text_unit *u, double v);
/* The median of @x (sorted in place) with its spread: "v" for one point,
 * "v (min…max)" for fewer than TEXT_FEW, else "v ± p%" (1.4826 MAD). */
void text_spread(struct strbuf *sb, const struct text_unit *u, double *x, size_t n);
size_t text_cols(const char *s);
/*
 * @t (row 0 the heads) within @width columns, every line after @indent
 * spaces: aligned columns whose last one wraps at spaces when long;
 * else two lines a row (its first cell alone, the others aligned under
 * their heads); else vertical (the first cell alone, then the others as
 * "HEAD value", wrapped). Never cuts a cell.
 */
void table_render_fit(const struct table *t, struct strbuf *sb, const int *right,
		      size_t width, size_t indent);
/* @s wrapped at spaces within @width, lines after @indent spaces. */
void text_wrap(struct strbuf *sb, const char *s, size_t width, size_t indent);
/* The same, its second and later lines after @hang spaces. */
void text_wrap_hang(struct strbuf *sb, const char *s, size_t width, size_t indent, size_t hang);

#endif
