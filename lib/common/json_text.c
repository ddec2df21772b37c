/*
 * JSON string text byte-for-byte as Python's json.dumps(s) (ensure_ascii):
 * consumers diff our output against Python's, so the escapes must match.
 */
#include <stdint.h>

#include "json_text.h"

const unsigned char json_text_plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/*
 * Well-formedness per Unicode table 3-7: the second byte's range depends on
 * the lead byte, which is what rules out overlongs (C0, C1, E0 80..9F,
 * F0 80..8F), surrogates (ED A0..BF) and > U+10FFFF (F4 90.., F5..FF).
 */
size_t utf8_seq_len(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c, lo = 0x80, hi = 0xbf;
	size_t len, k;

	if (!n)
		return 0;
	c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;	/* stray continuation, C0/C1, F5..FF */
	}
	if (n < len)
		return 0;	/* truncated at the end */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (k = 2; k < len; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	return len;
}

int utf8_valid(const char *s, size_t n)
{
	size_t i = 0, len;

	while (i < n) {
		len = utf8_seq_len(s + i, n - i);
		if (!len)
			return 0;
		i += len;
	}
	return 1;
}

static const char HEX[] = "0123456789abcdef";	/* Python prints lowercase */

static char *put_u(char *p, unsigned u)
{
	p[0] = '\\';
	p[1] = 'u';
	p[2] = HEX[(u >> 12) & 0xf];
	p[3] = HEX[(u >> 8) & 0xf];
	p[4] = HEX[(u >> 4) & 0xf];
	p[5] = HEX[u & 0xf];
	return p + 6;
}

/*
 * Decode one sequence at s[*i] (valid input assumed, but never read past
 * n: a malformed sequence yields U+FFFD and consumes one byte).
 */
static unsigned decode(const unsigned char *s, size_t n, size_t *i)
{
	unsigned c = s[*i];
	size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	size_t k;

	if (len == 1 || n - *i < len) {
		(*i)++;
		return 0xfffd;
	}
	c &= 0x7f >> len;
	for (k = 1; k < len; k++) {
		if ((s[*i + k] & 0xc0) != 0x80) {
			(*i)++;
			return 0xfffd;
		}
		c = (c << 6) | (s[*i + k] & 0x3f);
	}
	*i += len;
	return c > 0x10ffff ? 0xfffd : c;
}

void json_add_string(struct strbuf *sb, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	char *p;

	/* Reserve the worst case once (a control byte becomes 6 chars), then
	 * write in place: no per-character capacity checks. */
	if (strbuf_reserve(sb, n > (SIZE_MAX - 2) / 6 ? SIZE_MAX : 6 * n + 2))
		return;
	p = sb->data + sb->len;
	*p++ = '"';
	while (i < n) {
		unsigned c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			*p++ = (char)c;
			i++;
			continue;
		}
		if (c < 0x80) {
			i++;
			*p++ = '\\';
			switch (c) {
			case '"':  *p++ = '"'; break;
			case '\\': *p++ = '\\'; break;
			case '\n': *p++ = 'n'; break;
			case '\r': *p++ = 'r'; break;
			case '\t': *p++ = 't'; break;
			case '\b': *p++ = 'b'; break;
			case '\f': *p++ = 'f'; break;
			default:   p = put_u(p - 1, c); break;	/* incl. 0x7f */
			}
			continue;
		}
		c = decode(s, n, &i);
		if (c >= 0x10000) {
			/* Astral: UTF-16 surrogate pair, as Python's ensure_ascii. */
			c -= 0x10000;
			p = put_u(p, 0xd800 | (c >> 10));
			p = put_u(p, 0xdc00 | (c & 0x3ff));
		} else {
			p = put_u(p, c);
		}
	}
	*p++ = '"';
	*p = '\0';
	sb->len = (size_t)(p - sb->data);
}
