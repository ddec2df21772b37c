/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replaying recorded measurements through regression gates (gate_replay.h).
 *
 * Every competitor below is re-implemented from its project's source, read
 * for this benchmark; each function names the file and function it follows
 * and what we had to decide where the original has no equivalent (they
 * all judge throughput, higher is better, so "regression" is a drop).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report/judge/changepoint.h"
#include "report/judge/gate.h"
#include "report/judge/tails.h"
#include "gate_replay.h"
#include "gate_retired.h"
#include "otava_port.h"

/* ---- deterministic randomness (xorshift64*) ---- */

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 2685821657736338717ULL;
}

static size_t rng_below(struct rng *r, size_t n)
{
	return (size_t)((rng_next(r) >> 11) % n);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed ? seed : 0x9e3779b97f4a7c15ULL;
	rng_next(r);
}

/* ---- small statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_small(const double *x, size_t n)
{
	double t[16];

	if (n > 16)
		n = 16;
	memcpy(t, x, n * sizeof(*t));
	qsort(t, n, sizeof(*t), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static void mean_sd(const double *x, size_t n, double *m, double *sd)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	s /= (double)n;
	for (i = 0; i < n; i++)
		ss += (x[i] - s) * (x[i] - s);
	*m = s;
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
}

/* Upper p-quantile of Student's t with df degrees of freedom (p > 0.5). */
static double t_quantile(double p, double df)
{
	double lo = 0, hi = 1000;
	int i;

	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (tails_student_t_two_sided(mid, df) / 2 > 1 - p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void replay_wilson(size_t k, size_t n, double *lo, double *hi)
{
	const double z = 1.959963984540054;
	double p, d, c, h;

	if (!n) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)k / (double)n;
	d = 1 + z * z / (double)n;
	c = (p + z * z / (2.0 * (double)n)) / d;
	h = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / d;
	*lo = fmax(0, c - h);
	*hi = fmin(1, c + h);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

double replay_median_latency(size_t *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_size);
	if (v[n / 2] == SIZE_MAX)
		return INFINITY;
	return (double)v[n / 2];
}

/* ---- the corpus ---- */

static int cmp_level(const void *a, const void *b)
{
	const struct replay_level *x = a, *y = b;

	return (x->rules > y->rules) - (x->rules < y->rules);
}

int replay_corpus_load(const char *path, struct replay_corpus *c)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, i, lineno = 0;
	double base;

	memset(c, 0, sizeof(*c));
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		json_error_t err;
		json_t *o = json_loads(line, 0, &err), *jr, *jg;
		struct replay_level *lv = NULL;

		lineno++;
		jr = o ? json_object_get(o, "rules") : NULL;
		jg = o ? json_object_get(o, "gbps") : NULL;
		if (!json_is_integer(jr) || !json_is_number(jg)) {
			fprintf(stderr, "%s:%zu: not a corpus line (rules, gbps)\n", path, lineno);
			json_decref(o);
			goto fail;
		}
		for (i = 0; i < c->n_lv; i++)
			if (c->lv[i].rules == (int)json_integer_value(jr))
				lv = &c->lv[i];
		if (!lv) {
			if (c->n_lv == REPLAY_MAX_LEVELS) {
				fprintf(stderr, "%s: more than %d rule counts\n", path, REPLAY_MAX_LEVELS);
				json_decref(o);
				goto fail;
			}
			lv = &c->lv[c->n_lv++];
			lv->rules = (int)json_integer_value(jr);
		}
		if ((lv->n & (lv->n - 1)) == 0) {	/* 0, 1, 2, 4, ...: grow */
			double *v = realloc(lv->gbps, (lv->n ? 2 * lv->n : 1) * sizeof(*v));

			if (!v) {
				json_decref(o);
				goto fail;
			}
			lv->gbps = v;
		}
		lv->gbps[lv->n++] = json_number_value(jg);
		json_decref(o);
	}
	free(line);
	line = NULL;
	fclose(f);
	f = NULL;
	qsort(c->lv, c->n_lv, sizeof(c->lv[0]), cmp_level);
	if (!c->n_lv || c->lv[0].rules != 0 || c->lv[0].n < 10) {
		fprintf(stderr, "%s: no unchanged measurements (rules 0)\n", path);
		goto fail;
	}
	for (i = 0; i < c->n_lv; i++) {
		double m, sd;

		mean_sd(c->lv[i].gbps, c->lv[i].n, &m, &sd);
		c->lv[i].mean = m;
		c->lv[i].cv = sd / m;
	}
	base = c->lv[0].mean;
	for (i = 0; i < c->n_lv; i++)
		c->lv[i].drop = 1 - c->lv[i].mean / base;
	return 0;
fail:
	free(line);
	if (f)
		fclose(f);
	replay_corpus_free(c);
	return -1;
}

void replay_corpus_free(struct replay_corpus *c)
{
	size_t i;

	for (i = 0; i < c->n_lv; i++)
		free(c->lv[i].gbps);
	memset(c, 0, sizeof(*c));
}

/* ---- runs ---- */

/* One series as a CI run sees it: the window's runs and the current one. */
struct sim_series {
	const double *raw;	/* window runs' measurements, run i at raw[i * r] */
	const double *val;	/* window runs' values (medians) */
	const double *cur_raw;	/* the current run's measurements */
	double cur;		/* the current run's value */
	const double *recent;	/* every run before the current one (NULL: the window) */
	size_t n_recent;
};

/* One run of r measurements drawn from @lv; returns its median. */
static double draw_run(struct rng *g, const struct replay_level *lv, unsigned r, double *raw)
{
	unsigned i;

	for (i = 0; i < r; i++)
		raw[i] = lv->gbps[rng_below(g, lv->n)];
	return median_small(raw, r);
}

/* ---- the methods: per series, a score; alarm when score >= threshold ---- */

/*
 * Today's `ksft-metric compare` with one baseline file, and zperf's
 * zperf_regression.py: a drop of more than 5% below the previous run's
 * value is a regression. Score: the drop.
 */
static double score_fixed5(const struct sim_series *s, size_t n)
{
	return 1 - s->cur / s->val[n - 1];
}

/*
 * lkp-tests, lib/stats.rb StatCompare#changed_perf_stat? without options
 * (LKP::ChangedStat#change?, lib/changed_stat.rb, no 'distance'): a
 * change when the ranges separate, min_b > mean_a && mean_b > max_a for a
 * drop of a below b, where "mean" is the middle element of the sorted
 * samples (min_mean_max) after sort_remove_margin (size >> 5 from each end,
 * at most 3); then skip_small_change? keeps it when the ratio of the
 * "means" exceeds 1.01 (a perf metric). a: the current run's samples. b:
 * lkp's base matrix pools the samples of the last release tags until it
 * holds 3 tags and 9 samples (load_base_matrix); here the samples of the
 * last window runs until >= 3 runs and >= 9 samples.
 */
static double score_lkp(const struct sim_series *s, size_t n, unsigned r)
{
	double a[16], b[64];
	size_t na = r, nb = 0, runs = 0, ma, mb;
	double min_a, mean_a, max_a, min_b, mean_b, max_b;

	while (runs < n && (runs < 3 || nb < 9) && nb + r <= 64) {
		memcpy(b + nb, s->raw + (n - 1 - runs) * r, r * sizeof(*b));
		nb += r;
		runs++;
	}
	memcpy(a, s->cur_raw, na * sizeof(*a));
	qsort(a, na, sizeof(*a), cmp_double);
	qsort(b, nb, sizeof(*b), cmp_double);
	mb = nb >> 5 < 3 ? nb >> 5 : 3;
	ma = na >> 5 < (nb <= 3 ? 1u : 3u) ? na >> 5 : (nb <= 3 ? 1u : 3u);
	min_b = b[mb];
	max_b = b[nb - 1 - mb];
	mean_b = b[mb + (nb - 2 * mb) / 2];
	min_a = a[ma];
	max_a = a[na - 1 - ma];
	mean_a = a[ma + (na - 2 * ma) / 2];
	(void)min_a;	/* the improvement side (a above b) is not a failure */
	(void)max_b;
	if (min_b > mean_a && mean_b > max_a && mean_a > 0 && mean_b / mean_a > 1.01)
		return 1;
	return 0;
}

/*
 * conbench, the "lookback z-score" (docs/pages/lookback_zscore.md; we
 * could not read its code): z = (x - mean) / stdev of the comparable
 * results of the baseline's history; a regression when z is beyond the
 * threshold on the worse side (5: the value we were given as conbench's
 * default). Here the history is the same 30-run window our gate gets
 * (conbench's default lookback, DISTRIBUTION_COMMITS, is 100 commits).
 * Score: -z.
 */
static double score_conbench(const struct sim_series *s, size_t n)
{
	double m, sd;

	mean_sd(s->val, n, &m, &sd);
	if (sd == 0)
		return s->cur < m ? INFINITY : -INFINITY;
	return (m - s->cur) / sd;
}

/*
 * Bencher's t_test threshold with a lower boundary of 0.99 (bencher.dev
 * "Thresholds & Alerts", the documentation's description, not its code):
 * the limit is the 0.99 quantile of a Student t with the history's mean
 * and standard deviation and n - 1 degrees of freedom,
 * mean - t(0.99, n - 1) * sd; a new value below it alerts.
 * (Perfherder's t-test is a two-window change detector; it is in the
 * latency table.) Score: (mean - x) / sd, threshold t(0.99, n - 1).
 */
static double score_ttest(const struct sim_series *s, size_t n)
{
	return score_conbench(s, n);
}

/*
 * asv (airspeed velocity), asv/statistics.py compute_stats(): the median
 * and a 99% confidence interval for it, from quantile_ci() (order
 * statistics) or, when those give no bound and there are at least 2
 * samples, from LaplacePosterior.ppf(0.005, 0.995) extended to the
 * samples' range. asv/_stats.py is_different(): Mann-Whitney U when
 * 1 / C(na + nb, min) < p_threshold (0.002), which never holds at <= 5
 * repeats a side, else "different" when the two intervals do not
 * overlap. asv/commands/compare.py: worse when time_2 > time_1 * factor
 * (1.1) and is_different. asv measures time: we judge 1 / throughput,
 * the previous run against the current one.
 */
struct asv_stats {
	double median, ci_a, ci_b;
};

static double asv_quantile(const double *y, size_t n, double q)
{
	double z = (double)(n - 1) * q, j = floor(z);
	size_t k = (size_t)j;

	z -= j;
	return k == n - 1 ? y[n - 1] : (1 - z) * y[k] + z * y[k + 1];
}

static double binom_pmf(size_t n, size_t k, double p)
{
	return exp(lgamma((double)n + 1) - lgamma((double)(n - k) + 1) - lgamma((double)k + 1) +
		   (double)k * log(p) + (double)(n - k) * log1p(-p));
}

/* LaplacePosterior: p(beta | y) ~ (sum |y_j - beta|)^-(nu + 1), nu = n - 1,
 * on y scaled as asv does; the CDF piecewise between the sorted samples. */
struct laplace {
	double y[16];
	size_t n;
	double nu, mle, scale, norm;
};

static double laplace_cdf_unnorm(const struct laplace *L, double beta)
{
	double cdf = 0;
	size_t k, j;

	for (k = 0; k <= L->n; k++) {
		double a = k ? L->y[k - 1] : -INFINITY;
		double b = k < L->n ? L->y[k] : INFINITY;
		double c = 2.0 * (double)k - (double)L->n, yy = 0, term;

		if (a >= beta)
			break;
		if (b > beta)
			b = beta;
		for (j = 0; j < L->n; j++)
			yy += j >= k ? L->y[j] : -L->y[j];
		if (c == 0)
			term = (b - a) / pow(yy, L->nu + 1);
		else
			term = 1 / (L->nu * c) * ((isinf(a) ? 0 : pow(a * c + yy, -L->nu)) -
						   (isinf(b) ? 0 : pow(b * c + yy, -L->nu)));
		cdf += fmax(0, term);
	}
	return cdf;
}

static double laplace_ppf(const struct laplace *L, double p)
{
	double lo = -1, hi = 1;
	int i;

	if (L->scale == 0)
		return L->mle;
	while (laplace_cdf_unnorm(L, lo) / L->norm > p && lo > -1e6)
		lo *= 2;
	while (laplace_cdf_unnorm(L, hi) / L->norm < p && hi < 1e6)
		hi *= 2;
	for (i = 0; i < 50; i++) {
		double mid = (lo + hi) / 2;

		if (laplace_cdf_unnorm(L, mid) / L->norm < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2 * L->scale + L->mle;
}

static struct asv_stats asv_compute_stats(const double *x, size_t n)
{
	struct asv_stats st;
	double y[16], F = 0, a = -INFINITY, b = INFINITY;
	size_t k;

	memcpy(y, x, n * sizeof(*y));
	qsort(y, n, sizeof(*y), cmp_double);
	for (k = 0; k < n; k++) {
		F += binom_pmf(n, k, 0.5);
		if (F <= 0.005)
			a = y[k];
		if (F >= 0.995) {
			b = y[k];
			break;
		}
	}
	st.median = asv_quantile(y, n, 0.5);
	if ((isinf(a) || isinf(b)) && n > 1) {
		struct laplace L;
		size_t j;

		L.n = n;
		L.nu = (double)n - 1;
		L.mle = st.median;
		L.scale = 0;
		for (j = 0; j < n; j++)
			L.scale += fabs(y[j] - L.mle);
		L.scale *= pow(L.nu, 1 / (L.nu + 1));
		for (j = 0; j < n; j++)
			L.y[j] = L.scale != 0 ? (y[j] - L.mle) / L.scale : 0;
		if (L.scale != 0)
			L.norm = laplace_cdf_unnorm(&L, INFINITY);
		if (isinf(a))
			a = fmin(laplace_ppf(&L, 0.005), y[0]);
		if (isinf(b))
			b = fmax(laplace_ppf(&L, 0.995), y[n - 1]);
	}
	st.ci_a = a;
	st.ci_b = b;
	return st;
}

static double score_asv(const struct sim_series *s, size_t n, unsigned r)
{
	double ta[16], tb[16];
	struct asv_stats sa, sb;
	unsigned i;

	for (i = 0; i < r; i++) {
		ta[i] = 1 / s->raw[(n - 1) * r + i];
		tb[i] = 1 / s->cur_raw[i];
	}
	/* 1 / C(2r, r) >= 0.002 for r <= 5: Mann-Whitney is never asked. */
	sa = asv_compute_stats(ta, r);
	sb = asv_compute_stats(tb, r);
	if (sa.ci_b >= sb.ci_a && sa.ci_a <= sb.ci_b)
		return 0;	/* the intervals overlap: not different */
	return sb.median / sa.median;
}

/* ---- method table ---- */

const char *replay_method_name(int m)
{
	static const char *const names[RL_COUNT] = {
		[RM_GATE] = "ours (gate_judge)",
		[RM_FIXED5] = "fixed 5% vs previous",
		[RM_LKP] = "lkp-tests ranges",
		[RM_CONBENCH] = "conbench z-score",
		[RM_ASV] = "asv compare",
		[RM_TTEST] = "t-test (Bencher)",
		[RL_CHANGEPOINTS] = "ours (changepoints_find)",
		[RL_PERFHERDER] = "Perfherder t > 7",
		[RL_GATE_DEFAULT] = "ours (gate_judge, CLI q)",
		[RL_GATE_2ROW] = "ours, 2 runs in a row",
		[RL_OTAVA] = "Apache Otava (E-divisive)",
		[RL_GATE_FULL] = "ours (compare --db, window rules)",
	};

	return m >= 0 && m < RL_COUNT ? names[m] : "?";
}

int replay_method_tunable(int m)
{
	return m != RM_LKP;
}

double replay_default_threshold(int m)
{
	switch (m) {
	case RM_GATE:
		return -REPLAY_CLI_Q;	/* score -q: q <= the CLI's */
	case RM_FIXED5:
		return 0.05;
	case RM_LKP:
		return 1;
	case RM_CONBENCH:
		return 5;
	case RM_ASV:
		return 1.1;
	case RM_TTEST:
		return NAN;		/* t(0.99, n - 1): depends on the window */
	default:
		return NAN;
	}
}

double replay_threshold_display(int m, double thr)
{
	switch (m) {
	case RM_GATE:
		return -thr;		/* q */
	case RM_FIXED5:
		return 100 * thr;	/* % */
	default:
		return thr;
	}
}

static double threshold_of(int m, size_t window)
{
	return m == RM_TTEST ? t_quantile(0.99, (double)window - 1) : replay_default_threshold(m);
}

/* Default thresholds of every method for one window size. */
static void thresholds(size_t window, double *thr)
{
	int m;

	for (m = 0; m < RM_COUNT; m++)
		thr[m] = threshold_of(m, window);
}

/* ---- one CI run of many series ---- */

struct sim_run {
	size_t m, n;
	unsigned r;
	double *raw, *val, *cur_raw, *cur;	/* per series: n * r, n, r, 1 */
	struct sim_series *s;
	struct gate_series *g;
	double thr[RM_COUNT];			/* default thresholds */
	double (*score)[RM_COUNT];		/* per series */
	int (*alarm)[RM_COUNT];			/* at default thresholds */
};

static void sim_run_free(struct sim_run *R)
{
	free(R->raw);
	free(R->val);
	free(R->cur_raw);
	free(R->cur);
	free(R->s);
	free(R->g);
	free(R->score);
	free(R->alarm);
	memset(R, 0, sizeof(*R));
}

static int sim_run_alloc(struct sim_run *R, size_t m, size_t n, unsigned r)
{
	size_t k;

	memset(R, 0, sizeof(*R));
	R->m = m;
	R->n = n;
	R->r = r;
	R->raw = malloc(m * n * r * sizeof(double));
	R->val = malloc(m * n * sizeof(double));
	R->cur_raw = malloc(m * r * sizeof(double));
	R->cur = malloc(m * sizeof(double));
	R->s = calloc(m, sizeof(*R->s));
	R->g = calloc(m, sizeof(*R->g));
	R->score = calloc(m, sizeof(*R->score));
	R->alarm = calloc(m, sizeof(*R->alarm));
	if (!R->raw || !R->val || !R->cur_raw || !R->cur || !R->s || !R->g || !R->score ||
	    !R->alarm) {
		sim_run_free(R);
		return -ENOMEM;
	}
	thresholds(n, R->thr);
	for (k = 0; k < m; k++) {
		R->s[k].raw = R->raw + k * n * r;
		R->s[k].val = R->val + k * n;
		R->s[k].cur_raw = R->cur_raw + k * r;
	}
	return 0;
}

/* Series k: a window of unchanged runs, the current run from @cur_lv. */
static void sim_fill(struct sim_run *R, struct rng *g, size_t k, const struct replay_level *base,
		     const struct replay_level *cur_lv)
{
	size_t i;

	for (i = 0; i < R->n; i++)
		R->val[k * R->n + i] = draw_run(g, base, R->r, R->raw + (k * R->n + i) * R->r);
	R->cur[k] = draw_run(g, cur_lv, R->r, R->cur_raw + k * R->r);
	R->s[k].cur = R->cur[k];
}

/* Scores and default alarms of every method on series [0, upto) (all
 * series always go through the gate together: BH needs them all). */
static int sim_judge_gate(struct sim_run *R, size_t upto, int gate_only)
{
	struct gate_opts go = GATE_OPTS_DEFAULT;
	size_t k;
	int mth;

	go.fdr = REPLAY_CLI_Q;	/* compare --db's and ingest's q, not gate.c's */

	for (k = 0; k < R->m; k++) {
		struct gate_series *gs = &R->g[k];

		memset(gs, 0, sizeof(*gs));
		gs->window = R->s[k].val;
		gs->n_window = R->n;
		gs->current = R->s[k].cur;
		gs->better = 1;
		gs->rel_tol = NAN;
		gs->abs_tol = NAN;
		gs->recent = R->s[k].recent;
		gs->n_recent = R->s[k].n_recent;
	}
	if (gate_judge(R->g, R->m, &go))
		return -ENOMEM;
	for (k = 0; k < upto; k++) {
		const struct gate_series *gs = &R->g[k];
		const struct sim_series *s = &R->s[k];
		double *sc = R->score[k];

		/* The gate's own verdict; for tuning, -q of a drop the
		 * verdicts would call a regression at some q. */
		sc[RM_GATE] = (gs->current < gs->baseline && fabs(gs->current - gs->baseline) >
			       gs->allowance && !isnan(gs->q_value)) ? -gs->q_value : -INFINITY;
		R->alarm[k][RM_GATE] = gs->verdict == GATE_REGRESSION;
		if (gate_only)
			continue;
		sc[RM_FIXED5] = score_fixed5(s, R->n);
		sc[RM_LKP] = score_lkp(s, R->n, R->r);
		sc[RM_CONBENCH] = score_conbench(s, R->n);
		sc[RM_ASV] = score_asv(s, R->n, R->r);
		sc[RM_TTEST] = score_ttest(s, R->n);
		for (mth = 1; mth < RM_COUNT; mth++)
			R->alarm[k][mth] = sc[mth] >= R->thr[mth];
	}
	return 0;
}

static int sim_judge(struct sim_run *R, size_t upto)
{
	return sim_judge_gate(R, upto, 0);
}

/* The smallest threshold at which at most 1% of @runs (run scores, the
 * worst series of each run) alarm. Sorts @runs. */
static double tune(double *runs, size_t n)
{
	size_t allowed = n / 100;

	qsort(runs, n, sizeof(*runs), cmp_double);	/* ascending */
	return nextafter(runs[n - 1 - allowed], INFINITY);
}

int replay_rates(const struct replay_corpus *c, const struct replay_opts *o,
		 struct replay_rates *out)
{
	struct sim_run R;
	struct rng g;
	double *runscore[RM_COUNT] = { 0 };
	size_t t, k, lv;
	int mth, rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (sim_run_alloc(&R, o->series, o->window, o->repeats))
		return -ENOMEM;
	for (mth = 0; mth < RM_COUNT; mth++)
		if (!(runscore[mth] = malloc(o->fa_runs * sizeof(double))))
			goto out;
	rng_seed(&g, o->seed);
	out->fa_runs = o->fa_runs;
	/* Half A: default thresholds' false alarms, and tuning. */
	for (t = 0; t < o->fa_runs; t++) {
		for (k = 0; k < R.m; k++)
			sim_fill(&R, &g, k, &c->lv[0], &c->lv[0]);
		if (sim_judge(&R, R.m))
			goto out;
		for (mth = 0; mth < RM_COUNT; mth++) {
			double worst = -INFINITY;
			int any = 0;

			for (k = 0; k < R.m; k++) {
				any |= R.alarm[k][mth];
				worst = fmax(worst, R.score[k][mth]);
			}
			out->fa[mth] += any;
			runscore[mth][t] = worst;
		}
	}
	for (mth = 0; mth < RM_COUNT; mth++)
		out->tuned[mth] = replay_method_tunable(mth) ? tune(runscore[mth], o->fa_runs) : NAN;
	/* Half B: false alarms at the tuned thresholds, on fresh runs. */
	for (t = 0; t < o->fa_runs; t++) {
		for (k = 0; k < R.m; k++)
			sim_fill(&R, &g, k, &c->lv[0], &c->lv[0]);
		if (sim_judge(&R, R.m))
			goto out;
		for (mth = 0; mth < RM_COUNT; mth++) {
			int any = 0;

			if (isnan(out->tuned[mth]))
				continue;
			for (k = 0; k < R.m; k++)
				any |= R.score[k][mth] >= out->tuned[mth];
			out->fa_tuned[mth] += any;
		}
	}
	/* Detection: series 0 slowed, the others unchanged. */
	out->det_runs = o->det_runs;
	for (lv = 1; lv < c->n_lv; lv++)
		for (t = 0; t < o->det_runs; t++) {
			sim_fill(&R, &g, 0, &c->lv[0], &c->lv[lv]);
			for (k = 1; k < R.m; k++)
				sim_fill(&R, &g, k, &c->lv[0], &c->lv[0]);
			if (sim_judge(&R, 1))
				goto out;
			for (mth = 0; mth < RM_COUNT; mth++) {
				out->det[lv][mth] += R.alarm[0][mth];
				if (!isnan(out->tuned[mth]))
					out->det_tuned[lv][mth] += R.score[0][mth] >= out->tuned[mth];
			}
		}
	rc = 0;
out:
	for (mth = 0; mth < RM_COUNT; mth++)
		free(runscore[mth]);
	sim_run_free(&R);
	return rc;
}

/* ---- change points and latency ---- */

/*
 * Perfherder, treeherder/perf/alerts/analyze.py (detect_changes, calc_t,
 * analyze, linear_weights) with its defaults min_back_window 12,
 * max_back_window 24, fore_window 12, t_threshold 7: for each revision i,
 * a linearly weighted Welch t between the back window (up to 12, after a
 * quiet stretch up to 24 values before i) and the fore window (12 values
 * from i); an alert at i when both windows are full, |t| > 7 and t is a
 * local maximum. One value per revision (the run's value). Marks alert
 * indices in @alert (only drops: fore mean below back mean).
 */
static void perfherder_weighted(const double *x, size_t n, int backwards, double *avg, double *var)
{
	double ws = 0, sw = 0, m, ss = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double w = (double)(n - i) / (double)n;	/* linear_weights */
		double v = backwards ? x[-(ptrdiff_t)i] : x[i];

		ws += w * v;
		sw += w;
	}
	m = n ? ws / sw : 0;
	for (i = 0; i < n; i++) {
		double v = backwards ? x[-(ptrdiff_t)i] : x[i];

		ss += (v - m) * (v - m);
	}
	*avg = m;
	*var = n > 1 ? ss / (double)(n - 1) : 0;
}

static void perfherder_detect(const double *x, size_t n, double *t, double *delta, size_t *nb,
			      size_t *nf, int *alert)
{
	size_t i, last_seen = 0;

	for (i = 0; i < n; i++) {
		t[i] = delta[i] = 0;
		nb[i] = nf[i] = 0;
		alert[i] = 0;
	}
	for (i = 1; i < n; i++) {
		size_t lim = last_seen > 12 ? last_seen : 12, back = 0, fore = 0;
		double a1, v1, a2, v2;

		if (lim > 24)
			lim = 24;
		while (back < 24 && back < i && back + 1 <= lim)
			back++;
		while (fore < 12 && i + fore < n)
			fore++;
		nb[i] = back;
		nf[i] = fore;
		perfherder_weighted(x + i - 1, back, 1, &a1, &v1);
		perfherder_weighted(x + i, fore, 0, &a2, &v2);
		delta[i] = a2 - a1;
		if (!back || !fore || delta[i] == 0)
			t[i] = 0;
		else if (v1 == 0 && v2 == 0)
			t[i] = INFINITY;
		else
			t[i] = fabs(delta[i] / sqrt(v1 / (double)back + v2 / (double)fore));
		if (t[i] > 7)
			last_seen = 0;
		else
			last_seen++;
	}
	for (i = 1; i < n; i++) {
		if (nb[i] < 12 || nf[i] < 12 || !(t[i] > 7))
			continue;
		if (t[i - 1] > t[i] || (i + 1 < n && t[i + 1] > t[i]))
			continue;
		alert[i] = delta[i] < 0;
	}
}

int replay_persistence(const struct replay_corpus *c, const struct replay_latency_opts *o,
		       size_t histories, size_t judged, double *thr, size_t *fa, size_t *runs)
{
	size_t len = o->window + judged, m = o->series, r = o->repeats, half, h, k, j, nrun = 0;
	double *raw = malloc(m * len * r * sizeof(double)), *val = malloc(m * len * sizeof(double));
	double *prev = malloc(m * sizeof(double)), *rs = malloc(histories * judged * sizeof(double));
	struct sim_run R;
	struct rng g;
	int rc = -ENOMEM;

	memset(&R, 0, sizeof(R));
	*fa = *runs = 0;
	if (!raw || !val || !prev || !rs || !judged || sim_run_alloc(&R, m, o->window, o->repeats))
		goto out;
	rng_seed(&g, o->seed ^ 0x2e0f);
	for (half = 0; half < 2; half++) {
		for (h = 0; h < histories; h++) {
			for (k = 0; k < m; k++)
				for (j = 0; j < len; j++)
					val[k * len + j] = draw_run(&g, &c->lv[0], (unsigned)r,
								    raw + (k * len + j) * r);
			for (k = 0; k < m; k++)
				prev[k] = -INFINITY;
			for (j = o->window; j < len; j++) {
				double worst = -INFINITY;

				for (k = 0; k < m; k++) {
					R.s[k].raw = raw + (k * len + j - o->window) * r;
					R.s[k].val = val + k * len + j - o->window;
					R.s[k].cur_raw = raw + (k * len + j) * r;
					R.s[k].cur = val[k * len + j];
				}
				if (sim_judge_gate(&R, m, 1))
					goto out;
				for (k = 0; k < m; k++) {
					worst = fmax(worst, fmin(prev[k], R.score[k][RM_GATE]));
					prev[k] = R.score[k][RM_GATE];
				}
				if (j == o->window)
					continue;	/* no previous judged run yet */
				if (!half)
					rs[nrun++] = worst;
				else {
					*fa += worst >= *thr;
					(*runs)++;
				}
			}
		}
		if (!half)
			*thr = tune(rs, nrun);
	}
	rc = 0;
out:
	free(raw);
	free(val);
	free(prev);
	free(rs);
	sim_run_free(&R);
	return rc;
}

void replay_latency_free(struct replay_latency *l)
{
	size_t i, m;

	for (i = 0; i < REPLAY_MAX_LEVELS; i++)
		for (m = 0; m < RL_COUNT; m++)
			free(l->first[i][m]);
	memset(l, 0, sizeof(*l));
}

/* gate_level_shift() on run @j of the history (the last 64 runs, higher
 * is better, no tolerance: the benchmark sets none). */
double replay_shift_p = GATE_SHIFT_P;

static int shift_flags(const double *hval, size_t j, int *oom)
{
	size_t from = j + 1 > 64 ? j + 1 - 64 : 0;
	double before, p;
	int ret = gate_level_shift(hval + from, j + 1 - from, 1, NAN, NAN, replay_shift_p,
				   &before, &p);

	if (ret < 0)
		*oom = 1;
	return ret > 0;
}

/* A change point within 3 runs of the shift at @at (any, when at is SIZE_MAX). */
static int cp_found(const double *x, size_t n, size_t at, int *oom)
{
	struct changepoint *cp = NULL;
	int k = changepoint_find(x, n, NULL, &cp), i, hit = 0;

	if (k < 0) {
		*oom = 1;
		return 0;
	}
	for (i = 0; i < k; i++)
		if (at == SIZE_MAX ? cp[i].change < 0 :
		    (cp[i].index + 3 >= at && cp[i].index <= at + 3 && cp[i].change < 0))
			hit = 1;
	free(cp);
	return hit;
}

/*
 * compare --db as ingest leaves the history: every run from the window's
 * size on is judged (gate_judge() at the CLI's q, its CUSUM over the last
 * 64 runs whatever was said of them), and a flagged run stays out of later
 * windows (the ingest verdict: unaccepted regressions are never a
 * baseline; the transient rule of history_gate.c is not replayed here:
 * bench/gate_timeline replays the product itself). Sets
 * *first to the runs after the shift until the first flag. Its own draws
 * for the run's other series, so the other methods see the same runs.
 */
static int gate_full_first(const struct replay_corpus *c, const struct replay_latency_opts *o,
			   struct sim_run *R, const double *hval, const double *hraw, size_t len,
			   size_t trial, size_t *first)
{
	double *uval = malloc(len * sizeof(double)), *uraw = malloc(len * o->repeats * sizeof(double));
	size_t j, k, nu = 0;
	struct rng g;
	int oom = 0;

	if (!uval || !uraw) {
		free(uval);
		free(uraw);
		return -ENOMEM;
	}
	rng_seed(&g, o->seed ^ (0x5bd1e995ULL * (trial + 1)));
	for (j = 0; j < len && !oom; j++) {
		int flagged = 0;

		if (nu >= o->window) {
			R->s[0].raw = uraw + (nu - o->window) * o->repeats;
			R->s[0].val = uval + (nu - o->window);
			R->s[0].cur_raw = hraw + j * o->repeats;
			R->s[0].cur = hval[j];
			R->s[0].recent = hval + (j > 64 ? j - 64 : 0);
			R->s[0].n_recent = j > 64 ? 64 : j;
			for (k = 1; k < R->m; k++)
				sim_fill(R, &g, k, &c->lv[0], &c->lv[0]);
			if (sim_judge_gate(R, 1, 1)) {
				oom = 1;
				break;
			}
			R->s[0].recent = NULL;
			flagged = R->alarm[0][RM_GATE];
		}
		if (flagged && j >= o->before && *first == SIZE_MAX)
			*first = j + 1 - o->before;
		if (!flagged) {
			uval[nu] = hval[j];
			memcpy(uraw + nu * o->repeats, hraw + j * o->repeats,
			       o->repeats * sizeof(double));
			nu++;
		}
	}
	free(uval);
	free(uraw);
	return oom ? -ENOMEM : 0;
}

/* Otava's drop within 3 runs of @at (any drop, when at is SIZE_MAX), on
 * histories long enough for its 50-run window. */
static int otava_found(const double *x, size_t n, size_t at, int *oom)
{
	int hit = otava_worse_near(x, n, at, 1);

	if (hit < 0)
		*oom = 1;
	return hit > 0;
}

int replay_latency_run(const struct replay_corpus *c, const struct replay_latency_opts *o,
		       struct replay_latency *out)
{
	size_t len = o->before + o->after, lv, tr, j, k;
	double *hraw = malloc(len * o->repeats * sizeof(double));
	double *hval = malloc(len * sizeof(double));
	double *pt = malloc(len * sizeof(double)), *pd = malloc(len * sizeof(double));
	size_t *pnb = malloc(len * sizeof(size_t)), *pnf = malloc(len * sizeof(size_t));
	int *pal = malloc(len * sizeof(int)), *sfail = malloc(len * sizeof(int));
	struct sim_run R;
	struct rng g;
	double prev0 = -INFINITY;
	int mth, rc = -ENOMEM, oom = 0;

	memset(out, 0, sizeof(*out));
	memset(&R, 0, sizeof(R));
	if (o->before <= o->window || !o->trials)
		goto bad;
	if (sim_run_alloc(&R, o->series, o->window, o->repeats) || !hraw || !hval || !pt || !pd ||
	    !pnb || !pnf || !pal || !sfail)
		goto out;
	for (lv = 1; lv < c->n_lv; lv++)
		for (mth = 0; mth < RL_COUNT; mth++)
			if (!(out->first[lv][mth] = malloc(o->trials * sizeof(size_t))))
				goto out;
	rng_seed(&g, o->seed);
	out->trials = o->trials;
	for (lv = 1; lv < c->n_lv; lv++) {
		for (tr = 0; tr < o->trials; tr++) {
			size_t *first[RL_COUNT];

			for (mth = 0; mth < RL_COUNT; mth++) {
				first[mth] = &out->first[lv][mth][tr];
				*first[mth] = SIZE_MAX;
			}
			for (j = 0; j < len; j++)
				hval[j] = draw_run(&g, j < o->before ? &c->lv[0] : &c->lv[lv], o->repeats,
						   hraw + j * o->repeats);
			if (gate_full_first(c, o, &R, hval, hraw, len, tr, first[RL_GATE_FULL]))
				goto out;
			for (j = o->before - 1; j < len; j++) {
				size_t after = j + 1 - o->before;

				/* Per-run methods on series 0 = this history's
				 * run j; the run's 39 other series unchanged. */
				R.s[0].raw = hraw + (j - o->window) * o->repeats;
				R.s[0].val = hval + (j - o->window);
				R.s[0].cur_raw = hraw + j * o->repeats;
				R.s[0].cur = hval[j];
				for (k = 1; k < R.m; k++)
					sim_fill(&R, &g, k, &c->lv[0], &c->lv[0]);
				if (j + 1 == o->before) {
					/* The last unchanged run: only the gate's
					 * score, the "previous" of 2 in a row. */
					if (sim_judge_gate(&R, 1, 1))
						goto out;
					prev0 = R.score[0][RM_GATE];
					continue;
				}
				if (sim_judge(&R, 1))
					goto out;
				if (o->persist < 0 && fmin(prev0, R.score[0][RM_GATE]) >= o->persist &&
				    *first[RL_GATE_2ROW] == SIZE_MAX)
					*first[RL_GATE_2ROW] = after;
				prev0 = R.score[0][RM_GATE];
				for (mth = 0; mth < RM_COUNT; mth++) {
					int alarm = o->tuned && !isnan(o->tuned[mth]) ?
						R.score[0][mth] >= o->tuned[mth] : R.alarm[0][mth];

					if (alarm && *first[mth] == SIZE_MAX)
						*first[mth] = after;
				}
				if (R.alarm[0][RM_GATE] && *first[RL_GATE_DEFAULT] == SIZE_MAX)
					*first[RL_GATE_DEFAULT] = after;
				if (*first[RL_CHANGEPOINTS] == SIZE_MAX &&
				    cp_found(hval, j + 1, o->before, &oom))
					*first[RL_CHANGEPOINTS] = after;
				if (*first[RL_OTAVA] == SIZE_MAX &&
				    otava_found(hval, j + 1, o->before, &oom))
					*first[RL_OTAVA] = after;
				if (oom)
					goto out;
				if (*first[RL_PERFHERDER] == SIZE_MAX) {
					perfherder_detect(hval, j + 1, pt, pd, pnb, pnf, pal);
					for (k = o->before >= 3 ? o->before - 3 : 0;
					     k <= o->before + 3 && k <= j; k++)
						if (pal[k])
							*first[RL_PERFHERDER] = after;
				}
			}
		}
	}
	/* False change points: histories of unchanged runs, one per series. */
	out->fa_histories = o->fa_histories;
	for (tr = 0; tr < o->fa_histories; tr++) {
		int any_cp = 0, any_ph = 0, any_ot = 0;

		memset(sfail, 0, len * sizeof(*sfail));	/* runs failed by a level shift */
		for (k = 0; k < o->series; k++) {
			for (j = 0; j < len; j++)
				hval[j] = draw_run(&g, &c->lv[0], o->repeats, hraw + j * o->repeats);
			for (j = o->before; j < len; j++)
				if (!sfail[j] && shift_flags(hval, j, &oom))
					sfail[j] = 1;
			if (!any_cp && cp_found(hval, len, SIZE_MAX, &oom))
				any_cp = 1;
			if (!any_ot && otava_found(hval, len, SIZE_MAX, &oom))
				any_ot = 1;
			if (oom)
				goto out;
			if (!any_ph) {
				perfherder_detect(hval, len, pt, pd, pnb, pnf, pal);
				for (j = 0; j < len; j++)
					any_ph |= pal[j];
			}
		}
		out->fa_cp += any_cp;
		out->fa_perfherder += any_ph;
		out->fa_otava += any_ot;
		for (j = o->before; j < len; j++)
			out->fa_shift += sfail[j] != 0;
		out->shift_runs += o->after;
	}
	rc = 0;
	goto out;
bad:
	rc = -EINVAL;
out:
	free(hraw);
	free(hval);
	free(pt);
	free(pd);
	free(pnb);
	free(pnf);
	free(pal);
	free(sfail);
	/* R.s[0] points into the history; sim_run_free frees the arrays only. */
	sim_run_free(&R);
	if (rc)
		replay_latency_free(out);
	return rc;
}
