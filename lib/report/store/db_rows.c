/* The rows a history query returns (db.h): kept as text, read, checked
 * for NULLs, freed. Below every backend. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db_backend.h"
#include "errmsg.h"

void db_rows_set(struct db_rows *r, size_t row, int col, const char *v, size_t len, int *oom)
{
	char *c = NULL;

	if (v) {
		c = malloc(len + 1);
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
	size_t i;

	if (!rows)
		return;
	for (i = 0; i < rows->n * (size_t)rows->cols; i++)
		free(rows->cells[i]);
	free(rows->cells);
	free(rows);
}
