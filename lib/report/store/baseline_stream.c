/*
 * A baseline file read as a stream (issue 45): `save` writes one series a
 * line, so a window of the file that holds the next line holds the next
 * series, and compare can judge it and forget it. The scanner is the one
 * that reads whole files (baseline_scan.c), over the window; whatever it
 * would leave to jansson, or does not expect, ends the stream (-ENOENT)
 * and the caller reads the whole file instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "baseline_scan.h"
#include "baseline_stream.h"
#include "rp_policy.h"
#include "strpool.h"

static void note_held(struct bl_stream *st)
{
	size_t n = st->cap + strpool_bytes(st->pool);

	if (n > st->held_max)
		st->held_max = n;
}

/* The window: forget what was read (and the strings of the series read),
 * keep the rest at its start, and read on; grow when it is all one line. */
static int refill(struct bl_stream *st)
{
	size_t off = (size_t)(st->sc.p - st->buf), keep = (size_t)(st->sc.end - st->sc.p);
	ssize_t n;

	note_held(st);	/* the pool at its fullest */
	if (off) {
		memmove(st->buf, st->sc.p, keep);
		st->at += (off_t)off;
		st->len = keep;
		strpool_reset(st->pool);
		memset(st->sc.last, 0, sizeof(st->sc.last));
		st->sc.prev_path = NULL;
		st->sc.prev_len = 0;
	} else if (st->len == st->cap) {
		char *b = realloc(st->buf, st->cap * 2);

		if (!b)
			return -ENOMEM;
		st->buf = b;
		st->cap *= 2;
	}
	do
		n = pread(st->fd, st->buf + st->len, st->cap - st->len, st->at + (off_t)st->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -EIO;
	if (n == 0)
		st->eof = 1;
	st->len += (size_t)n;
	st->sc.p = st->buf;
	st->sc.end = st->buf + st->len;
	note_held(st);
	return 0;
}

/* Does the window hold @lines whole lines from @at, or the file's end? */
static int holds(const struct bl_stream *st, const char *at, int lines)
{
	int k;

	for (k = 0; k < lines && at; k++) {
		at = memchr(at, '\n', (size_t)(st->sc.end - at));
		at = at ? at + 1 : NULL;
	}
	return at || st->eof;
}

/* From the scan on, @lines whole lines in the window, or the file's end. */
static int ensure(struct bl_stream *st, int lines)
{
	int ret;

	while (!holds(st, st->sc.p, lines))
		if ((ret = refill(st)))
			return ret;
	return 0;
}

int bl_stream_open(struct bl_stream *st, int fd, size_t window, struct bl_run *run)
{
	int ret;

	memset(st, 0, sizeof(*st));
	memset(run, 0, sizeof(*run));
	st->fd = fd;
	st->cap = window ? window : 1;
	st->buf = malloc(st->cap);
	st->pool = strpool_new();
	if (!st->buf || !st->pool)
		return -ENOMEM;
	st->sc.p = st->sc.end = st->buf;
	/* The format line, then the run's sources and context. */
	if ((ret = ensure(st, 2)))
		return ret;
	if (baseline_scan_begin(&st->sc, st->sc.p, (size_t)(st->sc.end - st->sc.p), st->pool))
		return -ENOENT;
	ret = baseline_scan_run(&st->sc, run, 0);
	return ret == 1 ? 0 : ret ? ret : -ENOENT;
}

int bl_stream_series(struct bl_stream *st, struct bl_series *s)
{
	struct bl_run next;
	const char *span;
	size_t span_len;
	int ret;

	/*
	 * Scanned where the window stands: the scanner succeeds only on a
	 * whole series. Where it did not, and the window did not hold the
	 * series' line (",\n {...}": the separator's and its own), the
	 * window moves on and it is scanned again; else that is the answer.
	 */
	for (;;) {
		const char *at = st->sc.p;

		ret = baseline_scan_series(&st->sc, s, st->i, &span, &span_len);
		if (ret == 1) {
			st->i++;
			return 1;
		}
		bl_stream_put(st, s);
		if (ret == -ENOMEM || holds(st, at, 2))
			break;
		st->sc.p = at;
		if ((ret = refill(st)))
			return ret;
	}
	if (ret)
		return ret == 2 ? -ENOENT : ret;
	/* The run's end: the file's too, or it is not one run. Its rest is
	 * "]}\n": read to the end (a longer rest is something else). */
	while (!st->eof && st->len < st->cap)
		if ((ret = refill(st)))
			return ret;
	if (!st->eof)
		return -ENOENT;
	memset(&next, 0, sizeof(next));
	ret = baseline_scan_run(&st->sc, &next, 1);
	free(next.context);
	while (next.n_sources)
		free(next.sources[--next.n_sources]);
	free(next.sources);
	return ret ? -ENOENT : 0;
}

void bl_stream_put(struct bl_stream *st, struct bl_series *s)
{
	(void)st;
	if (s->policy)
		rp_policy_free(s->policy);
	if (!s->samples_pooled) {
		free(s->samples.v);
		free(s->samples.off);
	}
	/* Its strings stay the pool's until the window moves on. */
	s->policy = NULL;
	s->samples.v = NULL;
	s->samples.off = NULL;
}

void bl_stream_close(struct bl_stream *st)
{
	if (st->pool)
		note_held(st);
	free(st->buf);
	strpool_free(st->pool);
	st->buf = NULL;
	st->pool = NULL;
}
