/* The rows a history query returns (db.h): kept as typed cells (a
 * number as the backend gave it, its text made only when asked), read,
 * checked for NULLs, freed. Below every backend. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db_backend.h"
#include "errmsg.h"
#include "float_repr.h"

struct db_rows_block {
	struct db_rows_block *next;
	size_t used, size;
	int own;		/* the rows' own allocation's (db_rows_new()) */
	char text[];
};

/* The first block's size; each next one doubles, up to DB_ROWS_BLOCK_MAX. */
#define DB_ROWS_BLOCK_MIN 1024
#define DB_ROWS_BLOCK_MAX (256 * 1024)

/* @len bytes of room in @r's newest block, or a new block. */
static char *rows_room(struct db_rows *r, size_t len)
{
	struct db_rows_block *b = r->blocks;
	size_t size;

	if (b && b->size - b->used >= len) {
		b->used += len;
		return b->text + b->used - len;
	}
	size = b ? (b->size < DB_ROWS_BLOCK_MAX ? 2 * b->size : b->size) : DB_ROWS_BLOCK_MIN;
	if (size < len)
		size = len;
	if (!(b = malloc(sizeof(*b) + size)))
		return NULL;
	b->next = r->blocks;
	b->size = size;
	b->used = len;
	b->own = 0;
	r->blocks = b;
	return b->text;
}

/* The rows' cells and first block share its allocation: aligned so. */
#define DB_ROWS_ALIGN(x) (((x) + 15) & ~(size_t)15)

struct db_rows *db_rows_new(int cols, size_t rows)
{
	size_t head = DB_ROWS_ALIGN(sizeof(struct db_rows));
	size_t cells = DB_ROWS_ALIGN(rows * (size_t)cols * sizeof(struct db_cell));
	struct db_rows_block *b;
	struct db_rows *r;

	if (cols && rows > SIZE_MAX / 2 / sizeof(struct db_cell) / (size_t)cols)
		return NULL;
	r = malloc(head + cells + sizeof(*b) + DB_ROWS_BLOCK_MIN);
	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->cols = cols;
	r->cap = rows;
	r->cells = (struct db_cell *)((char *)r + head);
	r->cells_inline = 1;
	b = (struct db_rows_block *)((char *)r + head + cells);
	b->next = NULL;
	b->size = DB_ROWS_BLOCK_MIN;
	b->used = 0;
	b->own = 1;
	r->blocks = b;
	return r;
}

int db_rows_reserve(struct db_rows *r, size_t rows)
{
	size_t cap = r->cap ? r->cap : 16;
	struct db_cell *cells;

	if (rows <= r->cap)
		return 0;
	while (cap < rows)
		cap *= 2;
	if (r->cols && cap > SIZE_MAX / sizeof(*cells) / (size_t)r->cols)
		return -ENOMEM;
	if (r->cells_inline) {
		cells = malloc(cap * (size_t)r->cols * sizeof(*cells));
		if (cells)
			memcpy(cells, r->cells, r->n * (size_t)r->cols * sizeof(*cells));
	} else {
		cells = realloc(r->cells, cap * (size_t)r->cols * sizeof(*cells));
	}
	if (!cells)
		return -ENOMEM;
	r->cells = cells;
	r->cells_inline = 0;
	r->cap = cap;
	return 0;
}

static struct db_cell *cell_at(const struct db_rows *r, size_t row, int col)
{
	return &r->cells[row * (size_t)r->cols + (size_t)col];
}

void db_rows_set(struct db_rows *r, size_t row, int col, const char *v, size_t len, int *oom)
{
	struct db_cell *cell = cell_at(r, row, col);
	char *c = NULL;

	if (v) {
		c = rows_room(r, len + 1);
		if (c) {
			memcpy(c, v, len);
			c[len] = '\0';
		} else {
			*oom = 1;
		}
	}
	cell->text = c;
	cell->type = c ? DB_TEXT : DB_NULL;
}

/* A number's text is made when first asked for, in room kept for it now
 * (so that asking cannot fail): "" until then. */
static void set_number(struct db_rows *r, size_t row, int col, enum db_type type, int *oom)
{
	struct db_cell *cell = cell_at(r, row, col);

	cell->type = type;
	cell->text = rows_room(r, DB_NUMBER_TEXT_MAX);
	if (cell->text)
		cell->text[0] = '\0';
	else
		*oom = 1;
}

void db_rows_set_int64(struct db_rows *r, size_t row, int col, long long v, int *oom)
{
	set_number(r, row, col, DB_INTEGER, oom);
	cell_at(r, row, col)->num.i = v;
}

void db_rows_set_double(struct db_rows *r, size_t row, int col, double v, int *oom)
{
	set_number(r, row, col, DB_REAL, oom);
	cell_at(r, row, col)->num.d = v;
}

size_t db_rows_count(const struct db_rows *rows)
{
	return rows ? rows->n : 0;
}

int db_rows_columns(const struct db_rows *rows)
{
	return rows ? rows->cols : 0;
}

static const struct db_cell *cell_of(const struct db_rows *rows, size_t row, int col)
{
	if (!rows || row >= rows->n || col < 0 || col >= rows->cols)
		return NULL;
	return cell_at(rows, row, col);
}

enum db_type db_rows_type(const struct db_rows *rows, size_t row, int col)
{
	const struct db_cell *cell = cell_of(rows, row, col);

	return cell ? (enum db_type)cell->type : DB_NULL;
}

/*
 * A number's text as the text interface always gave it: an INTEGER in
 * decimal (SQLite's own "%lld"), a REAL as its shortest round-trip text
 * (as PostgreSQL sends it: SQLite's own is 15 digits, not the stored
 * double).
 */
const char *db_rows_get(const struct db_rows *rows, size_t row, int col)
{
	const struct db_cell *cell = cell_of(rows, row, col);

	if (!cell)
		return NULL;
	if (cell->type == DB_INTEGER && !cell->text[0])
		int64_repr(cell->num.i, cell->text);
	else if (cell->type == DB_REAL && !cell->text[0])
		float_repr(cell->num.d, cell->text);
	return cell->text;
}

int db_rows_double(const struct db_rows *rows, size_t row, int col, double *x)
{
	const struct db_cell *cell = cell_of(rows, row, col);

	if (!cell || cell->type == DB_NULL)
		return 0;
	/* What strtod() of the cell's text gives: the text of a REAL is its
	 * round-trip text, an INTEGER's decimal rounds as the conversion does. */
	*x = cell->type == DB_REAL ? cell->num.d : cell->type == DB_INTEGER ?
	     (double)cell->num.i : strtod(cell->text, NULL);
	return 1;
}

int db_rows_int64(const struct db_rows *rows, size_t row, int col, long long *x)
{
	const struct db_cell *cell = cell_of(rows, row, col);

	if (!cell || cell->type == DB_NULL)
		return 0;
	*x = cell->type == DB_INTEGER ? cell->num.i : strtoll(db_rows_get(rows, row, col), NULL, 10);
	return 1;
}

int db_rows_check(const struct db *db, const struct db_rows *rows, const char *spec,
		  int key_col, const char *where)
{
	size_t r, n = db_rows_count(rows);
	int c;

	for (r = 0; r < n; r++)
		for (c = 0; c < rows->cols; c++) {
			const char *col = spec, *key = spec;
			size_t len, klen;
			int k;

			for (k = 0; k < c && *col; k++) {
				col += strcspn(col, " ");
				col += strspn(col, " ");
			}
			len = strcspn(col, " ");
			if (!len || *col == '?' || cell_at(rows, r, c)->type != DB_NULL)
				continue;
			for (k = 0; k < key_col && *key; k++) {
				key += strcspn(key, " ");
				key += strspn(key, " ");
			}
			klen = strcspn(key, " ");
			if (*key == '?')
				key++, klen--;
			if (key_col >= 0 && key_col != c && db_rows_get(rows, r, key_col))
				return ksftm_fail(EBADMSG, "history database %s: %.*s is NULL in the"
						  " row with %.*s = %.80s", db->name, (int)len, col,
						  (int)klen, key, db_rows_get(rows, r, key_col));
			return ksftm_fail(EBADMSG, "history database %s: %.*s is NULL in a row%s%s",
					  db->name, (int)len, col, where ? " with " : "",
					  where ? where : "");
		}
	return 0;
}

void db_rows_free(struct db_rows *rows)
{
	struct db_rows_block *b, *next;

	if (!rows)
		return;
	for (b = rows->blocks; b; b = next) {
		next = b->next;
		if (!b->own)
			free(b);
	}
	if (!rows->cells_inline)
		free(rows->cells);
	free(rows);
}
