/*
 * Case flush: policies first, then every thread's observations merged by
 * timestamp, formatted in batches so a large case never needs all its text
 * in memory at once when writing to a sink.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_flush.h"
#include "errmsg.h"
#include "ktap_tags.h"
#include "line_format.h"
#include "sink.h"
#include "strbuf.h"

#define BATCH_BYTES (64 * 1024)

struct emitter {
	struct strbuf sb;
	int to_sink;
	int lines;
	int err;
	const char *prefix;
	size_t prefix_len;
	size_t line_start;	/* offset of the line being formatted */
	size_t dropped;		/* lines too long for fixed storage */
};

static void line_begin(struct emitter *e, const char *tag, size_t tag_len)
{
	e->line_start = e->sb.len;
	strbuf_add(&e->sb, e->prefix, e->prefix_len);
	strbuf_add(&e->sb, tag, tag_len);
}

static void flush_batch(struct emitter *e)
{
	int ret;

	if (!e->sb.len || e->err)
		return;
	ret = sink_write(e->sb.data, e->sb.len);
	if (ret)
		e->err = ret;
	e->sb.len = 0;
}

static void line_end(struct emitter *e)
{
	strbuf_addc(&e->sb, '\n');
	if (e->sb.oom && e->sb.fixed) {
		/* Fixed storage (signal path): a line that does not fit is dropped whole. */
		e->sb.len = e->line_start;
		e->sb.oom = 0;
		e->dropped++;
		return;
	}
	e->lines++;
	if (e->to_sink && e->sb.len >= BATCH_BYTES)
		flush_batch(e);
}

/* A cursor walks one thread's records; a min-heap of cursors merges them. */
struct cursor {
	const struct case_data *cd;
	const struct arena_chunk *chunk;
	size_t off;
};

static const struct obs *cursor_obs(const struct cursor *c)
{
	return (const struct obs *)(const void *)((const char *)c->chunk->data + c->off);
}

static int cursor_valid(struct cursor *c)
{
	while (c->chunk && c->off >= c->chunk->used) {
		c->chunk = c->chunk->next;
		c->off = 0;
	}
	return c->chunk != NULL;
}

static int cursor_less(const struct cursor *a, const struct cursor *b)
{
	uint64_t ta = cursor_obs(a)->t_ns, tb = cursor_obs(b)->t_ns;

	return ta < tb || (ta == tb && a->cd->thread_idx < b->cd->thread_idx);
}

static void heap_down(struct cursor *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct cursor t;

		if (l < n && cursor_less(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && cursor_less(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

size_t case_flush_cursor_size(void)
{
	return sizeof(struct cursor);
}

/* @storage: room for cc->n_data cursors, or NULL to allocate it. */
static int emit_observations(struct emitter *e, const struct closed_case *cc,
			     struct cursor *storage)
{
	static const char tag[] = KSFTM_TAG_METRIC " ";
	struct cursor *heap = storage ? storage
				      : calloc(cc->n_data ? cc->n_data : 1, sizeof(*heap));
	size_t n = 0, i;

	if (!heap)
		return -ENOMEM;
	for (i = 0; i < cc->n_data; i++) {
		struct cursor c = { cc->data[i], cc->data[i]->records.head, 0 };

		if (cursor_valid(&c))
			heap[n++] = c;
	}
	for (i = n; i-- > 0;)
		heap_down(heap, n, i);
	while (n && !e->err && !e->sb.oom) {
		const struct obs *o = cursor_obs(&heap[0]);

		line_begin(e, tag, sizeof(tag) - 1);
		obs_format(&e->sb, heap[0].cd, o, cc->start_ns);
		line_end(e);
		heap[0].off += o->size;
		if (!cursor_valid(&heap[0]))
			heap[0] = heap[--n];
		heap_down(heap, n, 0);
	}
	if (!storage)
		free(heap);
	return 0;
}

static int observed(const struct closed_case *cc, const char *name)
{
	size_t i;

	for (i = 0; i < cc->n_data; i++)
		if (case_data_has_name(cc->data[i], name))
			return 1;
	return 0;
}

int case_stream_policy(const char *name, const void *policy)
{
	static const char tag[] = KSFTM_TAG_POLICY " ";
	struct emitter e = { STRBUF_INIT, 1, 0, 0, NULL, 0, 0, 0 };
	char *prefix = sink_prefix_dup(&e.prefix_len);

	if (!prefix)
		return ksftm_fail(ENOMEM, "out of memory writing metric lines");
	e.prefix = prefix;
	line_begin(&e, tag, sizeof(tag) - 1);
	policy_format(&e.sb, name, policy);
	line_end(&e);
	if (e.sb.oom)
		e.err = ksftm_fail(ENOMEM, "out of memory writing metric lines");
	flush_batch(&e);
	strbuf_free(&e.sb);
	free(prefix);
	return e.err;
}

/*
 * Write-through cases are framed: "begin" when the case opens, "end" when
 * it ends normally. A process killed in between (SIGKILL: a harness
 * timeout) can write nothing more, and the missing "end" before the
 * result line is how a consumer tells its lines were cut short.
 */
static const char stream_tag[] = KSFTM_TAG_STREAM " ";

static void emit_stream_marker(struct emitter *e, const char *state)
{
	line_begin(e, stream_tag, sizeof(stream_tag) - 1);
	strbuf_adds(&e->sb, "{\"state\":\"");
	strbuf_adds(&e->sb, state);
	strbuf_adds(&e->sb, "\"}");
	line_end(e);
}

int case_stream_begin(void)
{
	struct emitter e = { STRBUF_INIT, 1, 0, 0, NULL, 0, 0, 0 };
	char *prefix = sink_prefix_dup(&e.prefix_len);

	if (!prefix)
		return ksftm_fail(ENOMEM, "out of memory writing metric lines");
	e.prefix = prefix;
	emit_stream_marker(&e, "begin");
	if (e.sb.oom)
		e.err = ksftm_fail(ENOMEM, "out of memory writing metric lines");
	flush_batch(&e);
	strbuf_free(&e.sb);
	free(prefix);
	return e.err;
}

static void emit_policies(struct emitter *e, const struct closed_case *cc)
{
	static const char tag[] = KSFTM_TAG_POLICY " ";
	size_t i;

	for (i = 0; i < cc->n_policies && !e->err && !cc->streamed; i++) {
		if (!observed(cc, cc->policies[i].name))
			continue;
		line_begin(e, tag, sizeof(tag) - 1);
		policy_format(&e->sb, cc->policies[i].name, &cc->policies[i].policy);
		line_end(e);
	}
}

int case_flush_emergency(const struct closed_case *cc, char *buf, size_t size,
			 void *cursors, size_t *dropped)
{
	static char prefix[256];
	struct emitter e = { STRBUF_FIXED(buf, size), 1, 0, 0, prefix, 0, 0, 0 };

	e.prefix_len = sink_prefix_copy(prefix, sizeof(prefix));
	emit_policies(&e, cc);
	emit_observations(&e, cc, cursors);
	flush_batch(&e);
	*dropped = e.dropped;
	return e.err ? e.err : e.lines;
}

/* After the observations: one warning line per refused call. */
static void emit_rejects(struct emitter *e, const struct closed_case *cc)
{
	static const char tag[] = KSFTM_TAG_WARNING " ";
	const struct case_rejects *rj = cc->rejects;
	struct case_reject more;
	size_t i;

	if (!rj)
		return;
	for (i = 0; i < rj->n; i++) {
		line_begin(e, tag, sizeof(tag) - 1);
		case_reject_format(&e->sb, &rj->v[i]);
		line_end(e);
	}
	if (rj->more) {
		memset(&more, 0, sizeof(more));
		strcpy(more.call, "*");
		snprintf(more.msg, sizeof(more.msg),
			 "more refused calls than the %d kept per case", CASE_REJECTS_MAX);
		more.count = rj->more;
		line_begin(e, tag, sizeof(tag) - 1);
		case_reject_format(&e->sb, &more);
		line_end(e);
	}
}

int case_flush(const struct closed_case *cc, char **out, size_t *out_len)
{
	struct emitter e = { STRBUF_INIT, !out, 0, 0, NULL, 0, 0, 0 };
	char *prefix = sink_prefix_dup(&e.prefix_len);
	int oom;

	if (!prefix)
		return ksftm_fail(ENOMEM, "out of memory writing metric lines");
	e.prefix = prefix;
	emit_policies(&e, cc);
	if (cc->streamed)
		emit_stream_marker(&e, "end");
	oom = emit_observations(&e, cc, NULL);
	if (!oom)
		emit_rejects(&e, cc);
	if (oom || e.sb.oom) {
		e.err = ksftm_fail(ENOMEM, "out of memory writing metric lines");
	} else if (!out) {
		flush_batch(&e);
	} else if (!e.err) {
		*out = strbuf_detach(&e.sb, out_len);
		if (!*out)
			e.err = ksftm_fail(ENOMEM, "out of memory writing metric lines");
	}
	strbuf_free(&e.sb);
	free(prefix);
	return e.err ? e.err : e.lines;
}
