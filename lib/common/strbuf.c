/* Growable byte buffer: allocation policy lives here, fast paths inline. */
#include <errno.h>
#include <stdlib.h>

#include "strbuf.h"

int strbuf_reserve(struct strbuf *sb, size_t extra)
{
	size_t need, cap;
	char *p;

	if (sb->oom)
		return -ENOMEM;
	if (extra > (size_t)-1 / 2 - sb->len)
		goto fail;
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return 0;
	if (sb->fixed)
		goto fail;
	cap = sb->cap ? sb->cap : 256;
	while (cap < need)
		cap *= 2;
	p = realloc(sb->data, cap);
	if (!p)
		goto fail;
	sb->data = p;
	sb->cap = cap;
	return 0;
fail:
	sb->oom = 1;
	return -ENOMEM;
}

void strbuf_free(struct strbuf *sb)
{
	if (sb->fixed) {
		sb->len = 0;
		sb->oom = 0;
		return;
	}
	free(sb->data);
	sb->data = NULL;
	sb->len = sb->cap = 0;
	sb->oom = 0;
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *p;

	if (strbuf_reserve(sb, 0)) {
		strbuf_free(sb);
		return NULL;
	}
	p = sb->data;
	p[sb->len] = '\0';	/* an empty buffer was never written */
	if (len)
		*len = sb->len;
	sb->data = NULL;
	sb->len = sb->cap = 0;
	return p;
}
