// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: a hostile history database's contents. The input is rows,
 * one a line: a table letter (s ksftm_series, r ksftm_runs, e
 * ksftm_results, l ksftm_levels, m ksftm_meta) then its columns separated
 * by tabs, "\N" for SQL NULL. They go into a fresh in-memory SQLite history
 * with the real schema less its NOT NULL constraints (another tool's
 * tables), then every read path runs over it: `history` (text, JSON, CSV),
 * the gate's window (compare --db), accept and ingest. Errors are fine;
 * crashes, leaks and undefined behaviour are not.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <ksftmetric/report.h>

#include "history.h"
#include "history_document.h"
#include "history_judge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char current_log[] =
	"KTAP version 1\n"
	"1..2\n"
	"# ktap-metric-policy-json: {\"name\":\"t\",\"regression\":{\"better\":\"higher\","
	"\"compare\":\"p50\",\"relative_tolerance\":0.05},\"summarize\":\"distribution\"}\n"
	"# ktap-metric-json: {\"name\":\"t\",\"shape\":\"scalar\",\"time\":1,\"value\":5}\n"
	"# ktap-metric-json: {\"name\":\"t\",\"shape\":\"scalar\",\"time\":2,\"value\":6}\n"
	"ok 1 tcp\n"
	"# ktap-metric-json: {\"name\":\"cpu\",\"shape\":\"per-cpu\",\"time\":1,\"value\":[1,2]}\n"
	"ok 2 cpu\n";

static struct ksft_metric_report *current(void)
{
	static struct ksft_metric_report *r;

	if (!r) {
		r = ksft_metric_report_new(NULL);
		if (!r || ksft_metric_report_read_buffer(r, current_log, sizeof(current_log) - 1,
							 "current") < 0)
			abort();
	}
	return r;
}

static const struct {
	char letter;
	int n;
	const char *sql;
} tables[] = {
	{ 's', 5, "INSERT INTO ksftm_series (id, path, case_name, metric, labels)"
		  " VALUES ($1, $2, $3, $4, $5)" },
	{ 'r', 8, "INSERT INTO ksftm_runs (id, run_key, run_order, context, comparable, state,"
		  " pinned, ingested) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)" },
	{ 'e', 15, "INSERT INTO ksftm_results (run_id, series_id, comparable, run_order, usable,"
		   " status, shape, policy, compare_op, better, value, samples, summary, verdict,"
		   " accepted) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,"
		   " $14, $15)" },
	{ 'l', 3, "INSERT INTO ksftm_levels (series_id, comparable, run_order) VALUES ($1, $2, $3)" },
	{ 'm', 2, "INSERT OR REPLACE INTO ksftm_meta (key, value) VALUES ($1, $2)" },
};

/* One line: its table's row, the missing columns NULL. */
static void insert_row(struct db *db, char *line)
{
	const char *p[16] = { NULL };
	size_t t;
	int k = 0;
	char *f, *save = NULL;

	for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		if (tables[t].letter == line[0])
			break;
	if (t == sizeof(tables) / sizeof(tables[0]) || line[1] != '\t')
		return;
	for (f = strtok_r(line + 2, "\t", &save); f && k < tables[t].n;
	     f = strtok_r(NULL, "\t", &save))
		p[k++] = strcmp(f, "\\N") ? f : NULL;
	db_query(db, tables[t].sql, p, tables[t].n, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksft_metric_report_history_opts o = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
	struct hgate_opts g = { "{}", NULL, 0, 0, 0, 0, 0, 0 };
	struct history_run run = { "fuzz-run", "9999", NULL, 0, 0, 0 };
	struct ksft_metric_report_comparison *c = NULL;
	static const int fmts[] = { KSFT_METRIC_REPORT_TEXT, KSFT_METRIC_REPORT_JSON,
				    KSFT_METRIC_REPORT_CSV };
	struct history *h;
	char *text, *line, *save = NULL, *key = NULL, *rows;
	size_t len, k;

	if (size > 1 << 16 || memchr(data, '\0', size))
		return 0;
	rows = malloc(size + 1);
	if (!rows)
		return 0;
	memcpy(rows, data, size);
	rows[size] = '\0';
	/* A fresh in-memory history with the real schema less its NOT NULL
	 * constraints; bumping schema_version makes SQLite reload it. */
	if (history_open(":memory:", &h)) {
		free(rows);
		return 0;
	}
	{
		struct db_rows *v = NULL;
		char bump[64];

		db_query(history_db(h), "PRAGMA schema_version", NULL, 0, &v);
		snprintf(bump, sizeof(bump), "PRAGMA schema_version = %ld",
			 db_rows_get(v, 0, 0) ? strtol(db_rows_get(v, 0, 0), NULL, 10) + 1 : 100);
		db_rows_free(v);
		db_exec(history_db(h), "PRAGMA writable_schema=ON;"
			" UPDATE sqlite_master SET sql = replace(sql, ' NOT NULL', '')"
			" WHERE type = 'table'");
		db_exec(history_db(h), bump);
		db_exec(history_db(h), "PRAGMA writable_schema=OFF; PRAGMA foreign_keys=OFF");
	}
	for (line = strtok_r(rows, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		insert_row(history_db(h), line);
	free(rows);
	for (k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		o.all_status = (int)k == 1;
		if (!history_document_format(h, &o, fmts[k], &text, &len))
			free(text);
	}
	o.series = "t";
	o.last = 2;
	if (!history_document_format(h, &o, KSFT_METRIC_REPORT_TEXT, &text, &len))
		free(text);
	if (history_compare_lookup(history_db(h), current(), &g, &c) >= 0)
		ksft_metric_report_comparison_free(c);
	history_accept(h, "r1", NULL);
	history_accept(h, "r1", "t");
	history_pin(h, "r1", 1);
	if (history_record(h, current(), &run, &key) >= 0)
		free(key);
	history_close(h);
	return 0;
}
