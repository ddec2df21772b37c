/*
 * One random scenario of producer calls, built twice: against
 * libksftmetric and (with -DKSFT_INTREE) against upstream/ksft_metric.h.
 * The same seed makes the same calls; each call's return value and
 * message are printed beside the metric lines, so intree_vs_library.py
 * can require both builds to print the same bytes (times masked).
 *
 * Usage: scenario SEED CASES [exit|term|abort|fork]
 *
 * The last word ends the run with a case open: exit(3), SIGTERM, abort(),
 * or a forked child that cannot touch its parent's case.
 *
 * Refused calls are written at each case's end as warning lines, which
 * must be the same bytes too: some cases refuse in bursts (more distinct
 * refusals than are kept, the same one repeated, names and messages
 * longer than the fields they are cut to), and strict mode goes on and off.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef KSFT_INTREE
#include "ksft_metric.h"
#else
#include <ksftmetric/ksftmetric.h>
#endif

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* splitmix64: fixed, portable, seedable */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

#define PICK(a) ((a)[below(sizeof(a) / sizeof((a)[0]))])

static const char *const names[] = {
	"throughput", "tcp.retransmits", "cpu.utilization", "cpu.time.usr",
	"m\xc3\xa9trique", "\xf0\x9f\x9a\x80.launch", "we\"ird", "x", "name",
	"time", "ctl\x01", "del\x7f", "bad\xc3", "bad\xed\xa0\x80", "",
};
static const char *const shapes[] = {
	"scalar", "per-cpu", "per-queue", "\xc3\xa9", "", "bad\xff",
};
static const char *const keys[] = {
	"host", "direction", "a", "Z", "_", "nam", "namf", "shapf", "shape_",
	"t", "timd", "timf", "valud", "valuf", "zz", "\xc3\xa9",
	"\xf0\x9f\x98\x80", "k y", "k\"q", "k\\b", "k\x02", "0", "~",
	"name", "time", "", "bad\xe0\x80\x80",
};
static const char *const strings[] = {
	"local", "remote", "rx", "", "caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac",
	"smile\xf0\x9f\x98\x80", "q\"uote", "back\\slash", "tab\there",
	"nl\nx", "ctl\x01\x1f", "del\x7f", "\xe2\x80\xa8", "\xef\xbb\xbf",
	"\xc3\xbf\xc4\x80", "\b\f\r", "bad\xf4\x90\x80\x80", "bad\xc0\xaf",
};
static const char *const summaries[] = {
	"last", "total", "p50", "p90", "p99", "max", "distribution", "p95",
	NULL,
};
static const char *const compares[] = {
	"last", "total", "p50", "max", "distribution", "mean", NULL,
};

static double rand_double(void)
{
	static const double special[] = {
		0.0, -0.0, 0.1, 0.5, 1.0, 100.0, 1e16, 1e22, 1e-7, 5e-324,
		2.2250738585072014e-308, 1.7976931348623157e308, -1e300,
		123456789.125, 1.0 / 3, 9007199254740992.0, 0.30000000000000004,
		1e15, 1e-5, 1e-4, 0.001, 123456.789e10, 9.5, 0.25, 1e23,
		8.41e21, 5e-310,
	};
	uint64_t bits;
	double d;

	switch (below(5)) {
	case 0:
		return PICK(special);
	case 1:
		do {
			bits = rnd();
			memcpy(&d, &bits, sizeof(d));
		} while (!isfinite(d));
		return d;
	case 2:
		return (double)(int64_t)(rnd() % 2000001) / 1000.0 - 1000.0;
	case 3:
		/* powers of two: the uneven rounding gaps */
		return ldexp(1.0, (int)below(2098) - 1074);
	default:
		return (double)(rnd() >> 11) / 9007199254740992.0 *
		       pow(10, (int)below(41) - 20);
	}
}

static int64_t rand_int(void)
{
	static const int64_t special[] = {
		0, 1, -1, 2147483648ll, -2147483649ll, 9007199254740993ll,
		INT64_MAX, INT64_MIN, 1000000000000000000ll, 75895,
	};

	if (below(3) == 0)
		return PICK(special);
	return (int64_t)(rnd() >> below(64));
}

static void report(const char *call, int ret)
{
	printf("%s -> %d%s%s\n", call, ret, ret < 0 ? " " : "",
	       ret < 0 ? ksft_metric_errmsg() : "");
}

static struct ksft_metric_value rand_number(void)
{
	struct ksft_metric_value v = { KSFT_METRIC_UNSET, { 0 } };

	switch (below(6)) {
	case 0:
	case 1:
		break;
	case 2:
		v.type = KSFT_METRIC_INT;
		v.u.i = (int64_t)below(21) - 2;
		break;
	case 3:
		v.type = KSFT_METRIC_DOUBLE;
		v.u.d = below(20) ? (double)below(100) / 100.0 : NAN;
		break;
	case 4:
		v.type = KSFT_METRIC_DOUBLE;
		v.u.d = rand_double();
		break;
	default:
		v.type = below(10) ? KSFT_METRIC_INT : KSFT_METRIC_STRING;
		v.u.i = 5;
	}
	return v;
}

static void do_policy(void)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.summarize = PICK(summaries);
	if (!below(3))
		p.transform = below(8) ? "rate" : "ratio";
	if (!below(3))
		p.aggregation = below(8) ? "busy-core-equivalents" : "sum";
	if (below(2)) {
		p.regression_compare = PICK(compares);
		p.regression_better = below(6) ? (below(2) ? "higher" : "lower") :
				      below(2) ? NULL : "up";
		p.regression_relative_tolerance = rand_number();
		p.regression_absolute_tolerance = rand_number();
	} else if (!below(10)) {
		p.regression_better = "higher";
	}
	if (!below(3)) {
		p.display_min = rand_number();
		p.display_max = rand_number();
	}
	if (!below(3))
		p.display_scale = rand_number();
	if (!below(3))
		p.display_label = below(5) ? PICK(strings) : "";
	report("aggregate", ksft_metric_aggregate(PICK(names),
						  below(10) ? &p : NULL));
}

static void rand_labels(struct ksft_metric_label *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		l[i].key = PICK(keys);
		switch (below(9)) {
		case 0:
		case 1:
		case 2:
			l[i].value.type = KSFT_METRIC_STRING;
			l[i].value.u.s = PICK(strings);
			break;
		case 3:
		case 4:
			l[i].value.type = KSFT_METRIC_INT;
			l[i].value.u.i = rand_int();
			break;
		case 5:
		case 6:
			l[i].value.type = KSFT_METRIC_DOUBLE;
			l[i].value.u.d = below(30) ? rand_double() : INFINITY;
			break;
		case 7:
			l[i].value.type = KSFT_METRIC_BOOL;
			l[i].value.u.b = (int)below(2);
			break;
		default:
			l[i].value.type = KSFT_METRIC_BOOL;
			l[i].value.u.b = (int)below(3);
		}
	}
}

static void do_observation(void)
{
	struct ksft_metric_label labels[6];
	size_t n_labels = below(4) ? below(3) : below(7);
	double values[40];
	unsigned char present[40];
	size_t n, i;
	const char *name = below(8) ? PICK(names) : "throughput";
	const char *shape = below(6) ? "scalar" : PICK(shapes);

	rand_labels(labels, n_labels);
	switch (below(5)) {
	case 0:
		report("int", ksft_metric_int(name, shape, rand_int(), labels,
					      n_labels));
		break;
	case 1:
		report("uint", ksft_metric_uint(name, shape,
						rnd() >> below(3), labels,
						n_labels));
		break;
	case 2:
	case 3:
		report("double", ksft_metric_double(name, shape,
						     below(40) ? rand_double() : NAN,
						     labels, n_labels));
		break;
	default:
		n = below(5) ? below(9) : 33;
		for (i = 0; i < n; i++) {
			values[i] = below(60) ? rand_double() : -INFINITY;
			present[i] = below(5) != 0;
		}
		report("array", ksft_metric_array(name, below(4) ? "per-cpu" : shape,
						  values, below(2) ? present : NULL,
						  n, labels, n_labels));
	}
}

/* A name of @len bytes, ASCII and multi-byte characters mixed. */
static const char *long_name(size_t len)
{
	static const char *const parts[] = { "a", "\xc3\xa9", "\xe6\x97\xa5",
					     "\xf0\x9f\x9a\x80" };
	static char buf[600];
	size_t n = 0, k;
	const char *p;

	while (n < len) {
		p = PICK(parts);
		k = strlen(p);
		if (n + k > len)
			break;
		memcpy(buf + n, p, k);
		n += k;
	}
	buf[n] = '\0';
	return buf;
}

/* Refused calls in bulk: past the kept ones, repeated, cut to size. */
static void refusal_burst(void)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	unsigned n = 4 + below(18), i;
	char name[16];

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "m%u", below(24));
		switch (below(5)) {
		case 0:
			report("double", ksft_metric_double(name, "scalar", NAN,
							     NULL, 0));
			break;
		case 1:
			report("double", ksft_metric_double(long_name(80 + below(400)),
							     "scalar", NAN, NULL, 0));
			break;
		case 2:
			report("uint", ksft_metric_uint(long_name(90 + below(12)),
							"scalar", UINT64_MAX, NULL, 0));
			break;
		case 3:
			p.summarize = below(2) ? "p95" : long_name(below(420));
			report("aggregate", ksft_metric_aggregate(name, &p));
			break;
		default:
			report("reporting", ksft_metric_reporting(0));
		}
	}
}

static void one_case(void)
{
	unsigned calls = below(12), i;

	if (!below(6))
		report("set_stream", ksft_metric_set_stream(!below(3)));
	if (!below(8))
		report("set_prefix", ksft_metric_set_prefix(below(2) ? "# # " :
							    below(2) ? "#\t" : "x\ny"));
	if (!below(10))
		do_observation();	/* outside a case */
	if (!below(8))
		report("set_strict", ksft_metric_set_strict(!below(2)));
	report("case_begin", ksft_metric_case_begin());
	if (!below(10))
		report("case_begin", ksft_metric_case_begin());
	if (!below(6))
		refusal_burst();
	for (i = 0; i < calls; i++) {
		switch (below(7)) {
		case 0:
		case 1:
			do_policy();
			break;
		case 2:
			report("reporting", ksft_metric_reporting(below(2)));
			printf("enabled %d\n", ksft_metric_reporting_enabled());
			break;
		default:
			do_observation();
		}
	}
	report("case_end", ksft_metric_case_end());
	if (!below(10))
		report("case_end", ksft_metric_case_end());
	printf("ok case\n");
}

/* A case left open when the process leaves, or seen from a child. */
static int open_end(const char *how)
{
	unsigned i;
	pid_t pid;
	int status;

	report("case_begin", ksft_metric_case_begin());
	for (i = 0; i < 6; i++)
		i % 3 ? do_observation() : do_policy();
	fflush(stdout);
	if (!strcmp(how, "exit"))
		exit(3);
	if (!strcmp(how, "term"))
		raise(SIGTERM);
	if (!strcmp(how, "abort"))
		abort();
	pid = fork();
	if (pid == 0) {
		report("child int", ksft_metric_int("x", "scalar", 1, NULL, 0));
		report("child case_end", ksft_metric_case_end());
		report("child case_begin", ksft_metric_case_begin());
		report("child int", ksft_metric_int("child", "scalar", 2, NULL, 0));
		report("child case_end", ksft_metric_case_end());
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	printf("child status %d\n", status);
	report("case_end", ksft_metric_case_end());
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long cases, i;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s SEED CASES [exit|term|abort|fork]\n",
			argv[0]);
		return 2;
	}
	rng_state = strtoull(argv[1], NULL, 0);
	cases = strtoul(argv[2], NULL, 0);
	for (i = 0; i < cases; i++)
		one_case();
	if (argc == 4)
		open_end(argv[3]);
	return fflush(stdout) ? 1 : 0;
}
