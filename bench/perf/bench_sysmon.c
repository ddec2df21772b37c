// SPDX-License-Identifier: GPL-2.0
/*
 * System monitor benchmark: CPU time of one local sample (read /proc/stat,
 * parse, NIC counters over libnl, compute, record the 7 observations),
 * beside the raw cost of what it cannot avoid: reading /proc/stat plus one
 * netlink RTM_GETLINK round trip (hand-rolled, no libnl), measured in the
 * same run, interleaved. On the live 2-CPU host and on a 256-CPU fixture
 * whose counters advance like a busy machine's. Samples are spaced out, as
 * at 1 Hz, so caches are as cold as in real use. libksftmetric's own cost of
 * recording the same observations is timed too, to tell the two apart.
 * Prints medians and ratios; never passes or fails.
 *
 * Run: build/examples/sysmon/bench-sysmon [IFNAME]   (default "lo")
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <ksftmetric/ksftmetric.h>

#include "bench_util.h"
#include "host_metrics.h"
#include "local_sampler.h"
#include "sm_error.h"
#include "sysmon.h"

#define SAMPLES 401
#define GAP_NS (4 * 1000 * 1000)	/* between samples: cold caches, ticks move */
#define ROTATION 64			/* 256-CPU fixture files, counters advancing */

static const char *ifname = "lo";

static void die(const char *what)
{
	fprintf(stderr, "bench-sysmon: %s: %s\n", what, sm_errmsg());
	exit(1);
}

static void gap(void)
{
	struct timespec ts = { 0, GAP_NS };

	nanosleep(&ts, NULL);
}

/* ---- the raw baseline: read(2) of the file, one RTM_GETLINK round trip -- */

static char raw_buf[1 << 20];

static void raw_read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || (n = read(fd, raw_buf, sizeof(raw_buf))) <= 0) {
		perror(path);
		exit(1);
	}
	while (n > 0)
		n = read(fd, raw_buf, sizeof(raw_buf));
	close(fd);
}

static int nl_fd;
static unsigned nl_seq;

static void raw_netlink_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl_fd < 0 || bind(nl_fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("netlink");
		exit(1);
	}
}

/* RTM_GETLINK by name; pick the three counters out of IFLA_STATS64. */
static uint64_t raw_netlink_stats(void)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[64];
	} req;
	static char resp[65536];
	struct rtattr *rta;
	struct nlmsghdr *nh;
	size_t nlen = strlen(ifname) + 1;
	ssize_t n;
	int len;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = RTM_GETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = ++nl_seq;
	req.ifi.ifi_family = AF_UNSPEC;
	rta = (struct rtattr *)req.attrs;
	rta->rta_type = IFLA_IFNAME;
	rta->rta_len = (unsigned short)RTA_LENGTH(nlen);
	memcpy(RTA_DATA(rta), ifname, nlen);
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi)) + RTA_ALIGN(rta->rta_len);
	if (send(nl_fd, &req, req.nh.nlmsg_len, 0) < 0 ||
	    (n = recv(nl_fd, resp, sizeof(resp), 0)) <= 0) {
		perror("netlink request");
		exit(1);
	}
	nh = (struct nlmsghdr *)resp;
	if (!NLMSG_OK(nh, (unsigned)n) || nh->nlmsg_type != RTM_NEWLINK) {
		fprintf(stderr, "netlink: no RTM_NEWLINK for %s\n", ifname);
		exit(1);
	}
	len = (int)IFLA_PAYLOAD(nh);
	for (rta = IFLA_RTA(NLMSG_DATA(nh)); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFLA_STATS64) {
			struct rtnl_link_stats64 st;

			memcpy(&st, RTA_DATA(rta), sizeof(st));
			return st.rx_dropped + st.rx_missed_errors + st.tx_dropped;
		}
	}
	return 0;
}

/* ---- the 256-CPU fixture rotation ---------------------------------------- */

static char rot_dir[] = "/tmp/bench-sysmon-XXXXXX";
static char *rot_path[ROTATION];

/* Files whose counters grow by one second of a busy machine per step. */
static void make_rotation(void)
{
	struct sm_buf b = { 0 };
	struct cpu_snapshot s = { 0 };
	const char *tail;
	size_t i;
	int k;

	if (read_whole_file(SM_FIXTURE_DIR "/stat_256cpu_a", &b) ||
	    cpu_snapshot_parse(&s, b.data, b.len, "fixture"))
		die("stat_256cpu_a");
	tail = strstr(b.data, "\nintr ") + 1;
	if (!mkdtemp(rot_dir)) {
		perror("mkdtemp");
		exit(1);
	}
	for (k = 0; k < ROTATION; k++) {
		FILE *f;

		if (asprintf(&rot_path[k], "%s/stat%d", rot_dir, k) < 0 ||
		    !(f = fopen(rot_path[k], "w"))) {
			perror("rotation");
			exit(1);
		}
		fprintf(f, "cpu  0 0 0 0 0 0 0 0 0 0\n");
		for (i = 0; i < s.n; i++) {
			uint64_t u = i % 7 + 1, sy = i % 5 + 1, si = i % 3, *t = s.ticks[i];

			fprintf(f, "cpu%zu %llu %llu %llu %llu %llu %llu %llu %llu 0 0\n", i,
				(unsigned long long)(t[CPU_USER] + k * u),
				(unsigned long long)t[CPU_NICE],
				(unsigned long long)(t[CPU_SYSTEM] + k * sy),
				(unsigned long long)(t[CPU_IDLE] + k * (100 - u - sy - si)),
				(unsigned long long)t[CPU_IOWAIT], (unsigned long long)t[CPU_IRQ],
				(unsigned long long)(t[CPU_SOFTIRQ] + k * si),
				(unsigned long long)t[CPU_STEAL]);
		}
		fputs(tail, f);
		fclose(f);
	}
	cpu_snapshot_free(&s);
	sm_buf_free(&b);
}

static void remove_rotation(void)
{
	int k;

	for (k = 0; k < ROTATION; k++) {
		unlink(rot_path[k]);
		free(rot_path[k]);
	}
	rmdir(rot_dir);
}

/* ---- one measurement ------------------------------------------------------ */

struct result {
	double raw, monitor, lib, fmt;	/* ns per sample, medians */
};

/* What libksftmetric alone costs for one sample's 4 per-cpu arrays and 3 ints. */
static void record_alone(const struct host_metrics *hm)
{
	static const char *const names[] = {
		"cpu.time.usr", "cpu.time.sys", "cpu.time.sirq", "cpu.utilization"
	};
	const struct ksft_metric_label l[] = { KSFT_METRIC_LABEL_STR("host", "local") };
	int k;

	for (k = 0; k < 4; k++)
		ksft_metric_array(names[k], "per-cpu", hm->values, hm->present, hm->n_seen, l, 1);
	for (k = 0; k < 3; k++)
		ksft_metric_int("nic.tx.dropped", "scalar", k, l, 1);
}

/*
 * @fixture: rotate through the 256-CPU files (else live /proc/stat).
 * Each iteration times one raw read and one monitor sample, in turn.
 */
static struct result measure(int fixture)
{
	static double raw[SAMPLES], mon[SAMPLES], lib[SAMPLES];
	struct local_sampler ls;
	struct host_metrics hm = { 0 };
	struct cpu_snapshot cpu = { 0 };
	uint64_t nic[NIC_NCOUNTERS];
	char *live_path, *text = NULL;
	struct result r;
	double t0, t1;
	volatile uint64_t sink = 0;
	int i;

	if (local_sampler_init(&ls, NULL, ifname))
		die("local sampler");
	live_path = ls.stat_path;
	if (ksft_metric_case_begin() < 0 || host_metrics_register())
		die("case");
	if (fixture)
		ls.stat_path = rot_path[0];
	if (local_sampler_read(&ls, &cpu, nic) ||
	    host_metrics_baseline(&hm, "local", 100, &cpu, nic))
		die("baseline");
	for (i = 0; i < SAMPLES; i++) {
		const char *path = fixture ? rot_path[(i + 1) % ROTATION] : live_path;

		gap();
		t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		raw_read_file(path);
		sink += raw_netlink_stats();
		t1 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		raw[i] = t1 - t0;

		gap();
		ls.stat_path = (char *)path;
		t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		if (local_sampler_read(&ls, &cpu, nic) || host_metrics_record(&hm, &cpu, nic))
			die("sample");
		t1 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		mon[i] = t1 - t0;

		gap();
		t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		record_alone(&hm);
		t1 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		lib[i] = t1 - t0;
	}
	/* Formatting happens once, at case end, after the benchmark ran. */
	t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (ksft_metric_case_end_buffer(&text, NULL) < 0)
		die("case end");
	r.fmt = (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (2 * SAMPLES + 1);
	ksft_metric_free(text);
	ls.stat_path = live_path;
	local_sampler_fini(&ls);
	host_metrics_free(&hm);
	cpu_snapshot_free(&cpu);
	r.raw = bench_median(raw, SAMPLES);
	r.monitor = bench_median(mon, SAMPLES);
	r.lib = bench_median(lib, SAMPLES);
	(void)sink;
	return r;
}

static void report(const char *what, struct result r)
{
	printf("%-28s monitor %6.1f us  raw read+netlink %6.1f us  ratio %4.2f\n"
	       "%-28s of which libksftmetric recording %5.1f us; the rest %6.1f us, ratio %4.2f;"
	       " formatting at case end %5.1f us\n",
	       what, r.monitor / 1e3, r.raw / 1e3, r.monitor / r.raw, "",
	       r.lib / 1e3, (r.monitor - r.lib) / 1e3, (r.monitor - r.lib) / r.raw, r.fmt / 1e3);
}

/* The public API at 100 Hz for 2 s: process CPU per sample, thread wake-ups included. */
static void end_to_end(int with_remote)
{
	const char *const remote[] = { "env", NULL };
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT;
	struct timespec run = { 2, 0 };
	struct ksft_sysmon *mon;
	struct rusage ru;
	double c0, c1, w0, children;
	char *text = NULL, *p;
	int n = 0;

	o.ifname = ifname;
	o.interval = 0.01;
	if (with_remote) {
		o.remote_argv = remote;
		o.remote_ifname = ifname;
	}
	if (ksft_metric_case_begin() < 0)
		die("case");
	c0 = bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	w0 = bench_mono_ns();
	mon = ksft_sysmon_start(&o);
	if (!mon)
		die("start");
	nanosleep(&run, NULL);
	if (ksft_sysmon_stop(mon))
		die("stop");
	c1 = bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	getrusage(RUSAGE_CHILDREN, &ru);
	children = ru.ru_utime.tv_sec * 1e9 + ru.ru_utime.tv_usec * 1e3 +
		   ru.ru_stime.tv_sec * 1e9 + ru.ru_stime.tv_usec * 1e3;
	if (ksft_metric_case_end_buffer(&text, NULL) < 0)
		die("case end");
	for (p = text; (p = strstr(p, "\"name\":\"cpu.time.usr\"")); p++)
		n++;
	ksft_metric_free(text);
	if (with_remote)
		n /= 2;
	printf("%-30s %4d samples in %.1f s: %6.1f us CPU per sample in this process",
	       with_remote ? "end-to-end local+remote(sh)" : "end-to-end local (2 CPUs)",
	       n, (bench_mono_ns() - w0) / 1e9, (c1 - c0) / n / 1e3);
	if (with_remote)
		printf("; remote sh+cat: %.0f us per sample", children / n / 1e3);
	printf("\n");
}

static void rounding_cost(void)
{
	volatile double sink = 0;
	double t0, fast, slow;
	uint64_t b;
	int i;

	t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < 1000000; i++)
		sink += util_percent((uint64_t)i % 97, 100 + (uint64_t)i % 13);
	fast = (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / 1e6;
	t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < 1000000; i++)
		sink += util_percent_slow((uint64_t)i % 97, 100 + (uint64_t)i % 13);
	slow = (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / 1e6;
	b = 256;
	printf("utilization rounding: integer %.1f ns, snprintf+strtod %.1f ns per CPU "
	       "(x%llu CPUs: %.1f vs %.1f us per sample)\n", fast, slow, (unsigned long long)b,
	       fast * b / 1e3, slow * b / 1e3);
	(void)sink;
}

int main(int argc, char **argv)
{
	struct result live, big;

	if (argc > 1)
		ifname = argv[1];
	ksft_metric_set_output_file(stdout);
	raw_netlink_open();
	make_rotation();
	printf("bench-sysmon: CPU time per sample (CLOCK_THREAD_CPUTIME_ID), median of %d, "
	       "interface %s, %ld CPUs online\n", SAMPLES, ifname, sysconf(_SC_NPROCESSORS_ONLN));
	live = measure(0);
	big = measure(1);
	report("live /proc/stat (this host)", live);
	report("256-CPU fixture", big);
	printf("256 CPUs at 1 Hz: %.4f%% of one core (goal < 0.1%%)\n", big.monitor / 1e9 * 100);
	rounding_cost();
	end_to_end(0);
	end_to_end(1);
	remove_rotation();
	close(nl_fd);
	return 0;
}
