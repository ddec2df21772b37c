/* Growable byte buffer used by every formatter: JSON lines, messages. */
#ifndef KSFTM_STRBUF_H
#define KSFTM_STRBUF_H

#include <stddef.h>
#include <string.h>

struct strbuf {
	char *data;
	size_t len;
	size_t cap;
	int oom;	/* sticky: an allocation failed, contents are truncated */
	int fixed;	/* @data is caller storage: never reallocated or freed */
};

#define STRBUF_INIT { NULL, 0, 0, 0, 0 }
/* A buffer over caller storage (e.g. static, for a signal handler). */
#define STRBUF_FIXED(buf, size) { (buf), 0, (size), 0, 1 }

/* Make room for @extra more bytes (plus a NUL); 0 or -ENOMEM (sets oom). */
int strbuf_reserve(struct strbuf *sb, size_t extra);
void strbuf_free(struct strbuf *sb);
/* Hand the buffer to the caller (NUL-terminated); @sb becomes empty. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

static inline void strbuf_add(struct strbuf *sb, const void *p, size_t n)
{
	if (sb->cap - sb->len <= n && strbuf_reserve(sb, n))
		return;
	memcpy(sb->data + sb->len, p, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
}

static inline void strbuf_addc(struct strbuf *sb, char c)
{
	if (sb->cap - sb->len <= 1 && strbuf_reserve(sb, 1))
		return;
	sb->data[sb->len++] = c;
	sb->data[sb->len] = '\0';
}

static inline void strbuf_adds(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

#endif
