// SPDX-License-Identifier: GPL-2.0
/* Parse the per-CPU lines of /proc/stat, rejecting anything ambiguous. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_stat.h"
#include "sm_error.h"

static const char *const field_names[CPU_NFIELDS] = {
	"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"
};

static int is_space(char c)
{
	/* Python's str.split() separators that can occur inside a line. */
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Parse a whole token of decimal digits; @return 0, or -1 if not one. */
static int parse_u64(const char *p, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!len)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned)(p[i] - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int grow(struct cpu_snapshot *s, size_t need)
{
	size_t cap = s->cap ? s->cap : 64;
	uint64_t (*ticks)[CPU_NFIELDS];
	unsigned char *present;

	while (cap < need)
		cap *= 2;
	ticks = realloc(s->ticks, cap * sizeof(*ticks));
	if (!ticks)
		return sm_fail(-ENOMEM, "out of memory for %zu CPUs", need);
	s->ticks = ticks;
	present = realloc(s->present, cap);
	if (!present)
		return sm_fail(-ENOMEM, "out of memory for %zu CPUs", need);
	memset(present + s->cap, 0, cap - s->cap);
	s->present = present;
	s->cap = cap;
	return 0;
}

/* The token starting at @p (up to whitespace or @end), as an excerpt. */
static void token_excerpt(char *dst, size_t size, const char *p, const char *end)
{
	const char *t = p;

	while (t < end && !is_space(*t))
		t++;
	sm_excerpt(dst, size, p, (size_t)(t - p));
}

/*
 * One "cpuN ..." line without its '\n'; @id_len digits follow "cpu". One
 * pass over the characters: this runs for every CPU every second.
 */
static int parse_cpu_line(struct cpu_snapshot *s, const char *line, size_t len,
			  size_t id_len, const char *source, size_t lineno)
{
	const char *p = line + 3 + id_len, *end = line + len;
	uint64_t id, v[CPU_NFIELDS];
	size_t nf;
	char tok[64];
	int err;

	if (parse_u64(line + 3, id_len, &id) || id > CPU_ID_MAX)
		return sm_fail(-EBADMSG, "%s line %zu: CPU id %.*s out of range (max %d)",
			       source, lineno, (int)id_len, line + 3, CPU_ID_MAX);
	for (nf = 0; nf < CPU_NFIELDS; nf++) {
		const char *t;
		uint64_t x = 0;

		while (p < end && is_space(*p))
			p++;
		if (p == end)
			return sm_fail(-EBADMSG, "%s line %zu: cpu%llu has %zu fields, expected at least %d",
				       source, lineno, (unsigned long long)id, nf, CPU_NFIELDS);
		t = p;
		while (p < end && is_digit(*p))
			x = x * 10 + (uint64_t)(*p++ - '0');
		/* Up to 19 digits cannot overflow; longer ones take the careful path. */
		if (p == t || (p < end && !is_space(*p)) ||
		    (p - t > 19 && parse_u64(t, (size_t)(p - t), &x))) {
			token_excerpt(tok, sizeof(tok), t, end);
			return sm_fail(-EBADMSG,
				       "%s line %zu: cpu%llu field %zu (%s) is not a 64-bit unsigned integer: %s",
				       source, lineno, (unsigned long long)id, nf + 1,
				       field_names[nf], tok);
		}
		v[nf] = x;
	}
	if (id >= s->cap && (err = grow(s, (size_t)id + 1)))
		return err;
	if (s->present[id])
		return sm_fail(-EBADMSG, "%s line %zu: cpu%llu appears twice",
			       source, lineno, (unsigned long long)id);
	memcpy(s->ticks[id], v, sizeof(v));
	s->present[id] = 1;
	if (id >= s->n)
		s->n = (size_t)id + 1;
	return 0;
}

int cpu_snapshot_parse(struct cpu_snapshot *s, const char *text, size_t len,
		       const char *source)
{
	const char *p = text, *end = text + len;
	size_t lineno = 0, ncpu = 0;
	int err;

	if (s->n)
		memset(s->present, 0, s->n);
	s->n = 0;
	if (!len)
		return sm_fail(-EBADMSG, "%s: empty", source);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l, id_len = 0;

		lineno++;
		if (!nl)
			return sm_fail(-EBADMSG, "%s line %zu: truncated (no newline at end of file)",
				       source, lineno);
		l = (size_t)(nl - p);
		/* Like the reference: "cpu" + digits is a CPU, anything else is skipped. */
		if (l > 3 && p[0] == 'c' && p[1] == 'p' && p[2] == 'u') {
			while (3 + id_len < l && is_digit(p[3 + id_len]))
				id_len++;
			if (id_len && (3 + id_len == l || is_space(p[3 + id_len]))) {
				err = parse_cpu_line(s, p, l, id_len, source, lineno);
				if (err)
					return err;
				ncpu++;
			}
		}
		p = nl + 1;
	}
	if (!ncpu)
		return sm_fail(-EBADMSG, "%s: no per-CPU lines (cpuN) in %zu lines", source, lineno);
	return 0;
}

void cpu_snapshot_free(struct cpu_snapshot *s)
{
	free(s->ticks);
	free(s->present);
	memset(s, 0, sizeof(*s));
}

int read_whole_file(const char *path, struct sm_buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return sm_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	b->len = 0;
	for (;;) {
		ssize_t r;

		if (b->cap - b->len < 4096) {
			size_t cap = b->cap ? b->cap * 2 : 65536;
			char *d = realloc(b->data, cap);

			if (!d) {
				close(fd);
				return sm_fail(-ENOMEM, "out of memory reading %s", path);
			}
			b->data = d;
			b->cap = cap;
		}
		r = read(fd, b->data + b->len, b->cap - b->len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			close(fd);
			return sm_fail(-err, "cannot read %s: %s", path, strerror(err));
		}
		if (!r)
			break;
		b->len += (size_t)r;
	}
	close(fd);
	return 0;
}

void sm_buf_free(struct sm_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
