/*
 * cachegrind's output format, read for profile-diff: "desc:" lines, "cmd:",
 * "events:", then "fl=" / "fn=" names (and their "(N) name" / "(N)"
 * compressed spellings) and "LINE COUNT..." lines, "summary:" last.
 * Costs are summed per (file, function): line numbers are dropped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cachegrind_read.h"
#include "cli.h"

/* The "(N) name" compression: names by number, per kind (fl or fn). */
struct cg_names {
	char **name;
	size_t n;
};

struct cg_parse {
	const char *path;
	size_t line;
	struct cg_names files, fns;
	size_t cap;
};

static void names_free(struct cg_names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->name[i]);
	free(t->name);
}

static int fail(const struct cg_parse *ps, const char *why)
{
	cli_error("%s:%zu: %s", ps->path, ps->line, why);
	return -EINVAL;
}

/* "name", "(N) name" (defines N) or "(N)" (uses it): the name, borrowed
 * from @t or @s; NULL after an error. */
static const char *name_of(struct cg_parse *ps, struct cg_names *t, char *s)
{
	char *end;
	unsigned long id;

	if (s[0] != '(' || s[1] < '0' || s[1] > '9')
		return s;	/* a plain name, even one in parentheses */
	id = strtoul(s + 1, &end, 10);
	if (*end != ')' || id > 1000000) {
		fail(ps, "a compressed name is not '(N)' or '(N) name'");
		return NULL;
	}
	if (end[1] == ' ') {
		if (id >= t->n) {
			char **g = realloc(t->name, (id + 1) * sizeof(*g));

			if (!g)
				return cli_oom(NULL), NULL;
			memset(g + t->n, 0, (id + 1 - t->n) * sizeof(*g));
			t->name = g;
			t->n = id + 1;
		}
		free(t->name[id]);
		if (!(t->name[id] = strdup(end + 2)))
			return cli_oom(NULL), NULL;
		return t->name[id];
	}
	if (end[1] || id >= t->n || !t->name[id]) {
		fail(ps, "a compressed name '(N)' used before it was defined");
		return NULL;
	}
	return t->name[id];
}

/* Column @col of the count line @s (after its line number); '.' is 0. */
static int count_at(struct cg_parse *ps, char *s, size_t col, uint64_t *out)
{
	char *save = NULL, *tok = strtok_r(s, " \t", &save);

	for (size_t i = 0; tok && i <= col; i++, tok = strtok_r(NULL, " \t", &save)) {
		char *end;

		if (i < col)
			continue;
		if (!strcmp(tok, ".")) {
			*out = 0;
			return 0;
		}
		errno = 0;
		*out = strtoull(tok, &end, 10);
		if (errno || *end || tok[0] == '-')
			return fail(ps, "a count is not a whole number");
		return 0;
	}
	*out = 0;	/* missing trailing columns count as 0 */
	return 0;
}

static int add_cost(struct cg_parse *ps, struct cg_profile *p, const char *file,
		    const char *fn, uint64_t count)
{
	struct cg_cost *c;

	if (!file || !fn)
		return fail(ps, "a count line before its fl= and fn= lines");
	if (p->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 256;

		c = realloc(p->costs, cap * sizeof(*c));
		if (!c)
			return cli_oom(NULL);
		p->costs = c;
		ps->cap = cap;
	}
	c = &p->costs[p->n];
	c->file = strdup(file);
	c->fn = strdup(fn);
	if (!c->file || !c->fn) {
		free(c->file);
		free(c->fn);
		return cli_oom(NULL);
	}
	c->count = count;
	p->n++;
	if (p->total + count < p->total)
		return fail(ps, "the counts overflow 64 bits");
	p->total += count;
	return 0;
}

static int cmp_cost(const void *a, const void *b)
{
	const struct cg_cost *x = a, *y = b;
	int r = strcmp(x->file, y->file);

	return r ? r : strcmp(x->fn, y->fn);
}

/* Sort, then fold equal (file, fn) pairs into one. */
static void fold(struct cg_profile *p)
{
	size_t o = 0;

	if (!p->n)
		return;
	qsort(p->costs, p->n, sizeof(*p->costs), cmp_cost);
	for (size_t i = 1; i < p->n; i++) {
		if (!cmp_cost(&p->costs[o], &p->costs[i])) {
			p->costs[o].count += p->costs[i].count;
			free(p->costs[i].file);
			free(p->costs[i].fn);
		} else {
			p->costs[++o] = p->costs[i];
		}
	}
	p->n = o + 1;
}

/* "desc: work: N UNIT": the work the profile's window did. */
static int read_work(struct cg_parse *ps, struct cg_profile *p, const char *s)
{
	char *end, unit[64];
	double w;

	errno = 0;
	w = strtod(s, &end);
	if (errno || end == s || !(w > 0) || sscanf(end, " %63s", unit) != 1)
		return fail(ps, "'desc: work:' wants a positive number and a unit");
	free(p->work_unit);
	if (!(p->work_unit = strdup(unit)))
		return cli_oom(NULL);
	p->work = w;
	return 0;
}

int cg_profile_parse(const char *path, const char *data, size_t len, const char *event,
		     struct cg_profile *p)
{
	struct cg_parse ps = { .path = path };
	const char *file = NULL, *fn = NULL;
	char *buf = strndup(data, len), *line, *next;
	long col = -1;
	int ret = 0, summary = 0, cmd = 0;

	memset(p, 0, sizeof(*p));
	if (!buf)
		return cli_oom(NULL);
	for (line = buf; line && *line && !ret; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ps.line++;
		if (!line[0]) {
			continue;
		} else if (!strncmp(line, "desc:", 5)) {
			const char *d = line + 5 + strspn(line + 5, " \t");

			if (!strncmp(d, "work:", 5))
				ret = read_work(&ps, p, d + 5);
		} else if (!strncmp(line, "cmd:", 4) || !strncmp(line, "version:", 8) ||
			   !strncmp(line, "creator:", 8) || !strncmp(line, "pid:", 4) ||
			   line[0] == '#') {
			cmd |= !strncmp(line, "cmd:", 4);
		} else if (!strncmp(line, "events:", 7)) {
			char *s2 = NULL, *tok = strtok_r(line + 7, " \t", &s2);

			for (long i = 0; tok; i++, tok = strtok_r(NULL, " \t", &s2))
				if (!strcmp(tok, event) && col < 0)
					col = i;
			if (col < 0) {
				cli_error("%s:%zu: no event '%s' on the events: line", path, ps.line,
					  event);
				ret = -EINVAL;
			}
		} else if (!strncmp(line, "fl=", 3) || !strncmp(line, "fi=", 3) ||
			   !strncmp(line, "fe=", 3)) {
			file = name_of(&ps, &ps.files, line + 3);
			ret = file ? 0 : -EINVAL;
		} else if (!strncmp(line, "fn=", 3)) {
			fn = name_of(&ps, &ps.fns, line + 3);
			ret = fn ? 0 : -EINVAL;
		} else if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7)) {
			summary = 1;
		} else if ((line[0] >= '0' && line[0] <= '9') || line[0] == '-' || line[0] == '+') {
			char *rest = line + strcspn(line, " \t");
			uint64_t c = 0;

			if (col < 0) {
				ret = fail(&ps, "a count line before the events: line");
				break;
			}
			ret = count_at(&ps, rest, (size_t)col, &c);
			if (!ret && c)
				ret = add_cost(&ps, p, file, fn, c);
		} else {
			ret = fail(&ps, "not a line of cachegrind's format");
		}
	}
	if (!ret && (!cmd || col < 0 || !summary)) {
		cli_error("%s: not a cachegrind profile (%s)", path,
			  !cmd ? "no cmd: line" : col < 0 ? "no events: line" : "no summary: line");
		ret = -EINVAL;
	}
	free(buf);
	names_free(&ps.files);
	names_free(&ps.fns);
	if (ret) {
		cg_profile_free(p);
		return ret;
	}
	fold(p);
	return 0;
}

void cg_profile_free(struct cg_profile *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->costs[i].file);
		free(p->costs[i].fn);
	}
	free(p->costs);
	free(p->work_unit);
	memset(p, 0, sizeof(*p));
}
