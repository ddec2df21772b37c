// SPDX-License-Identifier: GPL-2.0
/*
 * kperf-client report parsing: every real capture in tests/fixtures/kperf
 * (sums computed by hand), truncated and shuffled variants, the seed's
 * regular-expression edge cases, and "ksft-kperf parse".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "cli_util.h"
#include "kperf_parse.h"
#include "proc.h"

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("KSFTM_FIXTURES");

	ck_assert_msg(dir != NULL, "KSFTM_FIXTURES is not set");
	snprintf(path, sizeof(path), "%s/kperf/%s", dir, name);
	return path;
}

static char *load(const char *name)
{
	char *text, *err = NULL;

	ck_assert_msg(ex_read_file(fixture(name), &text, NULL, &err) == 0, "%s", err);
	return text;
}

static int parse(const char *text, struct kperf_result *r, char **err)
{
	return kperf_parse(text, strlen(text), "t.txt", r, err);
}

static void assert_cpu(const struct kperf_cpu *c, int cpu, double usr, double sys,
		       double idle, double iow, double irq, double sirq)
{
	ck_assert_int_eq(c->cpu, cpu);
	ck_assert_str_eq(c->role, "");
	ck_assert_double_eq_tol(c->usr, usr, 1e-9);
	ck_assert_double_eq_tol(c->sys, sys, 1e-9);
	ck_assert_double_eq_tol(c->idle, idle, 1e-9);
	ck_assert_double_eq_tol(c->iow, iow, 1e-9);
	ck_assert_double_eq_tol(c->irq, irq, 1e-9);
	ck_assert_double_eq_tol(c->sirq, sirq, 1e-9);
}

START_TEST(test_n1)
{
	struct kperf_result r;
	char *err = NULL;

	ck_assert_int_eq(kperf_parse_file(fixture("client-n1.txt"), &r, &err), 0);
	/* Source Tx 12.964 (Rx 0.000 ignored), Target Rx 12.952; retrans 26 / 0. */
	ck_assert_double_eq_tol(r.source.throughput, 12.964, 1e-12);
	ck_assert_double_eq_tol(r.target.throughput, 12.952, 1e-12);
	ck_assert_int_eq(r.source.retransmits, 26);
	ck_assert_int_eq(r.target.retransmits, 0);
	ck_assert_int_eq(r.source.n_rates, 1);
	ck_assert_int_eq(r.source.n_tcp_rows, 1);
	ck_assert_int_eq(r.source.n_cpus, 1);
	assert_cpu(&r.source.cpus[0], 1, 18.08, 46.07, 5.46, 2.04, 0.00, 28.32);
	ck_assert_int_eq(r.target.n_cpus, 1);
	assert_cpu(&r.target.cpus[0], 1, 18.08, 46.07, 5.46, 2.04, 0.00, 28.32);
	kperf_result_free(&r);
}
END_TEST

START_TEST(test_n2)
{
	struct kperf_result r;
	char *err = NULL;

	ck_assert_int_eq(kperf_parse_file(fixture("client-n2.txt"), &r, &err), 0);
	/* Two connections: 15.489 + 14.465, 15.451 + 14.371; 28 + 60, 0 + 0. */
	ck_assert_double_eq_tol(r.source.throughput, 29.954, 1e-12);
	ck_assert_double_eq_tol(r.target.throughput, 29.822, 1e-12);
	ck_assert_int_eq(r.source.retransmits, 88);
	ck_assert_int_eq(r.target.retransmits, 0);
	/* Bytes of the counted lines only: Source Tx, Target Rx. */
	ck_assert_uint_eq(r.source.bytes, UINT64_C(5810421760) + UINT64_C(5426380800));
	ck_assert_uint_eq(r.target.bytes, UINT64_C(5810421760) + UINT64_C(5404357047));
	ck_assert_int_eq(r.source.n_rates, 2);
	ck_assert_int_eq(r.target.n_tcp_rows, 2);
	ck_assert_int_eq(r.source.n_cpus, 2);
	assert_cpu(&r.source.cpus[0], 0, 3.55, 54.80, 17.79, 0, 0, 23.84);
	assert_cpu(&r.source.cpus[1], 1, 10.95, 64.04, 4.10, 0, 0, 20.89);
	ck_assert_int_eq(r.target.n_cpus, 2);
	assert_cpu(&r.target.cpus[0], 1, 10.92, 63.82, 4.09, 0, 0, 21.16);
	assert_cpu(&r.target.cpus[1], 0, 3.55, 54.80, 17.79, 0, 0, 23.84);
	kperf_result_free(&r);
}
END_TEST

START_TEST(test_rr)
{
	struct kperf_result r;
	char *err = NULL;

	/* RPS and latency histogram lines do not disturb the table. */
	ck_assert_int_eq(kperf_parse_file(fixture("client-rr-n1.txt"), &r, &err), 0);
	ck_assert_double_eq_tol(r.source.throughput, 0.006, 1e-12);
	ck_assert_double_eq_tol(r.target.throughput, 0.006, 1e-12);
	ck_assert_int_eq(r.source.retransmits, 0);
	ck_assert_int_eq(r.target.retransmits, 0);
	ck_assert_int_eq(r.source.n_tcp_rows, 1);
	ck_assert_int_eq(r.target.n_tcp_rows, 1);
	assert_cpu(&r.source.cpus[0], 0, 1.16, 15.89, 64.34, 0, 0, 18.60);
	kperf_result_free(&r);
}
END_TEST

START_TEST(test_v6)
{
	struct kperf_result r;
	char *err = NULL;

	ck_assert_int_eq(kperf_parse_file(fixture("client-v6-n1.txt"), &r, &err), 0);
	ck_assert_double_eq_tol(r.source.throughput, 25.056, 1e-12);
	ck_assert_double_eq_tol(r.target.throughput, 25.049, 1e-12);
	ck_assert_int_eq(r.source.retransmits, 20);
	ck_assert_int_eq(r.target.retransmits, 0);
	assert_cpu(&r.source.cpus[0], 0, 10.23, 46.06, 34.64, 0, 0, 9.05);
	assert_cpu(&r.target.cpus[0], 1, 2.04, 62.92, 4.76, 0, 0, 30.27);
	kperf_result_free(&r);
}
END_TEST

/* Cut @text after its line number @keep (1-based). */
static void cut_after_line(char *text, int keep)
{
	char *p = text;

	while (keep-- > 0 && (p = strchr(p, '\n')))
		p++;
	if (p)
		*p = '\0';
}

static void assert_incomplete(const char *text, const char *missing)
{
	struct kperf_result r;
	char *err = NULL, want[256];

	ck_assert_int_eq(parse(text, &r, &err), -ENODATA);
	snprintf(want, sizeof(want), "t.txt: incomplete kperf result (%s)", missing);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(r.source.n_cpus, 0);	/* freed and cleared */
	free(err);
}

START_TEST(test_truncated)
{
	char *text = load("client-n2.txt");

	/* Lines 1-2 info, 3 "== Source", 4-7 rates, 8 header, 9-10 rows,
	 * 11-12 CPU, 13 "== Target", 14-17 rates, 18 header, 19-20 rows. */
	cut_after_line(text, 19);
	{
		struct kperf_result r;
		char *err = NULL;

		/* One of two Target rows: still complete, but only that one. */
		ck_assert_int_eq(parse(text, &r, &err), 0);
		ck_assert_int_eq(r.target.n_tcp_rows, 1);
		kperf_result_free(&r);
	}
	cut_after_line(text, 18);
	assert_incomplete(text, "no Target TCP row");
	cut_after_line(text, 13);
	assert_incomplete(text, "no Target Rx rate, no Target TCP row");
	cut_after_line(text, 8);
	assert_incomplete(text, "no Target Rx rate, no Source TCP row, no Target TCP row");
	cut_after_line(text, 2);
	assert_incomplete(text, "no Source Tx rate, no Target Rx rate, no Source TCP row, "
			  "no Target TCP row");
	assert_incomplete("", "no Source Tx rate, no Target Rx rate, no Source TCP row, "
			  "no Target TCP row");
	/* Half a line: the row lost its last columns. */
	free(text);
	text = load("client-n1.txt");
	*strstr(text, "    0   65536   11") = '\0';
	assert_incomplete(text, "no Target TCP row");
	free(text);
}
END_TEST

/* Same sums as client-n2.txt? */
static void assert_n2(const char *text)
{
	struct kperf_result r;
	char *err = NULL;

	ck_assert_msg(parse(text, &r, &err) == 0, "%s\n%s", err, text);
	ck_assert_double_eq_tol(r.source.throughput, 29.954, 1e-12);
	ck_assert_double_eq_tol(r.target.throughput, 29.822, 1e-12);
	ck_assert_int_eq(r.source.retransmits, 88);
	ck_assert_int_eq(r.target.retransmits, 0);
	kperf_result_free(&r);
}

static char *replace_all(const char *text, const char *from, const char *to)
{
	size_t nf = strlen(from), nt = strlen(to), n = 0;
	const char *p;
	char *out, *o;

	for (p = text; (p = strstr(p, from)); p += nf)
		n++;
	out = malloc(strlen(text) + n * nt + 1);
	ck_assert_ptr_nonnull(out);
	for (o = out, p = text; *p;) {
		if (!strncmp(p, from, nf)) {
			memcpy(o, to, nt);
			o += nt;
			p += nf;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

START_TEST(test_shuffled)
{
	char *text = load("client-n2.txt"), *src, *tgt, *v;
	size_t nsrc;

	/* Target section before Source section. */
	src = strstr(text, "kperf-client: == Source");
	tgt = strstr(text, "kperf-client: == Target");
	nsrc = (size_t)(tgt - src);
	ck_assert_int_gt(asprintf(&v, "%s%.*s", tgt, (int)nsrc, src), 0);
	assert_n2(v);
	free(v);

	/* Info lines between all lines, CRLF endings, no program prefix
	 * (stdout-style), and the rate lines of one section reordered. */
	v = replace_all(text, "\n", "\nI   client.c: Connected 1:cpu 0 | 1:cpu 1\n");
	assert_n2(v);
	free(v);
	v = replace_all(text, "\n", "\r\n");
	assert_n2(v);
	free(v);
	v = replace_all(text, "kperf-client: ", "");
	assert_n2(v);
	free(v);
	v = replace_all(text,
		"kperf-client:   Tx 15.489 Gbps (5810421760 bytes in 3001024 usec)\n"
		"kperf-client:   Tx 14.465 Gbps (5426380800 bytes in 3001024 usec)\n"
		"kperf-client:   Rx  0.000 Gbps (0 bytes in 3001024 usec)\n",
		"kperf-client:   Rx  0.000 Gbps (0 bytes in 3001024 usec)\n"
		"kperf-client:   Tx 14.465 Gbps (5426380800 bytes in 3001024 usec)\n"
		"kperf-client:   Tx 15.489 Gbps (5810421760 bytes in 3001024 usec)\n");
	assert_n2(v);
	free(v);

	/* A TCP row above its header is not a TCP row. */
	v = replace_all(text,
		"kperf-client:   TCP retrans reord rtt rttvar d_ce snd_wnd cwnd\n"
		"kperf-client:             0     0  13      7    0   65536   11\n"
		"kperf-client:             0     0  14      7    0   65536   11\n",
		"kperf-client:             0     0  13      7    0   65536   11\n"
		"kperf-client:             0     0  14      7    0   65536   11\n"
		"kperf-client:   TCP retrans reord rtt rttvar d_ce snd_wnd cwnd\n");
	assert_incomplete(v, "no Target TCP row");
	free(v);
	free(text);
}
END_TEST

START_TEST(test_regex_edges)
{
	static const char head[] = "x: == Source a\n";
	struct kperf_result r;
	char *err = NULL, *v;

	/* \s* between Tx and the number; \s+ before Gbps; \b around. */
	ck_assert_int_gt(asprintf(&v, "%sTx12.5 Gbps\nTx 1.25Gbps\nXTx 2 Gbps\n"
				  "Tx 4. Gbps\nTx 8 Gbpsx\n  TCP retrans reord rtt rttvar d_ce "
				  "snd_wnd cwnd\n 3 0 0 0 0 0 0\n 4 0 0 0 0 0\n 5 0 0 0 0 0 0 0\n"
				  "p: 6 0 0 0 0 0 0 \n"
				  "==Target\n== Targets\n==\tTarget\nRx 1 Gbps\n"
				  "TCP retrans reord rtt rttvar d_ce snd_wnd cwnd\n1 1 1 1 1 1 1\n",
				  head), 0);
	ck_assert_msg(parse(v, &r, &err) == 0, "%s", err);
	ck_assert_double_eq_tol(r.source.throughput, 12.5, 1e-12);
	ck_assert_int_eq(r.source.n_rates, 1);
	ck_assert_int_eq(r.source.retransmits, 9);	/* 3 + 6 */
	ck_assert_double_eq_tol(r.target.throughput, 1, 1e-12);
	ck_assert_int_eq(r.target.retransmits, 1);
	kperf_result_free(&r);
	free(v);

	/* "net"/"app" CPU lines of --pin-off runs. */
	ck_assert_int_gt(asprintf(&v, "%sTx 1 Gbps\nTCP retrans reord rtt rttvar d_ce "
				  "snd_wnd cwnd\n1 0 0 0 0 0 0\nk:   net CPU  2: usr: 1.00%% "
				  "sys: 2.00%% idle:97.00%% iow: 0.00%% irq: 0.00%% sirq: 0.00%%\n"
				  "k:   app CPU  6: usr:100.00%% sys: 0.00%% idle: 0.00%% "
				  "iow: 0.00%% irq: 0.00%% sirq: 0.00%%\n== Target\nRx 1 Gbps\n"
				  "TCP retrans reord rtt rttvar d_ce snd_wnd cwnd\n1 0 0 0 0 0 0\n",
				  head), 0);
	ck_assert_int_eq(parse(v, &r, &err), 0);
	ck_assert_int_eq(r.source.n_cpus, 2);
	ck_assert_str_eq(r.source.cpus[0].role, "net");
	ck_assert_int_eq(r.source.cpus[0].cpu, 2);
	ck_assert_str_eq(r.source.cpus[1].role, "app");
	ck_assert_double_eq_tol(r.source.cpus[1].usr, 100, 1e-12);
	kperf_result_free(&r);
	free(v);

	/* Numbers that do not fit: an error naming the line. */
	ck_assert_int_gt(asprintf(&v, "%sTCP retrans reord rtt rttvar d_ce snd_wnd cwnd\n"
				  "99999999999999999999 0 0 0 0 0 0\n", head), 0);
	ck_assert_int_eq(parse(v, &r, &err), -ERANGE);
	ck_assert_str_eq(err, "t.txt:3: TCP retrans 99999999999999999999 out of range");
	free(err);
	err = NULL;
	free(v);
}
END_TEST

static void run_cli(const char *const *argv, struct exproc_result *r)
{
	char *err = NULL;

	ck_assert_msg(exproc_run(NULL, argv, 10000, r, &err) == 0, "%s", err ? err : "?");
	ck_assert_int_eq(r->timed_out, 0);
}

START_TEST(test_cli_parse)
{
	static const struct { const char *file, *out; } cases[] = {
		{ "client-n1.txt", "{\"source_throughput\": 12.964, \"target_throughput\": "
		  "12.952, \"source_retransmits\": 26, \"target_retransmits\": 0}\n" },
		/* 15.451 + 14.371 in binary floating point, as Python sums it. */
		{ "client-n2.txt", "{\"source_throughput\": 29.954, \"target_throughput\": "
		  "29.822000000000003, \"source_retransmits\": 88, \"target_retransmits\": 0}\n" },
		{ "client-rr-n1.txt", "{\"source_throughput\": 0.006, \"target_throughput\": "
		  "0.006, \"source_retransmits\": 0, \"target_retransmits\": 0}\n" },
		{ "client-v6-n1.txt", "{\"source_throughput\": 25.056, \"target_throughput\": "
		  "25.049, \"source_retransmits\": 20, \"target_retransmits\": 0}\n" },
	};
	const char *exe = getenv("KSFTM_KSFT_KPERF");
	struct exproc_result r;
	size_t i;

	ck_assert_ptr_nonnull(exe);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = { exe, "parse", fixture(cases[i].file), NULL };

		run_cli(argv, &r);
		ck_assert_int_eq(exproc_exit_code(r.status), 0);
		ck_assert_str_eq(r.out, cases[i].out);
		exproc_result_free(&r);
	}
	{
		const char *argv[] = { exe, "parse", "--cpus", fixture("client-v6-n1.txt"), NULL };

		run_cli(argv, &r);
		ck_assert_int_eq(exproc_exit_code(r.status), 0);
		ck_assert_str_eq(r.out,
			"{\"source_throughput\": 25.056, \"target_throughput\": 25.049, "
			"\"source_retransmits\": 20, \"target_retransmits\": 0, \"source_cpus\": "
			"[{\"cpu\": 0, \"usr\": 10.23, \"sys\": 46.06, \"idle\": 34.64, \"iow\": 0.0, "
			"\"irq\": 0.0, \"sirq\": 9.05}], \"target_cpus\": [{\"cpu\": 1, \"usr\": 2.04, "
			"\"sys\": 62.92, \"idle\": 4.76, \"iow\": 0.0, \"irq\": 0.0, \"sirq\": 30.27}]}\n");
		exproc_result_free(&r);
	}
	{
		/* Not kperf output at all (an iperf3 capture): incomplete. */
		char path[4096];
		const char *argv[] = { exe, "parse", path, NULL };

		snprintf(path, sizeof(path), "%s/iperf3/basic.json", getenv("KSFTM_FIXTURES"));
		run_cli(argv, &r);
		ck_assert_int_eq(exproc_exit_code(r.status), 1);
		ck_assert_str_eq(r.out, "");
		ck_assert_msg(strstr(r.errout, "basic.json: incomplete kperf result (no Source Tx "
				     "rate, no Target Rx rate, no Source TCP row, no Target TCP "
				     "row)\n"), "%s", r.errout);
		exproc_result_free(&r);
	}
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("kperf_parse");
	TCase *tc = tcase_create("fixtures");

	tcase_add_test(tc, test_n1);
	tcase_add_test(tc, test_n2);
	tcase_add_test(tc, test_rr);
	tcase_add_test(tc, test_v6);
	suite_add_tcase(s, tc);
	tc = tcase_create("variants");
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_shuffled);
	tcase_add_test(tc, test_regex_edges);
	suite_add_tcase(s, tc);
	tc = tcase_create("cli");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cli_parse);
	suite_add_tcase(s, tc);
	return s;
}
