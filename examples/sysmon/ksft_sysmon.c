// SPDX-License-Identifier: GPL-2.0
/*
 * ksft-sysmon: run any command as one KTAP test case under the system
 * monitor, so an out-of-tree benchmark gets CPU and NIC metrics for free.
 * The command's output is relayed as "# " diagnostics; its exit status is
 * the result (0 ok, 4 = KSFT_SKIP, anything else not ok).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ksftmetric/ksftmetric.h>

#include "sysmon.h"

#define KSFT_SKIP 4

extern char **environ;

static volatile sig_atomic_t child_pid;

static void usage(FILE *f)
{
	fputs("usage: ksft-sysmon [--ifname IF] [--remote CMD... [--remote-ifname IF]]\n"
	      "                   [--interval SECONDS] [--name NAME] [--timeout-ms MS]\n"
	      "                   [--root DIR] [--remote-root DIR] -- COMMAND [ARG...]\n"
	      "\n"
	      "Runs COMMAND as KTAP test case 1 while sampling per-CPU time and NIC drop\n"
	      "counters locally and, with --remote, on the endpoint reached through the\n"
	      "command prefix CMD... (e.g. --remote ip netns exec NS, --remote ssh HOST).\n"
	      "--remote takes every word up to the next ksft-sysmon option or --.\n"
	      "--root/--remote-root read /proc and /sys below a fixture directory.\n", f);
}

static const char *const value_opts[] = {
	"--ifname", "--remote-ifname", "--interval", "--name", "--timeout-ms", "--root",
	"--remote-root", NULL
};

/* Is @arg one of our options (ends a --remote word list)? */
static int is_option(const char *arg)
{
	int i;

	if (!strcmp(arg, "--") || !strcmp(arg, "--remote") || !strcmp(arg, "--help"))
		return 1;
	for (i = 0; value_opts[i]; i++) {
		size_t n = strlen(value_opts[i]);

		if (!strncmp(arg, value_opts[i], n) && (!arg[n] || arg[n] == '='))
			return 1;
	}
	return 0;
}

struct cli {
	struct ksft_sysmon_opts o;
	const char **remote;
	const char *name;
	char **command;
};

static int parse_args(int argc, char **argv, struct cli *c)
{
	int i = 1, n = 0, j;

	c->remote = calloc((size_t)argc + 1, sizeof(*c->remote));
	if (!c->remote)
		return -1;
	while (i < argc) {
		const char *a = argv[i], *val = NULL;
		size_t alen;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "--remote")) {
			for (i++; i < argc && !is_option(argv[i]); i++)
				c->remote[n++] = argv[i];
			if (!n) {
				fprintf(stderr, "ksft-sysmon: --remote needs a command prefix\n");
				return -1;
			}
			c->o.remote_argv = c->remote;
			continue;
		}
		for (j = 0; value_opts[j]; j++) {
			alen = strlen(value_opts[j]);
			if (!strncmp(a, value_opts[j], alen) && (!a[alen] || a[alen] == '='))
				break;
		}
		if (!value_opts[j]) {
			fprintf(stderr, "ksft-sysmon: unknown option %s (COMMAND goes after --)\n", a);
			return -1;
		}
		if (a[alen] == '=') {
			val = a + alen + 1;
			i++;
		} else if (i + 1 < argc) {
			val = argv[i + 1];
			i += 2;
		} else {
			fprintf(stderr, "ksft-sysmon: %s needs a value\n", a);
			return -1;
		}
		switch (j) {
		case 0: c->o.ifname = val; break;
		case 1: c->o.remote_ifname = val; break;
		case 2: {
			char *end;

			c->o.interval = strtod(val, &end);
			if (end == val || *end || c->o.interval <= 0) {
				fprintf(stderr, "ksft-sysmon: bad --interval %s\n", val);
				return -1;
			}
			break;
		}
		case 3: c->name = val; break;
		case 4: c->o.remote_timeout_ms = atoi(val); break;
		case 5: c->o.root = val; break;
		case 6: c->o.remote_root = val; break;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "ksft-sysmon: no COMMAND (give it after --)\n");
		return -1;
	}
	c->command = argv + i;
	return 0;
}

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

/* Print the command's output as "# " lines until EOF. */
static void relay(int fd)
{
	char buf[8192];
	size_t len = 0;

	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - len);
		size_t start = 0, i;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		for (i = 0; i < len; i++) {
			if (buf[i] != '\n')
				continue;
			printf("# %.*s\n", (int)(i - start), buf + start);
			start = i + 1;
		}
		if (start == 0 && len == sizeof(buf)) {	/* an over-long line: cut it */
			printf("# %.*s\n", (int)len, buf);
			start = len;
		}
		memmove(buf, buf + start, len - start);
		len -= start;
		fflush(stdout);
	}
	if (len)
		printf("# %.*s\n", (int)len, buf);
	fflush(stdout);
}

/* Run the command with its stdout+stderr relayed; @return its wait status or -1. */
static int run_command(char **command)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	int p[2], status, err;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		printf("# ksft-sysmon: pipe: %s\n", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	err = posix_spawnp(&pid, command[0], &fa, &attr, command, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(p[1]);
	if (err) {
		close(p[0]);
		printf("# ksft-sysmon: cannot run %s: %s\n", command[0], strerror(err));
		return -1;
	}
	child_pid = pid;
	relay(p[0]);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			printf("# ksft-sysmon: waitpid: %s\n", strerror(errno));
			child_pid = 0;
			return -1;
		}
	}
	child_pid = 0;
	return status;
}

static const char *test_name(const struct cli *c)
{
	const char *n = c->name;

	if (!n) {
		n = strrchr(c->command[0], '/');
		n = n ? n + 1 : c->command[0];
	}
	return n;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = forward_signal };
	struct cli c = { .o = KSFT_SYSMON_OPTS_INIT };
	struct ksft_sysmon *mon;
	int status, ok, skip, err;
	char name[256], *q;

	if (parse_args(argc, argv, &c)) {
		usage(stderr);
		free(c.remote);
		return 2;
	}
	snprintf(name, sizeof(name), "%s", test_name(&c));
	for (q = name; *q; q++)	/* keep the result line parseable */
		if (*q == '#' || *q == '\n' || *q == '\r')
			*q = '_';
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	printf("TAP version 13\n1..1\n");
	fflush(stdout);
	if (ksft_metric_case_begin() < 0) {
		printf("# ksft-sysmon: %s\n", ksft_metric_errmsg());
		return 1;
	}
	mon = ksft_sysmon_start(&c.o);
	if (!mon) {
		printf("# ksft-sysmon: cannot start the monitor: %s\n", ksft_sysmon_errmsg());
		ksft_metric_case_end();
		printf("not ok 1 %s # monitor failed to start\n", name);
		printf("# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0\n");
		free(c.remote);
		return 1;
	}
	status = run_command(c.command);
	err = ksft_sysmon_stop(mon);
	if (err)
		printf("# ksft-sysmon: monitor failed: %s\n", ksft_sysmon_errmsg());
	if (ksft_metric_case_end() < 0)
		printf("# ksft-sysmon: writing metrics: %s\n", ksft_metric_errmsg());

	skip = status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP;
	ok = status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && !err;
	if (skip)
		printf("ok 1 %s # SKIP\n", name);
	else if (ok)
		printf("ok 1 %s\n", name);
	else if (status >= 0 && WIFSIGNALED(status))
		printf("not ok 1 %s # killed by signal %d\n", name, WTERMSIG(status));
	else if (status >= 0 && WEXITSTATUS(status))
		printf("not ok 1 %s # exit status %d\n", name, WEXITSTATUS(status));
	else
		printf("not ok 1 %s\n", name);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", ok && !skip,
	       !ok && !skip, skip);
	fflush(stdout);
	free(c.remote);
	return skip ? KSFT_SKIP : ok ? 0 : 1;
}
