/*
 * Threads: concurrent recording (stress), a background sampler next to the
 * main thread, threads that exit before case end, recording racing with
 * case end, and cross-thread recording order. Worker threads never call
 * ck_assert: they report back and the main thread asserts.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "producer_util.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void wait_until_ge(atomic_long *v, long n)
{
	while (atomic_load(v) < n)
		sched_yield();
}

/* ------------------------------------------------------------------ */
/* Stress: 8 threads x 50,000 records, read back through a pipe.      */

enum { ST_THREADS = 8, ST_RECORDS = 50000 };

struct stress_worker {
	pthread_t th;
	int idx;
	pthread_barrier_t *start;
	long failures;
	int first_error;
};

static void *stress_worker(void *arg)
{
	struct stress_worker *w = arg;
	struct ksft_metric_label l[2] = {
		KSFT_METRIC_LABEL_INT("thread", w->idx), KSFT_METRIC_LABEL_INT("seq", 0),
	};
	int j;

	pthread_barrier_wait(w->start);
	for (j = 0; j < ST_RECORDS; j++) {
		int r;

		l[1].value.u.i = j;
		r = ksft_metric_int("stress", "scalar", (int64_t)w->idx * 1000000 + j, l, 2);
		if (r) {
			if (!w->failures++)
				w->first_error = r;
		}
	}
	return NULL;
}

/* Parses the output as it arrives on the pipe. */
struct stress_reader {
	pthread_t th;
	int fd;
	unsigned char *seen;		/* [thread][seq] counts */
	int last_seq[ST_THREADS];
	double last_time;
	long lines, errors;
	char first_error[512];
};

static void reader_error(struct stress_reader *r, const char *what, const char *line, size_t len)
{
	if (!r->errors++)
		snprintf(r->first_error, sizeof(r->first_error), "line %ld: %s: %.*s",
			 r->lines, what, (int)(len < 300 ? len : 300), line);
}

static void stress_line(struct stress_reader *r, const char *line, size_t len)
{
	static const char start[] = "# " PU_OBS "{";
	int thread = -1, seq = -1, n = -1;
	long long value = -1;
	double t = -1;
	const char *p;

	r->lines++;
	/* Minimal shape: prefix + tag + '{' ... '}'. */
	if (len < sizeof(start) || memcmp(line, start, sizeof(start) - 1) || line[len - 1] != '}') {
		reader_error(r, "not a whole metric line", line, len);
		return;
	}
	p = strstr(line, "\"thread\":");
	if (!p || sscanf(p, "\"thread\":%d", &thread) != 1)
		thread = -1;
	p = strstr(line, "\"seq\":");
	if (!p || sscanf(p, "\"seq\":%d", &seq) != 1)
		seq = -1;
	if (thread < 0 || thread >= ST_THREADS || seq < 0 || seq >= ST_RECORDS) {
		reader_error(r, "bad thread/seq", line, len);
		return;
	}
	/* The whole line, exactly: nothing torn or mixed between threads. */
	if (sscanf(line, "# " PU_OBS "{\"name\":\"stress\",\"seq\":%*d,\"shape\":\"scalar\","
		   "\"thread\":%*d,\"time\":%lf,\"value\":%lld}%n", &t, &value, &n) != 2 ||
	    n != (int)len || value != (long long)thread * 1000000 + seq) {
		reader_error(r, "line is not exactly the record", line, len);
		return;
	}
	if (r->seen[thread * ST_RECORDS + seq]++)
		reader_error(r, "duplicate", line, len);
	if (seq <= r->last_seq[thread])
		reader_error(r, "seq not increasing within its thread", line, len);
	r->last_seq[thread] = seq;
	if (t < r->last_time)
		reader_error(r, "time went backwards", line, len);
	r->last_time = t;
}

static void *stress_reader(void *arg)
{
	struct stress_reader *r = arg;
	size_t cap = 1 << 16, have = 0;
	char *buf = malloc(cap);

	if (!buf) {
		r->errors++;
		return NULL;
	}
	for (;;) {
		ssize_t n = read(r->fd, buf + have, cap - have);
		size_t start = 0;
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		while ((nl = memchr(buf + start, '\n', have - start))) {
			*nl = '\0';	/* the line is a C string from here on */
			stress_line(r, buf + start, (size_t)(nl - (buf + start)));
			start = (size_t)(nl - buf) + 1;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (have == cap)
			reader_error(r, "line longer than 64 KiB", buf, have);
		if (have == cap)
			have = 0;
	}
	if (have)
		reader_error(r, "output does not end with a newline", buf, have);
	free(buf);
	return NULL;
}

START_TEST(test_stress)
{
	struct stress_worker w[ST_THREADS];
	struct stress_reader r;
	pthread_barrier_t start;
	int p[2], i, ret;
	long missing = 0;

	memset(&r, 0, sizeof(r));
	r.seen = calloc((size_t)ST_THREADS * ST_RECORDS, 1);
	ck_assert_ptr_nonnull(r.seen);
	for (i = 0; i < ST_THREADS; i++)
		r.last_seq[i] = -1;
	ck_assert_int_eq(pthread_barrier_init(&start, NULL, ST_THREADS), 0);

	pu_begin();
	for (i = 0; i < ST_THREADS; i++) {
		w[i].idx = i;
		w[i].start = &start;
		w[i].failures = 0;
		w[i].first_error = 0;
		ck_assert_int_eq(pthread_create(&w[i].th, NULL, stress_worker, &w[i]), 0);
	}
	for (i = 0; i < ST_THREADS; i++)
		ck_assert_int_eq(pthread_join(w[i].th, NULL), 0);
	for (i = 0; i < ST_THREADS; i++)
		ck_assert_msg(w[i].failures == 0, "thread %d: %ld records failed, first with %d",
			      i, w[i].failures, w[i].first_error);

	ck_assert_int_eq(pipe(p), 0);
	r.fd = p[0];
	ck_assert_int_eq(pthread_create(&r.th, NULL, stress_reader, &r), 0);
	pu_assert_ok(ksft_metric_set_output_fd(p[1]));
	ret = ksft_metric_case_end();
	close(p[1]);
	ck_assert_int_eq(pthread_join(r.th, NULL), 0);
	close(p[0]);
	ck_assert_int_eq(ret, ST_THREADS * ST_RECORDS);
	ck_assert_msg(r.errors == 0, "%ld bad lines; first: %s", r.errors, r.first_error);
	ck_assert_int_eq(r.lines, ST_THREADS * ST_RECORDS);
	for (i = 0; i < ST_THREADS * ST_RECORDS; i++)
		missing += r.seen[i] != 1;
	ck_assert_msg(missing == 0, "%ld (thread, seq) pairs not seen exactly once", missing);
	for (i = 0; i < ST_THREADS; i++)
		ck_assert_int_eq(r.last_seq[i], ST_RECORDS - 1);
	pthread_barrier_destroy(&start);
	free(r.seen);
}
END_TEST

/* ------------------------------------------------------------------ */
/* A background sampler recording arrays next to the main thread.     */

enum { SAMPLER_MAX = 20000 };

struct sampler {
	pthread_t th;
	atomic_int stop;
	atomic_long count;
	int failures, first_error;
};

static void *sampler_main(void *arg)
{
	struct sampler *s = arg;
	static const unsigned char present[4] = { 1, 1, 0, 1 };
	struct ksft_metric_label l[2] = {
		KSFT_METRIC_LABEL_STR("host", "local"), KSFT_METRIC_LABEL_INT("seq", 0),
	};
	long k;
	int r = ksft_metric_array("sampler.only", "per-cpu", NULL, NULL, 0, NULL, 0);

	if (r) {
		s->failures++;
		s->first_error = r;
	}
	for (k = 0; k < SAMPLER_MAX && !atomic_load(&s->stop); k++) {
		double v[4] = { (double)k, k + 0.5, -1, k * 2.0 };

		l[1].value.u.i = k;
		r = ksft_metric_array("cpu", "per-cpu", v, present, 4, l, 2);
		if (r && !s->failures++)
			s->first_error = r;
		atomic_store(&s->count, k + 1);
	}
	return NULL;
}

static struct ksft_metric_policy cpu_policy(void)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.summarize = "p90";
	p.aggregation = "busy-core-equivalents";
	return p;
}

START_TEST(test_sampler_and_main)
{
	enum { MAIN_N = 200 };
	struct ksft_metric_policy p = cpu_policy(), other = cpu_policy();
	struct sampler s;
	char *text, *line, name[32];
	long k, n_samples, next_sample = 0;
	int i, n, next_main = 0;

	memset(&s, 0, sizeof(s));
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("cpu", &p));
	ck_assert_int_eq(pthread_create(&s.th, NULL, sampler_main, &s), 0);
	wait_until_ge(&s.count, 1);
	/* The sampler observed these: equal is fine, different conflicts, new is late. */
	pu_assert_ok(ksft_metric_aggregate("cpu", &p));
	other.summarize = "max";
	pu_assert_err(ksft_metric_aggregate("cpu", &other), EEXIST,
		      "Conflicting aggregation for metric cpu");
	pu_assert_err(ksft_metric_aggregate("sampler.only", NULL), EALREADY,
		      "Aggregation registered after metric sampler.only was recorded");
	for (i = 0; i < MAIN_N; i++) {
		snprintf(name, sizeof(name), "main.%d", i);
		pu_assert_ok(ksft_metric_aggregate(name, i % 2 ? &other : NULL));
		pu_assert_ok(ksft_metric_int(name, "scalar", i, NULL, 0));
	}
	atomic_store(&s.stop, 1);
	ck_assert_int_eq(pthread_join(s.th, NULL), 0);
	ck_assert_msg(s.failures == 0, "sampler: %d failures, first %d", s.failures, s.first_error);
	n_samples = atomic_load(&s.count);

	text = pu_end_text(&n);
	ck_assert_int_eq(n, 1 + MAIN_N + 1 + (int)n_samples + MAIN_N);
	line = text;
	/* Policies first, in registration order: cpu, then main.0 ... */
	{
		char want[256];

		for (i = -1; i < MAIN_N; i++) {
			char *nl = strchr(line, '\n');

			if (i < 0)
				snprintf(want, sizeof(want), "# " PU_POL "{\"aggregation\":\"busy-core-equivalents\","
					 "\"name\":\"cpu\",\"summarize\":\"p90\"}");
			else if (i % 2)
				snprintf(want, sizeof(want), "# " PU_POL "{\"aggregation\":\"busy-core-equivalents\","
					 "\"name\":\"main.%d\",\"summarize\":\"max\"}", i);
			else
				snprintf(want, sizeof(want), "# " PU_POL "{\"name\":\"main.%d\",\"summarize\":\"total\"}", i);
			*nl = '\0';
			ck_assert_str_eq(line, want);
			line = nl + 1;
		}
	}
	/* ... then both threads' observations, each thread's in its own order. */
	{
		double last_t = -1;
		int saw_only = 0;

		for (; *line; ) {
			char *nl = strchr(line, '\n'), *masked, want[256];
			double t;

			*nl = '\0';
			ck_assert(pu_time_of(line, &t, NULL, 0));
			ck_assert_msg(t >= last_t, "time went back: %s", line);
			last_t = t;
			masked = pu_mask_time(line);
			if (strstr(line, "\"name\":\"sampler.only\"")) {
				ck_assert_int_eq(saw_only++, 0);
				ck_assert_int_eq(next_sample, 0);
				ck_assert_str_eq(masked, "# " PU_OBS "{\"name\":\"sampler.only\","
						 "\"shape\":\"per-cpu\",\"time\":T,\"value\":[]}");
			} else if (strstr(line, "\"name\":\"cpu\"")) {
				k = next_sample++;
				snprintf(want, sizeof(want), "# " PU_OBS "{\"host\":\"local\",\"name\":\"cpu\","
					 "\"seq\":%ld,\"shape\":\"per-cpu\",\"time\":T,"
					 "\"value\":[%ld.0,%ld.5,null,%ld.0]}", k, k, k, 2 * k);
				ck_assert_str_eq(masked, want);
			} else {
				snprintf(want, sizeof(want), "# " PU_OBS "{\"name\":\"main.%d\","
					 "\"shape\":\"scalar\",\"time\":T,\"value\":%d}", next_main, next_main);
				next_main++;
				ck_assert_str_eq(masked, want);
			}
			free(masked);
			line = nl + 1;
		}
		ck_assert_int_eq(saw_only, 1);
	}
	ck_assert_int_eq(next_sample, n_samples);
	ck_assert_int_eq(next_main, MAIN_N);
	free(text);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Threads that exit before the case ends.                            */

struct short_lived {
	pthread_t th;
	int idx, n, ret;
	int register_policy;
};

static void *short_lived_main(void *arg)
{
	struct short_lived *s = arg;
	char name[32];
	int j;

	snprintf(name, sizeof(name), "t%d", s->idx);
	if (s->register_policy && (s->ret = ksft_metric_aggregate(name, NULL)))
		return NULL;
	for (j = 0; j < s->n; j++) {
		struct ksft_metric_label l = KSFT_METRIC_LABEL_INT("seq", j);

		s->ret = ksft_metric_int(name, "scalar", j, &l, 1);
		if (s->ret)
			return NULL;
	}
	return NULL;
}

/* Run @n threads that record @per records each and exit; join them all. */
static void run_short_lived(int first, int n, int per, int policies)
{
	struct short_lived s[8];
	int i;

	ck_assert_int_le(n, 8);
	for (i = 0; i < n; i++) {
		s[i].idx = first + i;
		s[i].n = per;
		s[i].ret = 0;
		s[i].register_policy = policies;
		ck_assert_int_eq(pthread_create(&s[i].th, NULL, short_lived_main, &s[i]), 0);
	}
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(pthread_join(s[i].th, NULL), 0);
		ck_assert_msg(s[i].ret == 0, "thread %d failed with %d", s[i].idx, s[i].ret);
	}
}

/* Each of threads @first.. has exactly records 0..@per-1, in order. */
static void check_short_lived(const char *text, int first, int n, int per, int policies)
{
	int next[8] = { 0 }, i, pol = 0;
	const char *line;

	for (line = text; *line; line = strchr(line, '\n') + 1) {
		int t = -1, seq = -1, len = -1;
		char want[160];

		if (!strncmp(line, "# " PU_POL, strlen("# " PU_POL))) {
			ck_assert_int_eq(sscanf(line, "# " PU_POL "{\"name\":\"t%d\",\"summarize\":\"total\"}%n",
						&t, &len), 1);
			ck_assert_int_eq(line[len], '\n');
			pol++;
			continue;
		}
		ck_assert_int_eq(sscanf(line, "# " PU_OBS "{\"name\":\"t%d\",\"seq\":%d,", &t, &seq), 2);
		ck_assert_msg(t >= first && t < first + n, "record of thread %d: %.80s", t, line);
		ck_assert_int_eq(seq, next[t - first]);
		next[t - first]++;
		snprintf(want, sizeof(want), "\"value\":%d}\n", seq);
		ck_assert_int_eq(strncmp(strchr(line, '\n') + 1 - strlen(want), want, strlen(want)), 0);
	}
	for (i = 0; i < n; i++)
		ck_assert_int_eq(next[i], per);
	ck_assert_int_eq(pol, policies ? n : 0);
}

START_TEST(test_exited_threads)
{
	char *text;
	int n;

	pu_begin();
	run_short_lived(0, 4, 100, 1);
	text = pu_end_text(&n);
	ck_assert_int_eq(n, 4 + 400);
	check_short_lived(text, 0, 4, 100, 1);
	free(text);

	/* The next case holds only its own threads' records. */
	pu_begin();
	run_short_lived(4, 3, 10, 0);
	text = pu_end_text(&n);
	ck_assert_int_eq(n, 30);
	check_short_lived(text, 4, 3, 10, 0);
	free(text);

	/* Many generations of exited threads; each case sees its own. */
	for (n = 0; n < 5; n++) {
		int lines;

		pu_begin();
		run_short_lived(0, 8, 5, 0);
		text = pu_end_text(&lines);
		ck_assert_int_eq(lines, 40);
		check_short_lived(text, 0, 8, 5, 0);
		free(text);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* Recording while the main thread ends the case.                     */

/*
 * RACE_SLACK: until armed, the racer waits (without using an iteration)
 * once it is that far past what the main thread last waited for: a main
 * thread starved on a loaded machine would otherwise find all RACE_MAX
 * iterations used up, the sooner the faster recording is.
 */
enum { RACE_MAX = 4000000, RACE_EPERMS = 100, RACE_SLACK = 1000000 };

struct racer {
	pthread_t th;
	signed char *result;	/* per seq: 0 ok, 1 EPERM, 2 other error, -1 not tried */
	atomic_long count;
	atomic_long eperms;	/* all -EPERM returns */
	atomic_int armed;	/* count -EPERMs towards stopping from now on */
	atomic_long armed_eperms;
	atomic_long target;	/* the count the main thread waits for */
	atomic_int stop;
	long other;
};

static void *racer_main(void *arg)
{
	struct racer *r = arg;
	long j;

	for (j = 0; j < RACE_MAX && !atomic_load(&r->stop); j++) {
		struct ksft_metric_label l = KSFT_METRIC_LABEL_INT("seq", j);
		int ret;

		while (!atomic_load(&r->armed) && j >= atomic_load(&r->target) + RACE_SLACK)
			sched_yield();
		ret = ksft_metric_int("race", "scalar", 0, &l, 1);

		if (ret == 0) {
			r->result[j] = 0;
		} else if (ret == -EPERM) {
			r->result[j] = 1;
			atomic_fetch_add(&r->eperms, 1);
			/* Refusals are fast: yield, or a starved main thread would
			 * find all RACE_MAX iterations used up. */
			sched_yield();
			if (atomic_load(&r->armed) &&
			    atomic_fetch_add(&r->armed_eperms, 1) + 1 >= RACE_EPERMS)
				atomic_store(&r->stop, 1);
		} else {
			r->result[j] = 2;
			r->other++;
		}
		atomic_store(&r->count, j + 1);
	}
	return NULL;
}

/* Wait for the racer to make @n records; fail (not hang) if it ran out. */
static void racer_wait(struct racer *r, long n)
{
	long c;

	atomic_store(&r->target, n);
	while ((c = atomic_load(&r->count)) < n && c < RACE_MAX)
		sched_yield();
	ck_assert_msg(c >= n, "racer used all %d iterations before reaching %ld", RACE_MAX, n);
}

/* Count each output seq into @hits; return the highest seq seen (-1 if none). */
static long count_race_lines(const char *text, unsigned char *hits, long *lines)
{
	const char *line;
	long max = -1;

	for (line = text; *line; line = strchr(line, '\n') + 1) {
		long seq = -1;

		ck_assert_int_eq(sscanf(line, "# " PU_OBS "{\"name\":\"race\",\"seq\":%ld,", &seq), 1);
		ck_assert_msg(seq >= 0 && seq < RACE_MAX, "seq %ld", seq);
		ck_assert_msg(seq > max, "seq %ld after %ld", seq, max);
		max = seq;
		hits[seq]++;
		(*lines)++;
	}
	return max;
}

/* @armed: stop after RACE_EPERMS refusals from the start, else once armed. */
static void racer_start(struct racer *r, int armed)
{
	memset(r, 0, sizeof(*r));
	atomic_store(&r->armed, armed);
	/* A starved main thread must not turn into a full buffer. */
	ck_assert_int_eq(ksft_metric_set_buffer_limit((size_t)1 << 40), 0);
	r->result = malloc(RACE_MAX);
	ck_assert_ptr_nonnull(r->result);
	memset(r->result, -1, RACE_MAX);
	ck_assert_int_eq(pthread_create(&r->th, NULL, racer_main, r), 0);
}

/* Every 0 return appears exactly once in the output, every -EPERM never. */
static void racer_check(struct racer *r, const unsigned char *hits, long lines)
{
	long j, n = atomic_load(&r->count), ok = 0;

	ck_assert_int_eq(r->other, 0);
	for (j = 0; j < n; j++) {
		if (r->result[j] == 0) {
			ok++;
			ck_assert_msg(hits[j] == 1, "seq %ld returned 0 but is in the output %d times",
				      j, hits[j]);
		} else {
			ck_assert_msg(r->result[j] == 1, "seq %ld: result %d", j, r->result[j]);
			ck_assert_msg(hits[j] == 0, "seq %ld returned -EPERM but is in the output", j);
		}
	}
	ck_assert_int_eq(ok, lines);
}

START_TEST(test_record_during_end)
{
	unsigned char *hits = calloc(RACE_MAX, 1);
	struct racer r;
	long lines = 0, j, n;
	char *text;

	ck_assert_ptr_nonnull(hits);
	pu_begin();
	racer_start(&r, 1);
	racer_wait(&r, 1000);
	text = pu_end_text(NULL);
	ck_assert_int_eq(pthread_join(r.th, NULL), 0);
	ck_assert_int_eq(atomic_load(&r.eperms), RACE_EPERMS);
	count_race_lines(text, hits, &lines);
	ck_assert_int_ge(lines, 1000);
	racer_check(&r, hits, lines);
	/* Once refused, refused for good (no case was opened again). */
	n = atomic_load(&r.count);
	for (j = 0; j < n && r.result[j] == 0; j++)
		;
	for (; j < n; j++)
		ck_assert_int_eq(r.result[j], 1);
	free(text);
	free(r.result);
	free(hits);
}
END_TEST

START_TEST(test_record_during_end_and_begin)
{
	unsigned char *hits = calloc(RACE_MAX, 1);
	struct racer r;
	long lines = 0, max1, c;
	char *text1, *text2;
	const char *first2;

	ck_assert_ptr_nonnull(hits);
	pu_begin();
	racer_start(&r, 0);
	racer_wait(&r, 1000);
	/* End and immediately begin again while the thread keeps recording. */
	text1 = pu_end_text(NULL);
	pu_begin();
	c = atomic_load(&r.count);
	racer_wait(&r, c + 1000);
	text2 = pu_end_text(NULL);
	atomic_store(&r.armed, 1);
	ck_assert_int_eq(pthread_join(r.th, NULL), 0);
	ck_assert_int_eq(atomic_load(&r.armed_eperms), RACE_EPERMS);

	max1 = count_race_lines(text1, hits, &lines);
	first2 = text2;
	ck_assert_int_ge(lines, 1000);
	count_race_lines(text2, hits, &lines);
	/* Case 2 only has records made after everything in case 1. */
	if (*first2) {
		long seq2 = -1;

		ck_assert_int_eq(sscanf(first2, "# " PU_OBS "{\"name\":\"race\",\"seq\":%ld,", &seq2), 1);
		ck_assert_int_gt(seq2, max1);
	}
	racer_check(&r, hits, lines);
	free(text1);
	free(text2);
	free(r.result);
	free(hits);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Cross-thread order: records handed off with happens-before stay in order. */

enum { PP_ROUNDS = 1000 };

struct pingpong {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int turn;		/* whose turn: 0 or 1 */
	int next;		/* next sequence number */
};

struct pp_arg {
	struct pingpong *pp;
	int me;
	int failures;
};

static void *pingpong_main(void *arg)
{
	struct pp_arg *a = arg;
	struct pingpong *pp = a->pp;
	int i;

	for (i = 0; i < PP_ROUNDS; i++) {
		struct ksft_metric_label l[2] = {
			KSFT_METRIC_LABEL_INT("seq", 0), KSFT_METRIC_LABEL_INT("thread", a->me),
		};

		pthread_mutex_lock(&pp->lock);
		while (pp->turn != a->me)
			pthread_cond_wait(&pp->cond, &pp->lock);
		l[0].value.u.i = pp->next++;
		pthread_mutex_unlock(&pp->lock);
		/* Recorded outside the lock, before handing over the turn. */
		if (ksft_metric_int("pp", "scalar", 0, l, 2))
			a->failures++;
		pthread_mutex_lock(&pp->lock);
		pp->turn = !a->me;
		pthread_cond_broadcast(&pp->cond);
		pthread_mutex_unlock(&pp->lock);
	}
	return NULL;
}

START_TEST(test_cross_thread_order)
{
	struct pingpong pp = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
	struct pp_arg a[2] = { { &pp, 0, 0 }, { &pp, 1, 0 } };
	pthread_t th[2];
	const char *line;
	char *text;
	int i, n;

	pu_begin();
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, pingpong_main, &a[i]), 0);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	ck_assert_int_eq(a[0].failures, 0);
	ck_assert_int_eq(a[1].failures, 0);
	text = pu_end_text(&n);
	ck_assert_int_eq(n, 2 * PP_ROUNDS);
	for (i = 0, line = text; *line; line = strchr(line, '\n') + 1, i++) {
		int seq = -1, t = -1;

		ck_assert_int_eq(sscanf(line, "# " PU_OBS "{\"name\":\"pp\",\"seq\":%d,"
					"\"shape\":\"scalar\",\"thread\":%d,", &seq, &t), 2);
		ck_assert_msg(seq == i, "line %d has seq %d", i, seq);
		ck_assert_int_eq(t, i % 2);
	}
	free(text);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Policies registered concurrently from many threads.                */

struct reg_arg {
	pthread_t th;
	int idx;
	pthread_barrier_t *start;
	int ret_shared, ret_own, ret_obs, ret_conflict;
};

static void *register_main(void *arg)
{
	struct reg_arg *a = arg;
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	char own[32];
	int i;

	snprintf(own, sizeof(own), "own.%d", a->idx);
	p.summarize = "p99";
	p.display_min.type = KSFT_METRIC_INT;
	p.display_min.u.i = 0;
	pthread_barrier_wait(a->start);
	for (i = 0; i < 200; i++) {
		/* Everyone registers the same policy for "shared". */
		if ((a->ret_shared = ksft_metric_aggregate("shared", &p)))
			break;
		if ((a->ret_own = ksft_metric_aggregate(own, NULL)))
			break;
	}
	a->ret_obs = ksft_metric_int(own, "scalar", a->idx, NULL, 0);
	if (!a->ret_obs)
		a->ret_obs = ksft_metric_int("shared", "scalar", a->idx, NULL, 0);
	p.summarize = "max";
	a->ret_conflict = ksft_metric_aggregate("shared", &p);
	return NULL;
}

START_TEST(test_concurrent_policies)
{
	enum { N = 8 };
	struct reg_arg a[N];
	pthread_barrier_t start;
	const char *line;
	char *text;
	int i, n, pol = 0, obs = 0, seen_shared_pol = 0;

	ck_assert_int_eq(pthread_barrier_init(&start, NULL, N), 0);
	pu_begin();
	for (i = 0; i < N; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].idx = i;
		a[i].start = &start;
		ck_assert_int_eq(pthread_create(&a[i].th, NULL, register_main, &a[i]), 0);
	}
	for (i = 0; i < N; i++) {
		ck_assert_int_eq(pthread_join(a[i].th, NULL), 0);
		ck_assert_int_eq(a[i].ret_shared, 0);
		ck_assert_int_eq(a[i].ret_own, 0);
		ck_assert_int_eq(a[i].ret_obs, 0);
		ck_assert_int_eq(a[i].ret_conflict, -EEXIST);
	}
	text = pu_end_text(&n);
	ck_assert_int_eq(n, (N + 1) + 2 * N);
	for (line = text; *line; line = strchr(line, '\n') + 1) {
		if (!strncmp(line, "# " PU_POL, strlen("# " PU_POL))) {
			ck_assert_int_eq(obs, 0);	/* all policies first */
			pol++;
			if (!strncmp(line, "# " PU_POL "{\"display_range\":{\"min\":0},\"name\":\"shared\","
				     "\"summarize\":\"p99\"}\n",
				     strlen("# " PU_POL "{\"display_range\":{\"min\":0},\"name\":\"shared\","
					    "\"summarize\":\"p99\"}\n")))
				seen_shared_pol++;
		} else {
			obs++;
		}
	}
	ck_assert_int_eq(pol, N + 1);
	ck_assert_int_eq(seen_shared_pol, 1);
	ck_assert_int_eq(obs, 2 * N);
	free(text);
	pthread_barrier_destroy(&start);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Two threads ending (or beginning) the same case at once.           */

struct ender {
	pthread_t th;
	pthread_barrier_t *start;
	int begin;		/* call begin instead of end */
	int ret;
	char *out;
};

static void *ender_main(void *arg)
{
	struct ender *e = arg;

	pthread_barrier_wait(e->start);
	if (e->begin)
		e->ret = ksft_metric_case_begin();
	else
		e->ret = ksft_metric_case_end_buffer(&e->out, NULL);
	return NULL;
}

static void race_two(struct ender e[2], int begin)
{
	pthread_barrier_t start;
	int i;

	ck_assert_int_eq(pthread_barrier_init(&start, NULL, 2), 0);
	for (i = 0; i < 2; i++) {
		e[i].start = &start;
		e[i].begin = begin;
		e[i].ret = 12345;
		e[i].out = NULL;
		ck_assert_int_eq(pthread_create(&e[i].th, NULL, ender_main, &e[i]), 0);
	}
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(e[i].th, NULL), 0);
	pthread_barrier_destroy(&start);
}

START_TEST(test_concurrent_begin_end)
{
	struct ender e[2];
	int round;

	for (round = 0; round < 50; round++) {
		int winner;

		/* Exactly one begin wins. */
		race_two(e, 1);
		ck_assert_msg((e[0].ret == 0 && e[1].ret == -EBUSY) ||
			      (e[1].ret == 0 && e[0].ret == -EBUSY),
			      "begin returned %d and %d", e[0].ret, e[1].ret);
		ck_assert_int_eq(ksft_metric_case_is_open(), 1);
		pu_assert_ok(ksft_metric_int("m", "scalar", round, NULL, 0));
		pu_assert_ok(ksft_metric_int("m", "scalar", round, NULL, 0));
		/* Exactly one end gets the two lines, the other finds no case. */
		race_two(e, 0);
		winner = e[0].ret == 2 ? 0 : 1;
		ck_assert_msg(e[winner].ret == 2 && e[!winner].ret == -EPERM,
			      "end returned %d and %d", e[0].ret, e[1].ret);
		ck_assert_ptr_null(e[!winner].out);
		ck_assert_ptr_nonnull(e[winner].out);
		ck_assert_uint_eq(pu_count_lines(e[winner].out), 2);
		ksft_metric_free(e[winner].out);
	}
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("threads");

	suite_add_tcase(s, pu_tcase("stress", test_stress));
	suite_add_tcase(s, pu_tcase("sampler_and_main", test_sampler_and_main));
	suite_add_tcase(s, pu_tcase("exited_threads", test_exited_threads));
	suite_add_tcase(s, pu_tcase("record_during_end", test_record_during_end));
	suite_add_tcase(s, pu_tcase("record_during_end_and_begin", test_record_during_end_and_begin));
	suite_add_tcase(s, pu_tcase("cross_thread_order", test_cross_thread_order));
	suite_add_tcase(s, pu_tcase("concurrent_policies", test_concurrent_policies));
	suite_add_tcase(s, pu_tcase("concurrent_begin_end", test_concurrent_begin_end));
	return s;
}
