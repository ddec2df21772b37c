/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The history gate on time-ordered replays through the product path
 * (gate_product.h): run-level false alarms with 95 % Clopper-Pearson
 * intervals at r = 1, 3 and 5 repeats, the delay after a lasting recorded
 * slowdown (a dose, nftables rules) or an injected one of a known size,
 * and that delay as a ratio to the CUSUM bound (Siegmund's approximation
 * for the measured noise and the run's per-series budget).
 *
 *   build/bench/gate_timeline [--repeats 1,3,5] [--quick] [--no-delay] [--list]
 *                             [--otava-p P] CORPUS.jsonl...
 *
 * --otava-p sets Apache Otava's max_pvalue (0.001 by default), to compare
 * it with the gate at a false-alarm rate like the gate's.
 *
 * Every corpus is one CI job: each CI run holds every configuration of the
 * recording as one case. Deterministic (no draws); nothing is timed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_product.h"
#include "gate_stats.h"
#include "otava_port.h"

#define WARMUP 5		/* the gate judges from 5 comparable runs on */
#define RUN_BUDGET 0.01		/* run-level false alarms the gate aims at */

static int list_runs;
/* The first runs of a history: the level and noise from few runs, and
 * each recording started with its machine warming up (a drift). */
#define EARLY_RUNS 25		/* --list: print each one-case job's failing runs */

static const char *const pm_name[PM_COUNT] = { "throughput", "cpu.cost", "cpu.cost.test.best" };

/* The run values of stream @s's metric @m at r repeats (the compare op). */
static size_t run_values(const struct prod_stream *s, unsigned r, int m, double *v)
{
	size_t j, n = s->n / r, k = 0;
	unsigned i;

	for (j = 0; j < n; j++) {
		double x[16], best = INFINITY;
		unsigned nx = 0;

		for (i = 0; i < r; i++) {
			const struct prod_rep *p = &s->rep[j * r + i];
			double y = m == PM_GBPS ? p->gbps : m == PM_COST_HOST ? p->cost_host :
				   p->cost_test;

			if (isnan(y))
				continue;
			x[nx++] = y;
			best = fmin(best, y);
		}
		if (!nx)
			continue;
		v[k++] = m == PM_COST_TEST ? best : stats_median(x, nx);
	}
	return k;
}

/* sd of the logarithms of @v (relative noise) and their mean. */
static void log_sd(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += log(v[i]);
	s /= (double)n;
	for (i = 0; i < n; i++)
		ss += (log(v[i]) - s) * (log(v[i]) - s);
	*mean = s;
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
}

/*
 * The lag-1 autocorrelation of the logarithms of @v about their mean, in
 * [0, 0.95]: the unchanged runs' serial dependence (drift, spells). For
 * AR(1) noise the best detector (a CUSUM on the prewhitened residuals)
 * sees a shift of delta sd as one of delta sqrt((1 - rho) / (1 + rho))
 * innovation sd, so its bound is the i.i.d. one at that smaller shift.
 */
static double log_rho(const double *v, size_t n, double mean)
{
	double num = 0, den = 0, rho;
	size_t i;

	for (i = 0; i < n; i++) {
		den += (log(v[i]) - mean) * (log(v[i]) - mean);
		if (i)
			num += (log(v[i]) - mean) * (log(v[i - 1]) - mean);
	}
	rho = den > 0 ? num / den : 0;
	return rho < 0 ? 0 : rho > 0.95 ? 0.95 : rho;
}

static void cp_text(size_t k, size_t n, char *buf, size_t len)
{
	double lo, hi;

	stats_clopper_pearson(k, n, &lo, &hi);
	snprintf(buf, len, "%zu/%zu = %.1f%% [%.1f, %.1f]", k, n, n ? 100.0 * (double)k / (double)n : 0,
		 100 * lo, 100 * hi);
}

static int false_alarms(const char *path, const struct prod_corpus *c, unsigned r,
			size_t *tot_k, size_t *tot_n, size_t *tot_dist)
{
	size_t idx[64], j, k = 0, n = 0, i;
	struct prod_plan p = { idx, c->n, r, SIZE_MAX, SIZE_MAX, NULL, 1, NULL, 0, 0 };
	struct prod_result res;
	char buf[80];

	for (i = 0; i < c->n && i < 64; i++)
		idx[i] = i;
	p.n_streams = i;
	if (prod_replay(c, &p, &res))
		return 1;
	for (j = WARMUP; j < res.runs; j++) {
		k += res.failed[j] != 0;
		n++;
	}
	cp_text(k, n, buf, sizeof(buf));
	printf("  %-44s r=%u  %2zu cases, %3zu gated series  FA %-28s disturbed %zu, too noisy %zu of %zu rows\n",
	       path, r, p.n_streams, res.gated_series, buf, res.disturbed, res.noise,
	       res.judged_rows);
	if (strstr(path, "calib")) {
		/* Recorded while others compiled on the same 2 cores: its
		 * throughput fell from ~25 to ~7 Gbit/s over the recording (a
		 * real lasting change of the machine, not an unchanged one). */
		printf("      (not counted in the total: the machine itself changed during it)\n");
	} else {
		*tot_k += k;
		*tot_n += n;
		*tot_dist += res.disturbed;
	}
	prod_result_free(&res);
	return 0;
}

/* Otava's sense of worse for metric @m: throughput higher, costs lower. */
static int better_of(int m)
{
	return m == PM_GBPS ? 1 : -1;
}

/*
 * Apache Otava (bench/gate/otava_port.h) run as a CI would after every run of
 * one unchanged configuration: run j alarms when Otava, over the runs up
 * to j, finds a change for the worse in any gated metric within the last 4
 * runs. Counted from OTAVA_MIN_RUNS on (its window).
 */
static int otava_false_alarms(const struct prod_stream *st, unsigned r, size_t *k, size_t *n)
{
	double *v = malloc(sizeof(double) * (st->n + 1));
	unsigned char *hit = calloc(st->n + 1, 1);
	size_t nv, j, most = 0;
	int m, ret = 0;

	if (!v || !hit) {
		free(v);
		free(hit);
		return 1;
	}
	for (m = 0; m < PM_COUNT && !ret; m++) {
		nv = run_values(st, r, m, v);
		if (nv > most)
			most = nv;
		for (j = OTAVA_MIN_RUNS - 1; j < nv && !ret; j++) {
			int a = otava_worse_near(v, j + 1, j, better_of(m));

			if (a < 0)
				ret = 1;
			else
				hit[j] |= a;
		}
	}
	for (j = OTAVA_MIN_RUNS - 1; j < most; j++) {
		*k += hit[j];
		(*n)++;
	}
	free(v);
	free(hit);
	return ret;
}

/* Every configuration as a CI job of its own (one case a run): more
 * unchanged runs, fewer series per run. */
static int false_alarms_per_case(const char *path, const struct prod_corpus *c, unsigned r,
				 size_t *tot_k, size_t *tot_n, size_t *tot_dist, size_t *tot_ot)
{
	size_t i, j, k = 0, n = 0, dist = 0, early = 0, together = 0, most = 0, ot_k = 0, ot_n = 0;
	unsigned char *fail;
	size_t *per_run;
	char buf[80];

	for (i = 0; i < c->n; i++)
		most = c->s[i].n / r > most ? c->s[i].n / r : most;
	fail = calloc(c->n * (most + 1) + 1, 1);
	per_run = calloc(most + 1, sizeof(*per_run));
	if (!fail || !per_run) {
		free(fail);
		free(per_run);
		return 1;
	}
	for (i = 0; i < c->n; i++) {
		struct prod_plan p = { &i, 1, r, SIZE_MAX, SIZE_MAX, NULL, 1, NULL, 0, 0 };
		struct prod_result res;

		if (c->s[i].n / r <= WARMUP)
			continue;
		if (prod_replay(c, &p, &res)) {
			free(fail);
			free(per_run);
			return 1;
		}
		for (j = WARMUP; j < res.runs && j <= most; j++) {
			k += res.failed[j] != 0;
			n++;
			if (!res.failed[j])
				continue;
			fail[i * (most + 1) + j] = 1;
			per_run[j]++;
			early += j < EARLY_RUNS;
			if (list_runs)
				printf("      %s: run %zu failed\n", c->s[i].name, j);
		}
		dist += res.disturbed;
		prod_result_free(&res);
		if (otava_false_alarms(&c->s[i], r, &ot_k, &ot_n)) {
			free(fail);
			free(per_run);
			return 1;
		}
	}
	/* The configurations were recorded round-robin, so run j of every
	 * job is the same stretch of time: failures in a run where at least
	 * half of the jobs fail are the machine moving, all together. */
	for (i = 0; i < c->n; i++)
		for (j = 0; j <= most; j++)
			together += fail[i * (most + 1) + j] && 2 * per_run[j] >= c->n && c->n > 2;
	cp_text(k, n, buf, sizeof(buf));
	printf("  %-44s r=%u  %2zu jobs of one case          FA %-28s disturbed %zu; of the FA: "
	       "%zu in runs < %d, %zu with half the jobs failing together\n", path, r, c->n, buf,
	       dist, early, EARLY_RUNS, together);
	if (ot_n) {
		cp_text(ot_k, ot_n, buf, sizeof(buf));
		printf("  %-44s r=%u  the same jobs, Apache Otava  FA %-28s (runs %d on: a change for the "
		       "worse found in the last 4 runs)\n", "", r, buf, OTAVA_MIN_RUNS);
	}
	if (!strstr(path, "calib")) {
		tot_ot[0] += ot_k;
		tot_ot[1] += ot_n;
		*tot_k += k;
		*tot_n += n;
		*tot_dist += dist;
	}
	free(fail);
	free(per_run);
	return 0;
}

/*
 * Siegmund's approximation of a one-sided CUSUM's average run length for
 * a standardised normal shift @delta, reference k = delta / 2, threshold
 * chosen so that the in-control run length is 1 / @alpha: the fewest runs
 * after a lasting shift any detector at that false-alarm budget needs on
 * average (CUSUM is optimal for it, Lorden/Moustakides).
 */
static double siegmund(double mu, double h)
{
	double b = h + 1.166;

	if (fabs(mu) < 1e-9)
		return b * b;
	return (exp(-2 * mu * b) + 2 * mu * b - 1) / (2 * mu * mu);
}

static double cusum_bound(double delta, double alpha)
{
	double k = delta / 2, lo = 0, hi = 200;
	int i;

	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (siegmund(-k, mid) < 1 / alpha)
			lo = mid;
		else
			hi = mid;
	}
	return siegmund(delta - k, (lo + hi) / 2);
}

struct shift_case {
	const char *what;
	size_t target;			/* stream index */
	const struct prod_stream *after;	/* recorded dose, or NULL */
	double scale;			/* injected: cost x scale, throughput / scale */
};

/*
 * Apache Otava's delay after each of the @n starts over the same
 * time-ordered run values of metric @m (@v: the unchanged configuration's
 * @nv runs; @w: the recorded dose's @nw, unused for an injected scale),
 * run after every run as a CI would: the runs from the shift to the first
 * time Otava finds a change for the worse within 3 runs of it. @od[i] is
 * INFINITY when it never does, NaN for all when the earliest start leaves
 * under OTAVA_MIN_RUNS runs before the shift.
 */
static int otava_delays(const struct shift_case *sc, int m, const double *v, size_t nv,
			const double *w, size_t nw, const size_t *starts, size_t n, double *od)
{
	size_t len = sc->after && nw < nv ? nw : nv, i, j;
	double *x;

	/* The starts ascend: the first is the shortest history. */
	for (i = 0; i < n; i++)
		od[i] = starts[0] < OTAVA_MIN_RUNS ? NAN : INFINITY;
	if (!n || isnan(od[0]))
		return 0;
	x = malloc(sizeof(double) * (len + 1));
	if (!x)
		return 1;
	for (i = 0; i < n; i++) {
		for (j = 0; j < len; j++)
			x[j] = j < starts[i] ? v[j] : sc->after ? w[j] :
			       m == PM_GBPS ? v[j] / sc->scale : v[j] * sc->scale;
		for (j = starts[i]; j < len; j++) {
			int a = otava_worse_near(x, j + 1, starts[i], better_of(m));

			if (a < 0) {
				free(x);
				return 1;
			}
			if (a) {
				od[i] = (double)(j - starts[i] + 1);
				break;
			}
		}
	}
	free(x);
	return 0;
}

/*
 * One lasting shift replayed at several starts, the target's case as a CI
 * job of its own: per gated metric, the delay (runs from the shift to the
 * first failing row of that metric, 1 = the first shifted run) per start,
 * its median, the share found within 5, and the CUSUM bound for the shift
 * measured in noise standard deviations (logarithms of the run values of
 * the unchanged recording) at the job's per-series budget.
 */
static int delays(const struct prod_corpus *c, const struct shift_case *sc, unsigned r,
		  const size_t *starts, size_t n_starts)
{
	const struct prod_stream *s0 = &c->s[sc->target];
	double d[PM_COUNT][8], od[8], *v = malloc(sizeof(double) * (s0->n + 1));
	double *w = malloc(sizeof(double) * (sc->after ? sc->after->n + 1 : 1));
	size_t t, left = 0, gated;
	int m, rc = 0;

	if (!v || !w) {
		free(v);
		free(w);
		return 1;
	}
	gated = !isnan(s0->rep[0].gbps) + !isnan(s0->rep[0].cost_host) + !isnan(s0->rep[0].cost_test);
	for (t = 0; t < n_starts && t < 8; t++) {
		struct prod_plan p = { &sc->target, 1, r, 0, starts[t], sc->after, sc->scale, NULL, 0, 0 };
		struct prod_result res;
		size_t j;

		if (prod_replay(c, &p, &res)) {
			rc = 1;
			goto out;
		}
		left = res.runs - starts[t];
		for (m = 0; m < PM_COUNT; m++) {
			d[m][t] = INFINITY;
			for (j = starts[t]; j < res.runs; j++)
				if (prod_flagged(&res, j, 0, m)) {
					d[m][t] = (double)(j - starts[t] + 1);
					break;
				}
		}
		prod_result_free(&res);
	}
	for (m = 0; m < PM_COUNT; m++) {
		double mean0, sd0, mean1, sd1, delta, alpha = RUN_BUDGET / (double)gated, bound, med;
		double rho, bound_ar;
		size_t nv = run_values(s0, r, m, v), nw = 0, found = 0, found5 = 0, i;

		if (nv < 3)
			continue;
		log_sd(v, nv, &mean0, &sd0);
		if (sc->after) {
			nw = run_values(sc->after, r, m, w);

			if (nw < 3)
				continue;
			log_sd(w, nw, &mean1, &sd1);
		} else {
			mean1 = mean0 + (m == PM_GBPS ? -log(sc->scale) : log(sc->scale));
		}
		delta = fabs(mean1 - mean0) / sd0;
		bound = cusum_bound(delta, alpha);
		rho = log_rho(v, nv, mean0);
		bound_ar = cusum_bound(delta * sqrt((1 - rho) / (1 + rho)), alpha);
		for (i = 0; i < t; i++) {
			found += !isinf(d[m][i]);
			found5 += d[m][i] <= 5;
		}
		med = stats_median(d[m], t);
		printf("  %-34s %-18s r=%u  change %+6.1f%% = %4.2f sd  bound %6.1f runs (1 in %.0f a series)"
		       "  delay: median ", sc->what, pm_name[m], r, 100 * (exp(mean1 - mean0) - 1),
		       delta, bound, 1 / alpha);
		if (isinf(med))
			printf(">%zu", left);
		else
			printf("%.0f", med);
		printf(", within 5: %zu/%zu, found: %zu/%zu of %zu runs watched, delay/bound ", found5, t,
		       found, t, left);
		if (isinf(med))
			printf("-");
		else
			printf("%.2f", med / bound);
		printf(" (AR(1) rho %.2f: bound %.1f, ", rho, bound_ar);
		if (isinf(med))
			printf("-)");
		else
			printf("%.2f)", med / bound_ar);
		if (otava_delays(sc, m, v, nv, w, nw, starts, t, od)) {
			rc = 1;
			goto out;
		}
		if (isnan(od[0])) {
			printf("; otava: - (under %d runs before the shift)\n", OTAVA_MIN_RUNS);
			continue;
		}
		for (i = 0, found = 0; i < t; i++)
			found += !isinf(od[i]);
		med = stats_median(od, t);
		if (isinf(med))
			printf("; otava: median >%zu, found %zu/%zu\n", left, found, t);
		else
			printf("; otava: median %.0f, found %zu/%zu\n", med, found, t);
	}
out:
	free(v);
	free(w);
	return rc;
}

static const struct prod_stream *find(const struct prod_corpus *c, int dose, int nb,
				      const char *cpus, size_t *index)
{
	size_t i;
	char want[48];

	for (i = 0; i < c->n; i++) {
		if (c->s[i].dose != dose)
			continue;
		if (cpus) {
			snprintf(want, sizeof(want), "nb=%d cpus=%s dose=%d", nb, cpus, dose);
			if (strcmp(c->s[i].name, want))
				continue;
		}
		if (index)
			*index = i;
		return &c->s[i];
	}
	return NULL;
}

static int detection(const char *path, const struct prod_corpus *c, unsigned r, int quick)
{
	size_t t0, i, n_starts, starts[8];
	const struct prod_stream *s0 = find(c, 0, 0, NULL, &t0);
	int rc = 0;

	size_t shortest = SIZE_MAX;

	if (!s0)
		return 0;
	for (i = 0; i < c->n; i++)
		if (c->s[i].n < shortest)
			shortest = c->s[i].n;
	if (shortest / r < 12)
		return 0;	/* too short to watch a shift after a window */
	n_starts = quick ? 1 : 3;
	for (i = 0; i < n_starts; i++)
		starts[i] = shortest / r / 2 - (n_starts / 2) + i;
	if (strstr(path, "interference")) {
		/* An injected 5 % cost (and 1/1.05 throughput) beside a noisy
		 * neighbour: no recording holds a dose and a neighbour. */
		static const char *const cpus[] = { "0/0", "1/0", "none" };
		size_t k, ti;

		for (k = 0; k < 3 && !rc; k++) {
			struct shift_case sc = { NULL, 0, NULL, 1.05 };
			char what[64];

			if (!find(c, 0, 1, cpus[k], &ti))
				continue;
			snprintf(what, sizeof(what), "+5%% injected, nb=1 cpus=%s", cpus[k]);
			sc.what = what;
			sc.target = ti;
			rc |= delays(c, &sc, r, starts, n_starts);
			if (quick)
				break;
		}
		return rc;
	}
	for (i = 0; i < c->n && !rc; i++) {
		struct shift_case sc = { NULL, t0, &c->s[i], 1 };
		char what[64];

		if (!c->s[i].dose || c->s[i].neighbours)
			continue;
		snprintf(what, sizeof(what), "recorded %s", c->s[i].name);
		sc.what = what;
		rc |= delays(c, &sc, r, starts, n_starts);
	}
	return rc;
}

static void total(const char *what, unsigned r, size_t k, size_t n, size_t dist)
{
	size_t need = stats_runs_for_upper(k, n, 0.02);
	char buf[80];

	cp_text(k, n, buf, sizeof(buf));
	printf("  all corpora r=%u, %s: FA %s; disturbed rows %zu; unchanged runs for an upper "
	       "bound < 2%% at this rate: ", r, what, buf, dist);
	if (need == SIZE_MAX)
		printf("none (the rate itself is not below 2%%)\n");
	else
		printf("%zu\n", need);
}

int main(int argc, char **argv)
{
	unsigned reps[8] = { 1, 3, 5 };
	size_t n_reps = 3, ri;
	int i, pass, rc = 0, quick = 0, files = 0, no_delay = 0;
	const char *usage = "usage: gate_timeline [--repeats 1,3,5] [--quick] [--no-delay] [--list] "
			    "[--otava-p P] CORPUS.jsonl...\n";

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "--list")) {
			list_runs = 1;
		} else if (!strcmp(argv[i], "--no-delay")) {
			no_delay = 1;
		} else if (!strcmp(argv[i], "--otava-p") && i + 1 < argc) {
			char *end;

			otava_max_p = strtod(argv[++i], &end);
			if (*end || !(otava_max_p > 0 && otava_max_p < 1)) {
				fprintf(stderr, "gate_timeline: --otava-p wants a p-value in (0, 1)\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
			if (stats_parse_repeats(argv[++i], reps, 8, &n_reps))
				return 2;
		} else if (argv[i][0] == '-') {
			fputs(usage, stderr);
			return 2;
		} else {
			files++;
		}
	}
	if (!files) {
		fputs(usage, stderr);
		return 2;
	}
	printf("Time-ordered replay through the product path (compare --db, then ingest, run by run;\n"
	       "CLI defaults: window 30, its q; the producers' policies and tolerances).\n");
	for (pass = 0; pass < 2 - no_delay; pass++)
		for (ri = 0; ri < n_reps; ri++) {
			size_t k = 0, n = 0, dist = 0, k1 = 0, n1 = 0, dist1 = 0, ot[2] = { 0, 0 };

			if (pass)
				printf("\n-- delay after a lasting shift, r = %u --\n", reps[ri]);
			else
				printf("\n-- run-level false alarms, r = %u (runs from the %dth on) --\n",
				       reps[ri], WARMUP + 1);
			for (i = 1; i < argc; i++) {
				struct prod_corpus c;

				if (argv[i][0] == '-') {
					i += !strcmp(argv[i], "--repeats") || !strcmp(argv[i], "--otava-p");
					continue;
				}
				if (prod_corpus_load(argv[i], &c))
					return 1;
				if (pass) {
					rc |= detection(argv[i], &c, reps[ri], quick);
				} else {
					rc |= false_alarms(argv[i], &c, reps[ri], &k, &n, &dist);
					rc |= false_alarms_per_case(argv[i], &c, reps[ri], &k1, &n1, &dist1,
								    ot);
				}
				prod_corpus_free(&c);
			}
			if (!pass) {
				total("one job of all cases", reps[ri], k, n, dist);
				total("one case per job", reps[ri], k1, n1, dist1);
				if (ot[1]) {
					char buf[80];

					cp_text(ot[0], ot[1], buf, sizeof(buf));
					printf("  all corpora r=%u, one case per job, Apache Otava (runs %d on): "
					       "FA %s\n", reps[ri], OTAVA_MIN_RUNS, buf);
				}
			}
		}
	return rc;
}
