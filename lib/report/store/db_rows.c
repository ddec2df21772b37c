/* The rows a history query returns (db.h): kept as text, read, checked
 * for NULLs, freed. Below every backend. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db_backend.h"
#include "errmsg.h"

struct db_rows_block {
	struct db_rows_block *next;
	size_t used, size;
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
	r->blocks = b;
	return b->text;
}

void db_rows_set(struct db_rows *r, size_t row, int col, const char *v, size_t len, int *oom)
{
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
	r->cells[row * (size_t)r->cols + (size_t)col] = c;
}

size_t db_rows_count(const struct db_rows *rows)
{
	return rows ? rows->n : 0;
}

int db_rows_columns(const struct db_rows *rows)
{
	return rows ? rows->cols : 0;
}

const char *db_rows_get(const struct db_rows *rows, size_t row, int col)
{
	if (!rows || row >= rows->n || col < 0 || col >= rows->cols)
		return NULL;
	return rows->cells[row * (size_t)rows->cols + (size_t)col];
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
			if (!len || *col == '?' || rows->cells[r * (size_t)rows->cols + (size_t)c])
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
		free(b);
	}
	free(rows->cells);
	free(rows);
}
