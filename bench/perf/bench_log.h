// SPDX-License-Identifier: GPL-2.0
/*
 * The synthetic KTAP run log of the history benchmarks (bench_history.c,
 * bench_ingest.c): cases of 4 series like the main job's, REPEATS points
 * each, built in memory.
 */
#ifndef KSFTM_BENCH_LOG_H
#define KSFTM_BENCH_LOG_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <ksftmetric/report.h>

#define REPEATS 3		/* points per series and run, as the main job */

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* Roughly normal noise (Irwin-Hall of 4), mean 0, sd @sd. */
static double noise(double sd)
{
	return (uniform() + uniform() + uniform() + uniform() - 2.0) * sd * 1.7320508;
}

struct buf {
	char *p;
	size_t len, cap;
};

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len)
			break;
		b->cap = b->cap ? 2 * b->cap + (size_t)n : 65536;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			exit(1);
	}
	b->len += (size_t)n;
}

/*
 * One run's log of @n_series series, nested as run_kselftest.sh prints a
 * selftest: cases of 4 series each (throughput gated higher-is-better at
 * 5 %, tcp.retransmits shown, cpu.utilization per host gated lower-is-better
 * at 10 %, throughput.interval shown), REPEATS points each.
 */
static void make_log(struct buf *b, size_t n_series, const char *prefix)
{
	static const char *const dirs[] = { "forward", "reverse" };
	size_t n_cases = (n_series + 3) / 4, c, i;
	int k;

	b->len = 0;
	put(b, "TAP version 13\n1..1\n# selftests: net/perf: iperf_selftest\n"
	       "# TAP version 13\n# 1..%zu\n", n_cases);
	put(b, "# # ktap-metric-policy-json: {\"name\":\"throughput\",\"regression\":"
	       "{\"better\":\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05},"
	       "\"summarize\":\"distribution\"}\n"
	       "# # ktap-metric-policy-json: {\"name\":\"tcp.retransmits\",\"summarize\":\"max\"}\n"
	       "# # ktap-metric-policy-json: {\"name\":\"cpu.utilization\",\"regression\":"
	       "{\"better\":\"lower\",\"compare\":\"p50\",\"relative_tolerance\":0.1},"
	       "\"summarize\":\"p90\"}\n"
	       "# # ktap-metric-policy-json: {\"name\":\"throughput.interval\","
	       "\"summarize\":\"distribution\"}\n");
	for (c = 0; c < n_cases; c++) {
		double level = 8.0 + (double)(c % 13);

		for (k = 0; k < REPEATS; k++) {
			double t = 1.615669 + 4.0 * k;

			for (i = 4 * c; i < 4 * c + 4 && i < n_series; i++) {
				switch (i % 4) {
				case 0:
					put(b, "# # ktap-metric-json: {\"name\":\"throughput\",\"shape\":\"scalar\","
					       "\"time\":%.6f,\"unit\":\"Gbps\",\"value\":%.4f}\n",
					    t, level * (1.0 + noise(0.03)));
					break;
				case 1:
					put(b, "# # ktap-metric-json: {\"name\":\"tcp.retransmits\",\"shape\":\"scalar\","
					       "\"time\":%.6f,\"value\":%d}\n", t, (int)(uniform() * 40));
					break;
				case 2:
					put(b, "# # ktap-metric-json: {\"host\":\"%s\",\"name\":\"cpu.utilization\","
					       "\"shape\":\"scalar\",\"time\":%.6f,\"value\":%.4f}\n",
					    c % 2 ? "remote" : "local", t, 0.6 + noise(0.02));
					break;
				default:
					put(b, "# # ktap-metric-json: {\"host\":\"local\",\"name\":\"throughput.interval\","
					       "\"shape\":\"scalar\",\"time\":%.6f,\"value\":%.4f}\n",
					    t + 1.0, level * (1.0 + noise(0.05)));
				}
			}
		}
		put(b, "# ok %zu %s.%s.%s%03zu\n", c + 1, prefix, dirs[c % 2],
		    c % 4 < 2 ? "tcp" : "udp", c);
	}
	put(b, "ok 1 selftests: net/perf: iperf_selftest\n");
}

static struct ksft_metric_report *read_log(const struct buf *b, size_t n_series)
{
	struct ksft_metric_report *r = ksft_metric_report_new(NULL);
	int ret = r ? ksft_metric_report_read_buffer(r, b->p, b->len, "run.log") : -1;

	if (ret != (int)(n_series * REPEATS) ||
	    ksft_metric_report_series_count(r) != n_series) {
		fprintf(stderr, "read %d points (%zu series), want %zu: %s\n", ret,
			r ? ksft_metric_report_series_count(r) : 0, n_series * REPEATS,
			ksft_metric_report_errmsg());
		exit(1);
	}
	return r;
}

/* The run context of every synthetic run (one machine). */
static const char *const ctx[] = {
	"hostname=bench-vm", "arch=x86_64", "cpu_count=2", "runner=bench", "kernel=6.12.9",
};

/* Ingest options of run @id at order @order (caller storage), that context. */
static inline void bench_run_opts(struct ksft_metric_report_ingest_opts *o, const char *id,
				  const char *order)
{
	struct ksft_metric_report_ingest_opts init = KSFT_METRIC_REPORT_INGEST_OPTS_INIT;

	*o = init;
	o->run_id = id;
	o->order = order;
	o->context = ctx;
	o->n_context = sizeof(ctx) / sizeof(ctx[0]);
}
#endif
