// SPDX-License-Identifier: GPL-2.0
/* Per-process and per-CPU accounting for the runners (see taskstat.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>

#include <ksftmetric/metric.h>

#include "proc.h"
#include "own_counters.h"
#include "taskstat.h"

static int read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

/* Sum each thread's run-queue wait (and CPU ns) of /proc/PID/task/. */
static int threads_sum(pid_t pid, double *run_delay_s, double *exec_s,
		       long long *nvcsw, long long *nivcsw)
{
	char path[96], buf[2048];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	*run_delay_s = *exec_s = 0;
	*nvcsw = *nivcsw = 0;
	while ((de = readdir(d))) {
		unsigned long long ex, rd;
		char *p;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/schedstat", (int)pid,
			 de->d_name);
		if (!read_small(path, buf, sizeof(buf)) &&
		    sscanf(buf, "%llu %llu", &ex, &rd) == 2) {
			*exec_s += (double)ex / 1e9;
			*run_delay_s += (double)rd / 1e9;
			n++;
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/status", (int)pid, de->d_name);
		if (read_small(path, buf, sizeof(buf)))
			continue;
		if ((p = strstr(buf, "\nvoluntary_ctxt_switches:")))
			*nvcsw += strtoll(p + 25, NULL, 10);
		if ((p = strstr(buf, "\nnonvoluntary_ctxt_switches:")))
			*nivcsw += strtoll(p + 28, NULL, 10);
	}
	closedir(d);
	return n ? 0 : -ENOENT;
}

static void read_comm(pid_t pid, char comm[16])
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (read_small(path, buf, sizeof(buf)))
		buf[0] = '\0';
	snprintf(comm, 16, "%s", buf);
}

void ex_task_zombie_read(pid_t pid, struct ex_task_usage *u)
{
	double exec_s;
	long long v, iv;

	memset(u, 0, sizeof(*u));
	if (threads_sum(pid, &u->run_delay_s, &exec_s, &v, &iv))
		u->run_delay_s = 0;
	read_comm(pid, u->comm);
}

int ex_task_live_read(pid_t pid, struct ex_task_usage *u)
{
	char path[64], buf[2048], *p;
	unsigned long long ut, st;
	double exec_s;
	long tck = sysconf(_SC_CLK_TCK);
	int ret;

	memset(u, 0, sizeof(*u));
	ret = threads_sum(pid, &u->run_delay_s, &exec_s, &u->nvcsw, &u->nivcsw);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	ret = read_small(path, buf, sizeof(buf));
	if (ret)
		return ret;
	/* After "(comm)": state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime (fields 3..15). */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -EINVAL;
	/* Ticks give the split; the threads' schedstat the exact total. */
	if (ut + st && tck > 0) {
		u->user_s = exec_s * (double)ut / (double)(ut + st);
		u->sys_s = exec_s - u->user_s;
	} else {
		u->sys_s = exec_s;
	}
	read_comm(pid, u->comm);
	u->valid = 1;
	return 0;
}

int ex_session_read(pid_t sid, struct ex_task_usage *u)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	int found = 0;

	memset(u, 0, sizeof(*u));
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[64], buf[1024], *p;
		struct ex_task_usage one;
		int session;
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		if (read_small(path, buf, sizeof(buf)))
			continue;
		/* After "(comm)": state ppid pgrp session */
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 1, " %*c %*d %*d %d", &session) != 1 || session != (int)sid)
			continue;
		if (ex_task_live_read(pid, &one))
			continue;
		u->user_s += one.user_s;
		u->sys_s += one.sys_s;
		u->run_delay_s += one.run_delay_s;
		u->nvcsw += one.nvcsw;
		u->nivcsw += one.nivcsw;
		if (!found++)
			memcpy(u->comm, one.comm, sizeof(u->comm));
	}
	closedir(d);
	u->valid = found > 0;
	return found ? 0 : -ENOENT;
}

void ex_task_usage_sub(struct ex_task_usage *a, const struct ex_task_usage *b)
{
	a->user_s -= b->user_s;
	a->sys_s -= b->sys_s;
	a->run_delay_s -= b->run_delay_s;
	a->nvcsw -= b->nvcsw;
	a->nivcsw -= b->nivcsw;
}

int ex_pid_file_read(const char *path, pid_t *pid)
{
	char buf[32];
	char *end;
	long v;
	int ret = read_small(path, buf, sizeof(buf));

	if (ret)
		return ret;
	v = strtol(buf, &end, 10);
	if (end == buf || v <= 0)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

void ex_cpu_ticks_free(struct ex_cpu_ticks *t)
{
	free(t->busy);
	free(t->softirq);
	free(t->steal);
	free(t->seen);
	memset(t, 0, sizeof(*t));
}

int ex_cpu_ticks_read(const char *path, struct ex_cpu_ticks *t, char **err)
{
	char line[512];
	FILE *f;

	memset(t, 0, sizeof(*t));
	if (!path)
		path = "/proc/stat";
	f = fopen(path, "re");
	if (!f)
		return ex_errf(err, -errno, "%s: %s", path, strerror(errno));
	t->busy = calloc(EX_MAX_CPUS, sizeof(*t->busy));
	t->softirq = calloc(EX_MAX_CPUS, sizeof(*t->softirq));
	t->steal = calloc(EX_MAX_CPUS, sizeof(*t->steal));
	t->seen = calloc(EX_MAX_CPUS, 1);
	if (!t->busy || !t->softirq || !t->steal || !t->seen) {
		fclose(f);
		ex_cpu_ticks_free(t);
		return ex_errf(err, -ENOMEM, "out of memory");
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = { 0 };
		unsigned cpu;

		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		/* user nice system idle iowait irq softirq steal */
		if (sscanf(line + 3, "%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 8 ||
		    cpu >= EX_MAX_CPUS)
			continue;
		t->busy[cpu] = v[0] + v[1] + v[2] + v[5] + v[6];
		t->softirq[cpu] = v[5] + v[6];
		t->steal[cpu] = v[7];
		t->seen[cpu] = 1;
		if (cpu + 1 > t->n)
			t->n = cpu + 1;
	}
	fclose(f);
	if (!t->n) {
		ex_cpu_ticks_free(t);
		return ex_errf(err, -EINVAL, "%s: no cpuN lines", path);
	}
	return 0;
}

void ex_cpu_ticks_delta(const struct ex_cpu_ticks *a, const struct ex_cpu_ticks *b,
			const cpu_set_t *set, double *busy_s, double *steal_s, double *softirq_s)
{
	double tck = (double)sysconf(_SC_CLK_TCK);
	unsigned long long busy = 0, steal = 0, softirq = 0;
	size_t i;

	for (i = 0; i < a->n && i < b->n; i++) {
		if (!a->seen[i] || !b->seen[i] || (set && !CPU_ISSET(i, set)))
			continue;
		busy += b->busy[i] > a->busy[i] ? b->busy[i] - a->busy[i] : 0;
		steal += b->steal[i] > a->steal[i] ? b->steal[i] - a->steal[i] : 0;
		softirq += b->softirq[i] > a->softirq[i] ? b->softirq[i] - a->softirq[i] : 0;
	}
	if (tck <= 0)
		tck = 100;
	*busy_s = (double)busy / tck;
	*steal_s = (double)steal / tck;
	if (softirq_s)
		*softirq_s = (double)softirq / tck;
}

int ex_cpulist_parse(const char *text, const char *what, cpu_set_t *set, char **err)
{
	const char *s = text;

	CPU_ZERO(set);
	if (!text || !*text)
		return ex_errf(err, -EINVAL, "%s: empty CPU list", what);
	while (*s) {
		char *end;
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*s))
			goto bad;
		lo = hi = strtoul(s, &end, 10);
		s = end;
		if (*s == '-') {
			if (!isdigit((unsigned char)s[1]))
				goto bad;
			hi = strtoul(s + 1, &end, 10);
			s = end;
		}
		if (lo > hi || hi >= CPU_SETSIZE)
			goto bad;
		for (; lo <= hi; lo++)
			CPU_SET(lo, set);
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			goto bad;
	}
	return 0;
bad:
	return ex_errf(err, -EINVAL, "%s: bad CPU list '%s' (want e.g. 0-2,5, ids below %d)",
		       what, text, CPU_SETSIZE);
}

const char *ex_cpulist_format(const cpu_set_t *set, char *buf, size_t size)
{
	size_t len = 0;
	int i = 0;

	buf[0] = '\0';
	while (i < CPU_SETSIZE) {
		int j;

		if (!CPU_ISSET(i, set)) {
			i++;
			continue;
		}
		for (j = i; j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, set); j++)
			;
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, j > i + 0 ? "%s%d-%d" : "%s%d",
						len ? "," : "", i, j);
		i = j + 1;
	}
	return buf;
}

static int online_cpus(const char *root, cpu_set_t *set, char **err)
{
	char path[512], buf[512];
	int ret;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root ? root : "");
	ret = read_small(path, buf, sizeof(buf));
	if (ret)
		return ex_errf(err, ret, "%s: %s", path, strerror(-ret));
	return ex_cpulist_parse(buf, path, set, err);
}

int ex_placement_default(const char *root, struct ex_placement *p, char **err)
{
	cpu_set_t on;
	int i, hi = -1, next = -1, ret = online_cpus(root, &on, err);

	memset(p, 0, sizeof(*p));
	if (ret)
		return ret;
	for (i = CPU_SETSIZE - 1; i >= 0 && next < 0; i--) {
		if (!CPU_ISSET(i, &on))
			continue;
		if (hi < 0)
			hi = i;
		else
			next = i;
	}
	if (hi < 0)
		return ex_errf(err, -EINVAL, "no online CPU");
	p->pinned = 1;
	CPU_SET(hi, &p->server);
	CPU_SET(next >= 0 ? next : hi, &p->client);
	return 0;
}

int ex_placement_parse(const char *root, const char *text, struct ex_placement *p,
		       char **err)
{
	char buf[256], *slash;
	cpu_set_t on;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!text || !strcmp(text, "default"))
		return ex_placement_default(root, p, err);
	if (!strcmp(text, "none"))
		return 0;
	snprintf(buf, sizeof(buf), "%s", text);
	slash = strchr(buf, '/');
	if (!slash || strlen(text) >= sizeof(buf))
		return ex_errf(err, -EINVAL,
			       "--cpus '%s': want default, none or SERVER/CLIENT CPU lists "
			       "(e.g. 1/0)", text);
	*slash = '\0';
	ret = ex_cpulist_parse(buf, "--cpus server", &p->server, err);
	if (!ret)
		ret = ex_cpulist_parse(slash + 1, "--cpus client", &p->client, err);
	if (!ret && !online_cpus(root, &on, NULL)) {
		cpu_set_t both, off;

		CPU_OR(&both, &p->server, &p->client);
		CPU_AND(&off, &both, &on);
		if (!CPU_EQUAL(&off, &both))
			ret = ex_errf(err, -EINVAL, "--cpus '%s': not every CPU is online", text);
	}
	if (ret)
		return ret;
	p->pinned = 1;
	return 0;
}

const char *ex_placement_describe(const struct ex_placement *p, char *buf, size_t size)
{
	char s[256], c[256];

	if (!p || !p->pinned)
		snprintf(buf, size, "unpinned");
	else
		snprintf(buf, size, "server=%s client=%s",
			 ex_cpulist_format(&p->server, s, sizeof(s)),
			 ex_cpulist_format(&p->client, c, sizeof(c)));
	return buf;
}

static const char *kconfig_scan(FILE *f, const char *name)
{
	size_t len = strlen(name);
	char line[256];

	if (!f)
		return "unknown";
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == '=')
			return line[len + 1] == 'y' ? "y" : line[len + 1] == 'm' ? "m" : "n";
	return "n";
}

/*
 * CONFIG_X of the running kernel: "y", "m", "n" or "unknown". From
 * /proc/config.gz (zcat, by argv), $KSFTMETRIC_KCONFIG, or @root/config
 * (fixtures).
 */
static const char *kconfig(const char *root, const char *name)
{
	const char *env = getenv("KSFTMETRIC_KCONFIG"), *res;
	char path[512];
	FILE *f;

	if (root || (env && *env)) {
		if (root)
			snprintf(path, sizeof(path), "%s/config", root);
		else
			snprintf(path, sizeof(path), "%s", env);
		f = fopen(path, "re");
		res = kconfig_scan(f, name);
		if (f)
			fclose(f);
		return res;
	}
	if (!access("/proc/config.gz", R_OK)) {
		const char *const argv[] = { "zcat", "/proc/config.gz", NULL };
		struct exproc_result r;

		if (exproc_run(NULL, argv, 5000, &r, NULL))
			return "unknown";
		f = r.out_len ? fmemopen(r.out, r.out_len, "r") : NULL;
		res = kconfig_scan(f, name);
		if (f)
			fclose(f);
		exproc_result_free(&r);
		return res;
	}
	{
		struct utsname u;

		if (uname(&u))
			return "unknown";
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = fopen(path, "re");
		res = kconfig_scan(f, name);
		if (f)
			fclose(f);
		return res;
	}
}

static void sysfs_value(const char *root, const char *rel, char *out, size_t size,
			const char *fallback)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", root ? root : "", rel);
	if (read_small(path, out, size) || !*out)
		snprintf(out, size, "%s", fallback);
}

/* mitigations=... on the kernel command line, else "default". */
static void mitigations(const char *root, char *out, size_t size)
{
	char cmdline[4096], *p;

	sysfs_value(root, "/proc/cmdline", cmdline, sizeof(cmdline), "");
	p = strstr(cmdline, "mitigations=");
	if (!p) {
		snprintf(out, size, "default");
		return;
	}
	p += strlen("mitigations=");
	snprintf(out, size, "%.*s", (int)strcspn(p, " "), p);
}

static void turbo(const char *root, char *out, size_t size)
{
	char v[32];

	sysfs_value(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", v, sizeof(v), "");
	if (*v) {
		snprintf(out, size, "%s", strcmp(v, "0") ? "off" : "on");
		return;
	}
	sysfs_value(root, "/sys/devices/system/cpu/cpufreq/boost", v, sizeof(v), "");
	snprintf(out, size, "%s", *v ? strcmp(v, "0") ? "on" : "off" : "unknown");
}

/* Driver and firmware of a real NIC (ETHTOOL_GDRVINFO); 0 if readable. */
static int nic_drvinfo(const char *ifname, char *drv, size_t dsize, char *fw, size_t fsize)
{
	struct ethtool_drvinfo info;
	struct ifreq ifr;
	int fd, ret;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GDRVINFO;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&info;
	ret = ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	snprintf(drv, dsize, "%s", info.driver[0] ? info.driver : "unknown");
	snprintf(fw, fsize, "%s", info.fw_version[0] ? info.fw_version : "none");
	return 0;
}

int ex_cost_context(const char *root, const struct ex_placement *p, const char *ifname)
{
	char buf[512], path[512], v[128], fw[128];
	int ret;

	ret = ksft_metric_context_set("placement", ex_placement_describe(p, buf, sizeof(buf)));
	if (!ret)
		ret = ksft_metric_context_set("irq_time_accounting",
					      kconfig(root, "CONFIG_IRQ_TIME_ACCOUNTING"));
	sysfs_value(root, "/sys/devices/system/cpu/smt/control", v, sizeof(v), "unknown");
	if (!ret)
		ret = ksft_metric_context_set("smt", v);
	sysfs_value(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", v, sizeof(v),
		    "none");
	if (!ret)
		ret = ksft_metric_context_set("governor", v);
	turbo(root, v, sizeof(v));
	if (!ret)
		ret = ksft_metric_context_set("turbo", v);
	mitigations(root, v, sizeof(v));
	if (!ret)
		ret = ksft_metric_context_set("mitigations", v);
	/* Instructions per byte of the test's processes, or why not. */
	if (!ret && ex_task_counters_probe(v, sizeof(v))) {
		snprintf(path, sizeof(path), "none (%s)", v);
		ret = ksft_metric_context_set("own_instructions", path);
	} else if (!ret) {
		ret = ksft_metric_context_set("own_instructions", "user and kernel");
	}
	if (ret || !ifname || !*ifname)
		return ret;
	snprintf(path, sizeof(path), "/sys/class/net/%s/threaded", ifname);
	sysfs_value(root, path, v, sizeof(v), "unknown");
	ret = ksft_metric_context_set("threaded_napi", !strcmp(v, "0") ? "off"
				      : !strcmp(v, "1") ? "on" : v);
	snprintf(path, sizeof(path), "%s/sys/class/net/%s/device", root ? root : "", ifname);
	if (ret || access(path, F_OK))
		return ret;	/* veth, lo: no device, nothing more to say */
	if (root || nic_drvinfo(ifname, v, sizeof(v), fw, sizeof(fw)))
		snprintf(v, sizeof(v), "unknown"), snprintf(fw, sizeof(fw), "unknown");
	ret = ksft_metric_context_set("nic_driver", v);
	if (!ret)
		ret = ksft_metric_context_set("nic_firmware", fw);
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", ifname);
	sysfs_value(root, path, v, sizeof(v), "unknown");
	if (!ret)
		ret = ksft_metric_context_set("nic_speed", v);
	return ret;
}

int ex_nic_irqs_pin(const char *root, const char *ifname, const cpu_set_t *cpus,
		    int *n_irqs, char **err)
{
	char path[512], list[1024];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	*n_irqs = 0;
	snprintf(path, sizeof(path), "%s/sys/class/net/%s/device/msi_irqs", root ? root : "",
		 ifname);
	d = opendir(path);
	if (!d)
		return 0;	/* no device or no MSI: nothing to pin */
	ex_cpulist_format(cpus, list, sizeof(list));
	while (!ret && (de = readdir(d))) {
		int fd;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/proc/irq/%.20s/smp_affinity_list",
			 root ? root : "", de->d_name);
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0 || write(fd, list, strlen(list)) != (ssize_t)strlen(list))
			ret = ex_errf(err, -errno, "%s: %s", path, strerror(errno));
		else
			(*n_irqs)++;
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
	return ret;
}

int ex_nic_irqs_context(const char *ifname, const struct ex_placement *p, char *desc,
			size_t size, char **err)
{
	char cpus[128];
	int n = 0, ret;

	if (!p->pinned) {
		snprintf(desc, size, "not pinned (--cpus none)");
	} else {
		ret = ex_nic_irqs_pin(NULL, ifname, &p->server, &n, err);
		if (ret)
			return ret;
		if (n)
			snprintf(desc, size, "%d on %s", n,
				 ex_cpulist_format(&p->server, cpus, sizeof(cpus)));
		else
			snprintf(desc, size, "none (no MSI interrupts)");
	}
	ret = ksft_metric_context_set("nic_irqs", desc);
	return ret ? ex_errf(err, ret, "context: %s", ksft_metric_errmsg()) : 0;
}
