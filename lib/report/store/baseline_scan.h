/* A baseline file read in one pass (baseline_scan.c). */
#ifndef KSFTM_BASELINE_SCAN_H
#define KSFTM_BASELINE_SCAN_H

#include <stddef.h>

struct bl_run;
struct bl_series;
struct rp_strpool;

/*
 * One pass over a baseline file as `save` writes it (baseline_scan.c), no
 * jansson document. baseline_scan_begin(): 0 at the runs array, -ENOENT not
 * that layout. baseline_scan_run(): 1 a run's sources read (into @run, zeroed
 * by the caller) and its series array entered, 0 the file's end, -ENOENT
 * not the layout. baseline_scan_series(): 1 @s decoded, 2 @s (partly filled:
 * clear it) must be decoded by jansson from [@span, @span + @span_len), 0
 * the run's end, -ENOENT not the layout. Either may also return -ENOMEM.
 * None sets a message: after any error read the whole file with jansson,
 * which gives the file's error.
 */
/* The pool's copies of the last two strings of one field (most repeat:
 * the shape, the path, a case's name for its series; or alternate: the
 * labels of a case's two series): a compare, no hash. */
struct bl_pinned {
	const char *s, *s2;
	size_t n, n2;
};

enum { BL_PIN_CASE, BL_PIN_NAME, BL_PIN_SHAPE, BL_PIN_LABELS, BL_PIN_PATH, BL_PIN_N };

struct bl_scan {
	const char *p, *end;
	struct rp_strpool *pool;
	char **prev_path;	/* the last series' (shared when equal) */
	size_t prev_len;
	struct bl_pinned last[BL_PIN_N];
};

int baseline_scan_begin(struct bl_scan *sc, const char *buf, size_t len,
			struct rp_strpool *pool);
int baseline_scan_run(struct bl_scan *sc, struct bl_run *run, size_t ri);
int baseline_scan_series(struct bl_scan *sc, struct bl_series *s, size_t i,
			 const char **span, size_t *span_len);

#endif
