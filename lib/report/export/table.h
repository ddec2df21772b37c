/* Aligned text tables and CSV fields (table.c). */
#ifndef KSFTM_TABLE_H
#define KSFTM_TABLE_H

#include <stddef.h>

#include "strbuf.h"

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
void table_free(struct table *t);
int table_cell(struct table *t, const char *text);
/* Columns separated by two spaces; @right[col] != 0 aligns right. */
void table_render(const struct table *t, struct strbuf *sb, const int *right);
/* One CSV text field, quoted when it needs to be; formulas neutralised. */
void table_csv_field(struct strbuf *sb, const char *s);

#endif
