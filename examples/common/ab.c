// SPDX-License-Identifier: GPL-2.0
/* A/B mode: randomised interleaved trials (see ab.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ksftmetric/metric.h>

#include "ab.h"
#include "cli_util.h"
#include "ktap_out.h"
#include "net_policy.h"
#include "proc.h"

#define SETUP_TIMEOUT_MS 60000

/* splitmix64: a well-mixed, reproducible bit per (seed, pair). */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

int ex_ab_order(uint64_t seed, int pair)
{
	return (int)(mix(seed ^ mix((uint64_t)pair)) & 1);
}

uint64_t ex_ab_default_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return mix((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) ^
	       (uint64_t)getpid();
}

static int run_argv(const char *const *prefix, const char *const *argv, const char *what,
		    char **err)
{
	struct exproc_result r;
	int ret = exproc_run(prefix, argv, SETUP_TIMEOUT_MS, &r, err);

	if (ret)
		return ex_errf(err, ret, "%s: %s", what, err && *err ? *err : "cannot run");
	if (r.timed_out || exproc_exit_code(r.status) != 0) {
		char *cmd = exproc_cmdline(prefix, argv);

		ret = ex_errf(err, r.timed_out ? -ETIMEDOUT : -EPROTO, "%s (%s) %s\n%s%s", what,
			      cmd ? cmd : argv[0], r.timed_out ? "timed out" :
			      exproc_status_str(r.status), exproc_tail(r.errout, r.err_len, 2000),
			      exproc_tail(r.out, r.out_len, 2000));
		free(cmd);
	}
	exproc_result_free(&r);
	return ret;
}

/* TCP metrics cached per destination carry a trial's cwnd/ssthresh into
 * the next: flush them at both endpoints. */
static int flush(const struct ex_ab_opts *o, char **err)
{
	static const char *const argv[] = { "ip", "tcp_metrics", "flush", NULL };
	int ret;

	if (o->no_flush)
		return 0;
	ret = run_argv(NULL, argv, "reset between trials", err);
	if (!ret && o->remote && o->remote[0])
		ret = run_argv(o->remote, argv, "reset between trials (remote)", err);
	return ret;
}

static void cv_of(const double *v, int n, double *mean, double *cv)
{
	double s = 0, ss = 0;
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i])) {
			s += v[i];
			k++;
		}
	*mean = k ? s / k : NAN;
	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			ss += (v[i] - *mean) * (v[i] - *mean);
	*cv = k > 1 && *mean != 0 ? sqrt(ss / (k - 1)) / fabs(*mean) : NAN;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int register_ratio(const char *name)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.summarize = "distribution";
	p.display_label = "B/A per pair";
	return ksft_metric_aggregate(name, &p);
}

static int record_ratio(const char *name, double v, int pair)
{
	const struct ksft_metric_label l[] = { KSFT_METRIC_LABEL_INT("pair", pair) };
	int ret;

	if (isnan(v) || ksft_metric_reporting_enabled() != 1)
		return 0;
	ret = register_ratio(name);
	return ret ? ret : ksft_metric_double(name, "scalar", v, l, 1);
}

static void summary(const char *what, const double *a, const double *b, int n)
{
	double *ratio = calloc((size_t)n, sizeof(*ratio));
	double ma, ca, mb, cb, mr, cr, med;
	char line[300];
	int i, k = 0;

	if (!ratio)
		return;
	for (i = 0; i < n; i++)
		if (!isnan(a[i]) && !isnan(b[i]) && a[i] > 0)
			ratio[k++] = b[i] / a[i];
	cv_of(a, n, &ma, &ca);
	cv_of(b, n, &mb, &cb);
	cv_of(ratio, k, &mr, &cr);
	qsort(ratio, (size_t)k, sizeof(*ratio), cmp_double);
	med = !k ? NAN : k % 2 ? ratio[k / 2] : (ratio[k / 2 - 1] + ratio[k / 2]) / 2;
	snprintf(line, sizeof(line),
		 "A/B %s: B/A median %.4f over %d pairs, CV of the paired ratio %.1f%%; "
		 "unpaired CV A %.1f%%, B %.1f%%", what, med, k, 100 * cr, 100 * ca, 100 * cb);
	ex_ktap_diag(line);
	free(ratio);
}

int ex_ab_run(const struct ex_ab_opts *o, ex_ab_trial_fn trial, void *ctx, char **err)
{
	static const char *const name[2] = { "A", "B" };
	double *v[2][2];	/* [variant][gbps, cost] per pair */
	char line[200];
	int p, t, ret = 0;

	if (o->pairs < 1 || !o->setup[0] || !o->setup[1])
		return ex_errf(err, -EINVAL, "A/B: need both setup commands and pairs >= 1");
	for (t = 0; t < 4; t++)
		v[t / 2][t % 2] = calloc((size_t)o->pairs, sizeof(double));
	if (!v[0][0] || !v[0][1] || !v[1][0] || !v[1][1]) {
		ret = ex_errf(err, -ENOMEM, "out of memory");
		goto out;
	}
	snprintf(line, sizeof(line), "A/B: %d pairs, seed %llu (order random inside each pair)",
		 o->pairs, (unsigned long long)o->seed);
	ex_ktap_diag(line);
	for (p = 0; !ret && p < o->pairs; p++) {
		int first = ex_ab_order(o->seed, p);

		for (t = 0; !ret && t < 2; t++) {
			int var = t ? !first : first;

			ret = run_argv(NULL, o->setup[var], var ? "variant B setup" :
				       "variant A setup", err);
			if (!ret)
				ret = flush(o, err);
			if (ret)
				break;
			ex_trial_set(name[var], p);
			ret = trial(ctx, &v[var][0][p], &v[var][1][p], err);
			ex_trial_set(NULL, 0);
		}
		if (ret)
			break;
		snprintf(line, sizeof(line), "pair %d (%s first): A %.3f Gbps, B %.3f Gbps, "
			 "B/A %.4f", p, name[first], v[0][0][p], v[1][0][p],
			 v[1][0][p] / v[0][0][p]);
		ex_ktap_diag(line);
		ret = record_ratio("ab.throughput_ratio", v[1][0][p] / v[0][0][p], p);
		if (!ret)
			ret = record_ratio("ab.test_cost_ratio", v[1][1][p] / v[0][1][p], p);
		if (ret)
			ret = ex_errf(err, ret, "metric: %s", ksft_metric_errmsg());
	}
	if (!ret) {
		summary("throughput", v[0][0], v[1][0], o->pairs);
		summary("test's own CPU cost", v[0][1], v[1][1], o->pairs);
	}
out:
	for (t = 0; t < 4; t++)
		free(v[t / 2][t % 2]);
	return ret;
}

void ex_ab_cli_init(struct ex_ab_cli *c)
{
	memset(c, 0, sizeof(*c));
	c->ab.pairs = 10;
}

int ex_ab_cli_opt(struct ex_ab_cli *c, const char *prog, int opt, int argc, char **argv)
{
	char what[80], *end;
	int b = opt == EX_AB_OPT_B;

	switch (opt) {
	case EX_AB_OPT_A:
	case EX_AB_OPT_B:
		snprintf(what, sizeof(what), "%s %s", prog, b ? "--ab-b" : "--ab-a");
		return ex_opt_remote(what, argc, argv, &c->setup[b], &c->store[b]) ? -1 : 1;
	case EX_AB_OPT_PAIRS:
		return ex_parse_int(prog, optarg, "pairs", 1, 100000, &c->ab.pairs) ? -1 : 1;
	case EX_AB_OPT_SEED:
		c->ab.seed = strtoull(optarg, &end, 0);
		if (end == optarg || *end) {
			fprintf(stderr, "%s: bad seed: %s\n", prog, optarg);
			return -1;
		}
		c->seeded = 1;
		return 1;
	case EX_AB_OPT_NO_FLUSH:
		c->ab.no_flush = 1;
		return 1;
	default:
		return 0;
	}
}

int ex_ab_cli_finish(struct ex_ab_cli *c, const char *prog, const char *const *remote)
{
	if (!c->setup[0] != !c->setup[1]) {
		fprintf(stderr, "%s: A/B needs both --ab-a and --ab-b\n", prog);
		return -1;
	}
	/* ksft-metric ab's exact test on n pairs stops at p = 1/2^n: say so
	 * before the run rather than after it (7 pairs for its default 0.01). */
	if (c->setup[0] && c->ab.pairs < 7)
		fprintf(stderr, "%s: warning: %d pairs cannot reach ksft-metric ab's default "
			"significance (p <= 0.01 needs 7 pairs, more with several metrics)\n",
			prog, c->ab.pairs);
	if (!c->seeded)
		c->ab.seed = ex_ab_default_seed();
	c->ab.setup[0] = c->setup[0];
	c->ab.setup[1] = c->setup[1];
	c->ab.remote = remote;
	return c->setup[0] != NULL;
}

void ex_ab_cli_free(struct ex_ab_cli *c)
{
	int i;

	for (i = 0; i < 2; i++) {
		free(c->setup[i]);
		free(c->store[i]);
	}
}
