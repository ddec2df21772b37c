// SPDX-License-Identifier: GPL-2.0
/*
 * Producer benchmark: median cost of recording (1, 2 and 8 threads, scalars
 * and 256-entry per-cpu arrays), of emitting a line, and of shortest-repr
 * number formatting, each beside the baseline the issue names, measured in
 * the same run. Prints figures; never passes or fails on them.
 *
 *   bench-producer              every row
 *   bench-producer record       the scalar recording rows only
 *   bench-producer profile [N]  N scalar records in one case, then N
 *                               baseline appends, one pass each: for
 *                               valgrind --tool=callgrind (instructions per
 *                               call, independent of the machine's load);
 *                               prints their thread CPU time per record
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ksftmetric/ksftmetric.h>

#include "bench_util.h"
#include "float_repr.h"

#define REPS 15
#define NCPU 256
#define MAX_THREADS 8

static void row(const char *what, double ours, const char *base_what, double base)
{
	printf("%-34s %9.1f ns   %-34s %9.1f ns   ratio %5.2f\n",
	       what, ours, base_what, base, ours / base);
}

static void die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, ksft_metric_errmsg());
	exit(1);
}

/* ---- baseline store: an uncontended mutex and an append ---------------- */

struct base_rec {
	const char *name;
	double value;
	uint64_t t;
};

static pthread_mutex_t base_lock = PTHREAD_MUTEX_INITIALIZER;
static struct base_rec *base_recs;
static double *base_arrays;
static size_t base_n;

static void base_append(const char *name, double v, int with_clock)
{
	pthread_mutex_lock(&base_lock);
	if (with_clock)
		base_recs[base_n].t = (uint64_t)bench_mono_ns();
	else
		base_recs[base_n].t = base_n;
	base_recs[base_n].name = name;
	base_recs[base_n].value = v;
	base_n++;
	pthread_mutex_unlock(&base_lock);
}

static void base_append_array(const double *v)
{
	pthread_mutex_lock(&base_lock);
	memcpy(base_arrays + base_n * NCPU, v, NCPU * sizeof(*v));
	base_n++;
	pthread_mutex_unlock(&base_lock);
}

/* ---- recording --------------------------------------------------------- */

struct job {
	int n;
	int baseline;
	int array;
	pthread_barrier_t *start;
	double ns;	/* per record, this thread */
	double cpu_ns;	/* the same in the thread's CPU time */
};

static const struct ksft_metric_label host[] = { KSFT_METRIC_LABEL_STR("host", "local") };

static void *record_job(void *arg)
{
	struct job *j = arg;
	double cpu[NCPU], t0, c0;
	int i;

	for (i = 0; i < NCPU; i++)
		cpu[i] = i * 0.01;
	if (j->start)
		pthread_barrier_wait(j->start);
	t0 = bench_mono_ns();
	c0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < j->n; i++) {
		if (j->baseline && j->array)
			base_append_array(cpu);
		else if (j->baseline)
			base_append("throughput", i, j->baseline > 1);
		else if (j->array ? ksft_metric_array("cpu.utilization", "per-cpu", cpu, NULL,
						      NCPU, host, 1)
			 : ksft_metric_double("throughput", "scalar", i, host, 1))
			die("record");
	}
	j->ns = (bench_mono_ns() - t0) / j->n;
	j->cpu_ns = (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / j->n;
	return NULL;
}

/*
 * Median over REPS of the per-record cost with @threads recording at once;
 * the median thread CPU time per record into *@cpu_ns if not NULL.
 */
static double bench_record_cpu(int threads, int baseline, int array, int n, double *cpu_ns)
{
	double v[REPS], c[REPS];
	int r, t;

	for (r = 0; r < REPS; r++) {
		struct job jobs[MAX_THREADS];
		pthread_t tid[MAX_THREADS];
		pthread_barrier_t bar;
		double sum = 0, csum = 0;
		char *out;

		/* The baseline stores every record in fresh memory, as we do. */
		base_n = 0;
		if (baseline && array)
			base_arrays = malloc(sizeof(double) * NCPU * (size_t)n * threads);
		else if (baseline)
			base_recs = malloc(sizeof(*base_recs) * (size_t)n * threads);
		if (ksft_metric_case_begin())
			die("begin");
		pthread_barrier_init(&bar, NULL, (unsigned)threads);
		for (t = 0; t < threads; t++) {
			jobs[t] = (struct job){ n, baseline, array, threads > 1 ? &bar : NULL, 0, 0 };
			pthread_create(&tid[t], NULL, record_job, &jobs[t]);
		}
		for (t = 0; t < threads; t++) {
			pthread_join(tid[t], NULL);
			sum += jobs[t].ns;
			csum += jobs[t].cpu_ns;
		}
		pthread_barrier_destroy(&bar);
		v[r] = sum / threads;
		c[r] = csum / threads;
		if (ksft_metric_case_end_buffer(&out, NULL) < 0)
			die("end");
		ksft_metric_free(out);
		free(base_arrays);
		free(base_recs);
		base_arrays = NULL;
		base_recs = NULL;
	}
	if (cpu_ns)
		*cpu_ns = bench_median(c, REPS);
	return bench_median(v, REPS);
}

static double bench_record(int threads, int baseline, int array, int n)
{
	return bench_record_cpu(threads, baseline, array, n, NULL);
}

/* ---- emitting ---------------------------------------------------------- */

/* Per-line cost of ending a case with @n lines into /dev/null, and of
 * write()ing the same preformatted lines one write() each. */
static void bench_emit(int array, int n, double *ours, double *base)
{
	double v[REPS], b[REPS], cpu[NCPU];
	int fd = open("/dev/null", O_WRONLY), r, i;
	char *text;
	size_t len;

	for (i = 0; i < NCPU; i++)
		cpu[i] = (i % 7) * 12.3457 + i * 0.01;
	for (r = 0; r < REPS; r++) {
		double t0;
		char *p;

		for (int pass = 0; pass < 2; pass++) {
			if (ksft_metric_case_begin())
				die("begin");
			for (i = 0; i < n; i++)
				if (array ? ksft_metric_array("cpu.utilization", "per-cpu", cpu,
							      NULL, NCPU, host, 1)
				    : ksft_metric_double("throughput", "scalar",
							 32.62285180182741 + i, host, 1))
					die("record");
			if (pass == 0) {
				if (ksft_metric_case_end_buffer(&text, &len) < 0)
					die("end");
				continue;
			}
			ksft_metric_set_output_fd(fd);
			t0 = bench_mono_ns();
			if (ksft_metric_case_end() != n)
				die("end");
			v[r] = (bench_mono_ns() - t0) / n;
			ksft_metric_set_output_file(stdout);
		}
		t0 = bench_mono_ns();
		for (p = text; *p;) {
			char *nl = strchr(p, '\n');

			if (write(fd, p, (size_t)(nl - p) + 1) < 0)
				die("write");
			p = nl + 1;
		}
		b[r] = (bench_mono_ns() - t0) / n;
		ksft_metric_free(text);
	}
	close(fd);
	*ours = bench_median(v, REPS);
	*base = bench_median(b, REPS);
}

/* ---- number formatting ------------------------------------------------- */

static double bench_format(const double *vals, int n, int ours)
{
	char buf[64];
	double v[REPS];
	volatile size_t sink = 0;
	int r, i;

	for (r = 0; r < REPS; r++) {
		double t0 = bench_mono_ns();

		for (i = 0; i < n; i++)
			sink += ours ? float_repr(vals[i], buf)
				     : (size_t)snprintf(buf, sizeof(buf), "%.17g", vals[i]);
		v[r] = (bench_mono_ns() - t0) / n;
	}
	(void)sink;
	return bench_median(v, REPS);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double random_double(void)
{
	double d;

	do {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		memcpy(&d, &rng, sizeof(d));
	} while (d != d || d - d != 0);
	return d;
}

/*
 * The same call as the timed loop, for a profiler, then the thread's CPU
 * time per record beside the baseline's (a figure less sensitive to the
 * machine's load than the wall-clock medians, as waiting for a core is
 * not counted).
 */
static void profile_record(int n)
{
	double t0, ours, base;
	char *out;
	int i;

	if (ksft_metric_case_begin())
		die("begin");
	t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < n; i++)
		if (ksft_metric_double("throughput", "scalar", i, host, 1))
			die("record");
	ours = (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / n;
	if (ksft_metric_case_end_buffer(&out, NULL) < 0)
		die("end");
	ksft_metric_free(out);
	base_recs = malloc(sizeof(*base_recs) * (size_t)n);
	base_n = 0;
	t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < n; i++)
		base_append("throughput", i, 1);
	base = (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / n;
	free(base_recs);
	base_recs = NULL;
	row("record scalar, thread CPU time", ours, "mutex lock+clock_gettime+append", base);
}

/*
 * The scalar rows: 1, 2 and 8 threads, per record and thread; then the same
 * in thread CPU time, which leaves out waiting for a core (8 threads share
 * the machine's cores, and a loaded machine's other work shows up in the
 * wall-clock rows).
 */
static void bench_scalars(int n)
{
	double ours, base, base_clock, c1, cb, c2, c8, cb8;

	ours = bench_record_cpu(1, 0, 0, n, &c1);
	base = bench_record(1, 1, 0, n);
	base_clock = bench_record_cpu(1, 2, 0, n, &cb);
	row("record scalar, 1 thread", ours, "mutex lock+append", base);
	row("", ours, "mutex lock+clock_gettime+append", base_clock);
	ours = bench_record_cpu(2, 0, 0, n, &c2);
	row("record scalar, 2 threads", ours, "mutex lock+append (1 thread)", base);
	row("", ours, "mutex lock+append, 2 threads", bench_record(2, 1, 0, n));
	ours = bench_record_cpu(8, 0, 0, n / 4, &c8);
	row("record scalar, 8 threads", ours, "mutex lock+clock+append (1 thr)", base_clock);
	row("", ours, "mutex lock+clock+append, 8 thr",
	    bench_record_cpu(8, 2, 0, n / 4, &cb8));
	row("record scalar, 1 thread, CPU time", c1, "mutex lock+clock+append, CPU", cb);
	row("record scalar, 2 threads, CPU", c2, "mutex lock+clock+append, CPU", cb);
	row("record scalar, 8 threads, CPU", c8, "mutex lock+clock+append, CPU", cb);
	row("", c8, "mutex lock+clock+append, 8 thr", cb8);
}

int main(int argc, char **argv)
{
	enum { NREC = 200000, NARR = 20000, NLINE = 20000, NFMT = 200000 };
	double ours, base, *vals;
	int i;

	/* The per-cpu runs buffer 80 MB in one case: above the default cap. */
	if (ksft_metric_set_buffer_limit((size_t)1 << 34))
		die("buffer limit");
	if (argc > 1 && !strcmp(argv[1], "profile")) {
		profile_record(argc > 2 ? atoi(argv[2]) : NREC);
		return 0;
	}
	printf("libksftmetric producer benchmark: medians of %d runs\n\n", REPS);
	bench_scalars(NREC);
	if (argc > 1 && !strcmp(argv[1], "record"))
		return 0;
	vals = malloc(sizeof(double) * NFMT);
	ours = bench_record(1, 0, 1, NARR);
	base = bench_record(1, 1, 1, NARR);
	row("record 256-entry per-cpu", ours, "mutex lock+append 256 doubles", base);
	ours = bench_record(2, 0, 1, NARR);
	row("record 256-entry per-cpu, 2 thr", ours, "mutex lock+append 256 doubles", base);

	bench_emit(0, NLINE, &ours, &base);
	row("emit scalar line (to /dev/null)", ours, "write() each preformatted line", base);
	bench_emit(1, NLINE / 10, &ours, &base);
	row("emit 256-cpu line (to /dev/null)", ours, "write() each preformatted line", base);

	for (i = 0; i < NFMT; i++)
		vals[i] = (i % 10000) * 0.01;
	row("float_repr, 0.01 steps", bench_format(vals, NFMT, 1),
	    "snprintf %.17g", bench_format(vals, NFMT, 0));
	for (i = 0; i < NFMT; i++)
		vals[i] = random_double();
	row("float_repr, random doubles", bench_format(vals, NFMT, 1),
	    "snprintf %.17g", bench_format(vals, NFMT, 0));
	free(vals);
	return 0;
}
