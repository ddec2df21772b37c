/*
 * The name of a history as messages show it: a URL or path without
 * credentials (db_redact()), and a driver's message with them masked
 * (db_redact_scrub()), db.h. Below every backend.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "db_backend.h"

int db_redact_is_pg_url(const char *url)
{
	return !strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11);
}

/* Append @n bytes of @s to @out (room @size, @len used; always NUL-ended). */
static void put(char *out, size_t size, size_t *len, const char *s, size_t n)
{
	if (*len + 1 >= size)
		return;
	if (n > size - 1 - *len)
		n = size - 1 - *len;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = '\0';
}

/* A hex digit's value, or -EINVAL for any other character. */
static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -EINVAL;
}

/* Does key @k (@n bytes, percent-decoded as libpq does) name a secret:
 * password, sslpassword... */
static int secret_key(const char *k, size_t n)
{
	char dec[64];
	size_t i, m = 0;

	for (i = 0; i < n && m < sizeof(dec) - 1; i++) {
		if (k[i] == '%' && i + 2 < n && hexval(k[i + 1]) >= 0 && hexval(k[i + 2]) >= 0) {
			dec[m++] = (char)(hexval(k[i + 1]) * 16 + hexval(k[i + 2]));
			i += 2;
		} else {
			dec[m++] = k[i];
		}
	}
	dec[m] = '\0';
	while (m && (dec[m - 1] == ' ' || dec[m - 1] == '\t'))
		dec[--m] = '\0';
	return m >= 8 && !strcasecmp(dec + m - 8, "password");
}

/*
 * Mask every KEY=VALUE whose key names a password, the items separated by
 * @seps (a URL's query: "&"; a conninfo string: white space, with '...'
 * quoted values).
 */
static void mask_params(const char *s, const char *seps, char *out, size_t size, size_t *len)
{
	while (*s) {
		size_t item = strcspn(s, seps);
		const char *eq = memchr(s, '=', item);

		if (eq && secret_key(s, (size_t)(eq - s))) {
			const char *v = eq + 1;

			put(out, size, len, s, (size_t)(v - s));
			put(out, size, len, "***", 3);
			if (*v == '\'' && strchr(seps, ' ')) {	/* a quoted conninfo value */
				for (v++; *v && *v != '\''; v++)
					if (*v == '\\' && v[1])
						v++;
				item = (size_t)(v - s) + (*v ? 1 : 0);
			}
		} else {
			put(out, size, len, s, item);
		}
		s += item;
		if (*s) {
			put(out, size, len, s, 1);
			s++;
		}
	}
}

/*
 * @url as a message may show it: a postgresql:// URL without its user
 * information (user:password@) and with every password=... parameter
 * masked, a conninfo-like "... password=..." masked; a file path as it is.
 */
const char *db_redact(const char *url, char *out, size_t size)
{
	size_t len = 0;

	if (!size)
		return "";
	out[0] = '\0';
	if (!url)
		return out;
	if (db_redact_is_pg_url(url)) {
		const char *auth = strstr(url, "://") + 3, *q;
		size_t upto = strcspn(auth, "/");	/* libpq: user info ends at '@' before '/' */
		const char *at = memchr(auth, '@', upto);

		/* The last '@' of the authority: a password may hold '@'. */
		while (at && memchr(at + 1, '@', upto - (size_t)(at + 1 - auth)))
			at = memchr(at + 1, '@', upto - (size_t)(at + 1 - auth));
		put(out, size, &len, url, (size_t)(auth - url));
		if (at) {
			put(out, size, &len, "***@", 4);
			auth = at + 1;
		}
		q = strchr(auth, '?');
		put(out, size, &len, auth, q ? (size_t)(q - auth + 1) : strlen(auth));
		if (q)
			mask_params(q + 1, "&", out, size, &len);
	} else if (strcasestr(url, "password")) {
		mask_params(url, " \t\n", out, size, &len);
	} else {
		put(out, size, &len, url, strlen(url));
	}
	if (len + 1 >= size && size > 4)
		memcpy(out + size - 4, "...", 4);
	return out;
}

/* Mask each occurrence of the @n-byte @secret in @text ("***", never
 * longer than the secret: the text only shrinks). */
static void scrub_one(char *text, const char *secret, size_t n)
{
	size_t m = n < 3 ? n : 3;
	char *p = text;

	if (!n)
		return;
	while ((p = memmem(p, strlen(p), secret, n))) {
		memset(p, '*', m);
		memmove(p + m, p + n, strlen(p + n) + 1);
		p += m;
	}
}

const char *db_redact_scrub(const char *url, const char *text, char *out, size_t size)
{
	const char *auth, *s;
	size_t len = 0;

	if (!size)
		return "";
	out[0] = '\0';
	put(out, size, &len, text ? text : "", text ? strlen(text) : 0);
	while (len && out[len - 1] == '\n')
		out[--len] = '\0';
	if (!url)
		return out;
	/* The user information whole, then every KEY=VALUE's value of a
	 * password key, raw (libpq's messages quote raw tokens). */
	if (db_redact_is_pg_url(url)) {
		size_t upto;
		const char *at;

		auth = strstr(url, "://") + 3;
		upto = strcspn(auth, "/");
		at = memchr(auth, '@', upto);
		while (at && memchr(at + 1, '@', upto - (size_t)(at + 1 - auth)))
			at = memchr(at + 1, '@', upto - (size_t)(at + 1 - auth));
		if (at) {
			const char *colon = memchr(auth, ':', (size_t)(at - auth));

			scrub_one(out, auth, (size_t)(at - auth));
			if (colon)
				scrub_one(out, colon + 1, (size_t)(at - colon - 1));
		}
	}
	for (s = url; (s = strchr(s, '=')); s++) {
		const char *k = s, *v = s + 1;

		while (k > url && !strchr("&? \t\n", k[-1]))
			k--;
		if (secret_key(k, (size_t)(s - k)))
			scrub_one(out, v, strcspn(v, "& \t\n"));
	}
	return out;
}
