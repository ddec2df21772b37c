/*
 * ksft-metric profile-diff: where the instructions went between two
 * profiles in cachegrind's format (ksft-vm --profile, or cachegrind's own):
 * the change by module and the top functions by change, each with its share
 * of the total change, per unit of work when the profiles say their work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachegrind_read.h"
#include "cli.h"

static const char profile_diff_usage[] =
	"usage: ksft-metric profile-diff [options] A B\n"
	"\n"
	"Compare two instruction profiles in cachegrind's format (ksft-vm\n"
	"--profile writes them; cg_annotate reads them too): the total, the\n"
	"change of every module, and the functions that changed most, each with\n"
	"its share of the total change (B - A). A function renamed or inlined\n"
	"between two kernels shows as a -/+ pair.\n"
	"\n"
	"Options:\n"
	"  -n, --top N        functions to list (default 20)\n"
	"      --work-a W     A's work (bytes moved, requests...): counts per unit\n"
	"      --work-b W     B's work; both, or a 'desc: work: W UNIT' line in each\n"
	"      --unit NAME    the work's unit as printed (default: the files', else 'unit')\n"
	"      --event NAME   the event counted (default Ir: instructions)\n"
	"  -o, --output FILE  write there instead of stdout\n"
	"  -C, --base-dir DIR confine file access beneath DIR\n";

/* One (module, function) in both profiles; counts per unit of work when
 * the work is known (else raw). */
struct diff_row {
	const char *file, *fn;
	double a, b;
};

struct diff_side {
	struct cg_profile p;
	double work;		/* 1 when not per unit */
};

static int cmp_name(const struct cg_cost *x, const struct cg_cost *y)
{
	int r = strcmp(x->file, y->file);

	return r ? r : strcmp(x->fn, y->fn);
}

/* Both profiles' sorted costs merged into rows (a function missing on one
 * side counts 0 there). */
static struct diff_row *merge(const struct diff_side *A, const struct diff_side *B, size_t *n)
{
	struct diff_row *rows = calloc(A->p.n + B->p.n + 1, sizeof(*rows));
	size_t i = 0, j = 0, k = 0;

	if (!rows)
		return NULL;
	while (i < A->p.n || j < B->p.n) {
		const struct cg_cost *x = i < A->p.n ? &A->p.costs[i] : NULL;
		const struct cg_cost *y = j < B->p.n ? &B->p.costs[j] : NULL;
		int c = !x ? 1 : !y ? -1 : cmp_name(x, y);
		const struct cg_cost *name = c <= 0 ? x : y;

		rows[k] = (struct diff_row){ name->file, name->fn, 0, 0 };
		if (c <= 0)
			rows[k].a = (double)A->p.costs[i++].count / A->work;
		if (c >= 0)
			rows[k].b = (double)B->p.costs[j++].count / B->work;
		k++;
	}
	*n = k;
	return rows;
}

static int cmp_change(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;
	double da = fabs(a->b - a->a), db = fabs(b->b - b->a);
	int r;

	if (da != db)
		return da > db ? -1 : 1;
	r = strcmp(a->file, b->file);
	return r ? r : strcmp(a->fn, b->fn);
}

/* A count (raw: a whole number; per unit: 5 significant digits), signed
 * when @sign. */
static void fmt_val(char *buf, size_t sz, double v, int per_unit, int sign)
{
	sign = sign && v != 0;	/* no change reads "0" */
	if (per_unit)
		snprintf(buf, sz, sign ? "%+.5g" : "%.5g", v);
	else
		snprintf(buf, sz, sign ? "%+.0f" : "%.0f", v);
}

static void fmt_share(char *buf, size_t sz, double part, double total)
{
	if (total == 0)
		snprintf(buf, sz, "-");
	else
		snprintf(buf, sz, "%.1f %%", 100 * part / total);
}

static void put_row(FILE *f, const struct diff_row *r, double total, int per_unit,
		    const char *label)
{
	char ch[48], sh[24], a[48], b[48];

	fmt_val(ch, sizeof(ch), r->b - r->a, per_unit, 1);
	fmt_share(sh, sizeof(sh), r->b - r->a, total);
	fmt_val(a, sizeof(a), r->a, per_unit, 0);
	fmt_val(b, sizeof(b), r->b, per_unit, 0);
	fprintf(f, "%16s %8s %16s %16s  ", ch, sh, a, b);
	cli_put_printable(f, label);
	fputc('\n', f);
}

/* The rows grouped by module (rows are sorted by module first). */
static struct diff_row *by_module(const struct diff_row *rows, size_t n, size_t *nm)
{
	struct diff_row *m = calloc(n + 1, sizeof(*m));
	size_t k = 0;

	if (!m)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!k || strcmp(m[k - 1].file, rows[i].file))
			m[k++] = (struct diff_row){ rows[i].file, "", 0, 0 };
		m[k - 1].a += rows[i].a;
		m[k - 1].b += rows[i].b;
	}
	*nm = k;
	return m;
}

static int write_diff(FILE *f, const char *pa, const char *pb, const struct diff_side *A,
		      const struct diff_side *B, const char *unit, size_t top, const char *event)
{
	int per_unit = unit != NULL;
	double ta = (double)A->p.total / A->work, tb = (double)B->p.total / B->work;
	double total = tb - ta, top_sum = 0, gross = 0;
	size_t n, nm, changed = 0, shown = 0;
	struct diff_row *rows = merge(A, B, &n), *mods = rows ? by_module(rows, n, &nm) : NULL;
	char a[48], b[48], ch[48];

	if (!mods) {
		free(rows);
		return cli_oom("profile-diff");
	}
	fprintf(f, "%s: A ", event);
	cli_put_printable(f, pa);
	fputs(", B ", f);
	cli_put_printable(f, pb);
	fprintf(f, "%s%s\n", per_unit ? ", per " : " (raw counts)", per_unit ? unit : "");
	fmt_val(a, sizeof(a), ta, per_unit, 0);
	fmt_val(b, sizeof(b), tb, per_unit, 0);
	fmt_val(ch, sizeof(ch), total, per_unit, 1);
	fprintf(f, "total: A %s, B %s, change %s", a, b, ch);
	if (ta != 0 && tb != ta)
		fprintf(f, " (%+.2f %%)", 100 * (tb - ta) / ta);
	fputc('\n', f);
	for (size_t i = 0; i < n; i++)
		changed += rows[i].a != rows[i].b;
	if (!changed) {
		fprintf(f, "no change: every function counts the same in A and B (%zu function%s)\n",
			n, n == 1 ? "" : "s");
		free(rows);
		free(mods);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		gross += fabs(rows[i].b - rows[i].a);
	/* Gains and losses that cancel: shares of a near-zero total explode. */
	if (fabs(total) < 0.1 * gross)
		fprintf(f, "note: the total moved %.1f %% of the functions' changes summed: gains and "
			"losses cancel%s, and shares of it are large\n", 100 * fabs(total) / gross,
			per_unit ? "" : " (a fixed-time test that did less work? see --work-a)");
	fprintf(f, "\nBy module (share: of the total change)\n%16s %8s %16s %16s  %s\n",
		"change", "share", "A", "B", "module");
	qsort(mods, nm, sizeof(*mods), cmp_change);
	for (size_t i = 0; i < nm && mods[i].a != mods[i].b; i++)
		put_row(f, &mods[i], total, per_unit, mods[i].file);
	qsort(rows, n, sizeof(*rows), cmp_change);
	fprintf(f, "\nTop %zu functions by change (%zu of %zu changed)\n%16s %8s %16s %16s  %s\n",
		top < changed ? top : changed, changed, n, "change", "share", "A", "B",
		"function [module]");
	for (size_t i = 0; i < n && shown < top && rows[i].a != rows[i].b; i++, shown++) {
		char *label;

		if (asprintf(&label, "%s %s", rows[i].fn, rows[i].file) < 0) {
			free(rows);
			free(mods);
			return cli_oom("profile-diff");
		}
		put_row(f, &rows[i], total, per_unit, label);
		free(label);
	}
	for (size_t i = 0; i < changed && i < 10; i++)
		top_sum += rows[i].b - rows[i].a;
	fmt_share(a, sizeof(a), top_sum, total);
	fprintf(f, "\nThe top %zu functions explain %s of the total change.\n",
		changed < 10 ? changed : 10, a);
	free(rows);
	free(mods);
	return 0;
}

static int load(const struct cli_common *cc, const char *path, const char *event,
		struct diff_side *s)
{
	char *data;
	size_t len;
	int ret;

	if (confine_read_all(&cc->c, path, &data, &len))
		return -EIO;
	ret = cg_profile_parse(path, data, len, event, &s->p);
	free(data);
	s->work = 1;
	return ret;
}

/* Per unit of work: from --work-a/--work-b, else both files' desc lines;
 * the unit's name, or NULL for raw counts. */
static int choose_work(const char *pa, const char *pb, struct diff_side *A, struct diff_side *B,
		       double wa, double wb, const char **unit)
{
	if (!!wa != !!wb) {
		cli_error("profile-diff: --work-a and --work-b go together");
		return -EINVAL;
	}
	if (!wa && (A->p.work > 0) != (B->p.work > 0)) {
		cli_error("profile-diff: only %s says its work ('desc: work:'); give "
			  "--work-a and --work-b", A->p.work > 0 ? pa : pb);
		return -EINVAL;
	}
	if (!wa && A->p.work > 0 && strcmp(A->p.work_unit, B->p.work_unit)) {
		cli_error("profile-diff: %s counts work in %s, %s in %s", pa, A->p.work_unit,
			  pb, B->p.work_unit);
		return -EINVAL;
	}
	A->work = wa ? wa : A->p.work > 0 ? A->p.work : 1;
	B->work = wb ? wb : B->p.work > 0 ? B->p.work : 1;
	if (!*unit && (wa || A->p.work > 0))
		*unit = A->p.work_unit ? A->p.work_unit : "unit";
	return 0;
}

int cmd_profile_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "top", required_argument, NULL, 'n' },
		{ "work-a", required_argument, NULL, 'A' },
		{ "work-b", required_argument, NULL, 'B' },
		{ "unit", required_argument, NULL, 'U' },
		{ "event", required_argument, NULL, 'E' },
		CLI_OPTION_OUTPUT,
		CLI_OPTION_BASE_DIR,
		CLI_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct diff_side A = { .work = 1 }, B = { .work = 1 };
	const char *unit = NULL, *event = "Ir";
	struct cli_common cc;
	double wa = 0, wb = 0;
	size_t top = 20;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ch, ret;

	ret = cli_common_init(&cc, "profile-diff", profile_diff_usage, 0, argc);
	if (ret != EXIT_OK)
		return ret;
	while ((ch = cli_getopt(&cc, argc, argv, "n:o:C:h", opts)) != -1) {
		ret = EXIT_USAGE;
		if (ch == 'n') {
			if (cli_parse_size("--top", optarg, 100000, &top))
				goto out;
		} else if (ch == 'A' || ch == 'B') {
			if (cli_parse_double(ch == 'A' ? "--work-a" : "--work-b", optarg, 1e-300,
					     1e300, ch == 'A' ? &wa : &wb))
				goto out;
		} else if (ch == 'U') {
			unit = optarg;
		} else if (ch == 'E') {
			event = optarg;
		} else if ((ret = cli_common_option(&cc, ch, optarg)) != CLI_OPT_NEXT) {
			goto out;
		}
	}
	if (argc - optind != 2) {
		ret = cli_needs(&cc, "two profiles, A and B");
		goto out;
	}
	ret = EXIT_USAGE;
	if (confine_init(&cc.c, cc.base) || (cc.out && confine_check_write(&cc.c, cc.out)))
		goto out;
	if (load(&cc, argv[optind], event, &A) || load(&cc, argv[optind + 1], event, &B) ||
	    choose_work(argv[optind], argv[optind + 1], &A, &B, wa, wb, &unit))
		goto out;
	f = open_memstream(&text, &len);
	if (!f) {
		cli_oom("profile-diff");
		goto out;
	}
	ret = write_diff(f, argv[optind], argv[optind + 1], &A, &B, unit, top, event);
	if (fclose(f) || ret) {
		ret = EXIT_USAGE;
		free(text);
		goto out;
	}
	ret = cli_emit(&cc.c, cc.out, text, len);
out:
	cg_profile_free(&A.p);
	cg_profile_free(&B.p);
	cli_common_free(&cc);
	return ret;
}
