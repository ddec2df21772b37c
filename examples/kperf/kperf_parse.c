// SPDX-License-Identifier: GPL-2.0
/*
 * kperf-client report parser. The matchers below reproduce the kernel
 * runner's regular expressions exactly (Python semantics: \s, \b, search vs
 * match), written out by hand because POSIX regex has no \b or \s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "kperf_parse.h"
#include "proc.h"

enum { SOURCE, TARGET };
static const char *const side_name[] = { "Source", "Target" };
static const char tcp_header[] = "TCP retrans reord rtt rttvar d_ce snd_wnd cwnd";

struct span {
	const char *s;
	size_t n;
};

/* Python's \s on ASCII text: also the separators \x1c-\x1f. */
static int is_ws(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* \w: bytes of multi-byte UTF-8 count as word characters (letters, mostly). */
static int is_word(unsigned char c)
{
	return c == '_' || c >= 0x80 || (c >= '0' && c <= '9') ||
	       (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static size_t skip_ws(struct span l, size_t i)
{
	while (i < l.n && is_ws((unsigned char)l.s[i]))
		i++;
	return i;
}

static size_t skip_digits(struct span l, size_t i)
{
	while (i < l.n && is_digit((unsigned char)l.s[i]))
		i++;
	return i;
}

static int starts(struct span l, size_t i, const char *word)
{
	size_t n = strlen(word);

	return i + n <= l.n && !memcmp(l.s + i, word, n);
}

static int boundary_before(struct span l, size_t i)
{
	return i == 0 || !is_word((unsigned char)l.s[i - 1]);
}

static int boundary_after(struct span l, size_t i)
{
	return i >= l.n || !is_word((unsigned char)l.s[i]);
}

/* [0-9]+(?:\.[0-9]+)? at @i; returns the end or 0 (a number is never empty). */
static size_t match_decimal(struct span l, size_t i)
{
	size_t j = skip_digits(l, i);

	if (j == i)
		return 0;
	if (j + 1 < l.n && l.s[j] == '.' && is_digit((unsigned char)l.s[j + 1]))
		j = skip_digits(l, j + 1);
	return j;
}

static double span_double(struct span l, size_t from, size_t to)
{
	char buf[512];
	size_t n = to - from;

	if (n >= sizeof(buf))
		return HUGE_VAL;	/* more digits than any double: reject */
	memcpy(buf, l.s + from, n);
	buf[n] = '\0';
	return strtod(buf, NULL);
}

/* _SECTION_RE.search: ==\s+(Source|Target)\b */
static int match_section(struct span l)
{
	size_t p;

	for (p = 0; p + 2 <= l.n; p++) {
		size_t j;
		int side;

		if (l.s[p] != '=' || l.s[p + 1] != '=')
			continue;
		j = skip_ws(l, p + 2);
		if (j == p + 2)
			continue;
		for (side = SOURCE; side <= TARGET; side++)
			if (starts(l, j, side_name[side]) && boundary_after(l, j + 6))
				return side;
	}
	return -1;
}

/* After "Gbps": " (N bytes", the byte count kperf prints; 0 if absent. */
static uint64_t match_bytes(struct span l, size_t i)
{
	size_t num, end;
	uint64_t v = 0;

	i = skip_ws(l, i);
	if (i >= l.n || l.s[i] != '(')
		return 0;
	num = i + 1;
	end = skip_digits(l, num);
	if (end == num || end - num > 19 || !starts(l, skip_ws(l, end), "bytes"))
		return 0;
	for (i = num; i < end; i++)
		v = v * 10 + (uint64_t)(l.s[i] - '0');
	return v;
}

/* _RATE_RE.search: \b(Tx|Rx)\s*([0-9]+(?:\.[0-9]+)?)\s+Gbps\b */
static int match_rate(struct span l, int *tx, double *gbps, uint64_t *bytes)
{
	size_t p;

	for (p = 0; p + 2 <= l.n; p++) {
		size_t j, num, end;

		if ((l.s[p] != 'T' && l.s[p] != 'R') || l.s[p + 1] != 'x' ||
		    !boundary_before(l, p))
			continue;
		num = skip_ws(l, p + 2);
		end = match_decimal(l, num);
		if (!end)
			continue;
		j = skip_ws(l, end);
		if (j == end || !starts(l, j, "Gbps") || !boundary_after(l, j + 4))
			continue;
		*tx = l.s[p] == 'T';
		*gbps = span_double(l, num, end);
		*bytes = match_bytes(l, j + 4);
		return 1;
	}
	return 0;
}

/* (\d+)(?:\s+\d+){6}\s*$ at @i: the first number's digits, or 0. */
static size_t match_seven(struct span l, size_t i, size_t *first_end)
{
	size_t j = skip_digits(l, i), k;
	int col;

	if (j == i)
		return 0;
	*first_end = j;
	for (col = 1; col < 7; col++) {
		k = skip_ws(l, j);
		if (k == j)
			return 0;
		j = skip_digits(l, k);
		if (j == k)
			return 0;
	}
	return skip_ws(l, j) == l.n;
}

/* _TCP_ROW_RE.match: ^\s*(?:[^:\s]+:\s*)?(\d+)(?:\s+\d+){6}\s*$ */
static int match_tcp_row(struct span l, size_t *from, size_t *to)
{
	size_t start = skip_ws(l, 0), k = start;

	while (k < l.n && l.s[k] != ':' && !is_ws((unsigned char)l.s[k]))
		k++;
	if (k > start && k < l.n && l.s[k] == ':') {
		size_t j = skip_ws(l, k + 1);

		if (match_seven(l, j, to)) {
			*from = j;
			return 1;
		}
	}
	if (match_seven(l, start, to)) {
		*from = start;
		return 1;
	}
	return 0;
}

/* \b(?:(net|app)\s+)?CPU\s*(\d+):\s*usr:\s*N%\s*sys:...sirq:\s*N% (search) */
static int match_cpu(struct span l, struct kperf_cpu *cpu)
{
	static const char *const keys[] = { "usr:", "sys:", "idle:", "iow:", "irq:", "sirq:" };
	size_t p;

	for (p = 0; p + 3 <= l.n; p++) {
		double *vals[6];
		size_t j, end, r;
		int k;

		if (!starts(l, p, "CPU") || !boundary_before(l, p))
			continue;
		memset(cpu, 0, sizeof(*cpu));
		vals[0] = &cpu->usr, vals[1] = &cpu->sys, vals[2] = &cpu->idle;
		vals[3] = &cpu->iow, vals[4] = &cpu->irq, vals[5] = &cpu->sirq;
		j = skip_ws(l, p + 3);
		end = skip_digits(l, j);
		if (end == j || end - j > 6 || end >= l.n || l.s[end] != ':')
			continue;
		cpu->cpu = (int)span_double(l, j, end);
		j = end + 1;
		for (k = 0; k < 6; k++) {
			j = skip_ws(l, j);
			if (!starts(l, j, keys[k]))
				break;
			j = skip_ws(l, j + strlen(keys[k]));
			end = match_decimal(l, j);
			if (!end || end >= l.n || l.s[end] != '%')
				break;
			*vals[k] = span_double(l, j, end);
			j = end + 1;
		}
		if (k < 6)
			continue;
		/* "net " / "app " in front when kperf ran with --pin-off. */
		r = p;
		while (r > 0 && is_ws((unsigned char)l.s[r - 1]))
			r--;
		if (r < p && r >= 3 && boundary_before(l, r - 3) &&
		    (!memcmp(l.s + r - 3, "net", 3) || !memcmp(l.s + r - 3, "app", 3)))
			memcpy(cpu->role, l.s + r - 3, 3);
		return 1;
	}
	return 0;
}

/* Python's str.splitlines() on ASCII: \n, \r\n, \r, \v, \f, \x1c-\x1e. */
static int is_line_break(unsigned char c)
{
	return c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
	       (c >= 0x1c && c <= 0x1e);
}

static int add_cpu(struct kperf_side *side, const struct kperf_cpu *cpu)
{
	struct kperf_cpu *more = realloc(side->cpus, (side->n_cpus + 1) * sizeof(*more));

	if (!more)
		return -ENOMEM;
	side->cpus = more;
	side->cpus[side->n_cpus++] = *cpu;
	return 0;
}

static int parse_line(struct span l, size_t lineno, const char *name, int *section,
		      int *in_tcp, struct kperf_result *res, char **err)
{
	struct kperf_side *sides[2] = { &res->source, &res->target };
	struct kperf_side *side;
	struct kperf_cpu cpu;
	size_t from, to;
	uint64_t bytes;
	double gbps;
	int s, tx;

	s = match_section(l);
	if (s >= 0) {
		*section = s;
		*in_tcp = 0;
		return 0;
	}
	if (*section < 0)
		return 0;
	side = sides[*section];
	if (match_rate(l, &tx, &gbps, &bytes)) {
		/* What crossed the wire: Source Tx, Target Rx. */
		if (tx == (*section == SOURCE)) {
			if (!isfinite(gbps) || !isfinite(side->throughput + gbps))
				return ex_errf(err, -ERANGE, "%s:%zu: %s rate out of range",
					       name, lineno, side_name[*section]);
			side->throughput += gbps;
			side->bytes += bytes;
			side->n_rates++;
		}
		return 0;
	}
	if (match_cpu(l, &cpu))
		return add_cpu(side, &cpu) ? ex_errf(err, -ENOMEM, "out of memory") : 0;
	if (memmem(l.s, l.n, tcp_header, sizeof(tcp_header) - 1)) {
		*in_tcp = 1;
		return 0;
	}
	if (*in_tcp && match_tcp_row(l, &from, &to)) {
		int64_t v = 0;
		size_t i;

		for (i = from; i < to; i++) {
			int d = l.s[i] - '0';

			if (v > (INT64_MAX - d) / 10)
				return ex_errf(err, -ERANGE,
					       "%s:%zu: TCP retrans %.*s out of range",
					       name, lineno, (int)(to - from), l.s + from);
			v = v * 10 + d;
		}
		if (side->retransmits > INT64_MAX - v)
			return ex_errf(err, -ERANGE, "%s:%zu: %s retransmit sum out of range",
				       name, lineno, side_name[*section]);
		side->retransmits += v;
		side->n_tcp_rows++;
	}
	return 0;
}

static int check_complete(const struct kperf_result *res, const char *name,
			  char **err)
{
	char missing[256] = "";

	if (!res->source.n_rates)
		strcat(missing, ", no Source Tx rate");
	if (!res->target.n_rates)
		strcat(missing, ", no Target Rx rate");
	if (!res->source.n_tcp_rows)
		strcat(missing, ", no Source TCP row");
	if (!res->target.n_tcp_rows)
		strcat(missing, ", no Target TCP row");
	if (!missing[0])
		return 0;
	return ex_errf(err, -ENODATA, "%s: incomplete kperf result (%s)", name,
		       missing + 2);
}

int kperf_parse(const char *text, size_t len, const char *name,
		struct kperf_result *res, char **err)
{
	int section = -1, in_tcp = 0, ret = 0;
	size_t pos = 0, lineno = 1;

	memset(res, 0, sizeof(*res));
	if (!name)
		name = "kperf output";
	while (pos < len && !ret) {
		struct span l = { text + pos, 0 };

		while (pos + l.n < len && !is_line_break((unsigned char)text[pos + l.n]))
			l.n++;
		ret = parse_line(l, lineno, name, &section, &in_tcp, res, err);
		pos += l.n;
		if (pos < len && text[pos] == '\r' && pos + 1 < len && text[pos + 1] == '\n')
			pos++;
		pos++;
		lineno++;
	}
	if (!ret)
		ret = check_complete(res, name, err);
	if (ret)
		kperf_result_free(res);
	return ret;
}

static int parse_text(const char *text, size_t len, const char *name,
		      void *res, char **err)
{
	return kperf_parse(text, len, name, res, err);
}

int kperf_parse_file(const char *path, struct kperf_result *res, char **err)
{
	return ex_parse_file(path, parse_text, res, sizeof(*res), err);
}

void kperf_result_free(struct kperf_result *res)
{
	if (!res)
		return;
	free(res->source.cpus);
	free(res->target.cpus);
	memset(res, 0, sizeof(*res));
}
