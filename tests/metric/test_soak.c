/*
 * Concurrency soak: recorder threads record, register policies and toggle
 * the reporting scope while the main thread begins and ends case after
 * case. Every record that returned 0 must come out exactly once, every
 * refused one never; the totals are printed (README, reliability figures).
 * Built for TSan too (scripts/run-tests.sh).
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ksftmetric/ksftmetric.h>

#include "check_main.h"
#include "producer_util.h"

enum { THREADS = 6, MAX_PER_THREAD = 40000, CASES = 40 };

struct recorder {
	pthread_t th;
	int idx;
	signed char *result;	/* per seq: 0 recorded, 1 refused (-EPERM) */
	long n;
	long bad;		/* returns outside the allowed set */
	int first_bad;
};

static atomic_int stop;

static void *recorder_main(void *arg)
{
	struct recorder *r = arg;
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	long j;

	p.summarize = "max";
	for (j = 0; j < MAX_PER_THREAD && !atomic_load(&stop); j++) {
		struct ksft_metric_label l[2] = {
			KSFT_METRIC_LABEL_INT("seq", j), KSFT_METRIC_LABEL_INT("thread", r->idx),
		};
		int ret = ksft_metric_int("soak", "scalar", j, l, 2);

		if (ret == 0 || ret == -EPERM) {
			r->result[j] = ret ? 1 : 0;
		} else {
			r->result[j] = 1;
			if (!r->bad++)
				r->first_bad = ret;
		}
		if (ret == -EPERM)
			sched_yield();
		if (j % 97 == 0) {
			/* Equal policy: fine, refused outside a case, or late. */
			ret = ksft_metric_aggregate("soak", &p);
			if (ret && ret != -EPERM && ret != -EALREADY && !r->bad++)
				r->first_bad = ret;
		}
		if (j % 89 == 0) {
			/* The counter may be reset between the two by a case change. */
			ret = ksft_metric_reporting(1);
			if (ret < 0 && ret != -EPERM && !r->bad++)
				r->first_bad = ret;
			ret = ksft_metric_reporting(0);
			if (ret < 0 && ret != -EPERM && ret != -EINVAL && !r->bad++)
				r->first_bad = ret;
		}
	}
	r->n = j;
	return NULL;
}

static void count_lines(const char *text, unsigned char *hits[THREADS], long *lines)
{
	const char *line;

	for (line = text; *line; line = strchr(line, '\n') + 1) {
		long seq = -1;
		int thread = -1;

		if (!strncmp(line, "# " PU_POL, strlen("# " PU_POL)))
			continue;
		ck_assert_msg(sscanf(line, "# " PU_OBS "{\"name\":\"soak\",\"seq\":%ld,\"shape\":\"scalar\",\"thread\":%d,",
				     &seq, &thread) == 2, "torn or foreign line: %.80s", line);
		ck_assert(thread >= 0 && thread < THREADS && seq >= 0 && seq < MAX_PER_THREAD);
		hits[thread][seq]++;
		(*lines)++;
	}
}

START_TEST(test_soak)
{
	struct recorder r[THREADS];
	unsigned char *hits[THREADS];
	struct timespec pause = { 0, 2 * 1000 * 1000 };
	long lines = 0, recorded = 0, refused = 0;
	int i, c;

	pu_reset();
	atomic_store(&stop, 0);
	for (i = 0; i < THREADS; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].idx = i;
		r[i].result = malloc(MAX_PER_THREAD);
		hits[i] = calloc(MAX_PER_THREAD, 1);
		ck_assert(r[i].result && hits[i]);
		ck_assert_int_eq(pthread_create(&r[i].th, NULL, recorder_main, &r[i]), 0);
	}
	for (c = 0; c < CASES; c++) {
		char *text;

		pu_begin();
		nanosleep(&pause, NULL);
		text = pu_end_text(NULL);
		count_lines(text, hits, &lines);
		free(text);
		nanosleep(&pause, NULL);	/* closed: recorders are refused */
	}
	atomic_store(&stop, 1);
	for (i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_join(r[i].th, NULL), 0);
	/* A last case catches nothing: every thread has stopped. */
	for (i = 0; i < THREADS; i++) {
		long j;

		ck_assert_msg(r[i].bad == 0, "thread %d: %ld unexpected returns, first %d",
			      i, r[i].bad, r[i].first_bad);
		for (j = 0; j < r[i].n; j++) {
			if (r[i].result[j] == 0) {
				recorded++;
				ck_assert_msg(hits[i][j] == 1, "thread %d seq %ld: recorded, emitted %d times",
					      i, j, hits[i][j]);
			} else {
				refused++;
				ck_assert_msg(hits[i][j] == 0, "thread %d seq %ld: refused but emitted", i, j);
			}
		}
		free(r[i].result);
		free(hits[i]);
	}
	printf("soak: %d threads, %d cases: %ld records recorded, %ld emitted, %ld refused between cases\n",
	       THREADS, CASES, recorded, lines, refused);
	ck_assert_int_eq(recorded, lines);
	ck_assert_int_gt(recorded, 0);
	ck_assert_int_gt(refused, 0);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("soak");
	TCase *tc = tcase_create("soak");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_soak);
	suite_add_tcase(s, tc);
	return s;
}
