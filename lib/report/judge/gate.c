/* The history gate's statistics (gate.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "gate.h"
#include "gate_control.h"
#include "gate_far.h"
#include "gate_quantile.h"
#include "gate_held.h"
#include "gate_scale.h"
#include "gate_together.h"
#include "gate_young.h"
#include "order_stats.h"
#include "tails.h"
#include "verdict_vocab.h"

/*
 * The midpoint median, (a + b) / 2 for an even window: not
 * ksftm_median(), whose numpy interpolation can differ in the last bit,
 * and the gate's recorded verdicts and golden numbers are computed this way.
 */
static double median_of(const double *w, size_t n, double *scratch)
{
	memcpy(scratch, w, n * sizeof(*w));
	ksftm_sort_doubles(scratch, n);
	return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

double gate_allowance(double base, double rel_tol, double abs_tol)
{
	double allow = 0;

	if (!isnan(rel_tol))
		allow = rel_tol * fabs(base);
	if (!isnan(abs_tol) && abs_tol > allow)
		allow = abs_tol;
	return allow;
}

/* The noise model of one series on the test's scale (logarithms or values). */
struct noise {
	int logs;
	double level;		/* the window's median, on that scale */
	double sb2, sw2;	/* between-run and within-run variance */
	double sb2_diff;	/* sb2 from successive differences alone (no drift) */
	double level_var;	/* the level's own variance */
	double df;		/* the noise estimate's degrees of freedom */
	double inflate;		/* the CUSUM's long-run variance factor (1+rho)/(1-rho) */
	double inflate_together;	/* the same, rho beyond its own noise (the
					   recent runs together's: drift_of()) */
};

static double scaled(const struct noise *nz, double x)
{
	return nz->logs ? log(x) : x;
}

/* Variance of a run of @r repeats (0: unknown, as the window's runs) against the level. */
static double run_var(const struct noise *nz, size_t r, double mean_inv_r)
{
	return nz->sb2 + nz->sw2 * (r ? 1.0 / (double)r : mean_inv_r) + nz->level_var;
}

/* A robust standard deviation of d[0..m): 1.4826 MAD. */
static double mad_sd(const double *d, size_t m, double *scratch)
{
	double med;
	size_t i;

	memcpy(scratch, d, m * sizeof(*d));
	med = median_of(scratch, m, scratch + m);
	for (i = 0; i < m; i++)
		scratch[i] = fabs(d[i] - med);
	return 1.4826 * median_of(scratch, m, scratch + m);
}

/* A sum of n AR(1) terms with lag-1 correlation @rho varies like
 * n (1 + rho) / (1 - rho) independent ones. */
static double ar1_inflate(double rho)
{
	return (1 + rho) / (1 - rho);
}

/*
 * The drift: residuals about the level wander more than successive
 * differences show (the level moves slowly, the slow mode comes in spells).
 * A robust spread of the recent runs about the level beyond the
 * successive differences' is between-run noise too; and the residuals'
 * lag-1 autocorrelation rho (winsorised, in [0, 0.8]) makes a sum of n of
 * them vary like n (1 + rho) / (1 - rho) of them, which the CUSUM's
 * increments are divided by (the run alone is judged on its own residual).
 */
static void drift_of(const double *seq, size_t m, struct noise *nz, double mean_inv_r,
		     double *dev, double *scratch)
{
	double sd, about, num = 0, den = 0, rho, c, shrink;
	size_t i;

	nz->inflate = nz->inflate_together = 1;
	if (m < 5)
		return;
	for (i = 0; i < m; i++)
		scratch[i] = fabs(scaled(nz, seq[i]) - nz->level);
	/* Winsorised at GATE_DIFF_CLIP robust sd: the slow mode counts. */
	sd = GATE_DIFF_CLIP * 1.4826 * median_of(scratch, m, scratch + m);
	for (i = 0, about = 0; i < m; i++) {
		c = fabs(scaled(nz, seq[i]) - nz->level);
		c = c > sd ? sd : c;
		about += c * c / (double)m;
	}
	about -= nz->sw2 * mean_inv_r;
	if (about > nz->sb2)
		nz->sb2 = about;
	c = GATE_DIFF_CLIP * sqrt(nz->sb2 + nz->sw2 * mean_inv_r);
	for (i = 0; i < m; i++) {
		dev[i] = scaled(nz, seq[i]) - nz->level;
		if (c > 0 && fabs(dev[i]) > c)
			dev[i] = dev[i] > 0 ? c : -c;
	}
	for (i = 0; i < m; i++) {
		den += dev[i] * dev[i];
		if (i)
			num += dev[i] * dev[i - 1];
	}
	rho = den > 0 ? num / den : 0;
	rho = rho < 0 ? 0 : rho > 0.8 ? 0.8 : rho;
	nz->inflate = ar1_inflate(rho);
	/*
	 * The recent runs together take rho shrunk by its own noise: the lag-1
	 * correlation of m unchanged runs varies by about 1 / sqrt(m), so
	 * rho (1 - 1 / (m rho^2)), none when rho is within one of its sds
	 * (positive-part shrinkage). Of eight window runs, rho 0.35 is one
	 * sd of noise; taken raw it doubled the blocks' variance and a -38 %
	 * drop (6 sd) waited for its 6th run (issue 40, two-runner-quiet2-d35's
	 * r1). The CUSUM keeps the raw value: it is what the replay's false
	 * alarms at r = 1 were measured with, and taking it there too cost
	 * 20 more of 4,993 (doc/gate-record.rst, "Issue 40, fifth pass").
	 */
	shrink = rho > 0 ? 1 - 1 / ((double)m * rho * rho) : 0;
	nz->inflate_together = ar1_inflate(shrink > 0 ? rho * shrink : 0);
}

/* The median of chi-square with @nu degrees of freedom over @nu
 * (Wilson-Hilferty): a sample variance's median over the variance. */
static double chi2_median_ratio(double nu)
{
	double c = 1 - 2 / (9 * nu);

	return c * c * c;
}

/*
 * Fill @nz from series @s (scratch holds 4 * max(n_recent, n_window) + 4
 * doubles); @return the mean of 1/r over the recent runs (r unknown: 1/r of
 * the current run, or 1).
 */
static double noise_of(const struct gate_series *s, const double *seq, size_t m,
		       const double *lvl, size_t nl, struct noise *nz, double *scratch)
{
	double *d = scratch, *w = scratch + m + 1, sum = 0, clip, mean_inv_r = 0;
	double def_inv_r = s->repeats ? 1.0 / (double)s->repeats : 1.0;
	size_t i, nd = 0, nv = 0;

	for (i = 0; i < nl; i++)
		w[i] = scaled(nz, lvl[i]);
	nz->level = median_of(w, nl, w + nl);
	/*
	 * Within-run variance: the median of the runs' own repeat variances,
	 * each over its chi-square median (delta method on logarithms:
	 * var(log x) ~ var(x) / x^2). Not their mean: a p50 of 3 repeats
	 * ignores the one repeat a descheduled iperf3 halved, which the mean
	 * of the variances counts in full; two such runs in 8 made the
	 * noise 6 % a run where the runs' p50s moved 1.5 %, and a -37 %
	 * drop could not fail (issue 40, two-runner-quiet2-d35's r2).
	 */
	for (i = 0; i <= m; i++) {
		size_t r = i < m ? (s->recent_repeats ? s->recent_repeats[i] : 0) : s->repeats;
		double v = i < m ? (s->recent_within ? s->recent_within[i] : NAN) : s->within;
		double x = i < m ? seq[i] : s->current;

		if (r >= 2 && isfinite(v) && v >= 0)
			d[nv++] = (nz->logs ? v / (x * x) : v) / chi2_median_ratio((double)(r - 1));
	}
	nz->sw2 = nv ? median_of(d, nv, w) : 0;
	/* Run-to-run: successive differences, winsorised. */
	for (i = 1; i < m; i++) {
		size_t r0 = s->recent_repeats ? s->recent_repeats[i - 1] : 0;
		size_t r1 = s->recent_repeats ? s->recent_repeats[i] : 0;

		d[nd++] = scaled(nz, seq[i]) - scaled(nz, seq[i - 1]);
		mean_inv_r += ((r0 ? 1.0 / (double)r0 : def_inv_r) +
			       (r1 ? 1.0 / (double)r1 : def_inv_r)) / 2;
	}
	mean_inv_r = nd ? mean_inv_r / (double)nd : def_inv_r;
	clip = nd ? GATE_DIFF_CLIP * mad_sd(d, nd, w) : 0;
	for (i = 0; i < nd; i++) {
		double x = clip > 0 && fabs(d[i]) > clip ? clip : fabs(d[i]);

		sum += x * x;
	}
	nz->sb2 = nd ? sum / (2.0 * (double)nd) - nz->sw2 * mean_inv_r : 0;
	/* Half the mean square successive difference of m normal values:
	 * variance about (3m - 4) / (m - 1)^2 sigma^4, so 2 (m - 1)^2 / (3m - 4)
	 * degrees of freedom (two thirds of the sample variance's). */
	nz->df = m > 2 ? 2.0 * (double)(m - 1) * (double)(m - 1) / (3.0 * (double)m - 4.0) : 0;
	if (nz->sb2 < 0)
		nz->sb2 = 0;
	nz->sb2_diff = nz->sb2;
	drift_of(seq, m, nz, mean_inv_r, d, w);
	/* The median of n runs: about pi/2 times the mean's variance. */
	nz->level_var = 1.5708 * (nz->sb2 + nz->sw2 * mean_inv_r) / (double)nl;
	return mean_inv_r;
}

/*
 * The residuals' degrees of freedom: the noise estimate's (@nz->df) and
 * the noise's own heavy tail (GATE_TAIL_DF), combined as the variances of
 * the two sources of a large ratio add: 1 / df = 1 / df_est + 1 / nu.
 */
static double tail_df(const struct noise *nz)
{
	return nz->df > 0 ? 1.0 / (1.0 / nz->df + 1.0 / GATE_TAIL_DF) : GATE_TAIL_DF;
}

/*
 * Standardised residual of @x (a run of @r repeats), positive toward worse:
 * a Student t with tail_df() degrees of freedom (the noise is estimated,
 * and has heavy tails), mapped to the normal deviate with the same tail,
 * so that the CUSUM's normal-theory rate holds for short windows and
 * for the real noise's tail too (gate.h, GATE_TAIL_DF).
 */
static double residual(const struct noise *nz, int better, double x, size_t r, double mean_inv_r)
{
	double v = run_var(nz, r, mean_inv_r), e = scaled(nz, x) - nz->level, t, tail, df;

	e = better > 0 ? -e : e;
	/* No noise at all (a deterministic series): any change but the last
	 * bits' is certain. The inputs are unit-free (gate_scale.h), so the
	 * thresholds are relative to the series' magnitude. */
	if (!(v > 1e-24 * (1 + nz->level * nz->level)))
		return fabs(e) <= 1e-12 * (1 + fabs(nz->level)) ? 0 : e > 0 ? INFINITY : -INFINITY;
	t = e / sqrt(v);
	df = tail_df(nz);
	if (fabs(t) < 1)
		return t;
	tail = tails_student_t_two_sided(fabs(t), df) / 2;
	if (!(tail > 0))
		return t;
	return t > 0 ? gate_normal_quantile(tail) : -gate_normal_quantile(tail);
}

/* A relative size of @z standard deviations (@sd on the test's scale). */
static double rel_size(const struct noise *nz, double sd)
{
	return nz->logs ? expm1(sd) : sd / fabs(nz->level);
}

/* The same toward the metric's worse side (@better): a drop on logarithms
 * never reaches 100 %. */
static double rel_worse(const struct noise *nz, double sd, int better)
{
	return nz->logs && better > 0 ? -expm1(-sd) : rel_size(nz, sd);
}

/* What need() takes of measure(). */
struct model {
	struct noise nz;
	double mean_inv_r;
	double s_prev;		/* the regression CUSUM before the current run */
	size_t cusum_wait;	/* runs until the CUSUM accumulates (GATE_CUSUM_MIN_RUNS) */
	double worst, range;	/* the recent runs' worst value and range (gate_far.h) */
	struct noise alone;	/* the run-alone statistic's level and noise */
	size_t n_far;		/* how many runs */
};

/*
 * The CUSUMs over the recent runs (@up and @down before the current run)
 * and the regression CUSUM's excursion: how many runs, the current one
 * included, it has stayed above zero (0: the CUSUM does not run yet).
 */
static size_t cusum_runs(const struct gate_series *s, const double *seq, size_t m,
			 const struct noise *nz, double mean_inv_r, double *up, double *down)
{
	size_t i, exc = 0;
	double z, u;

	*up = *down = 0;
	if (s->fresh || m < GATE_CUSUM_MIN_RUNS || !(run_var(nz, 1, mean_inv_r) > 0))
		return 0;
	for (i = 0; i < m; i++) {
		size_t r = s->recent_repeats && seq == s->recent ? s->recent_repeats[i] : 0;

		z = residual(nz, s->better, seq[i], r, mean_inv_r) / sqrt(nz->inflate);
		*up = fmax(0, *up + z - GATE_CUSUM_K);
		*down = fmax(0, *down - z - GATE_CUSUM_K);
		exc = *up > 0 ? exc + 1 : 0;
	}
	z = residual(nz, s->better, s->current, s->repeats, mean_inv_r) / sqrt(nz->inflate);
	u = fmax(0, *up + z - GATE_CUSUM_K);
	return u > 0 ? exc + 1 : 0;
}

/*
 * The run alone's residual @zl (local) and @zg (as the CUSUM sees it) as
 * one normal deviate: the smaller of their tails, each divided by its
 * share (a weighted Bonferroni). While the CUSUM is @idle (a short
 * history, a pinned run) its share is idle too: the local residual takes
 * its part from it and the other keeps the run alone's whole share.
 */
static double two_ways(double zl, double zg, int idle)
{
	double t = fmin(tails_normal_upper(zl) / GATE_ALONE_LOCAL_SHARE,
			tails_normal_upper(zg) / (idle ? 1 : 1 - GATE_ALONE_LOCAL_SHARE));

	return gate_normal_quantile(fmin(0.5, t));
}

/* One series' statistics, before the run-wide correction. */
static void measure_series(struct gate_series *s, const struct gate_opts *o, double *scratch,
			   struct model *md)
{
	const double *seq = s->recent && s->n_recent ? s->recent : s->window;
	size_t m = s->recent && s->n_recent ? s->n_recent : s->n_window, i;
	struct noise nz = { 0 };
	double mean_inv_r, up = 0, down = 0, z, za, zl;
	int idle;

	md->s_prev = 0;
	md->cusum_wait = 0;

	s->baseline = s->change = s->p_value = s->q_value = NAN;
	s->p_improve = s->q_improve = s->sigma = s->sigma_between = s->sigma_within = NAN;
	s->z = s->z_cusum = s->z_local = s->cusum = s->h = s->smallest = NAN;
	s->p_together = NAN;
	s->together_k = 0;
	s->together_on = 0;
	s->need_runs = s->need_repeats = NAN;
	s->far = s->p_far = s->far_line = NAN;
	s->blind = 0;
	s->allowance = 0;
	s->verdict = GATE_UNTRACKED;
	if (!s->n_window || !isfinite(s->current))
		return;
	s->baseline = median_of(s->window, s->n_window, scratch);
	s->change = rel_change(s->current, s->baseline);
	if (!s->better)
		return;
	s->allowance = gate_allowance(s->baseline, s->rel_tol, s->abs_tol);
	s->verdict = GATE_NO_CHANGE;
	if (!s->young && (s->n_window < o->min_runs || s->n_window < 2)) {
		s->need_runs = (double)(o->min_runs > 2 ? o->min_runs : 2) - (double)s->n_window;
		return;
	}
	/* Far outside every recent run, on the values (gate_far.h). */
	s->far = gate_far_excess(seq, m, s->current, s->better, &md->worst, &md->range);
	md->n_far = m;
	nz.logs = gate_use_logs(s->window, s->n_window, s->current);
	for (i = 0; nz.logs && i < m; i++)
		if (!(seq[i] > 0))
			nz.logs = 0;
	/*
	 * A guard band: the level and the noise come from runs at least
	 * GATE_GUARD_RUNS old, so a lasting change has that many runs to show
	 * in the CUSUM before it pulls the level and the noise (drift,
	 * autocorrelation) toward itself. For runs of GATE_GUARD_ADAPT_REPEATS
	 * repeats or more, a CUSUM still above zero when its excursion reaches
	 * past the band widens it to where the excursion began (Page's
	 * estimate of the change's run), up to GATE_GUARD_MAX_RUNS: a change
	 * the CUSUM has not flagged yet stays out of the model (gate.h).
	 */
	{
		size_t g = GATE_GUARD_RUNS, tries, mf;
		struct gate_series sn = *s;
		double *fbuf = NULL;

		/* The noise comes from the runs the window holds (gate_held.h). */
		mf = seq == s->recent ? gate_held_out(s, &sn, &fbuf) : m;

		for (tries = 0; tries < 4; tries++) {
			size_t nw = s->n_window, mn = m, exc;

			/* Past the first try the band always fits (checked below). */
			if (seq == s->recent && nw >= g + o->min_runs && m >= g + o->min_runs) {
				nw -= g;
				mn -= g;
				s->baseline = median_of(s->window, nw, scratch);
				s->change = rel_change(s->current, s->baseline);
				s->allowance = gate_allowance(s->baseline, s->rel_tol, s->abs_tol);
			}
			/* The noise of the runs in the window: held runs out
			 * (behind the same guard band). */
			if (mf < m)
				mn = mn < m && mf > m - mn + 2 ? mf - (m - mn) : mf;
			mean_inv_r = noise_of(mf < m ? &sn : s, mf < m ? sn.recent : seq, mn,
					      s->window, nw, &nz, scratch);
			exc = cusum_runs(s, seq, m, &nz, mean_inv_r, &up, &down);
			/* The excursion counts the current run; the band, past runs. */
			if (seq != s->recent || s->repeats < GATE_GUARD_ADAPT_REPEATS ||
			    exc <= g + 1 || g >= GATE_GUARD_MAX_RUNS)
				break;
			g = exc - 1 < GATE_GUARD_MAX_RUNS ? exc - 1 : GATE_GUARD_MAX_RUNS;
			if (s->n_window < g + o->min_runs || m < g + o->min_runs)
				break;
		}
		free(fbuf);
	}
	md->s_prev = up;
	md->cusum_wait = m < GATE_CUSUM_MIN_RUNS ? GATE_CUSUM_MIN_RUNS - m : 0;
	/*
	 * The run alone is judged twice, on GATE_ALONE_LOCAL_SHARE and the
	 * rest of its share of the budget (two_ways()): as the CUSUM sees it
	 * (behind the guard band, the drift as noise) and against the whole
	 * window's level, its newest runs
	 * included, with the noise of successive differences (a slow drift
	 * is the CUSUM's to weigh, not noise of one run against the runs just
	 * before it). With the first alone, one run 20 % down on real iperf3
	 * runs passed where a t interval on the same window found it; with
	 * the second alone, unchanged runs failed 1.5 % of the time at r = 1
	 * (issue 31 item 17, bench/gate_single, doc/gate-record.rst).
	 */
	md->alone = nz;
	for (i = 0; i < s->n_window; i++)
		scratch[i] = scaled(&nz, s->window[i]);
	md->alone.level = median_of(scratch, s->n_window, scratch + s->n_window);
	md->alone.sb2 = nz.sb2_diff;
	md->alone.level_var = 1.5708 * (nz.sb2_diff + nz.sw2 * mean_inv_r) / (double)s->n_window;
	idle = s->fresh || m < GATE_CUSUM_MIN_RUNS;
	za = residual(&nz, s->better, s->current, s->repeats, mean_inv_r);
	zl = residual(&md->alone, s->better, s->current, s->repeats, mean_inv_r);
	z = za / sqrt(nz.inflate);
	s->cusum = fmax(0, up + z - GATE_CUSUM_K);
	down = fmax(0, down - z - GATE_CUSUM_K);
	/* The run alone, both ways, as one deviate (two_ways()), signed:
	 * toward worse the regression's, toward better minus the
	 * improvement's (monotone in the run's value, for gate_band.c). */
	s->z_cusum = za;
	s->z_local = zl;
	s->z = fmax(0, two_ways(zl, za, idle)) - fmax(0, two_ways(-zl, -za, idle));
	/* The recent runs together take their share of the budget only when
	 * they can be tested (gate.h). */
	s->together_on = gate_together_ready(s, o->min_runs);
	s->p_value = gate_cusum_detector_p(s->cusum, two_ways(zl, za, idle)) /
		     (s->together_on ? 1 - GATE_TOGETHER_SHARE : 1);
	s->p_improve = gate_cusum_detector_p(down, two_ways(-zl, -za, idle)) /
		       (s->together_on ? 1 - GATE_TOGETHER_SHARE : 1);
	/* The recent runs together, on their share (gate.h). */
	{
		size_t kd;
		double pi;

		s->p_together = gate_together_p(s, nz.logs, nz.sb2 + nz.sw2 * mean_inv_r,
						nz.inflate_together, nz.df, 1, o->min_runs, &s->together_k);
		if (s->p_together / GATE_TOGETHER_SHARE < s->p_value)
			s->p_value = s->p_together / GATE_TOGETHER_SHARE;
		pi = gate_together_p(s, nz.logs, nz.sb2 + nz.sw2 * mean_inv_r,
				     nz.inflate_together, nz.df, -1, o->min_runs, &kd);

		if (pi / GATE_TOGETHER_SHARE < s->p_improve)
			s->p_improve = pi / GATE_TOGETHER_SHARE;
	}
	s->p_value = fmin(1, s->p_value);
	s->p_improve = fmin(1, s->p_improve);
	s->sigma = rel_size(&nz, sqrt(nz.sb2 + nz.sw2 * (s->repeats ? 1.0 / (double)s->repeats :
							  mean_inv_r)));
	s->sigma_between = rel_size(&nz, sqrt(nz.sb2));
	s->sigma_within = rel_size(&nz, sqrt(nz.sw2));
	md->nz = nz;
	md->mean_inv_r = mean_inv_r;
}

/* A young accepted level is judged on its runs merged with those before
 * it (gate_young.h); any other series as it is. */
static void measure(struct gate_series *s, const struct gate_opts *o, double *scratch,
		    struct model *md)
{
	struct gate_series y;
	double *buf;

	s->young = 0;
	if (!gate_young_merge(s, o->min_runs, &y, &buf)) {
		measure_series(s, o, scratch, md);
		return;
	}
	measure_series(&y, o, scratch, md);
	gate_young_restore(s, &y);
	free(buf);
}

/*
 * What the series would need (after the run-wide correction set its
 * threshold @h): the smallest change this run could have shown, the runs a
 * lasting change of the tolerance takes to show, and the repeats one run
 * needs to show it alone.
 */
static void need(struct gate_series *s, const struct model *md, double alpha)
{
	const struct noise *nz = &md->nz, *al = &md->alone;
	double sd = sqrt(run_var(nz, s->repeats, md->mean_inv_r)), tol, t2, room, zc, zs, h, far;
	double sda = sqrt(run_var(al, s->repeats, md->mean_inv_r)), za, zg;
	size_t i;
	int pos;

	/* Each of the two detectors has its share of the series' budget: the
	 * CUSUM's next step, or the run alone (its own level and noise). */
	if (s->together_on)
		alpha *= 1 - GATE_TOGETHER_SHARE;	/* the recent runs together have the rest */
	h = s->h = gate_cusum_h(alpha * (1 - GATE_SHEWHART_SHARE), GATE_CUSUM_K);
	zs = gate_normal_quantile(alpha * GATE_SHEWHART_SHARE * GATE_ALONE_LOCAL_SHARE);
	zg = gate_normal_quantile(alpha * GATE_SHEWHART_SHARE *
				   (md->cusum_wait || s->fresh ? 1 : 1 - GATE_ALONE_LOCAL_SHARE));
	zc = h + GATE_CUSUM_K - md->s_prev;
	if (zc < GATE_CUSUM_K)
		zc = GATE_CUSUM_K;
	s->smallest = fmin(rel_worse(al, gate_raw_of_normal(zs, tail_df(al)) * sda, s->better),
			   rel_worse(nz, gate_raw_of_normal(zg, tail_df(nz)) * sd, s->better));
	if (!md->cusum_wait) {
		double c = rel_worse(nz, gate_raw_of_normal(zc, tail_df(nz)) * sd * sqrt(nz->inflate),
				     s->better);

		if (c < s->smallest)
			s->smallest = c;
	}
	/* Or far outside the recent runs, whatever the noise model says. */
	far = gate_far_margin(md->n_far, alpha * GATE_FAR_SHARE);
	if (md->range > 0 && isfinite(far) && fabs(s->baseline) > 0) {
		far = (s->better > 0 ? s->baseline - (md->worst - far * md->range) :
			       md->worst + far * md->range - s->baseline) / fabs(s->baseline);
		if (!(s->smallest <= far))
			s->smallest = far;
	}
	tol = fabs(s->baseline) > 0 ? s->allowance / fabs(s->baseline) : NAN;
	if (s->smallest < tol)
		s->smallest = tol;
	/* A higher-is-better series that has only been positive cannot drop
	 * by 100 % or more: no run could fail it here. */
	for (i = 0, pos = s->baseline > 0; pos && i < s->n_window; i++)
		pos = s->window[i] > 0;
	s->blind = !(s->smallest < INFINITY) || (s->better > 0 && pos && s->smallest >= 1);
	if (!(tol > 0) || !(sd > 0) || !(sda > 0))
		return;
	/* The tolerance in standard deviations on the test's scale. */
	tol = nz->logs ? log1p(tol) : tol * fabs(nz->level);
	za = gate_normal_of_raw(tol / sda, tail_df(al));
	zc = gate_normal_of_raw(tol / sd, tail_df(nz));
	s->need_runs = za >= zs || zc >= zg ? 1 : (double)md->cusum_wait +
						     ceil(gate_cusum_arl(zc, GATE_CUSUM_K, h));
	if (!(s->need_runs < 1000))
		s->need_runs = INFINITY;
	/* One run alone shows the tolerance once it is zs of its sd (on the
	 * residuals' t scale). */
	t2 = tol / gate_raw_of_normal(zs, tail_df(al));
	t2 *= t2;
	room = t2 - al->sb2 - al->level_var;
	if (room <= 0)
		s->need_repeats = INFINITY;
	else
		s->need_repeats = al->sw2 > 0 ? ceil(al->sw2 / room) : 1;
}

/* gate_judge() on unit-free copies of the series (@t, gate_scale.h). */
static int judge_scaled(struct gate_series *s, size_t n, const struct gate_opts *o);

int gate_judge(struct gate_series *s, size_t n, const struct gate_opts *o)
{
	struct gate_series *t = calloc(n ? n : 1, sizeof(*t));
	double **buf = calloc(n ? n : 1, sizeof(*buf));
	int *exp = calloc(n ? n : 1, sizeof(*exp)), ret = t && buf && exp ? 0 : -ENOMEM;
	size_t i;

	for (i = 0; !ret && i < n; i++)
		ret = gate_scale_in(&s[i], &t[i], &buf[i], &exp[i]);
	if (!ret)
		ret = judge_scaled(t, n, o);
	for (i = 0; !ret && i < n; i++)
		gate_scale_out(&s[i], &t[i], exp[i]);
	for (i = 0; buf && i < n; i++)
		free(buf[i]);
	free(buf);
	free(exp);
	free(t);
	return ret;
}

static int judge_scaled(struct gate_series *s, size_t n, const struct gate_opts *o)
{
	static const struct gate_opts defaults = GATE_OPTS_DEFAULT;
	size_t i, most = 1;
	struct model *model;
	double *scratch;
	int ret;

	if (!o)
		o = &defaults;
	for (i = 0; i < n; i++) {
		if (s[i].n_window > most)
			most = s[i].n_window;
		if (s[i].recent && s[i].n_recent + s[i].n_prior > most)
			most = s[i].n_recent + s[i].n_prior;
		if (s[i].prior && s[i].n_prior > most)
			most = s[i].n_prior;
	}
	scratch = malloc((4 * most + 4) * sizeof(*scratch));
	model = calloc(n ? n : 1, sizeof(*model));
	if (!scratch || !model) {
		free(scratch);
		free(model);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		measure(&s[i], o, scratch, &model[i]);
	free(scratch);
	ret = gate_control(s, n, o->fdr);
	for (i = 0; !ret && i < n; i++) {
		struct gate_series *g = &s[i];
		double d, alpha;
		int beyond, worse;

		if (g->verdict != GATE_NO_CHANGE)
			continue;
		alpha = gate_control_series_budget(s, n, i, o->fdr);
		if (!isnan(g->p_value)) {
			double c = gate_far_margin(model[i].n_far, alpha * GATE_FAR_SHARE);

			g->p_far = gate_far_p(model[i].n_far, g->far);
			if (model[i].range > 0 && isfinite(c))
				g->far_line = model[i].worst + (g->better > 0 ? -c : c) *
							       model[i].range;
			need(g, &model[i], alpha);
		}
		d = g->current - g->baseline;
		beyond = fabs(d) > g->allowance;
		worse = g->better > 0 ? d < 0 : d > 0;
		if (!beyond)
			continue;	/* within tolerance: does not matter */
		/* A change that would matter, which the noise (or too short a
		 * history to know the noise) leaves unproven either way. */
		if (worse && !isnan(g->q_value) && g->q_value <= o->fdr) {
			g->verdict = GATE_REGRESSION;
		} else if (worse && g->p_far <= alpha * GATE_FAR_SHARE) {
			/* Far outside everything the window has shown, on a budget
			 * of its own (gate_far.h): P is its Bonferroni share. */
			g->verdict = GATE_REGRESSION;
			g->q_value = fmin(1, g->p_far * o->fdr / (alpha * GATE_FAR_SHARE));
			g->blind = 0;
		}
		else if (!worse && !isnan(g->q_improve) && g->q_improve <= o->fdr)
			g->verdict = GATE_IMPROVEMENT;
		else
			g->verdict = GATE_TOO_NOISY;
	}
	free(model);
	return ret;
}

const char *gate_verdict_name(enum gate_verdict v)
{
	switch (v) {
	case GATE_REGRESSION:
		return KSFTM_VERDICT_REGRESSION;
	case GATE_IMPROVEMENT:
		return KSFTM_VERDICT_IMPROVEMENT;
	case GATE_TOO_NOISY:
		return KSFTM_VERDICT_TOO_NOISY;
	case GATE_UNTRACKED:
		return KSFTM_VERDICT_UNTRACKED;
	case GATE_NO_CHANGE:
	default:
		return KSFTM_VERDICT_NO_CHANGE;
	}
}
