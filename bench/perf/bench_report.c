// SPDX-License-Identifier: GPL-2.0
/*
 * Consumer benchmark: read a large metric-heavy KTAP log (256-CPU per-cpu
 * arrays for two hosts, thousands of samples, nested as run_kselftest.sh
 * prints it) with ksft_metric_report_read_file(), beside jansson's bare
 * json_loadb() of the same JSON payloads, measured in the same run.
 * Prints medians, MB/s, the ratio, and the heap the report keeps against
 * the bytes of its points and the file size. Never passes or fails.
 *
 * usage: bench-report [SAMPLES] [REPS]   (defaults 2500 and 7)
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ksftmetric/report.h>

#include "bench_util.h"

#define NCPU 256

static const char *const cpu_metrics[] = {
	"cpu.time.usr", "cpu.time.sys", "cpu.time.sirq", "cpu.utilization",
};

static double now(void)
{
	return bench_mono_ns() / 1e9;
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* The log, written like SystemMonitor's output (patch 3 of the seed). */
static size_t write_log(FILE *f, int samples, int chatter, int slow,
			size_t *points)
{
	static double counters[2][3][NCPU];
	long start = ftell(f);
	int s, h, m, c, k;

	memset(counters, 0, sizeof(counters));
	fputs("TAP version 13\n1..1\n# selftests: drivers/net/hw: iperf.py\n"
	      "# TAP version 13\n# 1..1\n", f);
	for (m = 0; m < 3; m++)
		fprintf(f, "# # ktap-metric-policy-json: {\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\",\"display_range\":{\"max\":100.0,\"min\":0.0},\"display_scale\":100.0,\"name\":\"%s\",\"summarize\":\"p90\",\"transform\":\"rate\"}\n",
			cpu_metrics[m]);
	fputs("# # ktap-metric-policy-json: {\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\",\"display_range\":{\"max\":100.0,\"min\":0.0},\"name\":\"cpu.utilization\",\"summarize\":\"p90\"}\n", f);
	*points = 0;
	for (s = 0; s < samples; s++) {
		for (h = 0; h < 2; h++) {
			for (m = 0; m < 4; m++) {
				/* An escaped string is not the fast path's business. */
				fprintf(f, "# # ktap-metric-json: {\"host\":\"%s\",\"name\":\"%s\",%s\"shape\":\"per-cpu\",\"time\":%.6f,\"value\":[",
					h ? "remote" : "local", cpu_metrics[m],
					slow ? "\"iface\":\"eth\\u0030\"," : "", 1.615669 + s + m * 0.000067);
				for (c = 0; c < NCPU; c++) {
					if (m < 3) {
						counters[h][m][c] += rnd(8) == 0 ? 0.01 * rnd(20) : 0;
						fprintf(f, c ? ",%.2f" : "%.2f", counters[h][m][c]);
					} else {
						unsigned u = rnd(4) ? 0 : rnd(1000000);

						fprintf(f, c ? ",%.4f" : "%.4f", u / 10000.0);
					}
				}
				fputs("]}\n", f);
				(*points)++;
			}
			fprintf(f, "# # ktap-metric-json: {\"host\":\"%s\",\"name\":\"nic.rx.dropped\",\"shape\":\"scalar\",\"time\":%.6f,\"value\":%d}\n",
				h ? "remote" : "local", 1.6159 + s, s / 7);
			(*points)++;
		}
		/* Test output that is not metrics: read, never kept. */
		for (k = 0; k < chatter; k++)
			fprintf(f, "# # iperf3 [  5] %d.00-%d.00 sec %.*s\n", s, s + 1, 960,
				"1.09 GBytes 9.41 Gbits/sec 0 1.62 MBytes ................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................");
	}
	fputs("# ok 1 iperf.test_iperf\nok 1 selftests: drivers/net/hw: iperf.py\n", f);
	fflush(f);
	return (size_t)(ftell(f) - start);
}

struct payload {
	const char *p;
	size_t n;
};

/* The JSON after every "ktap-metric-json: " tag, for the bare baseline. */
static struct payload *payloads(const char *buf, size_t len, size_t *count,
				size_t *bytes)
{
	static const char tag[] = "ktap-metric-json: ";
	struct payload *v = NULL;
	size_t cap = 0, n = 0;
	const char *p = buf, *end = buf + len;

	*bytes = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *t;

		nl = nl ? nl : end;
		t = memmem(p, (size_t)(nl - p), tag, sizeof(tag) - 1);
		if (t) {
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				v = realloc(v, cap * sizeof(*v));
				if (!v)
					exit(1);
			}
			v[n].p = t + sizeof(tag) - 1;
			v[n].n = (size_t)(nl - v[n].p);
			*bytes += v[n].n;
			n++;
		}
		p = nl + 1;
	}
	*count = n;
	return v;
}

int main(int argc, char **argv)
{
	int samples = argc > 1 ? atoi(argv[1]) : 2500;
	int reps = argc > 2 ? atoi(argv[2]) : 7, i;
	double *ours, *bare, *ours_buf, t;
	size_t len, points, count, pbytes, k, series = 0, kept_heap = 0;
	struct payload *pl;
	char *buf;
	FILE *f = tmpfile();

	if (!f || samples < 1 || reps < 1)
		return 1;
	len = write_log(f, samples, 0, 0, &points);
	buf = malloc(len);
	rewind(f);
	if (!buf || fread(buf, 1, len, f) != len)
		return 1;
	pl = payloads(buf, len, &count, &pbytes);
	ours = calloc((size_t)reps, sizeof(double));
	ours_buf = calloc((size_t)reps, sizeof(double));
	bare = calloc((size_t)reps, sizeof(double));
	if (!ours || !bare || !ours_buf)
		return 1;
	printf("log: %.1f MB, %zu metric lines (%zu per-cpu arrays of %d), JSON payloads %.1f MB\n",
	       len / 1e6, count, points - (size_t)samples * 2, NCPU, pbytes / 1e6);
	for (i = 0; i < reps; i++) {
		struct ksft_metric_report *r = ksft_metric_report_new(NULL);
		struct mallinfo2 before, after;
		int ret;

		/* Bare jansson: parse and free every payload. */
		t = now();
		for (k = 0; k < count; k++) {
			json_error_t err;
			json_t *j = json_loadb(pl[k].p, pl[k].n, 0, &err);

			if (!j)
				return 1;
			json_decref(j);
		}
		bare[i] = now() - t;

		/* Ours, from the stream (as the CLI reads files). */
		before = mallinfo2();
		rewind(f);
		t = now();
		ret = ksft_metric_report_read_file(r, f, "bench.log");
		ours[i] = now() - t;
		after = mallinfo2();
		if (ret != (int)points) {
			fprintf(stderr, "read %d points, want %zu: %s\n", ret, points,
				ksft_metric_report_errmsg());
			return 1;
		}
		series = ksft_metric_report_series_count(r);
		kept_heap = (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd);
		ksft_metric_report_free(r);

		/* Ours, from memory: the parse without stdio. */
		r = ksft_metric_report_new(NULL);
		t = now();
		ret = ksft_metric_report_read_buffer(r, buf, len, "bench.log");
		ours_buf[i] = now() - t;
		ksft_metric_report_free(r);
		if (ret != (int)points)
			return 1;
	}
	{
		double o = bench_median(ours, reps), ob = bench_median(ours_buf, reps), b = bench_median(bare, reps);
		/* What the points themselves take: a time and the values each. */
		double kept = ((double)points + (double)(points - (size_t)samples * 2) * NCPU +
			       (double)samples * 2) * sizeof(double);

		printf("medians of %d runs (2-core VM):\n", reps);
		printf("  ksft_metric_report_read_file    %8.1f ms  %7.1f MB/s of log\n",
		       o * 1e3, len / o / 1e6);
		printf("  ksft_metric_report_read_buffer  %8.1f ms  %7.1f MB/s of log\n",
		       ob * 1e3, len / ob / 1e6);
		printf("  jansson json_loadb (payloads)   %8.1f ms  %7.1f MB/s of payload, %.1f MB/s of log\n",
		       b * 1e3, pbytes / b / 1e6, len / b / 1e6);
		printf("  ratio read_file / bare parse     %5.2f   (goal <= 2)\n", o / b);
		printf("  ratio read_buffer / bare parse   %5.2f\n", ob / b);
		printf("memory: %zu series; heap kept after reading %.1f MB for %.1f MB of point data; log %.1f MB\n",
		       series, kept_heap / 1e6, kept / 1e6, len / 1e6);
	}
	{
		/* Lines the fast path leaves to jansson: the price of the fallback. */
		FILE *g = tmpfile();
		size_t glen, gpoints, gcount, gbytes;
		double *slow = calloc((size_t)reps, sizeof(double));
		double *gbare = calloc((size_t)reps, sizeof(double));
		struct payload *gpl;
		char *gbuf;

		if (!g || !slow || !gbare)
			return 1;
		glen = write_log(g, samples, 0, 1, &gpoints);
		gbuf = malloc(glen);
		rewind(g);
		if (!gbuf || fread(gbuf, 1, glen, g) != glen)
			return 1;
		gpl = payloads(gbuf, glen, &gcount, &gbytes);
		for (i = 0; i < reps; i++) {
			struct ksft_metric_report *r = ksft_metric_report_new(NULL);

			t = now();
			for (k = 0; k < gcount; k++) {
				json_error_t err;

				json_decref(json_loadb(gpl[k].p, gpl[k].n, 0, &err));
			}
			gbare[i] = now() - t;
			t = now();
			if (ksft_metric_report_read_buffer(r, gbuf, glen, "slow.log") != (int)gpoints)
				return 1;
			slow[i] = now() - t;
			ksft_metric_report_free(r);
		}
		printf("jansson path (an escaped label on every array line): read_buffer %.1f ms, %.1f MB/s; bare parse %.1f ms; ratio %.2f\n",
		       bench_median(slow, reps) * 1e3, glen / bench_median(slow, reps) / 1e6,
		       bench_median(gbare, reps) * 1e3, bench_median(slow, reps) / bench_median(gbare, reps));
		free(gpl);
		free(gbuf);
		free(slow);
		free(gbare);
		fclose(g);
	}
	{
		/* The same metrics in a log 3x larger with test output around them. */
		FILE *g = tmpfile();
		struct ksft_metric_report *r = ksft_metric_report_new(NULL);
		struct mallinfo2 before, after;
		size_t glen, gpoints;

		if (!g || !r)
			return 1;
		glen = write_log(g, samples, 60, 0, &gpoints);
		rewind(g);
		before = mallinfo2();
		if (ksft_metric_report_read_file(r, g, "chatter.log") != (int)gpoints)
			return 1;
		after = mallinfo2();
		printf("memory with test output around the metrics: log %.1f MB, heap kept %.1f MB\n",
		       glen / 1e6, ((after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd)) / 1e6);
		ksft_metric_report_free(r);
		fclose(g);
	}
	free(pl);
	free(buf);
	free(ours);
	free(ours_buf);
	free(bare);
	fclose(f);
	return 0;
}
