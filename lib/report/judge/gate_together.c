/* The recent runs together (gate_together.h). */
#include <math.h>
#include <stddef.h>

#include "gate.h"
#include "gate_together.h"
#include "tails.h"

static double sc(int logs, double x)
{
	return logs ? log(x) : x;
}

int gate_together_ready(const struct gate_series *s, size_t min_runs)
{
	size_t i, na = 0;

	if (!s->recent || s->fresh || s->n_recent < 1 || s->n_window < min_runs ||
	    s->repeats < GATE_GUARD_ADAPT_REPEATS)
		return 0;
	for (i = s->n_recent - 1; i-- > 0 && na < min_runs;)
		na += !(s->recent_held && s->recent_held[i]);
	return na >= min_runs && na >= 2;
}

/*
 * One block: the mean of the current run and the @k - 1 recent runs
 * before it against the mean of the window's runs before them (held runs
 * out, the newest n_window of them), a one-sided t on the run-to-run noise
 * @var_run toward worse (@dir +1 on the values' scale). A mean of k
 * successive runs varies as AR(1) residuals with the drift's lag-1
 * correlation do; its tail is lighter than one run's (the excess kurtosis
 * of a mean of k is a k-th: a t with nu degrees of freedom becomes one
 * with 4 + k (nu - 4)), and no heavier than the noise estimate's own.
 * @return its p, NaN when it cannot be tested, *@stop set when no longer
 * block can be either.
 */
static double block_p(const struct gate_series *s, int logs, double var_run, double inflate,
		      double df_est, double dir, size_t min_runs, size_t k, size_t held,
		      int *stop)
{
	size_t m = s->n_recent, na = 0, i, j;
	double mb = sc(logs, s->current), ma = 0, vb, va, f = 1, t, df, rj = 1, own, d, de;
	double rho = (inflate - 1) / (inflate + 1);

	for (i = m - (k - 1); i < m; i++)
		mb += sc(logs, s->recent[i]);
	mb /= (double)k;
	for (i = m - (k - 1); i-- > 0 && na < s->n_window;) {
		if (s->recent_held && s->recent_held[i])
			continue;
		ma += sc(logs, s->recent[i]);
		na++;
	}
	if (na < min_runs || na < 2) {
		*stop = 1;
		return NAN;
	}
	ma /= (double)na;
	/* var of a mean of k AR(1) terms: 1 + 2 sum (1 - j/k) rho^j. */
	for (j = 1; j < k; j++) {
		rj *= rho;
		f += 2 * (1 - (double)j / (double)k) * rj;
	}
	/* The current run itself on the moved side, or no moved level. */
	if ((ma - sc(logs, s->current)) * dir <= 0) {
		*stop = 1;
		return NAN;
	}
	vb = var_run * f / (double)k;
	va = var_run * inflate / (double)na;
	df = 4 + (double)k * (GATE_TAIL_DF - 4);
	if (df_est > 0 && df_est < df)
		df = df_est;
	/* The block's runs must agree about the move: their own spread,
	 * when larger than the noise can make it (Fisher's F at
	 * GATE_TOGETHER_DISAGREE), is the block's (Welch: k - 1 degrees of
	 * freedom), so one far run already flagged does not make every
	 * block holding it a change. Merely larger is not enough: two runs
	 * of a lasting drop 6 % apart on 2.3 % noise (one of them slowed
	 * further by its qdisc's first seconds) took the block to one
	 * degree of freedom, and a -37 % drop, 16 sd, passed its 2nd run
	 * (issue 40, two-runner-quiet2-d35's r2). */
	for (i = m - (k - 1), own = 0, d = sc(logs, s->current) - mb; i < m; i++)
		own += (sc(logs, s->recent[i]) - mb) * (sc(logs, s->recent[i]) - mb);
	own = (own + d * d) / (double)(k - 1) / (double)k;
	de = df_est > 0 ? df_est : GATE_TAIL_DF;
	if (own > vb) {
		/* Wider than the noise says: the block's own variance, on
		 * the noise's degrees of freedom while the noise can make it. */
		if (tails_f_upper(own / vb, (double)(k - 1), de) < GATE_TOGETHER_DISAGREE)
			df = (double)(k - 1);
		vb = own;
	} else if (df_est > 0 && k <= held + 1 && na >= GATE_TOGETHER_POOL_RUNS) {
		/* Held runs that agree: their spread is k - 1 more degrees
		 * of freedom on the noise (gate.h, GATE_TOGETHER_POOL_RUNS). */
		df = fmin(4 + (double)k * (GATE_TAIL_DF - 4), df_est + (double)(k - 1));
	}
	t = (ma - mb) * dir / sqrt(vb + va);
	return t > 0 ? tails_student_t_two_sided(t, df) / 2 :
		       1 - tails_student_t_two_sided(-t, df) / 2;
}

/*
 * The recent runs together (gate.h, GATE_TOGETHER_MAX_K): blocks of k =
 * 2..GATE_TOGETHER_MAX_K runs, and one more, the current run with every
 * held run right before it when they are more (a lasting change held run
 * after run: its evidence keeps growing past the fixed blocks). @return
 * the smallest p times the number of blocks tested (Bonferroni), NaN when
 * none could be; *@at its k.
 */
double gate_together_p(const struct gate_series *s, int logs, double var_run, double inflate,
		       double df_est, int sign, size_t min_runs, size_t *at)
{
	size_t m = s->n_recent, k, tested = 0, held = 0, hk, i;
	double best = NAN, dir = (s->better > 0 ? 1 : -1) * sign, p;
	int stop = 0;

	*at = 0;
	if (!gate_together_ready(s, min_runs) || !(var_run > 0))
		return NAN;
	for (i = m; s->recent_held && i-- > 0 && s->recent_held[i];)
		held++;
	/* 2..GATE_TOGETHER_MAX_K, then the held runs' block if longer. */
	hk = held + 1 < GATE_TOGETHER_HELD_MAX_K ? held + 1 : GATE_TOGETHER_HELD_MAX_K;
	for (k = 2; !stop && k - 1 <= m && (k <= GATE_TOGETHER_MAX_K || k == hk);
	     k = k < GATE_TOGETHER_MAX_K || k >= hk ? k + 1 : hk) {
		p = block_p(s, logs, var_run, inflate, df_est, dir, min_runs, k, held, &stop);
		if (isnan(p))
			break;
		tested++;
		if (isnan(best) || p < best) {
			best = p;
			*at = k;
		}
	}
	return tested ? fmin(1, best * (double)tested) : NAN;
}
