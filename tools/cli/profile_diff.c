/*
 * Two profiles compared (profile_diff.h): both sides' costs merged by
 * (module, function), divided by each side's work, grouped by module and
 * sorted by change. No printing but the errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile_diff.h"

static int cmp_name(const struct cg_cost *x, const struct cg_cost *y)
{
	int r = strcmp(x->file, y->file);

	return r ? r : strcmp(x->fn, y->fn);
}

/* Both profiles' sorted costs merged into rows (a function missing on one
 * side counts 0 there). */
static int merge(struct profile_diff *d)
{
	const struct cg_profile *A = &d->pa, *B = &d->pb;
	size_t i = 0, j = 0, k = 0;

	d->rows = calloc(A->n + B->n + 1, sizeof(*d->rows));
	if (!d->rows)
		return -ENOMEM;
	while (i < A->n || j < B->n) {
		const struct cg_cost *x = i < A->n ? &A->costs[i] : NULL;
		const struct cg_cost *y = j < B->n ? &B->costs[j] : NULL;
		int c = !x ? 1 : !y ? -1 : cmp_name(x, y);
		const struct cg_cost *name = c <= 0 ? x : y;

		d->rows[k] = (struct profile_diff_row){ name->file, name->fn, 0, 0 };
		if (c <= 0)
			d->rows[k].a = (double)A->costs[i++].count / d->work_a;
		if (c >= 0)
			d->rows[k].b = (double)B->costs[j++].count / d->work_b;
		k++;
	}
	d->n = k;
	return 0;
}

/* The rows grouped by module (rows are sorted by module first). */
static int by_module(struct profile_diff *d)
{
	size_t k = 0;

	d->mods = calloc(d->n + 1, sizeof(*d->mods));
	if (!d->mods)
		return -ENOMEM;
	for (size_t i = 0; i < d->n; i++) {
		if (!k || strcmp(d->mods[k - 1].file, d->rows[i].file))
			d->mods[k++] = (struct profile_diff_row){ d->rows[i].file, "", 0, 0 };
		d->mods[k - 1].a += d->rows[i].a;
		d->mods[k - 1].b += d->rows[i].b;
	}
	d->n_mods = k;
	return 0;
}

static int cmp_change(const void *x, const void *y)
{
	const struct profile_diff_row *a = x, *b = y;
	double da = fabs(a->b - a->a), db = fabs(b->b - b->a);
	int r;

	if (da != db)
		return da > db ? -1 : 1;
	r = strcmp(a->file, b->file);
	return r ? r : strcmp(a->fn, b->fn);
}

static int load_one(const struct confine *c, const char *path, const char *event,
		    struct cg_profile *p)
{
	char *data;
	size_t len;
	int ret;

	if (confine_read_all(c, path, &data, &len))
		return -EIO;
	ret = cg_profile_parse(path, data, len, event, p);
	free(data);
	return ret;
}

/* Per unit of work: from the options, else both files' desc lines. */
static int choose_work(const char *pa, const char *pb, const struct profile_diff_opts *o,
		       struct profile_diff *d)
{
	const struct cg_profile *A = &d->pa, *B = &d->pb;

	if (!!o->work_a != !!o->work_b) {
		cli_error("profile-diff: --work-a and --work-b go together");
		return -EINVAL;
	}
	if (!o->work_a && (A->work > 0) != (B->work > 0)) {
		cli_error("profile-diff: only %s says its work ('desc: work:'); give "
			  "--work-a and --work-b", A->work > 0 ? pa : pb);
		return -EINVAL;
	}
	if (!o->work_a && A->work > 0 && strcmp(A->work_unit, B->work_unit)) {
		cli_error("profile-diff: %s counts work in %s, %s in %s", pa, A->work_unit,
			  pb, B->work_unit);
		return -EINVAL;
	}
	d->work_a = o->work_a ? o->work_a : A->work > 0 ? A->work : 1;
	d->work_b = o->work_b ? o->work_b : B->work > 0 ? B->work : 1;
	d->unit = o->unit;
	if (!d->unit && (o->work_a || A->work > 0))
		d->unit = A->work_unit ? A->work_unit : "unit";
	return 0;
}

int profile_diff_load(const struct confine *c, const char *path_a, const char *path_b,
		      const struct profile_diff_opts *o, struct profile_diff *d)
{
	memset(d, 0, sizeof(*d));
	d->event = o->event ? o->event : "Ir";
	if (load_one(c, path_a, d->event, &d->pa) || load_one(c, path_b, d->event, &d->pb) ||
	    choose_work(path_a, path_b, o, d))
		return EXIT_USAGE;
	if (merge(d) || by_module(d))
		return cli_oom("profile-diff"), EXIT_USAGE;
	d->total_a = (double)d->pa.total / d->work_a;
	d->total_b = (double)d->pb.total / d->work_b;
	for (size_t i = 0; i < d->n; i++) {
		d->changed += d->rows[i].a != d->rows[i].b;
		d->gross += fabs(d->rows[i].b - d->rows[i].a);
	}
	for (size_t i = 0; i < d->n_mods; i++)
		d->mods_changed += d->mods[i].a != d->mods[i].b;
	qsort(d->rows, d->n, sizeof(*d->rows), cmp_change);
	qsort(d->mods, d->n_mods, sizeof(*d->mods), cmp_change);
	return 0;
}

void profile_diff_free(struct profile_diff *d)
{
	free(d->rows);
	free(d->mods);
	cg_profile_free(&d->pa);
	cg_profile_free(&d->pb);
	d->rows = d->mods = NULL;
}

double profile_diff_top_change(const struct profile_diff *d, size_t k)
{
	double sum = 0;

	for (size_t i = 0; i < d->changed && i < k; i++)
		sum += d->rows[i].b - d->rows[i].a;
	return sum;
}

int profile_diff_cancels(const struct profile_diff *d)
{
	return d->changed && fabs(d->total_b - d->total_a) < 0.1 * d->gross;
}

const char *profile_diff_event_name(const char *event)
{
	return !strcmp(event, "Ir") ? "instructions" : event;
}

void profile_diff_value_text(char *buf, size_t sz, double v, int per_unit, int sign)
{
	sign = sign && v != 0;	/* no change reads "0" */
	if (per_unit)
		snprintf(buf, sz, sign ? "%+.5g" : "%.5g", v);
	else
		snprintf(buf, sz, sign ? "%+.0f" : "%.0f", v);
}

void profile_diff_share_text(char *buf, size_t sz, double part, double total)
{
	if (total == 0)
		snprintf(buf, sz, "-");
	else
		snprintf(buf, sz, "%.1f %%", 100 * part / total);
}
