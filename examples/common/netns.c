// SPDX-License-Identifier: GPL-2.0
/* Two namespaces + veth for the runner tests and the main job (see netns.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netns.h"
#include "proc.h"

#define NS_PREFIX "ksftm-ns"

static char ns_a[64], ns_b[64];
static volatile sig_atomic_t child_pid, got_signal;

static int ip(const char *const *argv)
{
	struct exproc_result r;
	char *err = NULL;
	int ret = exproc_run(NULL, argv, 20000, &r, &err);

	if (ret) {
		fprintf(stderr, "netns: %s\n", err ? err : "cannot run ip");
		free(err);
		return -1;
	}
	ret = r.timed_out || exproc_exit_code(r.status) != 0 ? -1 : 0;
	if (ret) {
		char *cmd = exproc_cmdline(NULL, argv);

		fprintf(stderr, "netns: '%s' failed: %s%s", cmd ? cmd : "ip", r.errout, r.out);
		free(cmd);
	}
	exproc_result_free(&r);
	return ret;
}

static void del_ns(const char *name)
{
	const char *argv[] = { "ip", "netns", "del", name, NULL };

	ip(argv);
}

/*
 * Who created a namespace: "PID STARTTIME PIDNS". The start time tells a
 * reused pid apart; a pid of another pid namespace cannot be checked.
 */
static int owner_id(pid_t pid, char *buf, size_t size)
{
	char path[64], stat[1024], pidns[64], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	stat[n] = '\0';
	/* Field 22, counted after the ")" that ends the command name. */
	p = strrchr(stat, ')');
	for (i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &start) != 1)
		return -1;
	n = readlink("/proc/self/ns/pid", pidns, sizeof(pidns) - 1);
	if (n <= 0)
		return -1;
	pidns[n] = '\0';
	snprintf(buf, size, "%d %llu %s\n", (int)pid, start, pidns);
	return 0;
}

/* Record that this process creates @name, before it does. */
static int register_ns(const char *name)
{
	char path[512], id[160];
	int fd, ok;

	if (owner_id(getpid(), id, sizeof(id)))
		return -1;
	if (mkdir(NETNS_REGISTRY, 0700) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), NETNS_REGISTRY "/%s", name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	ok = write(fd, id, strlen(id)) == (ssize_t)strlen(id);
	close(fd);
	return ok ? 0 : -1;
}

static void unregister_ns(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), NETNS_REGISTRY "/%s", name);
	unlink(path);
}

/*
 * Namespaces of earlier runs that were SIGKILLed: only those this program
 * registered, of an owner that is gone (same pid namespace, and its pid is
 * free or now names a process started at another time). A namespace that
 * merely looks like ours belongs to someone else and is left alone.
 */
static void del_stale(void)
{
	DIR *d = opendir(NETNS_REGISTRY);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[512], rec[160], now[160], pidns[64];
		unsigned long long start;
		ssize_t n;
		int fd, pid;

		if (strncmp(e->d_name, NS_PREFIX, strlen(NS_PREFIX)))
			continue;
		snprintf(path, sizeof(path), NETNS_REGISTRY "/%s", e->d_name);
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, rec, sizeof(rec) - 1);
		close(fd);
		if (n <= 0)
			continue;
		rec[n] = '\0';
		if (sscanf(rec, "%d %llu %63s", &pid, &start, pidns) != 3 ||
		    owner_id(getpid(), now, sizeof(now)) || !strstr(now, pidns))
			continue;
		if (!owner_id(pid, now, sizeof(now)) && !strcmp(now, rec))
			continue;	/* its creator still runs */
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		if (!access(path, F_OK))	/* killed before it was created? */
			del_ns(e->d_name);
		unregister_ns(e->d_name);
	}
	closedir(d);
}

static int setup(void)
{
	char va[16], vb[16];
	unsigned int token;
	int pid = (int)getpid();
	const char *const cmds[][16] = {
		{ "ip", "netns", "add", ns_a, NULL },
		{ "ip", "netns", "add", ns_b, NULL },
		{ "ip", "link", "add", va, "netns", ns_a, "type", "veth",
		  "peer", "name", vb, "netns", ns_b, NULL },
		{ "ip", "-n", ns_a, "addr", "add", NETNS_ADDR_A "/24", "dev", va, NULL },
		{ "ip", "-n", ns_a, "addr", "add", NETNS_ADDR_A2 "/24", "dev", va, NULL },
		{ "ip", "-n", ns_b, "addr", "add", NETNS_ADDR_B "/24", "dev", vb, NULL },
		{ "ip", "-n", ns_a, "addr", "add", NETNS_ADDR6_A "/64", "dev", va,
		  "nodad", NULL },
		{ "ip", "-n", ns_b, "addr", "add", NETNS_ADDR6_B "/64", "dev", vb,
		  "nodad", NULL },
		{ "ip", "-n", ns_a, "link", "set", "lo", "up", NULL },
		{ "ip", "-n", ns_b, "link", "set", "lo", "up", NULL },
		{ "ip", "-n", ns_a, "link", "set", va, "up", NULL },
		{ "ip", "-n", ns_b, "link", "set", vb, "up", NULL },
	};
	size_t i;

	/* The token keeps names unique across pid namespaces too. */
	if (getrandom(&token, sizeof(token), 0) != (ssize_t)sizeof(token))
		token = (unsigned int)ex_monotonic_ms() ^ ((unsigned int)pid << 12);
	snprintf(ns_a, sizeof(ns_a), NS_PREFIX "a-%d-%08x", pid, token);
	snprintf(ns_b, sizeof(ns_b), NS_PREFIX "b-%d-%08x", pid, token);
	snprintf(va, sizeof(va), "ksa%d", pid % 10000000);
	snprintf(vb, sizeof(vb), "ksb%d", pid % 10000000);
	if (register_ns(ns_a) || register_ns(ns_b)) {
		fprintf(stderr, "netns: cannot register in %s: %s\n", NETNS_REGISTRY,
			strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (ip(cmds[i]))
			return -1;
	setenv(NETNS_ENV_LOCAL_IF, va, 1);
	setenv(NETNS_ENV_REMOTE_IF, vb, 1);
	return 0;
}

static void forward(int sig)
{
	got_signal = sig;
	if (child_pid > 0)
		kill(child_pid, sig);
}

const char *const *netns_remote_prefix(void)
{
	static const char *prefix[5];

	prefix[0] = "ip";
	prefix[1] = "netns";
	prefix[2] = "exec";
	prefix[3] = getenv(NETNS_ENV_REMOTE);
	prefix[4] = NULL;
	return prefix;
}

int netns_main(int argc, char **argv, const char *const *needed)
{
	struct sigaction sa;
	char self[4096];
	ssize_t n;
	const char **av;
	int status = 0, rc, i;
	pid_t pid, parent;

	(void)argc;
	if (getenv(NETNS_ENV_REMOTE))
		return -1;
	if (geteuid() != 0) {
		printf("SKIP: network namespaces need root\n");
		return 77;
	}
	for (i = 0; needed && needed[i]; i++)
		if (!exproc_find_program(needed[i])) {
			printf("SKIP: %s not found\n", needed[i]);
			return 77;
		}
	if (!exproc_find_program("ip")) {
		printf("SKIP: ip (iproute2) not found\n");
		return 77;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	del_stale();
	if (setup()) {
		rc = 1;
		goto out;
	}
	setenv(NETNS_ENV_REMOTE, ns_b, 1);
	av = calloc((size_t)argc + 5, sizeof(*av));
	if (!av) {
		rc = 1;
		goto out;
	}
	av[0] = "ip", av[1] = "netns", av[2] = "exec", av[3] = ns_a;
	for (i = 0; i < argc; i++)
		av[4 + i] = argv[i];
	/* Our own binary by absolute path: argv[0] may be a bare name. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		av[4] = self;
	}
	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid == 0) {
		/* Check's SIGTERM handler kills its whole group: keep it to the
		 * child's, we forward signals ourselves. */
		setpgid(0, 0);
		/* Killed with SIGKILL, we cannot forward: let the kernel. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		execvp("ip", (char *const *)av);
		_exit(127);
	}
	free(av);
	child_pid = pid;
	if (got_signal && pid > 0)
		kill(pid, got_signal);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	rc = pid < 0 ? 1 : WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	if (got_signal)
		rc = 1;
out:
	if (ns_a[0]) {
		del_ns(ns_a);
		unregister_ns(ns_a);
	}
	if (ns_b[0]) {
		del_ns(ns_b);
		unregister_ns(ns_b);
	}
	return rc;
}
