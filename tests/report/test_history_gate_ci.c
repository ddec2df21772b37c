/*
 * The history gate as a CI maintainer's loop runs it (issue 40): two
 * runners take turns, each run judged by compare --db with its runner's
 * context, then ingested. A lasting regression is flagged within two runs
 * on each runner, a run that looks worse stays out of the baseline, a
 * rising count of the test's own switches excuses nothing, and after
 * accept the gate sees the next change. Every verdict is judged twice.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "history_fixture.h"
#include "report_util.h"
#include "sim_rng.h"

/*
 * One run of the main job's shape: two cases, each with a gated
 * throughput (higher, 5 % tolerance) and a gated cost (lower, 10 %), three
 * repeats each, and the test's own interference series (untracked).
 * @tput and @cost are the run's levels; a run varies by @between from run
 * to run and each repeat by @within; @sw and @others are the
 * involuntary-switch rate and others' CPU share the run reports.
 */
struct run_shape {
	double tput, cost, between, within, sw, others;
	double others_sd;	/* others' CPU share's relative sd a repeat (0: 0.1) */
};

/* The main job's run, others using 0.01 of a CPU; a busy neighbour's, 1.75. */
#define MAIN_RUN { 24.0, 1.0, 0.02, 0.025, 50, 0.01, 0 }
#define BUSY_RUN { 24.0, 1.0, 0.02, 0.025, 50, 1.75, 0.04 }

static struct ksft_metric_report *make_ci_run(const struct run_shape *s)
{
	static char buf[16384];
	size_t len = 0;
	int c, k;

	len += (size_t)snprintf(buf + len, sizeof(buf) - len, "KTAP version 1\n1..2\n");
	for (c = 0; c < 2; c++) {
		double t = s->tput * (1 + s->between * gauss());
		double q = s->cost * (1 + s->between * gauss());

		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
			"# ktap-metric-policy-json: {\"name\":\"throughput\",\"regression\":"
			"{\"better\":\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05},"
			"\"summarize\":\"distribution\"}\n"
			"# ktap-metric-policy-json: {\"name\":\"cpu.cost.test.best\",\"regression\":"
			"{\"better\":\"lower\",\"compare\":\"p50\",\"relative_tolerance\":0.1},"
			"\"summarize\":\"distribution\"}\n"
			"# ktap-metric-policy-json: {\"name\":\"interference.involuntary_switches\","
			"\"summarize\":\"distribution\"}\n"
			"# ktap-metric-policy-json: {\"name\":\"interference.others_cpu\","
			"\"summarize\":\"distribution\"}\n");
		for (k = 0; k < 3; k++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
				"# ktap-metric-json: {\"name\":\"throughput\",\"shape\":\"scalar\","
				"\"time\":%d,\"value\":%.6f}\n"
				"# ktap-metric-json: {\"name\":\"cpu.cost.test.best\",\"shape\":"
				"\"scalar\",\"time\":%d,\"value\":%.6f}\n"
				"# ktap-metric-json: {\"name\":\"interference.involuntary_switches\","
				"\"host\":\"local\",\"shape\":\"scalar\",\"time\":%d,\"value\":%.6f}\n"
				"# ktap-metric-json: {\"name\":\"interference.others_cpu\","
				"\"host\":\"remote\",\"shape\":\"scalar\",\"time\":%d,\"value\":%.6f}\n",
				k + 1, t * (1 + s->within * gauss()), k + 1,
				q * (1 + s->within * gauss()), k + 1,
				s->sw * (1 + 0.1 * gauss()), k + 1,
				s->others * (1 + (s->others_sd > 0 ? s->others_sd : 0.1) * gauss()));
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "ok %d iperf.%s\n", c + 1,
					c ? "reverse" : "forward");
	}
	return ru_read("run.log", buf);
}

/* What one judged run gave: the run's failing count, the forward case's
 * throughput and cost verdicts, and its throughput's window; the text. */
struct judged {
	int failing;
	char tput[32], cost[32];
	size_t tput_window;
	double p;
	char text[8192];
};

static void judge_once(struct ksft_metric_report_history *h, struct ksft_metric_report *r,
		       const char *ctx, struct judged *out)
{
	struct ksft_metric_report_gate_opts o = KSFT_METRIC_REPORT_GATE_OPTS_INIT;
	struct ksft_metric_report_comparison *c;
	const char *cx[1] = { ctx };
	size_t i;

	o.context = cx;
	o.n_context = 1;
	memset(out, 0, sizeof(*out));
	out->failing = ksft_metric_report_history_compare(h, r, &o, &c);
	ck_assert_msg(out->failing >= 0, "%s", ksft_metric_report_errmsg());
	{
		char *text = NULL;
		size_t len;

		ck_assert_int_eq(ksft_metric_report_comparison_format(c, KSFT_METRIC_REPORT_TEXT,
								      &text, &len), 0);
		snprintf(out->text, sizeof(out->text), "%s", text);
		ksft_metric_report_text_free(text);
	}
	for (i = 0; i < ksft_metric_report_comparison_rows(c); i++) {
		struct ksft_metric_report_row row = { .sz = sizeof(row) };

		ck_assert_int_eq(ksft_metric_report_comparison_row(c, i, &row), 0);
		if (strcmp(row.case_name, "iperf.forward"))
			continue;
		if (!strcmp(row.name, "throughput")) {
			snprintf(out->tput, sizeof(out->tput), "%s", row.verdict);
			out->tput_window = row.baseline_runs;
			out->p = row.p_value;
		} else if (!strcmp(row.name, "cpu.cost.test.best")) {
			snprintf(out->cost, sizeof(out->cost), "%s", row.verdict);
		}
	}
	ksft_metric_report_comparison_free(c);
}

/* The loop's step: judge (twice: the same verdict both times), then
 * ingest as run @id of runner @ctx. */
static void ci_step(struct ksft_metric_report_history *h, const struct run_shape *s,
		    const char *id, const char *ctx, struct judged *out)
{
	struct ksft_metric_report_ingest_opts o = KSFT_METRIC_REPORT_INGEST_OPTS_INIT;
	struct ksft_metric_report *r = make_ci_run(s);
	const char *cx[1] = { ctx };
	struct judged again;

	judge_once(h, r, ctx, out);
	judge_once(h, r, ctx, &again);
	ck_assert_int_eq(out->failing, again.failing);
	ck_assert_str_eq(out->tput, again.tput);
	ck_assert_str_eq(out->cost, again.cost);
	ck_assert_str_eq(out->text, again.text);
	o.run_id = id;
	o.order = id;
	o.context = cx;
	o.n_context = 1;
	ck_assert_msg(ksft_metric_report_history_ingest(h, r, &o, NULL) == 8, "%s",
		      ksft_metric_report_errmsg());
	ksft_metric_report_free(r);
}

static const char *const runners[2] = { "runner=r1", "runner=r2" };

/*
 * Issue 40 item 1-2, the done-when: after 8 unchanged runs per runner,
 * a lasting -35 % throughput drop on about 2.7 % run-to-run noise is a
 * regression on each runner by its 2nd regressed run, with no false
 * alarm on the unchanged runs; the first regressed run, whatever its
 * verdict, does not enter the window the second is judged against.
 */
START_TEST(test_two_runners_lasting_drop)
{
	struct ksft_metric_report_history *h = hist_open();
	struct run_shape base = MAIN_RUN, drop = base;
	size_t first[2] = { 0, 0 }, window_before[2] = { 0, 0 };
	struct judged j;
	char id[16];
	int i, k, t = 0;

	rng_state = (uint64_t)(400 + _i);
	drop.tput = base.tput * 0.65;
	for (i = 0; i < 8; i++)
		for (k = 0; k < 2; k++) {
			snprintf(id, sizeof(id), "t%03d", t++);
			ci_step(h, &base, id, runners[k], &j);
			ck_assert_msg(j.failing == 0, "unchanged run %s of %s: %d failing (%s)",
				      id, runners[k], j.failing, j.tput);
		}
	for (i = 1; i <= 4; i++)
		for (k = 0; k < 2; k++) {
			snprintf(id, sizeof(id), "t%03d", t++);
			ci_step(h, &drop, id, runners[k], &j);
			if (!first[k] && !strcmp(j.tput, "regression"))
				first[k] = (size_t)i;
			if (i == 1)
				window_before[k] = j.tput_window;
			/* The regressed runs stay out of the window: it holds
			 * the runner's unchanged runs at most (one of them may
			 * be held out a while, and come back). */
			ck_assert_msg(j.tput_window <= 8 && window_before[k] <= 8,
				      "%s regressed run %d: window %zu of 8 unchanged runs",
				      runners[k], i, j.tput_window);
			if (i <= 2)
				fprintf(stderr, "%s regressed run %d: %s (p %.3g, window %zu)\n",
					runners[k], i, j.tput, j.p, j.tput_window);
		}
	ck_assert_msg(first[0] >= 1 && first[0] <= 2, "r1 first flagged at %zu", first[0]);
	ck_assert_msg(first[1] >= 1 && first[1] <= 2, "r2 first flagged at %zu", first[1]);
	ksft_metric_report_history_close(h);
}
END_TEST

/* 20 unchanged runs of runner r1. */
static struct ksft_metric_report_history *steady_history(const struct run_shape *base)
{
	struct ksft_metric_report_history *h = hist_open();
	struct judged j;
	char id[16];
	int i;

	for (i = 0; i < 20; i++) {
		snprintf(id, sizeof(id), "s%03d", i);
		ci_step(h, base, id, runners[0], &j);
		ck_assert_int_eq(j.failing, 0);
	}
	return h;
}

/*
 * One run @run after runner r1's 20 unchanged runs of @base (the noise
 * drawn from @seed), judged twice (ci_step()), and what it must be: the
 * throughput's verdict (the cost's where @cost), failing or not, and a
 * phrase of its text.
 */
static const struct after_steady {
	const char *name;
	uint64_t seed;
	struct run_shape base, run;
	int cost;
	const char *verdict;
	int failing;
	const char *says;
} after_steady[] = {
	/*
	 * Issue 40 items 3 and 5: DISTURBED only on what the test cannot
	 * cause. A -35 % drop whose own involuntary switches rose fivefold
	 * (the change itself moves them) is a regression; the same drop with
	 * others' CPU time on its CPUs fifty times its history's is
	 * DISTURBED, its sentence naming the series with its labels in
	 * braces; and a fivefold cost, beyond anything interference did to a
	 * cost in our recordings, is a regression however disturbed the
	 * machine was.
	 */
	{ "own_switches_no_excuse", 440, MAIN_RUN,
	  { 24.0 * 0.65, 1.0, 0.02, 0.025, 50 * 5, 0.01, 0 }, 0, "regression", 1, NULL },
	{ "others_cpu_excuses", 440, MAIN_RUN,
	  { 24.0 * 0.65, 1.0, 0.02, 0.025, 50, 0.01 * 50, 0 }, 0, "disturbed", 0,
	  "interference.others_cpu{host=remote} was +" },
	{ "excuse_bounded", 440, MAIN_RUN,
	  { 24.0, 1.0 * 5, 0.02, 0.025, 50, 0.01 * 50, 0 }, 1, "regression", 1, NULL },
	/*
	 * Issue 40, the DISTURBED floor in CPUs. A busy neighbour's spell on
	 * a level already near the CPUs' count: others' CPU time 1.75 -> 1.90
	 * CPUs (+8.6 %, 0.15 CPU) with a -35 % drop is DISTURBED (the
	 * interference recordings' spells, +0.1-0.2 CPU on 1.7, fell under a
	 * floor of 10 % of the level and failed as regressions); and a rise
	 * of a few thousandths of a CPU on a quiet machine (0.010 -> 0.013,
	 * +30 %) excuses nothing.
	 */
	{ "excuse_in_cpus", 441, BUSY_RUN,
	  { 24.0 * 0.65, 1.0, 0.02, 0.025, 50, 1.90, 0.04 }, 0, "disturbed", 0, NULL },
	{ "tiny_rise_no_excuse", 442, { 24.0, 1.0, 0.02, 0.025, 50, 0.010, 0.01 },
	  { 24.0 * 0.65, 1.0, 0.02, 0.025, 50, 0.013, 0.01 }, 0, "regression", 1, NULL },
};

START_TEST(test_after_steady)
{
	const struct after_steady *t = &after_steady[_i];
	struct ksft_metric_report_history *h;
	struct judged j;

	rng_state = t->seed;
	h = steady_history(&t->base);
	ci_step(h, &t->run, "t001", runners[0], &j);
	ksft_metric_report_history_close(h);
	ck_assert_msg(!strcmp(t->cost ? j.cost : j.tput, t->verdict), "%s: %s, not %s\n%s",
		      t->name, t->cost ? j.cost : j.tput, t->verdict, j.text);
	ck_assert_msg(t->failing ? j.failing >= 1 : j.failing == 0, "%s: %d failing\n%s",
		      t->name, j.failing, j.text);
	if (t->says)
		ck_assert_msg(strstr(j.text, t->says), "%s: no \"%s\" in\n%s", t->name,
			      t->says, j.text);
}
END_TEST

/*
 * Issue 40 item 10: after accept the gate is not blind. A -35 % run is
 * flagged and accepted; the next run, back up by +54 % (the fix), is an
 * improvement at once, judged against the accepted level with the noise
 * the series showed before it (before: five runs of NO CHANGE while the
 * new level gathered its own window).
 */
START_TEST(test_accept_not_blind)
{
	struct run_shape base = MAIN_RUN, r = base;
	struct ksft_metric_report_history *h;
	struct judged j;

	rng_state = 441;
	h = steady_history(&base);
	r.tput = base.tput * 0.65;
	ci_step(h, &r, "t001", runners[0], &j);
	ck_assert_str_eq(j.tput, "regression");
	ck_assert_int_ge(ksft_metric_report_history_accept(h, "t001", NULL), 1);
	ci_step(h, &base, "t002", runners[0], &j);
	ck_assert_str_eq(j.tput, "improvement");
	ck_assert_int_eq(j.failing, 0);
	ksft_metric_report_history_close(h);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("history_gate_ci");
	TCase *tc = tcase_create("two_runners_lasting_drop");
	size_t i;

	/* Twenty seeds, each on a fresh history. */
	tcase_add_checked_fixture(tc, hist_fresh_db, hist_drop_db);
	tcase_add_loop_test(tc, test_two_runners_lasting_drop, 0, 20);
	suite_add_tcase(s, tc);
	/* Each single run its own case, on a fresh history. */
	for (i = 0; i < sizeof(after_steady) / sizeof(after_steady[0]); i++) {
		tc = tcase_create(after_steady[i].name);
		tcase_add_checked_fixture(tc, hist_fresh_db, hist_drop_db);
		tcase_add_loop_test(tc, test_after_steady, (int)i, (int)i + 1);
		suite_add_tcase(s, tc);
	}
	suite_add_tcase(s, hist_tcase("accept_not_blind", test_accept_not_blind));
	return s;
}
