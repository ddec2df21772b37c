/* A baseline file read series by series from a file descriptor (baseline_stream.c). */
#ifndef KSFTM_BASELINE_STREAM_H
#define KSFTM_BASELINE_STREAM_H

#include <stddef.h>
#include <sys/types.h>

#include "baseline_scan.h"

struct bl_run;
struct bl_series;

/*
 * A file as `save` writes it (one line a series), read through a window of
 * its bytes (pread from offset 0, so the descriptor's position is left
 * alone) that holds the header, then one series' line at a time, and grows
 * only for a line longer than it. The series' strings live in a pool that
 * is emptied as the window moves on: one series at a time is held.
 */
struct bl_stream {
	int fd;
	char *buf;
	size_t cap, len;	/* buf[0..len) are the file's bytes from @at */
	off_t at;
	int eof;
	size_t held_max;	/* the most bytes held at once (window and pool) */
	size_t i;		/* the series read */
	struct rp_strpool *pool;
	struct bl_scan sc;
};

/*
 * Start reading @fd with a window of @window bytes: its header and its
 * first run's sources and context into @run (zeroed here; clear it with
 * the baseline's runs). 0; -ENOENT not save's layout; -EIO; -ENOMEM. No
 * message: the caller reads the whole file again, which says what is wrong.
 */
int bl_stream_open(struct bl_stream *st, int fd, size_t window, struct bl_run *run);
/*
 * The next series of the first run into @s (give it back with
 * bl_stream_put() before the next call): 1; 0 the run's and the file's end
 * (one run); -ENOENT anything else (a second run, a series the scanner
 * leaves to jansson, text not in save's layout); -EIO; -ENOMEM. No message.
 */
int bl_stream_series(struct bl_stream *st, struct bl_series *s);
void bl_stream_put(struct bl_stream *st, struct bl_series *s);
void bl_stream_close(struct bl_stream *st);

#endif
