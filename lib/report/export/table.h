/* Aligned text tables and CSV fields (table.c). */
#ifndef KSFTM_TABLE_H
#define KSFTM_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "strbuf.h"

/* Display columns of @s[0..n): its bytes less the UTF-8 continuation
 * bytes, eight bytes a step while they are ASCII. */
static inline size_t table_cols(const char *s, size_t n)
{
	size_t cols = n, i = 0, k;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		if (!(w & 0x8080808080808080ull))
			continue;
		for (k = i; k < i + 8; k++)
			cols -= ((unsigned char)s[k] & 0xc0) == 0x80;
	}
	for (; i < n; i++)
		cols -= ((unsigned char)s[i] & 0xc0) == 0x80;
	return cols;
}

/* Cells row-major, their text one after another in @text (each with its
 * NUL): two allocations for a table, not one a cell. */
struct table {
	size_t cols;
	struct strbuf text;
	size_t *off;		/* cell i at text.data + off[i] */
	size_t *cw;		/* cell i's display columns */
	size_t n, cap;
	size_t *width;
};

static inline const char *table_text(const struct table *t, size_t i)
{
	return t->text.data + t->off[i];
}

/* table_init() and table_cell(): 0 or -ENOMEM. */
int table_init(struct table *t, size_t cols);
/* Empty again for the next table of as many columns, its memory kept. */
void table_reset(struct table *t);
/* The same, but its first row (the heads) kept: the next rows follow it. */
void table_reset_keep_heads(struct table *t);
void table_free(struct table *t);
int table_cell(struct table *t, const char *text);
/* A cell of @len bytes (no NUL among them): table_cell() without the strlen(). */
int table_cell_n(struct table *t, const char *text, size_t len);

/* What @sb holds as a cell. */
static inline int table_cell_sb(struct table *t, const struct strbuf *sb)
{
	return sb->data ? table_cell_n(t, sb->data, sb->len) : table_cell(t, "");
}
/* Columns separated by two spaces; @right[col] != 0 aligns right. */
void table_render(const struct table *t, struct strbuf *sb, const int *right);
/* One CSV text field, quoted when it needs to be; formulas neutralised. */
void table_csv_field(struct strbuf *sb, const char *s);

#endif
