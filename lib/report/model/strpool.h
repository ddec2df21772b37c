/*
 * Interned strings and arena bytes that live as long as a report or
 * a baseline (strpool.c).
 */
#ifndef KSFTM_STRPOOL_H
#define KSFTM_STRPOOL_H

#include <stddef.h>

struct rp_strpool;

/*
 * Interned strings and arena bytes that live as long as the report
 * (model/strpool.c): the series' identity strings and path arrays, which
 * series_free() leaves alone. NULL on allocation failure.
 */
struct rp_strpool *strpool_new(void);
void strpool_free(struct rp_strpool *p);
const char *strpool_intern(struct rp_strpool *p, const char *s, size_t n);
void *strpool_alloc(struct rp_strpool *p, size_t n);
/*
 * Forget every string and block of @p, keeping one chunk and the table's
 * size: for a reader that holds one series at a time (the baseline read
 * as a stream, store/baseline_stream.c). What it handed out dangles.
 */
void strpool_reset(struct rp_strpool *p);
/* The bytes of @p's chunks (what it holds, the table apart). */
size_t strpool_bytes(const struct rp_strpool *p);
/* How many strings @p has interned (the unit tests count them). */
size_t strpool_interned(const struct rp_strpool *p);
/*
 * A copy of @s[0..n) (NUL added) in @p's arena, not interned: for strings
 * that are mostly unique, such as case names (200,000 of them in a whole
 * run), whose entries in the intern table would cost more than their
 * repeats. NULL: OOM.
 */
const char *strpool_copy(struct rp_strpool *p, const char *s, size_t n);
/* strpool_alloc() for a callback that takes its pool as void *. */
void *strpool_alloc_any(void *pool, size_t n);
/*
 * @path's strings interned in @p, in an array of the pool: @prev itself
 * when it holds the same strings (series of one test share it). NULL: OOM.
 */
char **strpool_path(struct rp_strpool *p, char *const *path, size_t n,
		    char **prev, size_t prev_n);

#endif
