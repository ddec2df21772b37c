/*
 * Fail loudly on a mis-set run history (issues 22, 40): a command that
 * reads a history never creates one, and judging against a history that
 * cannot judge this run (empty, its series only under other contexts, or
 * an orphan context lacking a key the others have: the library's
 * ksft_metric_report_history_check()) is an error naming the contexts
 * found, unless --first-run says the history starts here; ingest refuses
 * the same unless --create or --new-context.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int is_pg(const char *db)
{
	return !strncmp(db, "postgresql://", 13) || !strncmp(db, "postgres://", 11);
}

int cli_history_exists(const struct cli_common *cc)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	size_t got;
	FILE *f;

	if (is_pg(cc->db))
		return 1;	/* a server: opening it tells */
	if (!strcmp(cc->db, "-")) {
		cli_error("--db -: a run history is a SQLite file or a postgresql:// URL");
		return -EINVAL;
	}
	if (access(cc->db, F_OK) && !cc->c.base)
		return 0;
	f = confine_open_read(&cc->c, cc->db);
	if (!f)
		return -EIO;	/* said why */
	got = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (!got)
		return 0;	/* an empty file: no history in it */
	if (got < sizeof(head) || memcmp(head, magic, sizeof(head))) {
		cli_error("%s: not a run history (not a SQLite database; ksft-metric ingest"
			  " writes one)", cc->db_shown);
		return -EINVAL;
	}
	return 1;
}

struct ksft_metric_report_history *cli_open_history(struct cli_common *cc)
{
	struct ksft_metric_report_history *h;
	int there;

	if (!cc->db_create) {
		there = cli_history_exists(cc);
		if (there < 0)
			return NULL;
		if (!there) {
			cc->db_missing = 1;
			if (!strcmp(cc->name, "ingest"))
				cli_error("%s: no run history there (a mistyped --db? --create"
					  " says a new history starts here)", cc->db_shown);
			else if (!cc->first_run)
				cli_error("%s: no run history there (a mistyped --db? ksft-metric"
					  " ingest --create starts one; on a CI's first run"
					  " --first-run says the history starts here)", cc->db_shown);
			return NULL;
		}
	}
	if (strncmp(cc->db, "postgresql://", 13) && strncmp(cc->db, "postgres://", 11) &&
	    confine_check_write(&cc->c, cc->db))
		return NULL;
	if (ksft_metric_report_history_open(cc->db, &h)) {
		cli_error("%s: %s", cc->db_shown, ksft_metric_report_errmsg());
		return NULL;
	}
	return h;
}

struct ksft_metric_report_history *cli_open_history_alone(struct cli_common *cc)
{
	return confine_init(&cc->c, cc->base) ? NULL : cli_open_history(cc);
}

/* What the command line can do about the library's answer @fit. */
static const char *fit_hint(int fit, int ingest)
{
	if (fit == KSFT_METRIC_REPORT_HISTORY_EMPTY)
		return ingest ? " (a mistyped --db? --create says a new history starts here)" :
		       " (a mistyped --db? on a CI's first run, --first-run says the history"
		       " starts here)";
	if (fit == KSFT_METRIC_REPORT_HISTORY_KEY_MISSING)
		return ingest ? " (a forgotten or mistyped --context KEY=VALUE? --new-context"
				" says this run's machine is new)" :
		       " (a forgotten or mistyped --context KEY=VALUE? --first-run says this"
		       " run's context starts here)";
	return ingest ? " (a new machine, or a mistyped --context value?)" :
	       " (a mistyped or forgotten --context? --first-run says the history starts here)";
}

int cli_history_fit(struct cli_common *cc, struct ksft_metric_report_history *h,
		    const struct ksft_metric_report_gate_opts *go, int ingest)
{
	char *why = NULL;
	int fit = ksft_metric_report_history_check(h, cc->r, go, &why);

	free(cc->unusable);
	cc->unusable = NULL;
	if (fit < 0) {
		cli_error("%s: %s", cc->db_shown, ksft_metric_report_errmsg());
		return fit;
	}
	if (fit != KSFT_METRIC_REPORT_HISTORY_FITS &&
	    asprintf(&cc->unusable, "%s%s", why ? why : "?", fit_hint(fit, ingest)) < 0)
		cc->unusable = NULL;
	ksft_metric_report_text_free(why);
	return fit;
}

int cli_history_judge(struct cli_common *cc, struct ksft_metric_report_gate_opts *go,
		      struct ksft_metric_report_history **h,
		      struct ksft_metric_report_comparison **out)
{
	int failing, fit;

	free(cc->unusable);
	cc->unusable = NULL;
	*out = NULL;
	go->context = cc->context;
	go->n_context = cc->n_context;
	*h = cli_open_history(cc);
	if (!*h) {
		/* No history (or none to be had): every series against no run. */
		failing = ksft_metric_report_compare(cc->r, cc->b, &cc->copts, out);
		if (failing < 0) {
			cli_error("%s", ksft_metric_report_errmsg());
			return CLI_JUDGE_ERROR;
		}
		/* The open said why. */
		return cc->first_run && cc->db_missing ? 0 : CLI_JUDGE_UNUSABLE;
	}
	failing = ksft_metric_report_history_compare(*h, cc->r, go, out);
	if (failing < 0) {
		cli_error("%s: %s", cc->db_shown, ksft_metric_report_errmsg());
		return CLI_JUDGE_ERROR;
	}
	if (cc->first_run)
		return failing;
	fit = cli_history_fit(cc, *h, go, 0);
	if (fit < 0)
		return CLI_JUDGE_ERROR;
	if (fit == KSFT_METRIC_REPORT_HISTORY_FITS)
		return failing;
	/* Said where the reason is known, with the command's name. */
	if (cc->unusable)
		cli_error("%s: %s", cc->name, cc->unusable);
	return CLI_JUDGE_UNUSABLE;
}

int cli_history_text(struct cli_common *cc, struct ksft_metric_report_history_opts *ho,
		     int fmt, char **text, size_t *len)
{
	struct ksft_metric_report_history *h;
	int ret = EXIT_OK;

	ho->context = cc->context;
	ho->n_context = cc->n_context;
	h = cli_open_history(cc);
	if (!h)
		return EXIT_USAGE;
	if (ksft_metric_report_history_format(h, ho, fmt, text, len)) {
		cli_error("%s: %s", cc->db_shown, ksft_metric_report_errmsg());
		ret = EXIT_USAGE;
	}
	ksft_metric_report_history_close(h);
	return ret;
}
