/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksft_metric.h - performance metrics as KTAP diagnostic lines
 *
 * A selftest records measurements inside a test case; at the end of the
 * case they are written as "# ktap-metric-json: {...}" lines (policies
 * first, as "# ktap-metric-policy-json: {...}"), right before the test's
 * result line. For the same calls the lines are byte for byte those of
 * libksftmetric and of the Python ksft_metric() helpers proposed for
 * net/lib/py ("selftests: net: add performance metric reporting").
 *
 *	struct ksft_metric_label rx[] = { KSFT_METRIC_LABEL_STR("dir", "rx") };
 *	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
 *
 *	ksft_metric_case_begin();
 *	p.summarize = "distribution";
 *	ksft_metric_aggregate("throughput", &p);
 *	ksft_metric_double("throughput", "scalar", gbps, rx, 1);
 *	ksft_metric_case_end();
 *	ksft_test_result_pass("throughput\n");
 *
 * Every int-returning call returns 0 (or a count) or a negative errno;
 * ksft_metric_errmsg() says why in words, and a successful call clears it.
 * A call refused while a case is open is also written at the case's end,
 * as a "# ktap-metric-warning-json: {...}" line naming the call, the
 * metric, the errno and the message, so an ignored return value still
 * shows in the log; with ksft_metric_set_strict(1) or KSFTMETRIC_STRICT=1
 * ksft_metric_case_end() then returns -ECANCELED. Any thread may record
 * while a case is open. A case belongs to the process that opened it: a
 * forked child cannot record into it or end it, and may open its own.
 *
 * At exit() with a case open, and on SIGTERM, SIGINT, SIGHUP, SIGQUIT and
 * SIGABRT where the test left their disposition at the default, the lines
 * recorded so far are written followed by a "ktap-metric-abort-json" line.
 * The signal path allocates nothing: lines are formatted when recorded
 * and only copied there, through a static buffer, with write(2).
 *
 * Include it from one source file of a test program: its state is static.
 * It needs libc and pthreads only (build with -pthread).
 */
#ifndef __KSFT_METRIC_H
#define __KSFT_METRIC_H

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum ksft_metric_type {
	KSFT_METRIC_UNSET = 0,
	KSFT_METRIC_STRING,
	KSFT_METRIC_INT,
	KSFT_METRIC_DOUBLE,
	KSFT_METRIC_BOOL
};

/* A label value or a policy number. */
struct ksft_metric_value {
	int type;
	union {
		const char *s;
		int64_t i;
		double d;
		int b;
	} u;
};

struct ksft_metric_label {
	const char *key;
	struct ksft_metric_value value;
};

#define KSFT_METRIC_INT_V(v)		{ KSFT_METRIC_INT, { .i = (v) } }
#define KSFT_METRIC_DOUBLE_V(v)		{ KSFT_METRIC_DOUBLE, { .d = (v) } }
#define KSFT_METRIC_STR_V(v)		{ KSFT_METRIC_STRING, { .s = (v) } }
#define KSFT_METRIC_BOOL_V(v)		{ KSFT_METRIC_BOOL, { .b = !!(v) } }
#define KSFT_METRIC_LABEL_STR(k, v)	{ (k), KSFT_METRIC_STR_V(v) }
#define KSFT_METRIC_LABEL_INT(k, v)	{ (k), KSFT_METRIC_INT_V(v) }
#define KSFT_METRIC_LABEL_DOUBLE(k, v)	{ (k), KSFT_METRIC_DOUBLE_V(v) }
#define KSFT_METRIC_LABEL_BOOL(k, v)	{ (k), KSFT_METRIC_BOOL_V(v) }

/*
 * How a consumer processes a metric: transform, then aggregation, then
 * summarize. NULL strings and unset numbers are left out of the line.
 */
struct ksft_metric_policy {
	size_t sz;
	const char *transform;		/* NULL or "rate" */
	const char *aggregation;	/* NULL or "busy-core-equivalents" */
	const char *summarize;		/* NULL (= "total"), "last", "total",
					 * "p50", "p90", "p99", "max",
					 * "distribution"
					 */
	const char *regression_compare;	/* a summary but "distribution" */
	const char *regression_better;	/* "higher" or "lower" */
	struct ksft_metric_value regression_relative_tolerance;
	struct ksft_metric_value regression_absolute_tolerance;
	struct ksft_metric_value display_min;
	struct ksft_metric_value display_max;
	struct ksft_metric_value display_scale;
	const char *display_label;
};

#define KSFT_METRIC_POLICY_INIT { sizeof(struct ksft_metric_policy), 0, 0, 0, \
	0, 0, { 0, { 0 } }, { 0, { 0 } }, { 0, { 0 } }, { 0, { 0 } }, \
	{ 0, { 0 } }, 0 }

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))
#endif

#define KSFT_METRIC_MAX_LABELS	1024
#define KSFT_METRIC_CHUNK_	(64 << 10)
#define KSFT_METRIC_STAGE_	(64 << 10)

/* Formatted lines, appended under the lock, read by the signal path. */
struct ksft_metric_chunk_ {
	struct ksft_metric_chunk_ *next;
	size_t cap;
	size_t len;			/* committed bytes, atomic */
	char data[];
};

struct ksft_metric_pnum_ {
	int type;
	int64_t i;
	double d;
};

struct ksft_metric_pol_ {
	struct ksft_metric_pol_ *next;	/* published atomically */
	char *name;
	const char *body;		/* JSON text, swapped atomically */
	int observed;			/* atomic */
	const char *summarize, *transform, *aggregation, *compare, *better;
	const char *label;
	struct ksft_metric_pnum_ rel, abs, min, max, scale;
};

struct ksft_metric_seen_ {
	struct ksft_metric_seen_ *next;
	struct ksft_metric_pol_ *pol;	/* its policy, if registered */
	char name[];
};

struct ksft_metric_sb_ {
	char *data;
	size_t len, cap;
	int oom;
};

static struct {
	pthread_mutex_t lock;
	int open;			/* atomic */
	pid_t owner;			/* atomic */
	int stream, stream_setting, reporting;
	uint64_t start_ns;
	struct ksft_metric_chunk_ *lines, *lines_tail;	/* observations */
	struct ksft_metric_chunk_ *strings, *strings_tail; /* policies */
	struct ksft_metric_pol_ *pols, **pols_tail;
	struct ksft_metric_seen_ *seen;
	struct ksft_metric_sb_ sb;
	FILE *file;
	int fd;
	char prefix[256];
	size_t prefix_len;
} ksft_metric_st_ = {
	PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL,
	NULL, NULL, NULL, { NULL, 0, 0, 0 }, NULL, -1, "# ", 2
};

/* A refused call of the open case (distinct ones, with a count). */
struct ksft_metric_reject_ {
	char call[32];
	char name[96];
	char msg[384];
	int err;
	unsigned long count;
};

#define KSFT_METRIC_REJECTS_	16

/* Under ksft_metric_st_.lock; written at the case's end. */
static struct {
	struct ksft_metric_reject_ v[KSFT_METRIC_REJECTS_];
	size_t n;
	unsigned long more;	/* refusals past the distinct ones kept */
	int strict;		/* ksft_metric_set_strict(), atomic */
} ksft_metric_rejects_;

static __thread char ksft_metric_msg_[512];

static inline const char *ksft_metric_errmsg(void)
{
	return ksft_metric_msg_;
}

static inline int ksft_metric_fail_(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ksft_metric_msg_, sizeof(ksft_metric_msg_), fmt, ap);
	va_end(ap);
	return -err;
}

/* ---- text ---------------------------------------------------------- */

static inline void ksft_metric_sb_add_(struct ksft_metric_sb_ *sb,
				       const char *s, size_t n)
{
	if (sb->oom || n > SIZE_MAX / 4 - sb->len) {
		sb->oom = 1;
		return;
	}
	if (sb->len + n + 1 > sb->cap) {
		size_t cap = sb->cap ? sb->cap : 256;
		char *p;

		while (cap < sb->len + n + 1)
			cap *= 2;
		p = realloc(sb->data, cap);
		if (!p) {
			sb->oom = 1;
			return;
		}
		sb->data = p;
		sb->cap = cap;
	}
	memcpy(sb->data + sb->len, s, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
}

static inline void ksft_metric_sb_adds_(struct ksft_metric_sb_ *sb,
					const char *s)
{
	ksft_metric_sb_add_(sb, s, strlen(s));
}

/* Well-formed UTF-8: no overlongs, surrogates or code points > U+10FFFF. */
static inline int ksft_metric_utf8_ok_(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		unsigned int c = *s, lo = 0x80, hi = 0xbf, len, k;

		if (c < 0x80) {
			s++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			lo = c == 0xe0 ? 0xa0 : 0x80;
			hi = c == 0xed ? 0x9f : 0xbf;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			lo = c == 0xf0 ? 0x90 : 0x80;
			hi = c == 0xf4 ? 0x8f : 0xbf;
		} else {
			return 0;
		}
		if (s[1] < lo || s[1] > hi)
			return 0;
		for (k = 2; k < len; k++)
			if ((s[k] & 0xc0) != 0x80)
				return 0;
		s += len;
	}
	return 1;
}

static inline void ksft_metric_add_u_(struct ksft_metric_sb_ *sb,
				      unsigned int u)
{
	char buf[12];

	snprintf(buf, sizeof(buf), "\\u%04x", u & 0xffff);
	ksft_metric_sb_add_(sb, buf, 6);
}

/* A JSON string as Python's json.dumps() writes it (ensure_ascii). */
static inline void ksft_metric_add_str_(struct ksft_metric_sb_ *sb,
					const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned int c, len, k;

	ksft_metric_sb_add_(sb, "\"", 1);
	while ((c = *s)) {
		const char *esc = NULL;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			ksft_metric_sb_add_(sb, (const char *)s++, 1);
			continue;
		}
		if (c < 0x80) {
			switch (c) {
			case '"':
				esc = "\\\"";
				break;
			case '\\':
				esc = "\\\\";
				break;
			case '\n':
				esc = "\\n";
				break;
			case '\r':
				esc = "\\r";
				break;
			case '\t':
				esc = "\\t";
				break;
			case '\b':
				esc = "\\b";
				break;
			case '\f':
				esc = "\\f";
				break;
			}
			if (esc)
				ksft_metric_sb_adds_(sb, esc);
			else
				ksft_metric_add_u_(sb, c);
			s++;
			continue;
		}
		len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		c &= 0x7f >> len;
		for (k = 1; k < len; k++)
			c = (c << 6) | (s[k] & 0x3f);
		s += len;
		if (c >= 0x10000) {
			c -= 0x10000;
			ksft_metric_add_u_(sb, 0xd800 | (c >> 10));
			ksft_metric_add_u_(sb, 0xdc00 | (c & 0x3ff));
		} else {
			ksft_metric_add_u_(sb, c);
		}
	}
	ksft_metric_sb_add_(sb, "\"", 1);
}

/*
 * Is there a decimal of @p significant digits that reads back as @v? The
 * nearest one (printf rounds exactly), or for a power of two, whose gap
 * below is half the gap above, the next one up. Its digits go to @dig
 * and its decimal exponent to @exp.
 */
static inline int ksft_metric_digits_(double v, int p, char *dig, int *exp)
{
	char txt[48], *e;
	int n = 0, i;

	snprintf(txt, sizeof(txt), "%.*e", p - 1, v);
	if (strtod(txt, NULL) == v)
		goto take;
	if (fabs(strtod(txt, NULL)) > fabs(v))
		return 0;
	/* The next p-digit decimal up: add one in the last place. */
	for (i = (int)(strchr(txt, 'e') - txt) - 1; i >= 0; i--) {
		if (txt[i] == '.')
			continue;
		if (txt[i] == '-')
			break;
		if (txt[i] != '9') {
			txt[i]++;
			break;
		}
		txt[i] = '0';
	}
	if (i < 0 || txt[i] == '-') {
		/* 9.99e+N became 0.00e+N: 1.00e+(N+1) */
		i++;
		txt[i] = '1';
		e = strchr(txt, 'e');
		snprintf(e, sizeof(txt) - (size_t)(e - txt), "e%d",
			 atoi(e + 1) + 1);
	}
	if (strtod(txt, NULL) != v)
		return 0;
take:
	for (i = 0; txt[i] != 'e'; i++)
		if (txt[i] >= '0' && txt[i] <= '9')
			dig[n++] = txt[i];
	while (n > 1 && dig[n - 1] == '0')
		n--;
	dig[n] = '\0';
	*exp = atoi(strchr(txt, 'e') + 1);
	return 1;
}

/* Python's repr(float): shortest round-trip digits ("0.1", "1e+16"). */
static inline void ksft_metric_add_double_(struct ksft_metric_sb_ *sb,
					   double v)
{
	char dig[24], out[48], *o = out;
	int lo = 1, hi = 17, exp = 0, n, i;

	if (v == 0) {
		ksft_metric_sb_adds_(sb, signbit(v) ? "-0.0" : "0.0");
		return;
	}
	while (lo < hi) {	/* fewest digits that read back */
		int mid = (lo + hi) / 2;

		if (ksft_metric_digits_(v, mid, dig, &exp))
			hi = mid;
		else
			lo = mid + 1;
	}
	ksft_metric_digits_(v, lo, dig, &exp);
	n = (int)strlen(dig);
	if (v < 0)
		*o++ = '-';
	if (exp < -4 || exp >= 16) {
		*o++ = dig[0];
		if (n > 1) {
			*o++ = '.';
			memcpy(o, dig + 1, n - 1);
			o += n - 1;
		}
		o += sprintf(o, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
	} else if (exp < 0) {
		*o++ = '0';
		*o++ = '.';
		for (i = -1; i > exp; i--)
			*o++ = '0';
		memcpy(o, dig, n);
		o += n;
	} else {
		for (i = 0; i <= exp || i < n; i++) {
			if (i == exp + 1)
				*o++ = '.';
			*o++ = i < n ? dig[i] : '0';
		}
		if (n <= exp + 1) {
			*o++ = '.';
			*o++ = '0';
		}
	}
	ksft_metric_sb_add_(sb, out, (size_t)(o - out));
}

static inline void ksft_metric_add_int_(struct ksft_metric_sb_ *sb,
					int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	ksft_metric_sb_adds_(sb, buf);
}

/* CLOCK_MONOTONIC as Python's time.monotonic() computes it. */
static inline double ksft_metric_seconds_(uint64_t ns)
{
	if (ns % 1000000000u == 0)
		return (double)(ns / 1000000000u);
	return (double)ns / 1e9;
}

/*
 * The "time" field: round(monotonic() - start, 6) as Python computes it,
 * the exact binary difference rounded half to even at the sixth decimal
 * (printf is exact) and read back as the nearest double.
 */
static inline double ksft_metric_time_(uint64_t now_ns, uint64_t start_ns)
{
	double now = ksft_metric_seconds_(now_ns);
	double start = ksft_metric_seconds_(start_ns);
	char buf[48];

	if (!(now > start))
		return 0.0;
	snprintf(buf, sizeof(buf), "%.6f", now - start);
	return strtod(buf, NULL);
}

static inline uint64_t ksft_metric_now_ns_(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- output -------------------------------------------------------- */

static inline int ksft_metric_write_fd_(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One whole line (prefix, tag, body, newline) to the sink. */
static inline int ksft_metric_emit_(const char *tag, const char *body,
				    size_t len, int flush)
{
	struct ksft_metric_sb_ line = { NULL, 0, 0, 0 };
	FILE *f = ksft_metric_st_.file ? ksft_metric_st_.file : stdout;
	sigset_t pipe, old;
	int ret = 0;

	ksft_metric_sb_add_(&line, ksft_metric_st_.prefix,
			    ksft_metric_st_.prefix_len);
	ksft_metric_sb_adds_(&line, tag);
	ksft_metric_sb_add_(&line, body, len);
	ksft_metric_sb_add_(&line, "\n", 1);
	if (line.oom)
		return ksft_metric_fail_(ENOMEM, "out of memory writing metric lines");
	/* A closed pipe is -EPIPE, not a dead test. */
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &old);
	if (ksft_metric_st_.fd >= 0) {
		ret = ksft_metric_write_fd_(ksft_metric_st_.fd, line.data,
					    line.len);
	} else {
		flockfile(f);
		if (fwrite(line.data, 1, line.len, f) != line.len ||
		    (flush && fflush(f)))
			ret = -(errno ? errno : EIO);
		funlockfile(f);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(line.data);
	if (ret)
		return ksft_metric_fail_(-ret, "writing metric lines: %s",
					 strerror(-ret));
	return 0;
}

/* ---- storage ------------------------------------------------------- */

/* Append @n bytes (and a '\n' when @nl) to a chunk list; NULL: no memory. */
static inline char *ksft_metric_store_(struct ksft_metric_chunk_ **head,
				       struct ksft_metric_chunk_ **tail,
				       const char *s, size_t n, int nl)
{
	struct ksft_metric_chunk_ *c = *tail;
	size_t len = c ? __atomic_load_n(&c->len, __ATOMIC_RELAXED) : 0;
	char *at;

	if (!c || c->cap - len < n + 1) {
		size_t cap = n + 1 > KSFT_METRIC_CHUNK_ ? n + 1 : KSFT_METRIC_CHUNK_;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = NULL;
		c->cap = cap;
		c->len = 0;
		len = 0;
		if (*tail)
			__atomic_store_n(&(*tail)->next, c, __ATOMIC_RELEASE);
		else
			__atomic_store_n(head, c, __ATOMIC_RELEASE);
		*tail = c;
	}
	at = c->data + len;
	memcpy(at, s, n);
	at[n] = nl ? '\n' : '\0';
	__atomic_store_n(&c->len, len + n + 1, __ATOMIC_RELEASE);
	return at;
}

static inline void ksft_metric_chunks_free_(struct ksft_metric_chunk_ *c)
{
	while (c) {
		struct ksft_metric_chunk_ *next = c->next;

		free(c);
		c = next;
	}
}

/* Drop the case's contents; under the lock, the case closed. */
static inline void ksft_metric_clear_(void)
{
	struct ksft_metric_pol_ *p = ksft_metric_st_.pols;
	struct ksft_metric_seen_ *s = ksft_metric_st_.seen;

	while (p) {
		struct ksft_metric_pol_ *next = p->next;

		free(p->name);
		free(p);
		p = next;
	}
	while (s) {
		struct ksft_metric_seen_ *next = s->next;

		free(s);
		s = next;
	}
	ksft_metric_chunks_free_(ksft_metric_st_.lines);
	ksft_metric_chunks_free_(ksft_metric_st_.strings);
	ksft_metric_st_.pols = NULL;
	ksft_metric_st_.pols_tail = &ksft_metric_st_.pols;
	ksft_metric_st_.seen = NULL;
	ksft_metric_st_.lines = ksft_metric_st_.lines_tail = NULL;
	ksft_metric_st_.strings = ksft_metric_st_.strings_tail = NULL;
	ksft_metric_st_.reporting = 0;
	ksft_metric_rejects_.n = 0;
	ksft_metric_rejects_.more = 0;
}

static inline struct ksft_metric_seen_ *ksft_metric_seen_find_(const char *name)
{
	struct ksft_metric_seen_ *s;

	for (s = ksft_metric_st_.seen; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

static inline int ksft_metric_case_ours_(void)
{
	return __atomic_load_n(&ksft_metric_st_.open, __ATOMIC_ACQUIRE) &&
	       __atomic_load_n(&ksft_metric_st_.owner, __ATOMIC_RELAXED) ==
	       getpid();
}

/* ---- refused calls ------------------------------------------------- */

/* Copy @src into @dst of @size, never cutting a UTF-8 sequence in two. */
static inline void ksft_metric_copy_(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size) {
		n = size - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * The end of a recording call: a refusal (@ret < 0) while this process's
 * case is open is kept with the thread's message, for a warning line at
 * the case's end; a success clears the message. @return @ret.
 */
static inline int ksft_metric_result_(const char *call, const char *name,
				      int ret)
{
	const char *msg = ksft_metric_msg_;
	struct ksft_metric_reject_ *r;
	size_t i;

	if (ret >= 0) {
		ksft_metric_msg_[0] = '\0';
		return ret;
	}
	pthread_mutex_lock(&ksft_metric_st_.lock);
	if (!ksft_metric_case_ours_())
		goto out;
	if (!name || !ksft_metric_utf8_ok_(name))
		name = "";
	for (i = 0; i < ksft_metric_rejects_.n; i++) {
		r = &ksft_metric_rejects_.v[i];
		if (r->err == -ret && !strcmp(r->call, call) &&
		    !strncmp(r->name, name, sizeof(r->name) - 1) &&
		    !strncmp(r->msg, msg, sizeof(r->msg) - 1)) {
			r->count++;
			goto out;
		}
	}
	if (ksft_metric_rejects_.n == KSFT_METRIC_REJECTS_) {
		ksft_metric_rejects_.more++;
		goto out;
	}
	r = &ksft_metric_rejects_.v[ksft_metric_rejects_.n++];
	ksft_metric_copy_(r->call, sizeof(r->call), call);
	ksft_metric_copy_(r->name, sizeof(r->name), name);
	ksft_metric_copy_(r->msg, sizeof(r->msg), msg);
	r->err = -ret;
	r->count = 1;
out:
	pthread_mutex_unlock(&ksft_metric_st_.lock);
	return ret;
}

/* {"call":"ksft_metric_int","count":1,"errno":"EINVAL","message":"...","name":"x"} */
static inline void ksft_metric_format_reject_(struct ksft_metric_sb_ *sb,
					      const struct ksft_metric_reject_ *r)
{
	static const struct {
		int err;
		const char *name;
	} errnos[] = {
		{ EINVAL, "EINVAL" }, { EPERM, "EPERM" }, { EEXIST, "EEXIST" },
		{ EALREADY, "EALREADY" }, { ENOBUFS, "ENOBUFS" },
		{ ENOMEM, "ENOMEM" }, { ERANGE, "ERANGE" }, { EBADF, "EBADF" },
		{ EIO, "EIO" }, { EPIPE, "EPIPE" }, { ENOSPC, "ENOSPC" },
	};
	const char *en = NULL;
	char num[24];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errnos); i++)
		if (errnos[i].err == r->err)
			en = errnos[i].name;
	ksft_metric_sb_adds_(sb, "{\"call\":");
	ksft_metric_add_str_(sb, r->call);
	snprintf(num, sizeof(num), "%lu", r->count);
	ksft_metric_sb_adds_(sb, ",\"count\":");
	ksft_metric_sb_adds_(sb, num);
	ksft_metric_sb_adds_(sb, ",\"errno\":");
	if (en) {
		ksft_metric_add_str_(sb, en);
	} else {
		snprintf(num, sizeof(num), "%d", r->err);
		ksft_metric_sb_adds_(sb, num);
	}
	ksft_metric_sb_adds_(sb, ",\"message\":");
	ksft_metric_add_str_(sb, ksft_metric_utf8_ok_(r->msg) ? r->msg :
			     "(message not valid UTF-8)");
	ksft_metric_sb_adds_(sb, ",\"name\":");
	ksft_metric_add_str_(sb, r->name);
	ksft_metric_sb_adds_(sb, "}");
}

/* One warning line per refused call, after the observations. */
static inline int ksft_metric_emit_rejects_(int *lines)
{
	struct ksft_metric_sb_ *sb = &ksft_metric_st_.sb;
	struct ksft_metric_reject_ more;
	size_t i, n = ksft_metric_rejects_.n;
	int ret = 0;

	for (i = 0; i <= n && !ret; i++) {
		const struct ksft_metric_reject_ *r = &ksft_metric_rejects_.v[i];

		if (i == n) {	/* those past the cap: one line */
			if (!ksft_metric_rejects_.more)
				break;
			memset(&more, 0, sizeof(more));
			more.call[0] = '*';
			snprintf(more.msg, sizeof(more.msg),
				 "more refused calls than the %d kept per case",
				 KSFT_METRIC_REJECTS_);
			more.count = ksft_metric_rejects_.more;
			r = &more;
		}
		sb->len = 0;
		sb->oom = 0;
		ksft_metric_format_reject_(sb, r);
		if (sb->oom)
			return ksft_metric_fail_(ENOMEM, "out of memory writing metric lines");
		ret = ksft_metric_emit_("ktap-metric-warning-json: ", sb->data,
					sb->len, 0);
		(*lines)++;
	}
	return ret;
}

/* Strict mode: ksft_metric_set_strict() or KSFTMETRIC_STRICT=1. */
static inline int ksft_metric_strict_(void)
{
	const char *env = getenv("KSFTMETRIC_STRICT");

	return __atomic_load_n(&ksft_metric_rejects_.strict, __ATOMIC_RELAXED) ||
	       (env && !strcmp(env, "1"));
}

/* ---- abnormal ends ------------------------------------------------- */

static char ksft_metric_stage_[KSFT_METRIC_STAGE_];

struct ksft_metric_stager_ {
	int fd;
	size_t len, dropped;
};

/* Stage one line for write(2); a line that cannot fit is dropped whole. */
static inline void ksft_metric_stage_line_(struct ksft_metric_stager_ *st,
					   const char *tag, const char *body,
					   size_t n)
{
	size_t plen = ksft_metric_st_.prefix_len, tlen = strlen(tag);
	size_t need = plen + tlen + n + 1;

	if (need > sizeof(ksft_metric_stage_)) {
		st->dropped++;
		return;
	}
	if (st->len + need > sizeof(ksft_metric_stage_)) {
		ksft_metric_write_fd_(st->fd, ksft_metric_stage_, st->len);
		st->len = 0;
	}
	memcpy(ksft_metric_stage_ + st->len, ksft_metric_st_.prefix, plen);
	memcpy(ksft_metric_stage_ + st->len + plen, tag, tlen);
	memcpy(ksft_metric_stage_ + st->len + plen + tlen, body, n);
	ksft_metric_stage_[st->len + need - 1] = '\n';
	st->len += need;
}

/* The abort line's JSON into @body (96 bytes); @return its length. */
static inline size_t ksft_metric_abort_body_(char *body, size_t dropped,
					     const char *reason, int status)
{
	char num[24];
	size_t n = 0, k;
	unsigned long v;

#define KSFT_METRIC_CAT_(s) do {					\
		k = strlen(s);						\
		memcpy(body + n, s, k);					\
		n += k;							\
	} while (0)
#define KSFT_METRIC_NUM_(x) do {					\
		v = (x);						\
		k = sizeof(num);					\
		do {							\
			num[--k] = (char)('0' + v % 10);		\
		} while ((v /= 10));					\
		memcpy(body + n, num + k, sizeof(num) - k);		\
		n += sizeof(num) - k;					\
	} while (0)
	KSFT_METRIC_CAT_("{");
	if (dropped) {
		KSFT_METRIC_CAT_("\"dropped\":");
		KSFT_METRIC_NUM_(dropped);
		KSFT_METRIC_CAT_(",");
	}
	KSFT_METRIC_CAT_("\"reason\":\"");
	KSFT_METRIC_CAT_(reason);
	KSFT_METRIC_CAT_("\"");
	if (status >= 0) {
		KSFT_METRIC_CAT_(",\"status\":");
		KSFT_METRIC_NUM_((unsigned long)status);
	}
	KSFT_METRIC_CAT_("}");
#undef KSFT_METRIC_CAT_
#undef KSFT_METRIC_NUM_
	return n;
}

/*
 * A fatal signal with the case open: write what is committed, without
 * locks or allocation (another thread may be appending: it only ever
 * publishes whole lines), then die of the same signal.
 */
static inline void ksft_metric_on_signal_(int sig)
{
	static const char *const names[] = {
		[SIGTERM] = "SIGTERM", [SIGINT] = "SIGINT", [SIGHUP] = "SIGHUP",
		[SIGQUIT] = "SIGQUIT", [SIGABRT] = "SIGABRT",
	};
	struct ksft_metric_stager_ st = { -1, 0, 0 };
	struct ksft_metric_chunk_ *c;
	struct ksft_metric_pol_ *p;
	int saved = errno;
	char abort[96];
	size_t n;

	if (!ksft_metric_case_ours_() ||
	    !__atomic_exchange_n(&ksft_metric_st_.open, 0, __ATOMIC_ACQ_REL))
		goto out;
	st.fd = ksft_metric_st_.fd >= 0 ? ksft_metric_st_.fd :
		fileno(ksft_metric_st_.file ? ksft_metric_st_.file : stdout);
	for (p = __atomic_load_n(&ksft_metric_st_.pols, __ATOMIC_ACQUIRE);
	     p && !ksft_metric_st_.stream;
	     p = __atomic_load_n(&p->next, __ATOMIC_ACQUIRE)) {
		const char *body = __atomic_load_n(&p->body, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&p->observed, __ATOMIC_ACQUIRE))
			ksft_metric_stage_line_(&st, "ktap-metric-policy-json: ",
						body, strlen(body));
	}
	for (c = __atomic_load_n(&ksft_metric_st_.lines, __ATOMIC_ACQUIRE); c;
	     c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE)) {
		size_t len = __atomic_load_n(&c->len, __ATOMIC_ACQUIRE), at = 0;

		while (at < len) {
			const char *nl = memchr(c->data + at, '\n', len - at);
			size_t l = (size_t)(nl - (c->data + at));

			ksft_metric_stage_line_(&st, "ktap-metric-json: ",
						c->data + at, l);
			at += l + 1;
		}
	}
	n = ksft_metric_abort_body_(abort, st.dropped,
				    sig < (int)(ARRAY_SIZE(names)) &&
				    names[sig] ? names[sig] : "signal", -1);
	ksft_metric_stage_line_(&st, "ktap-metric-abort-json: ", abort, n);
	ksft_metric_write_fd_(st.fd, ksft_metric_stage_, st.len);
out:
	errno = saved;
	raise(sig);	/* SA_RESETHAND restored the default */
}

static inline int ksft_metric_flush_locked_(void);

/* exit() with the case open: the ordinary flush, then the abort line. */
static inline void ksft_metric_exit_flush_(int status)
{
	char abort[96];
	size_t n;

	pthread_mutex_lock(&ksft_metric_st_.lock);
	if (ksft_metric_case_ours_()) {
		ksft_metric_flush_locked_();
		n = ksft_metric_abort_body_(abort, 0, "exit", status);
		ksft_metric_emit_("ktap-metric-abort-json: ", abort, n, 1);
	}
	pthread_mutex_unlock(&ksft_metric_st_.lock);
}

#ifdef __GLIBC__
static inline void ksft_metric_on_exit_(int status, void *arg)
{
	(void)arg;
	ksft_metric_exit_flush_(status & 0xff);
}
#else
static inline void ksft_metric_on_exit_(void)
{
	ksft_metric_exit_flush_(-1);
}
#endif

static inline void ksft_metric_install_(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT };
	struct sigaction sa, old;
	size_t i;

#ifdef __GLIBC__
	on_exit(ksft_metric_on_exit_, NULL);
#else
	atexit(ksft_metric_on_exit_);
#endif
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ksft_metric_on_signal_;
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* Never in place of the test's own handler. */
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		if (!sigaction(sigs[i], NULL, &old) &&
		    old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
			sigaction(sigs[i], &sa, NULL);
}

/* fork(): the child never inherits the lock held, nor the parent's case. */
static inline void ksft_metric_fork_prepare_(void)
{
	pthread_mutex_lock(&ksft_metric_st_.lock);
}

static inline void ksft_metric_fork_parent_(void)
{
	pthread_mutex_unlock(&ksft_metric_st_.lock);
}

static inline void ksft_metric_fork_child_(void)
{
	__atomic_store_n(&ksft_metric_st_.open, 0, __ATOMIC_RELAXED);
	ksft_metric_st_.reporting = 0;
	pthread_mutex_unlock(&ksft_metric_st_.lock);
}

static void __attribute__((constructor, unused)) ksft_metric_atfork_(void)
{
	pthread_atfork(ksft_metric_fork_prepare_, ksft_metric_fork_parent_,
		       ksft_metric_fork_child_);
}

/* ---- case lifecycle ------------------------------------------------ */

static inline int ksft_metric_set_stream(int enable)
{
	__atomic_store_n(&ksft_metric_st_.stream_setting, !!enable,
			 __ATOMIC_RELAXED);
	return 0;
}

static inline int ksft_metric_case_is_open(void)
{
	return ksft_metric_case_ours_();
}

static inline int ksft_metric_case_begin(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const char *env = getenv("KSFTMETRIC_STREAM");
	int ret = 0;

	pthread_once(&once, ksft_metric_install_);
	pthread_mutex_lock(&ksft_metric_st_.lock);
	if (ksft_metric_case_ours_()) {
		ret = ksft_metric_fail_(EBUSY, "a test case is already open; end it first");
		goto out;
	}
	ksft_metric_clear_();
	ksft_metric_st_.stream = ksft_metric_st_.stream_setting ||
				 (env && env[0] && strcmp(env, "0"));
	ksft_metric_st_.start_ns = ksft_metric_now_ns_();
	__atomic_store_n(&ksft_metric_st_.owner, getpid(), __ATOMIC_RELAXED);
	__atomic_store_n(&ksft_metric_st_.open, 1, __ATOMIC_RELEASE);
	if (ksft_metric_st_.stream)
		ksft_metric_emit_("ktap-metric-stream-json: ",
				  "{\"state\":\"begin\"}", 17, 1);
out:
	pthread_mutex_unlock(&ksft_metric_st_.lock);
	return ret;
}

/* Write the case's lines and close it; @return the count. Under the lock. */
static inline int ksft_metric_flush_locked_(void)
{
	struct ksft_metric_chunk_ *c;
	struct ksft_metric_pol_ *p;
	int lines = 0, ret = 0;

	__atomic_store_n(&ksft_metric_st_.open, 0, __ATOMIC_RELEASE);
	for (p = ksft_metric_st_.pols; p && !ret && !ksft_metric_st_.stream;
	     p = p->next) {
		if (!p->observed)
			continue;
		ret = ksft_metric_emit_("ktap-metric-policy-json: ", p->body,
					strlen(p->body), 0);
		lines++;
	}
	if (!ret && ksft_metric_st_.stream) {
		ret = ksft_metric_emit_("ktap-metric-stream-json: ",
					"{\"state\":\"end\"}", 15, 0);
		lines++;
	}
	for (c = ksft_metric_st_.lines; c && !ret; c = c->next) {
		size_t at = 0;

		while (at < c->len && !ret) {
			const char *nl = memchr(c->data + at, '\n', c->len - at);
			size_t n = (size_t)(nl - (c->data + at));

			ret = ksft_metric_emit_("ktap-metric-json: ",
						c->data + at, n, 0);
			at += n + 1;
			lines++;
		}
	}
	if (!ret)
		ret = ksft_metric_emit_rejects_(&lines);
	if (!ret && ksft_metric_st_.fd < 0 &&
	    fflush(ksft_metric_st_.file ? ksft_metric_st_.file : stdout))
		ret = ksft_metric_fail_(errno, "writing metric lines: %s",
					strerror(errno));
	ksft_metric_clear_();
	return ret ? ret : lines;
}

/*
 * ksft_metric_case_end() - write the case's lines and close it
 *
 * @return the number of lines written (policies, observations, refused
 * calls), -EPERM without an open case, a write error, or -ECANCELED in
 * strict mode when a call of the case was refused (after its lines).
 */
static inline int ksft_metric_case_end(void)
{
	static struct ksft_metric_reject_ first;
	unsigned long refused = 0;
	size_t i;
	int ret;

	pthread_mutex_lock(&ksft_metric_st_.lock);
	if (!ksft_metric_case_ours_()) {
		ret = ksft_metric_fail_(EPERM, "no test case is open");
		goto out;
	}
	for (i = 0; i < ksft_metric_rejects_.n; i++)
		refused += ksft_metric_rejects_.v[i].count;
	refused += ksft_metric_rejects_.more;
	if (refused)
		first = ksft_metric_rejects_.v[0];
	ret = ksft_metric_flush_locked_();
	if (ret >= 0 && refused && ksft_metric_strict_())
		ret = ksft_metric_fail_(ECANCELED,
			"strict mode: %lu producer call%s refused in this test case; first: %s: %s",
			refused, refused == 1 ? " was" : "s were", first.call,
			first.msg);
out:
	pthread_mutex_unlock(&ksft_metric_st_.lock);
	return ret;
}

/*
 * ksft_metric_set_strict() - fail a case whose producer calls were refused
 *
 * With @enable (or KSFTMETRIC_STRICT=1), ksft_metric_case_end() returns
 * -ECANCELED after writing the lines of a case that had a refused call.
 */
static inline int ksft_metric_set_strict(int enable)
{
	__atomic_store_n(&ksft_metric_rejects_.strict, !!enable,
			 __ATOMIC_RELAXED);
	return ksft_metric_result_(__func__, NULL, 0);
}

/* ---- observations -------------------------------------------------- */

#define KSFT_METRIC_NONFINITE_(d) (isnan(d) ? "NaN" : "infinite")

/* What needs no lock: NULLs, types, finiteness, duplicate keys. */
static inline int ksft_metric_check_(const char *name, const char *shape,
				     const struct ksft_metric_label *labels,
				     size_t n_labels)
{
	size_t i, j;

	if (!name)
		return ksft_metric_fail_(EINVAL, "metric name is NULL");
	if (!name[0])
		return ksft_metric_fail_(EINVAL, "metric name is empty");
	if (!shape)
		return ksft_metric_fail_(EINVAL, "metric %s: shape is NULL", name);
	if (!shape[0])
		return ksft_metric_fail_(EINVAL, "metric %s: shape is empty", name);
	if (n_labels && !labels)
		return ksft_metric_fail_(EINVAL, "metric %s: labels array is NULL",
					 name);
	if (n_labels > KSFT_METRIC_MAX_LABELS)
		return ksft_metric_fail_(EINVAL, "metric %s: %zu labels, at most %d allowed",
					 name, n_labels, KSFT_METRIC_MAX_LABELS);
	for (i = 0; i < n_labels; i++) {
		const struct ksft_metric_label *l = &labels[i];

		if (!l->key)
			return ksft_metric_fail_(EINVAL, "metric %s: label %zu has no name",
						 name, i);
		switch (l->value.type) {
		case KSFT_METRIC_STRING:
			if (!l->value.u.s)
				return ksft_metric_fail_(EINVAL,
					"metric %s: label %s value is NULL",
					name, l->key);
			break;
		case KSFT_METRIC_INT:
			break;
		case KSFT_METRIC_BOOL:
			if (l->value.u.b != 0 && l->value.u.b != 1)
				return ksft_metric_fail_(EINVAL,
					"metric %s: label %s boolean is %d, not 0 or 1",
					name, l->key, l->value.u.b);
			break;
		case KSFT_METRIC_DOUBLE:
			if (!isfinite(l->value.u.d))
				return ksft_metric_fail_(EINVAL, "metric %s: label %s value is %s",
							 name, l->key,
							 KSFT_METRIC_NONFINITE_(l->value.u.d));
			break;
		default:
			return ksft_metric_fail_(EINVAL, "metric %s: label %s has unknown type %d",
						 name, l->key, l->value.type);
		}
		for (j = 0; j < i; j++)
			if (!strcmp(labels[j].key, l->key))
				return ksft_metric_fail_(EINVAL, "metric %s: label %s given twice",
							 name, l->key);
	}
	return 0;
}

/* Text checks, in the order libksftmetric makes them. */
static inline int ksft_metric_check_text_(const char *name, const char *shape,
					  const struct ksft_metric_label *labels,
					  size_t n_labels)
{
	static const char *const reserved[] = { "name", "shape", "value", "time" };
	size_t i, k;

	if (!ksft_metric_utf8_ok_(name))
		return ksft_metric_fail_(EINVAL, "metric name is not valid UTF-8");
	if (!ksft_metric_utf8_ok_(shape))
		return ksft_metric_fail_(EINVAL, "metric %s: shape is not valid UTF-8",
					 name);
	for (i = 0; i < n_labels; i++) {
		const char *key = labels[i].key;

		if (!ksft_metric_utf8_ok_(key))
			return ksft_metric_fail_(EINVAL,
				"metric %s: a label name is not valid UTF-8",
				name);
		if (!key[0])
			return ksft_metric_fail_(EINVAL, "metric %s: label name is empty",
						 name);
		for (k = 0; k < 4; k++)
			if (!strcmp(key, reserved[k]))
				return ksft_metric_fail_(EINVAL,
					"metric label uses reserved name: %s",
					key);
		if (labels[i].value.type == KSFT_METRIC_STRING &&
		    !ksft_metric_utf8_ok_(labels[i].value.u.s))
			return ksft_metric_fail_(EINVAL,
				"metric %s: label %s value is not valid UTF-8",
				name, key);
	}
	return 0;
}

enum { KSFT_METRIC_V_INT_, KSFT_METRIC_V_DOUBLE_, KSFT_METRIC_V_ARRAY_ };

struct ksft_metric_obs_ {
	const char *name, *shape;
	const struct ksft_metric_label *labels;
	size_t n_labels;
	int kind;
	int64_t i;
	double d;
	const double *values;
	const unsigned char *present;
	size_t n;
};

static inline void ksft_metric_add_value_(struct ksft_metric_sb_ *sb,
					  const struct ksft_metric_obs_ *o)
{
	size_t i;

	if (o->kind == KSFT_METRIC_V_INT_) {
		ksft_metric_add_int_(sb, o->i);
		return;
	}
	if (o->kind == KSFT_METRIC_V_DOUBLE_) {
		ksft_metric_add_double_(sb, o->d);
		return;
	}
	ksft_metric_sb_add_(sb, "[", 1);
	for (i = 0; i < o->n; i++) {
		if (i)
			ksft_metric_sb_add_(sb, ",", 1);
		if (o->present && !o->present[i])
			ksft_metric_sb_adds_(sb, "null");
		else
			ksft_metric_add_double_(sb, o->values[i]);
	}
	ksft_metric_sb_add_(sb, "]", 1);
}

static inline void ksft_metric_add_label_(struct ksft_metric_sb_ *sb,
					  const struct ksft_metric_value *v)
{
	switch (v->type) {
	case KSFT_METRIC_STRING:
		ksft_metric_add_str_(sb, v->u.s);
		break;
	case KSFT_METRIC_INT:
		ksft_metric_add_int_(sb, v->u.i);
		break;
	case KSFT_METRIC_DOUBLE:
		ksft_metric_add_double_(sb, v->u.d);
		break;
	default:
		ksft_metric_sb_adds_(sb, v->u.b ? "true" : "false");
	}
}

/* The observation's JSON object, keys sorted as json.dumps(sort_keys). */
static inline void ksft_metric_format_obs_(struct ksft_metric_sb_ *sb,
					   const struct ksft_metric_obs_ *o,
					   double t)
{
	static const char *const fixed[] = { "name", "shape", "time", "value" };
	uint16_t ord[KSFT_METRIC_MAX_LABELS];
	size_t i, j, k = 0, n = o->n_labels;

	for (i = 0; i < n; i++) {
		for (j = i; j > 0 &&
		     strcmp(o->labels[ord[j - 1]].key, o->labels[i].key) > 0; j--)
			ord[j] = ord[j - 1];
		ord[j] = (uint16_t)i;
	}
	ksft_metric_sb_add_(sb, "{", 1);
	for (i = 0; i < n || k < 4;) {
		const struct ksft_metric_label *l = i < n ? &o->labels[ord[i]] : NULL;

		if (i + k)
			ksft_metric_sb_add_(sb, ",", 1);
		if (l && (k == 4 || strcmp(fixed[k], l->key) > 0)) {
			ksft_metric_add_str_(sb, l->key);
			ksft_metric_sb_add_(sb, ":", 1);
			ksft_metric_add_label_(sb, &l->value);
			i++;
			continue;
		}
		ksft_metric_sb_add_(sb, "\"", 1);
		ksft_metric_sb_adds_(sb, fixed[k]);
		ksft_metric_sb_add_(sb, "\":", 2);
		if (k == 0)
			ksft_metric_add_str_(sb, o->name);
		else if (k == 1)
			ksft_metric_add_str_(sb, o->shape);
		else if (k == 2)
			ksft_metric_add_double_(sb, t);
		else
			ksft_metric_add_value_(sb, o);
		k++;
	}
	ksft_metric_sb_add_(sb, "}", 1);
}

static inline int ksft_metric_record_(const struct ksft_metric_obs_ *o)
{
	struct ksft_metric_sb_ *sb = &ksft_metric_st_.sb;
	struct ksft_metric_seen_ *seen, *fresh = NULL;
	size_t i;
	int ret;

	ret = ksft_metric_check_(o->name, o->shape, o->labels, o->n_labels);
	if (ret)
		return ret;
	for (i = 0; o->kind == KSFT_METRIC_V_ARRAY_ && i < o->n; i++)
		if ((!o->present || o->present[i]) && !isfinite(o->values[i]))
			return ksft_metric_fail_(EINVAL, "metric %s: value[%zu] is %s",
						 o->name, i,
						 KSFT_METRIC_NONFINITE_(o->values[i]));
	if (o->kind == KSFT_METRIC_V_DOUBLE_ && !isfinite(o->d))
		return ksft_metric_fail_(EINVAL, "metric %s: value is %s", o->name,
					 KSFT_METRIC_NONFINITE_(o->d));
	pthread_mutex_lock(&ksft_metric_st_.lock);
	if (!ksft_metric_case_ours_()) {
		ret = ksft_metric_fail_(EPERM, "ksft_metric() called outside of a test case");
		goto out;
	}
	ret = ksft_metric_check_text_(o->name, o->shape, o->labels, o->n_labels);
	if (ret)
		goto out;
	seen = ksft_metric_seen_find_(o->name);
	if (!seen) {	/* linked once its first line is kept */
		fresh = malloc(sizeof(*fresh) + strlen(o->name) + 1);
		if (!fresh)
			goto oom;
		memcpy(fresh->name, o->name, strlen(o->name) + 1);
		for (fresh->pol = ksft_metric_st_.pols; fresh->pol;
		     fresh->pol = fresh->pol->next)
			if (!strcmp(fresh->pol->name, o->name))
				break;
	}
	/* Stamped under the lock: lines stay in time order. */
	sb->len = 0;
	sb->oom = 0;
	ksft_metric_format_obs_(sb, o, ksft_metric_time_(ksft_metric_now_ns_(),
							 ksft_metric_st_.start_ns));
	if (sb->oom)
		goto oom;
	if (ksft_metric_st_.stream) {
		ret = ksft_metric_emit_("ktap-metric-json: ", sb->data, sb->len, 1);
		if (ret)
			goto out;
	} else if (!ksft_metric_store_(&ksft_metric_st_.lines,
				       &ksft_metric_st_.lines_tail,
				       sb->data, sb->len, 1)) {
		goto oom;
	}
	if (fresh) {
		fresh->next = ksft_metric_st_.seen;
		ksft_metric_st_.seen = fresh;
		seen = fresh;
		fresh = NULL;
		if (seen->pol)
			__atomic_store_n(&seen->pol->observed, 1,
					 __ATOMIC_RELEASE);
	}
	goto out;
oom:
	ret = ksft_metric_fail_(ENOMEM, "out of memory recording metric %s",
				o->name);
out:
	pthread_mutex_unlock(&ksft_metric_st_.lock);
	free(fresh);
	return ret;
}

static inline int ksft_metric_int(const char *name, const char *shape,
				  int64_t value,
				  const struct ksft_metric_label *labels,
				  size_t n_labels)
{
	struct ksft_metric_obs_ o = { name, shape, labels, n_labels,
				      KSFT_METRIC_V_INT_, value, 0, NULL, NULL, 0 };

	return ksft_metric_result_(__func__, name, ksft_metric_record_(&o));
}

static inline int ksft_metric_double(const char *name, const char *shape,
				     double value,
				     const struct ksft_metric_label *labels,
				     size_t n_labels)
{
	struct ksft_metric_obs_ o = { name, shape, labels, n_labels,
				      KSFT_METRIC_V_DOUBLE_, 0, value, NULL, NULL,
				      0 };

	return ksft_metric_result_(__func__, name, ksft_metric_record_(&o));
}

/* An array (one value per CPU); present[i] == 0 prints null. */
static inline int ksft_metric_array(const char *name, const char *shape,
				    const double *values,
				    const unsigned char *present, size_t n,
				    const struct ksft_metric_label *labels,
				    size_t n_labels)
{
	struct ksft_metric_obs_ o = { name, shape, labels, n_labels,
				      KSFT_METRIC_V_ARRAY_, 0, 0, values, present,
				      n };
	int ret = ksft_metric_check_(name, shape, labels, n_labels);

	if (!ret && n && !values)
		ret = ksft_metric_fail_(EINVAL, "metric %s: values array is NULL",
					name);
	else if (!ret)
		ret = ksft_metric_record_(&o);
	return ksft_metric_result_(__func__, name, ret);
}

/* A uint64_t counter; above INT64_MAX it is refused, never wrapped. */
static inline int ksft_metric_uint(const char *name, const char *shape,
				   uint64_t value,
				   const struct ksft_metric_label *labels,
				   size_t n_labels)
{
	if (value > (uint64_t)INT64_MAX) {
		if (!ksft_metric_case_ours_())
			return ksft_metric_fail_(EPERM,
				"ksft_metric() called outside of a test case");
		return ksft_metric_result_(__func__, name,
			ksft_metric_fail_(ERANGE, "metric %s: value %" PRIu64 " is outside int64",
					  name ? name : "(null)", value));
	}
	return ksft_metric_int(name, shape, (int64_t)value, labels, n_labels);
}

/* ---- policies ------------------------------------------------------ */

static inline int ksft_metric_pick_(const char *name, const char *field,
				    const char *s, const char *const *set,
				    const char **out)
{
	char words[160] = "";
	size_t i;

	for (i = 0; set[i]; i++) {
		if (!strcmp(s, set[i])) {
			*out = set[i];
			return 0;
		}
		if (i)
			strcat(words, ", ");
		strcat(words, set[i]);
	}
	if (!ksft_metric_utf8_ok_(s))
		return ksft_metric_fail_(EINVAL,
			"metric %s: %s is not valid UTF-8 (expected one of: %s)",
			name, field, words);
	return ksft_metric_fail_(EINVAL, "metric %s: unknown %s '%s' (expected one of: %s)",
				 name, field, s, words);
}

static inline int ksft_metric_pnum_(const char *name, const char *field,
				    const struct ksft_metric_value *in,
				    struct ksft_metric_pnum_ *out)
{
	out->type = in->type;
	switch (in->type) {
	case KSFT_METRIC_UNSET:
		return 0;
	case KSFT_METRIC_INT:
		out->i = in->u.i;
		return 0;
	case KSFT_METRIC_DOUBLE:
		if (!isfinite(in->u.d))
			return ksft_metric_fail_(EINVAL, "metric %s: %s is %s", name,
						 field,
						 KSFT_METRIC_NONFINITE_(in->u.d));
		out->d = in->u.d;
		return 0;
	default:
		return ksft_metric_fail_(EINVAL, "metric %s: %s must be a number",
					 name, field);
	}
}

/* Exact comparison of int64 and double, as Python compares them. */
static inline int ksft_metric_pcmp_(const struct ksft_metric_pnum_ *a,
				    const struct ksft_metric_pnum_ *b)
{
	long double x = a->type == KSFT_METRIC_INT ? (long double)a->i : a->d;
	long double y = b->type == KSFT_METRIC_INT ? (long double)b->i : b->d;

	return x < y ? -1 : x > y;
}

static inline int ksft_metric_psign_(const struct ksft_metric_pnum_ *a)
{
	struct ksft_metric_pnum_ zero = { KSFT_METRIC_INT, 0, 0 };

	return ksft_metric_pcmp_(a, &zero);
}

static inline int ksft_metric_peq_(const struct ksft_metric_pnum_ *a,
				   const struct ksft_metric_pnum_ *b)
{
	if (!a->type || !b->type)
		return a->type == b->type;
	return !ksft_metric_pcmp_(a, b);
}

static inline void ksft_metric_add_pnum_(struct ksft_metric_sb_ *sb,
					 const struct ksft_metric_pnum_ *n)
{
	if (n->type == KSFT_METRIC_INT)
		ksft_metric_add_int_(sb, n->i);
	else
		ksft_metric_add_double_(sb, n->d);
}

/* Validate @in into @p (strings point at static words or the caller's). */
static inline int ksft_metric_policy_(const char *name,
				      const struct ksft_metric_policy *in,
				      struct ksft_metric_pol_ *p)
{
	static const char *const summaries[] = { "last", "total", "p50", "p90",
		"p99", "max", "distribution", NULL };
	static const char *const comparisons[] = { "last", "total", "p50",
		"p90", "p99", "max", NULL };
	static const char *const betters[] = { "higher", "lower", NULL };
	static const char *const transforms[] = { "rate", NULL };
	static const char *const aggregations[] = { "busy-core-equivalents",
		NULL };
	struct ksft_metric_policy c = KSFT_METRIC_POLICY_INIT;
	size_t sz;
	int ret;

	memset(p, 0, sizeof(*p));
	if (in) {
		sz = in->sz;
		if (sz < sizeof(size_t) || sz % sizeof(size_t))
			return ksft_metric_fail_(EINVAL,
				"metric %s: policy sz %zu is not a struct size; initialise it with KSFT_METRIC_POLICY_INIT",
				name, sz);
		/* One struct version here: a larger one is from elsewhere. */
		if (sz > sizeof(c))
			return ksft_metric_fail_(EINVAL,
				"metric %s: policy has non-zero fields this library does not know (sz %zu > %zu)",
				name, sz, sizeof(c));
		memcpy(&c, in, sz < sizeof(c) ? sz : sizeof(c));
	}
	ret = ksft_metric_pick_(name, "summarize", c.summarize ? c.summarize :
				"total", summaries, &p->summarize);
	if (!ret && c.transform)
		ret = ksft_metric_pick_(name, "transform", c.transform,
					transforms, &p->transform);
	if (!ret && c.aggregation)
		ret = ksft_metric_pick_(name, "aggregation", c.aggregation,
					aggregations, &p->aggregation);
	if (ret)
		return ret;
	if (!c.regression_compare) {
		if (c.regression_better || c.regression_relative_tolerance.type ||
		    c.regression_absolute_tolerance.type)
			return ksft_metric_fail_(EINVAL,
				"metric %s: regression policy needs compare",
				name);
	} else {
		/* compare: any summary but "distribution" */
		ret = ksft_metric_pick_(name, "regression compare",
					c.regression_compare, comparisons,
					&p->compare);
		if (ret)
			return ret;
		if (!c.regression_better)
			return ksft_metric_fail_(EINVAL,
				"metric %s: regression policy needs better (higher or lower)",
				name);
		ret = ksft_metric_pick_(name, "regression better",
					c.regression_better, betters,
					&p->better);
		if (!ret)
			ret = ksft_metric_pnum_(name, "regression relative_tolerance",
						&c.regression_relative_tolerance,
						&p->rel);
		if (!ret)
			ret = ksft_metric_pnum_(name, "regression absolute_tolerance",
						&c.regression_absolute_tolerance,
						&p->abs);
		if (ret)
			return ret;
		if (!p->rel.type && !p->abs.type)
			return ksft_metric_fail_(EINVAL,
				"metric %s: regression policy needs relative_tolerance or absolute_tolerance",
				name);
		if (p->rel.type && ksft_metric_psign_(&p->rel) < 0)
			return ksft_metric_fail_(EINVAL,
				"metric %s: regression relative_tolerance is negative",
				name);
		if (p->abs.type && ksft_metric_psign_(&p->abs) < 0)
			return ksft_metric_fail_(EINVAL,
				"metric %s: regression absolute_tolerance is negative",
				name);
	}
	ret = ksft_metric_pnum_(name, "display_range min", &c.display_min,
				&p->min);
	if (!ret)
		ret = ksft_metric_pnum_(name, "display_range max", &c.display_max,
					&p->max);
	if (!ret)
		ret = ksft_metric_pnum_(name, "display_scale", &c.display_scale,
					&p->scale);
	if (ret)
		return ret;
	if (p->min.type && p->max.type && ksft_metric_pcmp_(&p->min, &p->max) > 0)
		return ksft_metric_fail_(EINVAL, "metric %s: display_range min is greater than max",
					 name);
	if (p->scale.type && ksft_metric_psign_(&p->scale) <= 0)
		return ksft_metric_fail_(EINVAL, "metric %s: display_scale must be positive",
					 name);
	if (c.display_label) {
		if (!c.display_label[0])
			return ksft_metric_fail_(EINVAL, "metric %s: display_label is empty",
						 name);
		if (!ksft_metric_utf8_ok_(c.display_label))
			return ksft_metric_fail_(EINVAL,
				"metric %s: display_label is not valid UTF-8",
				name);
	}
	p->label = c.display_label;
	return 0;
}

static inline int ksft_metric_pol_eq_(const struct ksft_metric_pol_ *a,
				      const struct ksft_metric_pol_ *b)
{
	return a->summarize == b->summarize && a->transform == b->transform &&
	       a->aggregation == b->aggregation && a->compare == b->compare &&
	       a->better == b->better && ksft_metric_peq_(&a->rel, &b->rel) &&
	       ksft_metric_peq_(&a->abs, &b->abs) &&
	       ksft_metric_peq_(&a->min, &b->min) &&
	       ksft_metric_peq_(&a->max, &b->max) &&
	       ksft_metric_peq_(&a->scale, &b->scale) &&
	       (a->label == b->label ||
		(a->label && b->label && !strcmp(a->label, b->label)));
}

/* The policy line's JSON object, keys sorted. */
static inline void ksft_metric_format_pol_(struct ksft_metric_sb_ *sb,
					   const char *name,
					   const struct ksft_metric_pol_ *p)
{
	char sep = '{';

#define KSFT_METRIC_KEY_(k) do {					\
		ksft_metric_sb_add_(sb, &sep, 1);			\
		ksft_metric_sb_adds_(sb, "\"" k "\":");		\
		sep = ',';						\
	} while (0)
	if (p->aggregation) {
		KSFT_METRIC_KEY_("aggregation");
		ksft_metric_add_str_(sb, p->aggregation);
	}
	if (p->label) {
		KSFT_METRIC_KEY_("display_label");
		ksft_metric_add_str_(sb, p->label);
	}
	if (p->min.type || p->max.type) {
		KSFT_METRIC_KEY_("display_range");
		if (p->max.type) {
			ksft_metric_sb_adds_(sb, "{\"max\":");
			ksft_metric_add_pnum_(sb, &p->max);
		}
		if (p->min.type) {
			ksft_metric_sb_adds_(sb, p->max.type ? ",\"min\":" :
					     "{\"min\":");
			ksft_metric_add_pnum_(sb, &p->min);
		}
		ksft_metric_sb_adds_(sb, "}");
	}
	if (p->scale.type) {
		KSFT_METRIC_KEY_("display_scale");
		ksft_metric_add_pnum_(sb, &p->scale);
	}
	KSFT_METRIC_KEY_("name");
	ksft_metric_add_str_(sb, name);
	if (p->compare) {
		KSFT_METRIC_KEY_("regression");
		if (p->abs.type) {
			ksft_metric_sb_adds_(sb, "{\"absolute_tolerance\":");
			ksft_metric_add_pnum_(sb, &p->abs);
			ksft_metric_sb_adds_(sb, ",\"better\":\"");
		} else {
			ksft_metric_sb_adds_(sb, "{\"better\":\"");
		}
		ksft_metric_sb_adds_(sb, p->better);
		ksft_metric_sb_adds_(sb, "\",\"compare\":\"");
		ksft_metric_sb_adds_(sb, p->compare);
		ksft_metric_sb_adds_(sb, "\"");
		if (p->rel.type) {
			ksft_metric_sb_adds_(sb, ",\"relative_tolerance\":");
			ksft_metric_add_pnum_(sb, &p->rel);
		}
		ksft_metric_sb_adds_(sb, "}");
	}
	KSFT_METRIC_KEY_("summarize");
	ksft_metric_add_str_(sb, p->summarize);
	if (p->transform) {
		KSFT_METRIC_KEY_("transform");
		ksft_metric_add_str_(sb, p->transform);
	}
#undef KSFT_METRIC_KEY_
	ksft_metric_sb_adds_(sb, "}");
}

/* The work of ksft_metric_aggregate(), named @func in its messages. */
static inline int ksft_metric_aggregate_(const char *func, const char *name,
					 const struct ksft_metric_policy *policy)
{
	struct ksft_metric_sb_ *sb = &ksft_metric_st_.sb;
	struct ksft_metric_pol_ p, *e;
	struct ksft_metric_seen_ *seen;
	const char *body;
	int ret;

	if (!name)
		return ksft_metric_fail_(EINVAL, "metric name is NULL");
	if (!name[0])
		return ksft_metric_fail_(EINVAL, "metric name is empty");
	if (!ksft_metric_utf8_ok_(name))
		return ksft_metric_fail_(EINVAL, "policy metric name is not valid UTF-8");
	ret = ksft_metric_policy_(name, policy, &p);
	if (ret)
		return ret;
	pthread_mutex_lock(&ksft_metric_st_.lock);
	if (!ksft_metric_case_ours_()) {
		ret = ksft_metric_fail_(EPERM, "%s() called outside of a test case",
					func);
		goto out;
	}
	for (e = ksft_metric_st_.pols; e; e = e->next)
		if (!strcmp(e->name, name))
			break;
	if (e && !ksft_metric_pol_eq_(e, &p)) {
		ret = ksft_metric_fail_(EEXIST, "Conflicting aggregation for metric %s",
					name);
		goto out;
	}
	seen = ksft_metric_seen_find_(name);
	if (!e && seen) {
		ret = ksft_metric_fail_(EALREADY,
			"Aggregation registered after metric %s was recorded",
			name);
		goto out;
	}
	sb->len = 0;
	sb->oom = 0;
	ksft_metric_format_pol_(sb, name, &p);
	if (sb->oom)
		goto oom;
	body = ksft_metric_store_(&ksft_metric_st_.strings,
				  &ksft_metric_st_.strings_tail, sb->data,
				  sb->len, 0);
	if (!body)
		goto oom;
	if (e) {
		/* Equal: the latest spelling (0 vs 0.0) is what is written. */
		__atomic_store_n(&e->body, body, __ATOMIC_RELEASE);
		goto out;
	}
	/* Compared with later registrations: keep a copy of the label. */
	if (p.label) {
		p.label = ksft_metric_store_(&ksft_metric_st_.strings,
					     &ksft_metric_st_.strings_tail,
					     p.label, strlen(p.label), 0);
		if (!p.label)
			goto oom;
	}
	e = malloc(sizeof(*e));
	if (!e)
		goto oom;
	*e = p;
	e->next = NULL;
	e->body = body;
	e->observed = 0;
	e->name = strdup(name);
	if (!e->name) {
		free(e);
		goto oom;
	}
	if (ksft_metric_st_.stream) {
		ret = ksft_metric_emit_("ktap-metric-policy-json: ", body,
					sb->len, 1);
		if (ret) {	/* not registered: a retry may succeed */
			free(e->name);
			free(e);
			goto out;
		}
	}
	__atomic_store_n(ksft_metric_st_.pols_tail, e, __ATOMIC_RELEASE);
	ksft_metric_st_.pols_tail = &e->next;
	goto out;
oom:
	ret = ksft_metric_fail_(ENOMEM, "out of memory registering metric %s",
				name);
out:
	pthread_mutex_unlock(&ksft_metric_st_.lock);
	return ret;
}

/*
 * ksft_metric_aggregate() - register how metric @name is processed
 *
 * Before its first observation; NULL is the default (summarize "total").
 * Registering an equal policy again is fine (the latest spelling is kept),
 * a different one is -EEXIST, one after the metric was observed -EALREADY.
 */
static inline int ksft_metric_aggregate(const char *name,
					const struct ksft_metric_policy *policy)
{
	return ksft_metric_result_(__func__, name,
				   ksft_metric_aggregate_(__func__, name, policy));
}

/* ---- reporting scope and output ------------------------------------ */

/* Enter (@enable) or leave a reporting scope; @return the new depth. */
static inline int ksft_metric_reporting(int enable)
{
	int ret;

	pthread_mutex_lock(&ksft_metric_st_.lock);
	if (!ksft_metric_case_ours_())
		ret = ksft_metric_fail_(EPERM, "%s() called outside of a test case",
					__func__);
	else if (!enable && !ksft_metric_st_.reporting)
		ret = ksft_metric_fail_(EINVAL,
			"metric reporting scope left more often than entered");
	else
		ret = ksft_metric_st_.reporting += enable ? 1 : -1;
	pthread_mutex_unlock(&ksft_metric_st_.lock);
	return ksft_metric_result_(__func__, NULL, ret);
}

static inline int ksft_metric_reporting_enabled(void)
{
	return ksft_metric_case_ours_() && ksft_metric_st_.reporting > 0;
}

static inline int ksft_metric_set_output_file(FILE *f)
{
	if (!f)
		return ksft_metric_fail_(EINVAL, "output file is NULL");
	pthread_mutex_lock(&ksft_metric_st_.lock);
	ksft_metric_st_.file = f;
	ksft_metric_st_.fd = -1;
	pthread_mutex_unlock(&ksft_metric_st_.lock);
	return 0;
}

static inline int ksft_metric_set_output_fd(int fd)
{
	if (fd < 0)
		return ksft_metric_fail_(EBADF, "output fd %d is not valid", fd);
	pthread_mutex_lock(&ksft_metric_st_.lock);
	ksft_metric_st_.fd = fd;
	pthread_mutex_unlock(&ksft_metric_st_.lock);
	return 0;
}

/* Text before every line (default "# "); at most 255 bytes here. */
static inline int ksft_metric_set_prefix(const char *prefix)
{
	size_t len;

	if (!prefix)
		return ksft_metric_fail_(EINVAL, "line prefix is NULL");
	if (strchr(prefix, '\n') || strchr(prefix, '\r'))
		return ksft_metric_fail_(EINVAL, "line prefix contains a line break");
	if (!ksft_metric_utf8_ok_(prefix))
		return ksft_metric_fail_(EINVAL, "line prefix is not valid UTF-8");
	len = strlen(prefix);
	if (len >= sizeof(ksft_metric_st_.prefix))
		return ksft_metric_fail_(EINVAL, "line prefix is longer than %zu bytes",
					 sizeof(ksft_metric_st_.prefix) - 1);
	pthread_mutex_lock(&ksft_metric_st_.lock);
	memcpy(ksft_metric_st_.prefix, prefix, len + 1);
	ksft_metric_st_.prefix_len = len;
	pthread_mutex_unlock(&ksft_metric_st_.lock);
	return 0;
}

/* ---- kselftest_harness.h ------------------------------------------- */

#ifdef __KSELFTEST_HARNESS_H
#include <setjmp.h>

/*
 * KSFT_METRIC_TEST(), KSFT_METRIC_TEST_F(), KSFT_METRIC_TEST_F_TIMEOUT():
 * TEST(), TEST_F(), TEST_F_TIMEOUT() whose body runs in a metric case,
 * opened and ended by the process that runs it, so its lines precede the
 * result line the harness prints after waitpid(). A failed ASSERT_*
 * longjmps out of the body: the macro catches it, ends the case and hands
 * the longjmp on. Lines are written through as recorded (a timeout's
 * SIGKILL keeps them, without the "end" frame that marks them complete)
 * unless KSFT_METRIC_HARNESS_BUFFERED is defined.
 */
#ifdef KSFT_METRIC_HARNESS_BUFFERED
#define KSFT_METRIC_HARNESS_STREAM_ 0
#else
#define KSFT_METRIC_HARNESS_STREAM_ 1
#endif

static inline pid_t ksft_metric_harness_begin_(void)
{
	if (KSFT_METRIC_HARNESS_STREAM_)
		ksft_metric_set_stream(1);
	if (ksft_metric_case_begin() < 0) {
		ksft_print_msg("ksft_metric_case_begin: %s\n", ksft_metric_errmsg());
		return 0;
	}
	return getpid();
}

static inline void ksft_metric_harness_end_(struct __test_metadata *_metadata,
					    pid_t opener)
{
	if (!opener || getpid() != opener)
		return;
	if (ksft_metric_case_end() < 0) {
		ksft_print_msg("ksft_metric_case_end: %s\n", ksft_metric_errmsg());
		_metadata->exit_code = KSFT_FAIL;
	}
}

#define KSFT_METRIC_HARNESS_RUN_(call) do {				\
	jmp_buf ksftm_env_;						\
	pid_t ksftm_opener_;						\
									\
	memcpy(ksftm_env_, _metadata->env, sizeof(jmp_buf));		\
	ksftm_opener_ = ksft_metric_harness_begin_();			\
	if (setjmp(_metadata->env) == 0)				\
		call;							\
	memcpy(_metadata->env, ksftm_env_, sizeof(jmp_buf));		\
	ksft_metric_harness_end_(_metadata, ksftm_opener_);		\
} while (0)

#define KSFT_METRIC_TEST(test_name)					\
	static void ksft_metric_body_##test_name(			\
		struct __test_metadata *_metadata);			\
	TEST(test_name)							\
	{								\
		KSFT_METRIC_HARNESS_RUN_(				\
			ksft_metric_body_##test_name(_metadata));	\
	}								\
	static void ksft_metric_body_##test_name(			\
		struct __test_metadata *_metadata)

#define KSFT_METRIC_TEST_F_WITH_(harness_test, fixture_name, test_name)	\
	static void ksft_metric_body_##fixture_name##_##test_name(	\
		struct __test_metadata *_metadata,			\
		FIXTURE_DATA(fixture_name)*self,			\
		const FIXTURE_VARIANT(fixture_name)*variant);		\
	harness_test							\
	{								\
		KSFT_METRIC_HARNESS_RUN_(				\
			ksft_metric_body_##fixture_name##_##test_name(	\
				_metadata, self, variant));		\
	}								\
	static void ksft_metric_body_##fixture_name##_##test_name(	\
		struct __test_metadata *_metadata,			\
		FIXTURE_DATA(fixture_name)*self,			\
		const FIXTURE_VARIANT(fixture_name)*variant)

#define KSFT_METRIC_TEST_F(fixture_name, test_name)			\
	KSFT_METRIC_TEST_F_WITH_(TEST_F(fixture_name, test_name),	\
				 fixture_name, test_name)

#define KSFT_METRIC_TEST_F_TIMEOUT(fixture_name, test_name, timeout)	\
	KSFT_METRIC_TEST_F_WITH_(					\
		TEST_F_TIMEOUT(fixture_name, test_name, timeout),	\
		fixture_name, test_name)
#endif /* __KSELFTEST_HARNESS_H */

#endif /* __KSFT_METRIC_H */
