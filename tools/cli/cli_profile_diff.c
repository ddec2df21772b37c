/*
 * ksft-metric profile-diff: where the instructions went between two
 * profiles in cachegrind's format (ksft-vm --profile, or cachegrind's own):
 * the change by module and the top functions by change, each with its share
 * of the total change, per unit of work when the profiles say their work.
 * As text, or as the lines an A/B summary carries (--format reply).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile_diff.h"

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
	"  -n, --top N        functions to list (default 20; reply: 10)\n"
	"  -f, --format F     text (default) or reply: the total and the top\n"
	"                     functions in 72 columns, for an A/B summary\n"
	"      --work-a W     A's work (bytes moved, requests...): counts per unit\n"
	"      --work-b W     B's work; both, or a 'desc: work: W UNIT' line in each\n"
	"      --unit NAME    the work's unit as printed (default: the files', else 'unit')\n"
	"      --event NAME   the event counted (default Ir: instructions)\n"
	"  -o, --output FILE  write there instead of stdout\n"
	"  -C, --base-dir DIR confine file access beneath DIR\n";

/* The reply's width, as ksft-vm-ab's summary around it. */
#define REPLY_WIDTH 72

static void put_row(FILE *f, const struct profile_diff_row *r, double total, int per_unit,
		    const char *label)
{
	char ch[48], sh[24], a[48], b[48];

	profile_diff_value_text(ch, sizeof(ch), r->b - r->a, per_unit, 1);
	profile_diff_share_text(sh, sizeof(sh), r->b - r->a, total);
	profile_diff_value_text(a, sizeof(a), r->a, per_unit, 0);
	profile_diff_value_text(b, sizeof(b), r->b, per_unit, 0);
	fprintf(f, "%16s %8s %16s %16s  ", ch, sh, a, b);
	cli_put_printable(f, label);
	fputc('\n', f);
}

/* "total: A x, B y, change z (+p %)" */
static void put_total(FILE *f, const struct profile_diff *d)
{
	int per_unit = d->unit != NULL;
	double total = d->total_b - d->total_a;
	char a[48], b[48], ch[48];

	profile_diff_value_text(a, sizeof(a), d->total_a, per_unit, 0);
	profile_diff_value_text(b, sizeof(b), d->total_b, per_unit, 0);
	profile_diff_value_text(ch, sizeof(ch), total, per_unit, 1);
	fprintf(f, "total: A %s, B %s, change %s", a, b, ch);
	if (d->total_a != 0 && total != 0)
		fprintf(f, " (%+.2f %%)", 100 * total / d->total_a);
	fputc('\n', f);
}

static int write_text(FILE *f, const char *pa, const char *pb, const struct profile_diff *d,
		      size_t top)
{
	int per_unit = d->unit != NULL;
	double total = d->total_b - d->total_a;
	char share[24];

	fprintf(f, "%s: A ", d->event);
	cli_put_printable(f, pa);
	fputs(", B ", f);
	cli_put_printable(f, pb);
	fprintf(f, "%s%s\n", per_unit ? ", per " : " (raw counts)", per_unit ? d->unit : "");
	put_total(f, d);
	if (!d->changed) {
		fprintf(f, "no change: every function counts the same in A and B (%zu function%s)\n",
			d->n, d->n == 1 ? "" : "s");
		return 0;
	}
	if (profile_diff_cancels(d))
		fprintf(f, "note: the total moved %.1f %% of the functions' changes summed: gains and "
			"losses cancel%s, and shares of it are large\n", 100 * fabs(total) / d->gross,
			per_unit ? "" : " (a fixed-time test that did less work? see --work-a)");
	fprintf(f, "\nBy module (share: of the total change)\n%16s %8s %16s %16s  %s\n",
		"change", "share", "A", "B", "module");
	for (size_t i = 0; i < d->mods_changed; i++)
		put_row(f, &d->mods[i], total, per_unit, d->mods[i].file);
	fprintf(f, "\nTop %zu functions by change (%zu of %zu changed)\n%16s %8s %16s %16s  %s\n",
		top < d->changed ? top : d->changed, d->changed, d->n, "change", "share", "A", "B",
		"function [module]");
	for (size_t i = 0; i < d->changed && i < top; i++) {
		char *label;

		if (asprintf(&label, "%s %s", d->rows[i].fn, d->rows[i].file) < 0)
			return cli_oom("profile-diff");
		put_row(f, &d->rows[i], total, per_unit, label);
		free(label);
	}
	profile_diff_share_text(share, sizeof(share), profile_diff_top_change(d, 10), total);
	fprintf(f, "\nThe top %zu functions explain %s of the total change.\n",
		d->changed < 10 ? d->changed : 10, share);
	return 0;
}

/* One reply row: the label, then change and share flush right; a label
 * too long goes on a line of its own, cut only past the width. */
static void reply_row(FILE *f, const char *label, const char *change, const char *share)
{
	char vals[80];
	int lw = REPLY_WIDTH - 2 - 2 - 14 - 9;

	snprintf(vals, sizeof(vals), "%14s %8s", change, share);
	fputs("  ", f);
	if ((int)strlen(label) > lw) {
		cli_put_printable(f, label);
		fprintf(f, "\n  %*s", lw, "");
	} else {
		cli_put_printable(f, label);
		fprintf(f, "%*s", lw - (int)strlen(label), "");
	}
	fprintf(f, "  %s\n", vals);
}

/*
 * The A/B summary's lines: "+2.01 % instructions per byte: where", the
 * top functions with their change and share of the total change, what
 * the top 10 explain. 72 columns but for a longer function name.
 */
static int write_reply(FILE *f, const struct profile_diff *d, size_t top)
{
	int per_unit = d->unit != NULL;
	double total = d->total_b - d->total_a;
	char ch[48], sh[24], head[40];

	fprintf(f, "Profile, B against A: ");
	if (!d->changed) {
		fprintf(f, "no change (all %zu functions count the same)\n", d->n);
		return 0;
	}
	if (d->total_a != 0 && total != 0)
		fprintf(f, "%+.2f %% ", 100 * total / d->total_a);
	else
		fprintf(f, "%s ", total == 0 ? "+0 (unchanged)" : "new");
	fprintf(f, "%s%s%s%s\n", profile_diff_event_name(d->event), per_unit ? " per " : "",
		per_unit ? d->unit : "", per_unit ? "" : " (raw counts)");
	if (profile_diff_cancels(d))
		fprintf(f, "(gains and losses cancel: the shares are large)\n");
	snprintf(head, sizeof(head), "change%s%s", per_unit ? "/" : "", per_unit ? d->unit : "");
	if (strlen(head) > 14)
		snprintf(head, sizeof(head), "change");
	reply_row(f, "function [module]", head, "share");
	for (size_t i = 0; i < d->changed && i < top; i++) {
		char *label;

		if (asprintf(&label, "%s %s", d->rows[i].fn, d->rows[i].file) < 0)
			return cli_oom("profile-diff");
		profile_diff_value_text(ch, sizeof(ch), d->rows[i].b - d->rows[i].a, per_unit, 1);
		profile_diff_share_text(sh, sizeof(sh), d->rows[i].b - d->rows[i].a, total);
		reply_row(f, label, ch, sh);
		free(label);
	}
	profile_diff_share_text(sh, sizeof(sh), profile_diff_top_change(d, 10), total);
	fprintf(f, "The top %zu of %zu changed functions explain %s of the change.\n",
		d->changed < 10 ? d->changed : 10, d->changed, sh);
	return 0;
}

int cmd_profile_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "top", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "work-a", required_argument, NULL, 'A' },
		{ "work-b", required_argument, NULL, 'B' },
		{ "unit", required_argument, NULL, 'U' },
		{ "event", required_argument, NULL, 'E' },
		CLI_OPTION_OUTPUT,
		CLI_OPTION_BASE_DIR,
		CLI_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct profile_diff_opts o = { 0 };
	struct profile_diff d = { 0 };
	struct cli_common cc;
	size_t top = 0;
	int reply = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ch, ret;

	ret = cli_common_init(&cc, "profile-diff", profile_diff_usage, 0, argc);
	if (ret != EXIT_OK)
		return ret;
	while ((ch = cli_getopt(&cc, argc, argv, "n:f:o:C:h", opts)) != -1) {
		ret = EXIT_USAGE;
		if (ch == 'n') {
			if (cli_parse_size("--top", optarg, 100000, &top))
				goto out;
		} else if (ch == 'f') {
			if (strcmp(optarg, "text") && strcmp(optarg, "reply")) {
				cli_error("profile-diff: --format %s: text or reply", optarg);
				goto out;
			}
			reply = !strcmp(optarg, "reply");
		} else if (ch == 'A' || ch == 'B') {
			if (cli_parse_double(ch == 'A' ? "--work-a" : "--work-b", optarg, 1e-300,
					     1e300, ch == 'A' ? &o.work_a : &o.work_b))
				goto out;
		} else if (ch == 'U') {
			o.unit = optarg;
		} else if (ch == 'E') {
			o.event = optarg;
		} else if ((ret = cli_common_option(&cc, ch, optarg)) != CLI_OPT_NEXT) {
			goto out;
		}
	}
	if (argc - optind != 2) {
		ret = cli_needs(&cc, "two profiles, A and B");
		goto out;
	}
	if (!top)
		top = reply ? 10 : 20;
	ret = EXIT_USAGE;
	if (cli_confine(&cc, NULL))
		goto out;
	if (profile_diff_load(&cc.c, argv[optind], argv[optind + 1], &o, &d))
		goto out;
	f = open_memstream(&text, &len);
	if (!f) {
		cli_oom("profile-diff");
		goto out;
	}
	ret = reply ? write_reply(f, &d, top) :
		write_text(f, argv[optind], argv[optind + 1], &d, top);
	if (fclose(f) || ret) {
		ret = EXIT_USAGE;
		free(text);
		goto out;
	}
	ret = cli_emit(&cc.c, cc.out, text, len);
out:
	profile_diff_free(&d);
	cli_common_free(&cc);
	return ret;
}
