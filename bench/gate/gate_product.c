/* SPDX-License-Identifier: GPL-2.0 */
/* The time-ordered replay through the product path (gate_product.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <ksftmetric/report.h>

#include "gate_product.h"

/* ---- the corpus ---- */

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static struct prod_stream *stream_of(struct prod_corpus *c, const char *name, int *err)
{
	struct prod_stream *s;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->s[i].name, name))
			return &c->s[i];
	s = realloc(c->s, (c->n + 1) * sizeof(*s));
	if (!s) {
		*err = 1;
		return NULL;
	}
	c->s = s;
	s = &c->s[c->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

static int cmp_rep(const void *a, const void *b)
{
	const struct prod_rep *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

static int cmp_stream(const void *a, const void *b)
{
	const struct prod_stream *x = a, *y = b;

	if (x->dose != y->dose)
		return x->dose - y->dose;
	return strcmp(x->name, y->name);
}

int prod_corpus_load(const char *path, struct prod_corpus *c)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0, i;
	int err = 0;

	memset(c, 0, sizeof(*c));
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (!err && getline(&line, &cap, f) > 0) {
		json_error_t je;
		json_t *o = json_loads(line, 0, &je);
		struct prod_stream *s;
		struct prod_rep rp;
		char name[48];
		int dose, nb;

		lineno++;
		if (!o || !json_is_object(o)) {
			fprintf(stderr, "%s:%zu: not a JSON object: %s\n", path, lineno, je.text);
			json_decref(o);
			err = 1;
			break;
		}
		if (json_object_get(o, "failed")) {	/* a run the recorder saw fail */
			json_decref(o);
			continue;
		}
		rp.gbps = num(o, "gbps");
		rp.t = num(o, "t");
		if (isnan(rp.gbps) || isnan(rp.t)) {
			fprintf(stderr, "%s:%zu: field gbps or t: missing or not a number\n", path,
				lineno);
			json_decref(o);
			err = 1;
			break;
		}
		if (json_is_integer(json_object_get(o, "rules")) ||
		    json_is_integer(json_object_get(o, "cap"))) {
			/* record_corpus.sh (nftables rules) or record_tbf.sh
			 * (a tbf cap, percent of the unchanged median; 0: none) */
			int is_cap = json_is_integer(json_object_get(o, "cap"));

			dose = (int)json_integer_value(json_object_get(o, is_cap ? "cap" : "rules"));
			nb = 0;
			snprintf(name, sizeof(name), is_cap ? "cap=%d" : "rules=%d", dose);
			rp.cost_host = num(o, "cost");
			rp.cost_test = rp.runq_local = rp.runq_remote = rp.others = rp.steal = NAN;
		} else {
			const char *cpus = json_string_value(json_object_get(o, "cpus"));

			dose = (int)num(o, "dose");
			nb = (int)num(o, "neighbours");
			if (!cpus || isnan(num(o, "dose")) || isnan(num(o, "neighbours"))) {
				fprintf(stderr, "%s:%zu: field rules, or neighbours, cpus and dose: "
					"missing\n", path, lineno);
				json_decref(o);
				err = 1;
				break;
			}
			snprintf(name, sizeof(name), "nb=%d cpus=%s dose=%d", nb, cpus, dose);
			rp.cost_host = num(o, "cost_host");
			rp.cost_test = num(o, "cost_test");
			rp.runq_local = num(o, "runq_local");
			rp.runq_remote = num(o, "runq_remote");
			rp.others = num(o, "others");
			rp.steal = num(o, "steal");
		}
		json_decref(o);
		s = stream_of(c, name, &err);
		if (!s)
			break;
		s->dose = dose;
		s->neighbours = nb;
		if ((s->n & (s->n - 1)) == 0) {
			struct prod_rep *v = realloc(s->rep, (s->n ? 2 * s->n : 1) * sizeof(*v));

			if (!v) {
				err = 1;
				break;
			}
			s->rep = v;
		}
		s->rep[s->n++] = rp;
	}
	free(line);
	fclose(f);
	if (!err && !c->n) {
		fprintf(stderr, "%s: no measurements\n", path);
		err = 1;
	}
	if (err) {
		prod_corpus_free(c);
		return -1;
	}
	for (i = 0; i < c->n; i++)
		qsort(c->s[i].rep, c->s[i].n, sizeof(*c->s[i].rep), cmp_rep);
	qsort(c->s, c->n, sizeof(*c->s), cmp_stream);
	return 0;
}

void prod_corpus_free(struct prod_corpus *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->s[i].rep);
	free(c->s);
	memset(c, 0, sizeof(*c));
}

/* ---- one run's log, as the producers print it ---- */

struct buf {
	char *p;
	size_t len, cap;
	int oom;
};

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	while (!b->oom) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		b->cap = b->cap ? 2 * b->cap + (size_t)n : 65536;
		if (!(b->p = realloc(b->p, b->cap)))
			b->oom = 1;
	}
}

static const char *const metric_name[PM_COUNT] = {
	"throughput", "cpu.cost", "cpu.cost.test.best"
};

static void put_metric(struct buf *b, const char *name, const char *host, double t, double v)
{
	if (isnan(v))
		return;
	put(b, "# # ktap-metric-json: {");
	if (host)
		put(b, "\"host\":\"%s\",", host);
	put(b, "\"name\":\"%s\",\"shape\":\"scalar\",\"time\":%.6f,\"value\":%.17g}\n", name, t, v);
}

/* The repeats of stream @k's run @j: its own, or @after's from the shift on. */
static const struct prod_rep *run_reps(const struct prod_corpus *c, const struct prod_plan *p,
				       size_t k, size_t j, double *scale)
{
	const struct prod_stream *s = &c->s[p->streams[k]];

	*scale = 1;
	if (k == p->target && j >= p->shift_at) {
		*scale = p->cost_scale;
		if (p->after)
			s = p->after;
	}
	return s->rep + j * p->repeats;
}

static void make_log(struct buf *b, const struct prod_corpus *c, const struct prod_plan *p,
		     size_t j)
{
	size_t k;
	unsigned i;

	b->len = 0;
	put(b, "TAP version 13\n1..1\n# selftests: net/perf: iperf3_netns\n"
	       "# TAP version 13\n# 1..%zu\n", p->n_streams);
	put(b, "# # ktap-metric-policy-json: {\"name\":\"throughput\",\"regression\":"
	       "{\"better\":\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05},"
	       "\"summarize\":\"distribution\"}\n"
	       "# # ktap-metric-policy-json: {\"name\":\"cpu.cost\",\"regression\":"
	       "{\"better\":\"lower\",\"compare\":\"p50\",\"relative_tolerance\":0.1},"
	       "\"summarize\":\"distribution\"}\n"
	       "# # ktap-metric-policy-json: {\"name\":\"cpu.cost.test\",\"summarize\":\"distribution\"}\n"
	       "# # ktap-metric-policy-json: {\"name\":\"cpu.cost.test.best\",\"regression\":"
	       "{\"better\":\"lower\",\"compare\":\"last\",\"relative_tolerance\":0.1},"
	       "\"summarize\":\"last\"}\n");
	for (k = 0; k < p->n_streams; k++) {
		double scale, best = NAN;
		const struct prod_rep *rp = run_reps(c, p, k, j, &scale);

		for (i = 0; i < p->repeats; i++) {
			const struct prod_rep *x = &rp[i];
			double t = 1.5 + 4.0 * i;

			put_metric(b, "throughput", NULL, t, x->gbps / scale);
			put_metric(b, "cpu.cost", "both", t, x->cost_host * scale);
			put_metric(b, "cpu.cost.test", "both", t, x->cost_test * scale);
			put_metric(b, "interference.runq_wait", "local", t, x->runq_local);
			put_metric(b, "interference.runq_wait", "remote", t, x->runq_remote);
			put_metric(b, "interference.others_cpu", "both", t, x->others);
			put_metric(b, "interference.steal", "both", t, x->steal);
			if (!isnan(x->cost_test) && (isnan(best) || x->cost_test * scale < best))
				best = x->cost_test * scale;
		}
		put_metric(b, "cpu.cost.test.best", "both", 4.0 * p->repeats, best);
		put(b, "# ok %zu s%02zu\n", k + 1, k);
	}
	put(b, "ok 1 selftests: net/perf: iperf3_netns\n");
}

/* ---- the replay ---- */

int prod_flagged(const struct prod_result *r, size_t j, size_t k, int m)
{
	return r->flag[j * r->stride + k * PM_COUNT + (size_t)m];
}

void prod_result_free(struct prod_result *r)
{
	free(r->failed);
	free(r->flag);
	memset(r, 0, sizeof(*r));
}

/* A RAM file system when there is one: the same SQLite code, without
 * waiting for a shared disk's fsync after every run. */
static const char *default_dir(void)
{
	return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

static int fail_api(const char *what, int ret)
{
	fprintf(stderr, "gate_product: %s: %s (%s)\n", what, ksft_metric_report_errmsg(),
		strerror(-ret));
	return ret == -ENOMEM ? -ENOMEM : -EIO;
}

/* Rows of one comparison into the run's flags and counts. */
static void tally(const struct ksft_metric_report_comparison *cmp, struct prod_result *out,
		  size_t j, size_t n_streams)
{
	size_t i, n = ksft_metric_report_comparison_rows(cmp);

	for (i = 0; i < n; i++) {
		struct ksft_metric_report_row row = { .sz = sizeof(row) };
		unsigned k;
		int m;

		if (ksft_metric_report_comparison_row(cmp, i, &row) || !row.verdict)
			continue;
		if (!strcmp(row.verdict, "disturbed"))
			out->disturbed++;
		else if (!strcmp(row.verdict, "too_noisy"))
			out->noise++;
		else if (!strcmp(row.verdict, "regression"))
			out->regressions++;
		if (row.better)
			out->judged_rows++;
		if (!row.fails || !row.case_name || sscanf(row.case_name, "s%u", &k) != 1 ||
		    k >= n_streams)
			continue;
		for (m = 0; m < PM_COUNT; m++)
			if (row.name && !strcmp(row.name, metric_name[m]))
				out->flag[j * out->stride + k * PM_COUNT + (size_t)m] = 1;
	}
}

int prod_replay(const struct prod_corpus *c, const struct prod_plan *p, struct prod_result *out)
{
	char dir[256], db[300];
	struct ksft_metric_report_history *h = NULL;
	struct buf b = { 0 };
	size_t runs = SIZE_MAX, j, k;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	for (k = 0; k < p->n_streams; k++) {
		size_t n = c->s[p->streams[k]].n / p->repeats;

		if (n < runs)
			runs = n;
	}
	if (p->after && p->after->n / p->repeats < runs)
		runs = p->after->n / p->repeats;
	if (!p->n_streams || !runs || runs == SIZE_MAX)
		return -EINVAL;
	out->runs = runs;
	out->stride = p->n_streams * PM_COUNT;
	for (k = 0; k < p->n_streams; k++) {
		const struct prod_rep *x = &c->s[p->streams[k]].rep[0];

		out->gated_series += !isnan(x->gbps) + !isnan(x->cost_host) + !isnan(x->cost_test);
	}
	out->failed = calloc(runs, sizeof(*out->failed));
	out->flag = calloc(runs * out->stride, 1);
	if (!out->failed || !out->flag) {
		prod_result_free(out);
		return -ENOMEM;
	}
	snprintf(dir, sizeof(dir), "%s/gate-product-XXXXXX", p->db_dir ? p->db_dir : default_dir());
	if (!mkdtemp(dir)) {
		fprintf(stderr, "gate_product: %s: %s\n", dir, strerror(errno));
		prod_result_free(out);
		return -EIO;
	}
	snprintf(db, sizeof(db), "%s/history.sqlite", dir);
	if ((ret = ksft_metric_report_history_open(db, &h))) {
		ret = fail_api(db, ret);
		goto out;
	}
	for (j = 0; j < runs && !ret; j++) {
		struct ksft_metric_report_gate_opts go = KSFT_METRIC_REPORT_GATE_OPTS_INIT;
		struct ksft_metric_report_ingest_opts io = KSFT_METRIC_REPORT_INGEST_OPTS_INIT;
		struct ksft_metric_report_comparison *cmp = NULL;
		struct ksft_metric_report *r;
		char run_id[32], order[32];
		int failing;

		make_log(&b, c, p, j);
		if (b.oom) {
			ret = -ENOMEM;
			break;
		}
		r = ksft_metric_report_new(NULL);
		if (!r) {
			ret = -ENOMEM;
			break;
		}
		if ((ret = ksft_metric_report_read_buffer(r, b.p, b.len, "run.log")) < 0) {
			ret = fail_api("reading the run's log", ret);
			ksft_metric_report_free(r);
			break;
		}
		ret = 0;
		/* compare --db FILE: the CLI's defaults (window 30, its q) */
		go.window = io.window = p->window;
		failing = ksft_metric_report_history_compare(h, r, &go, &cmp);
		if (failing < 0) {
			ret = fail_api("compare --db", failing);
		} else {
			out->failed[j] = failing > 0;
			tally(cmp, out, j, p->n_streams);
			if (p->judge_only_last && j + 1 == runs) {
				ksft_metric_report_comparison_free(cmp);
				ksft_metric_report_free(r);
				break;
			}
			/* ingest --run ID --order KEY FILE */
			snprintf(run_id, sizeof(run_id), "run%06zu", j);
			snprintf(order, sizeof(order), "%06zu", j);
			io.run_id = run_id;
			io.order = order;
			failing = ksft_metric_report_history_ingest(h, r, &io, NULL);
			if (failing < 0)
				ret = fail_api("ingest", failing);
		}
		ksft_metric_report_comparison_free(cmp);
		ksft_metric_report_free(r);
	}
out:
	ksft_metric_report_history_close(h);
	unlink(db);
	snprintf(db, sizeof(db), "%s/history.sqlite-wal", dir);
	unlink(db);
	snprintf(db, sizeof(db), "%s/history.sqlite-shm", dir);
	unlink(db);
	snprintf(db, sizeof(db), "%s/history.sqlite-journal", dir);
	unlink(db);
	rmdir(dir);
	free(b.p);
	if (ret)
		prod_result_free(out);
	return ret;
}
