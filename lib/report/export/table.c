/* Aligned text tables and RFC 4180 CSV fields for the formatters. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

int table_init(struct table *t, size_t cols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->width = calloc(cols, sizeof(size_t));
	return t->width ? 0 : -ENOMEM;
}

void table_reset(struct table *t)
{
	t->n = 0;
	t->text.len = 0;
	memset(t->width, 0, t->cols * sizeof(*t->width));
}

void table_reset_keep_heads(struct table *t)
{
	size_t c;

	if (t->n < t->cols) {
		table_reset(t);
		return;
	}
	t->n = t->cols;
	/* The last head's text ends at its NUL: cw is its columns, not bytes. */
	t->text.len = t->off[t->cols - 1] + strlen(table_text(t, t->cols - 1)) + 1;
	for (c = 0; c < t->cols; c++)
		t->width[c] = t->cw[c];
}

void table_free(struct table *t)
{
	strbuf_free(&t->text);
	free(t->off);
	free(t->cw);
	free(t->width);
}

/*
 * Takes a copy of @text; UTF-8 continuation bytes do not count as width.
 * 0 or -ENOMEM (no message: the caller knows what the table was for).
 */
int table_cell(struct table *t, const char *text)
{
	if (!text)
		text = "";
	return table_cell_n(t, text, strlen(text));
}

int table_cell_n(struct table *t, const char *text, size_t len)
{
	size_t w;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		size_t *off = realloc(t->off, cap * sizeof(*off)), *cw;

		if (!off)
			return -ENOMEM;
		t->off = off;
		cw = realloc(t->cw, cap * sizeof(*cw));
		if (!cw)
			return -ENOMEM;
		t->cw = cw;
		t->cap = cap;
	}
	w = table_cols(text, len);
	if (t->text.cap - t->text.len <= len + 1 && strbuf_reserve(&t->text, len + 1))
		return -ENOMEM;
	t->off[t->n] = t->text.len;
	memcpy(t->text.data + t->text.len, text, len);
	t->text.data[t->text.len + len] = '\0';
	t->text.len += len + 1;		/* each cell keeps its NUL */
	if (w > t->width[t->n % t->cols])
		t->width[t->n % t->cols] = w;
	t->cw[t->n++] = w;
	return 0;
}

void table_render(const struct table *t, struct strbuf *sb, const int *right)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		size_t col = i % t->cols, pad = t->width[col] - t->cw[i];

		if (right && right[col])
			while (pad--)
				strbuf_addc(sb, ' ');
		strbuf_adds(sb, table_text(t, i));
		if (col == t->cols - 1) {
			strbuf_addc(sb, '\n');
			continue;
		}
		if (!(right && right[col]))
			while (pad--)
				strbuf_addc(sb, ' ');
		strbuf_adds(sb, "  ");
	}
}

/*
 * A text cell that a spreadsheet would read as a formula (= + - @, or a
 * tab or CR before one) gets a leading single quote, as OWASP's "CSV
 * Injection" page advises, and is quoted: the cell shows the text, it does
 * not run it. Numbers are written by the callers, never through here.
 */
static int csv_formula(const char *s)
{
	return s[0] && strchr("=+-@\t\r", s[0]);
}

void table_csv_field(struct strbuf *sb, const char *s)
{
	int formula = csv_formula(s);

	if (!formula && !strpbrk(s, ",\"\r\n") && s[0] != ' ' &&
	    (!*s || s[strlen(s) - 1] != ' ')) {
		strbuf_adds(sb, s);
		return;
	}
	strbuf_addc(sb, '"');
	if (formula)
		strbuf_addc(sb, '\'');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addc(sb, '"');
		strbuf_addc(sb, *s);
	}
	strbuf_addc(sb, '"');
}
