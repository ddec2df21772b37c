/*
 * Judging N seeds (issue 42, doc/consumer.rst): `save -o a.json a-s1.log
 * ... a-sN.log` and `compare --baseline a.json b-s1.log ... b-sN.log`
 * take each log's seed from its run context (`seed`: ksft-vm's `--seed S`
 * puts ksftm.seed=S on the guest's command line, lib/metric/vm_context.c
 * adds it) and keep one run a seed, so the boot, not the repeat, is what
 * the comparison counts.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "seed_runs.h"

/* The seed @r's context names, as text (malloc'd), else NULL. */
static char *seed_in(const struct ksft_metric_report *r)
{
	json_t *ctx = json_loads(ksft_metric_report_context_json(r), 0, NULL);
	json_t *v = json_object_get(ctx, "seed");
	char *seed = NULL;

	if (json_is_string(v))
		seed = strdup(json_string_value(v));
	else if (json_is_number(v))
		seed = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	json_decref(ctx);
	return seed;
}

/* @file's seed as text (malloc'd), NULL when it names none; -1 in *@err
 * after an error message. */
static char *seed_of(const struct confine *c, const char *file, int *err)
{
	struct ksft_metric_report *r = ksft_metric_report_new(NULL);
	char *seed = NULL;
	FILE *f;

	*err = 0;
	if (!r) {
		cli_error("%s", ksft_metric_report_errmsg());
		*err = -1;
		return NULL;
	}
	f = confine_open_read(c, file);
	if (!f || ksft_metric_report_read_file(r, f, file) < 0) {
		if (f)
			cli_error("%s: %s", file, ksft_metric_report_errmsg());
		*err = -1;
	}
	if (f && f != stdin)
		fclose(f);
	if (!*err)
		seed = seed_in(r);
	ksft_metric_report_free(r);
	return seed;
}

int seed_runs_add(const struct confine *c, char *const *files, int n,
		  const struct ksft_metric_report *whole,
		  struct ksft_metric_report_baseline *b)
{
	char **seed = calloc(n > 0 ? (size_t)n : 1, sizeof(*seed));
	const char **group = calloc(n > 0 ? (size_t)n : 1, sizeof(*group));
	int i, j, named = 0, seeds = 0, err = 0;

	if (!seed || !group) {
		cli_error("out of memory");
		err = -1;
	}
	for (i = 0; !err && i < n; i++) {
		if (!strcmp(files[i], "-"))
			break;	/* stdin is read once: no seeds from it */
		/* One file: @whole is its report already (a 200,000-case log
		 * was read three times). */
		seed[i] = n == 1 ? seed_in(whole) : seed_of(c, files[i], &err);
		named += !!seed[i];
	}
	if (!err && named && named < n) {
		for (i = 0; i < n && seed[i]; i++)
			;
		cli_error("%s names no seed (its context has no \"seed\") while %d of the %d"
			  " inputs do: judging seeds wants one boot a file, each with its seed",
			  files[i], named, n);
		err = -1;
	}
	for (i = 0; !err && named && i < n; i++) {
		struct ksft_metric_report *r;
		size_t k = 0;

		for (j = 0; j < i && strcmp(seed[j], seed[i]); j++)
			;
		if (j < i)
			continue;	/* this seed's run is made */
		if (n == 1) {
			group[0] = files[0];
			if (ksft_metric_report_baseline_add_report(b, whole, group, 1) < 0) {
				cli_error("%s", ksft_metric_report_errmsg());
				err = -1;
			}
			seeds++;
			break;
		}
		r = ksft_metric_report_new(NULL);
		if (!r) {
			cli_error("%s", ksft_metric_report_errmsg());
			err = -1;
			break;
		}
		for (j = i; !err && j < n; j++) {
			FILE *f;

			if (strcmp(seed[j], seed[i]))
				continue;
			group[k++] = files[j];
			f = confine_open_read(c, files[j]);
			if (!f || ksft_metric_report_read_file(r, f, files[j]) < 0) {
				if (f)
					cli_error("%s: %s", files[j], ksft_metric_report_errmsg());
				err = -1;
			}
			if (f)
				fclose(f);
		}
		if (!err && ksft_metric_report_baseline_add_report(b, r, group, k) < 0) {
			cli_error("%s", ksft_metric_report_errmsg());
			err = -1;
		}
		ksft_metric_report_free(r);
		seeds++;
	}
	for (i = 0; seed && i < n; i++)
		free(seed[i]);
	free(seed);
	free(group);
	return err ? -1 : seeds;
}
