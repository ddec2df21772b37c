// SPDX-License-Identifier: GPL-2.0
/*
 * Process helpers for the example runners: spawn by argv into its own
 * process group, wait with a timeout, kill the group, wait for a port.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "sh_quote.h"

#define OUTPUT_MAX (16u << 20)

int ex_errf(char **err, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return ret;
	free(*err);
	*err = NULL;
	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) < 0)
		*err = NULL;
	va_end(ap);
	return ret;
}

long long ex_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static size_t words(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
#else
	(void)pid;
	return -1;
#endif
}

/* Runs in the forked child: only async-signal-safe calls until exec. */
static void child_exec(char *const *av, int in_fd, int out_fd, int err_fd,
		       int report_fd, pid_t parent, const cpu_set_t *cpus)
{
	sigset_t none;
	int e, devnull;

	setpgid(0, 0);
	/* Do not outlive a test binary killed by its harness. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* Inherited through exec and through a prefix that execs
	 * (ip netns exec, sh -s's exec): the benchmark runs there. */
	if (cpus && sched_setaffinity(0, sizeof(*cpus), cpus))
		goto fail;
	devnull = in_fd >= 0 ? in_fd : open("/dev/null", O_RDONLY);
	if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out_fd, 1) < 0 ||
	    dup2(err_fd, 2) < 0)
		goto fail;
	execvp(av[0], av);
fail:
	e = errno;
	if (write(report_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * The command as a script for "PREFIX sh -s": every word single-quoted, so
 * that a transport that re-parses its words (ssh) runs exactly @argv. The
 * script is stdin, in a memory file (nothing to block on).
 */
static int remote_script_fd(const char *const *argv)
{
	char *script = sh_quote_argv(argv);
	size_t len, done = 0;
	int fd;

	if (!script)
		return -ENOMEM;
	fd = memfd_create("exproc-stdin", MFD_CLOEXEC);
	if (fd < 0) {
		free(script);
		return -errno;
	}
	len = strlen(script);
	while (done < len) {
		ssize_t n = write(fd, script + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			free(script);
			close(fd);
			return -e;
		}
		done += (size_t)n;
	}
	free(script);
	if (lseek(fd, 0, SEEK_SET) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

int exproc_spawn(struct exproc *p, const char *const *prefix,
		 const char *const *argv, char **err)
{
	return exproc_spawn_on(p, prefix, argv, NULL, err);
}

int exproc_spawn_on(struct exproc *p, const char *const *prefix,
		    const char *const *argv, const cpu_set_t *cpus, char **err)
{
	static const char *const remote_sh[] = { "sh", "-s", NULL };
	size_t np = words(prefix), na = words(argv), i;
	int report[2] = { -1, -1 }, child_errno = 0, ret, in_fd = -1;
	const char *const *tail = argv;
	char **av;
	pid_t pid, self = getpid();
	ssize_t n;

	memset(p, 0, sizeof(*p));
	p->pidfd = p->out_fd = p->err_fd = -1;
	if (!na)
		return ex_errf(err, -EINVAL, "empty command");
	if (np) {
		in_fd = remote_script_fd(argv);
		if (in_fd < 0)
			return ex_errf(err, in_fd, "cannot set up %s: %s", argv[0],
				       strerror(-in_fd));
		tail = remote_sh;
		na = 2;
	}
	av = calloc(np + na + 1, sizeof(*av));
	if (!av) {
		if (in_fd >= 0)
			close(in_fd);
		return ex_errf(err, -ENOMEM, "out of memory");
	}
	for (i = 0; i < np; i++)
		av[i] = (char *)prefix[i];
	for (i = 0; i < na; i++)
		av[np + i] = (char *)tail[i];

	p->out_fd = memfd_create("exproc-stdout", MFD_CLOEXEC);
	p->err_fd = memfd_create("exproc-stderr", MFD_CLOEXEC);
	if (p->out_fd < 0 || p->err_fd < 0 || pipe2(report, O_CLOEXEC)) {
		ret = -errno;
		ex_errf(err, ret, "cannot set up %s: %s", av[0], strerror(errno));
		goto fail;
	}
	fflush(NULL);	/* buffered output must not be written twice */
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		ex_errf(err, ret, "cannot fork for %s: %s", av[0], strerror(errno));
		goto fail;
	}
	if (pid == 0)
		child_exec(av, in_fd, p->out_fd, p->err_fd, report[1], self, cpus);
	setpgid(pid, pid);	/* also here: no window where a kill misses */
	close(report[1]);
	report[1] = -1;
	do
		n = read(report[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	report[0] = -1;
	if (in_fd >= 0)
		close(in_fd);
	in_fd = -1;
	p->pid = pid;
	p->pidfd = open_pidfd(pid);
	if (n == (ssize_t)sizeof(child_errno)) {
		exproc_wait(p, -1);
		ret = -child_errno;
		ex_errf(err, ret, "cannot run %s: %s", av[0], strerror(child_errno));
		goto fail;
	}
	free(av);
	return 0;
fail:
	if (report[0] >= 0)
		close(report[0]);
	if (report[1] >= 0)
		close(report[1]);
	if (in_fd >= 0)
		close(in_fd);
	free(av);
	exproc_close(p);
	return ret;
}

/* Has @p exited? Leaves it a zombie so that its group id stays reserved. */
static int exited(struct exproc *p)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT))
		return errno == ECHILD;
	return si.si_pid != 0;
}

/* Wait until @p has exited, without reaping it: 0 or -ETIMEDOUT. */
static int wait_exit(struct exproc *p, int timeout_ms)
{
	long long deadline = ex_monotonic_ms() + timeout_ms;

	for (;;) {
		long long left = timeout_ms < 0 ? 1000 : deadline - ex_monotonic_ms();
		int slice;

		if (exited(p))
			return 0;
		if (left <= 0)
			return -ETIMEDOUT;
		slice = left > 1000 ? 1000 : (int)left;
		if (p->pidfd >= 0) {
			struct pollfd pfd = { p->pidfd, POLLIN, 0 };

			poll(&pfd, 1, slice);
		} else {
			sleep_ms(slice < 10 ? slice : 10);
		}
	}
}

/* Called once @p has exited (a zombie): its accounting, then reaped. */
static void reap(struct exproc *p)
{
	struct rusage ru;
	int status = 0;

	ex_task_zombie_read(p->pid, &p->usage);
	memset(&ru, 0, sizeof(ru));
	while (wait4(p->pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	p->usage.user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	p->usage.sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	p->usage.nvcsw = ru.ru_nvcsw;
	p->usage.nivcsw = ru.ru_nivcsw;
	p->usage.valid = 1;
	p->status = status;
	p->reaped = 1;
	p->pid = 0;
}

/*
 * A normal exit leaves the rest of the group alone: a daemon's first child
 * may not have called setsid() yet when its parent exits (ccan daemonize(),
 * which kperf-server uses, exits the parent right after fork()).
 */
int exproc_wait(struct exproc *p, int timeout_ms)
{
	if (p->reaped)
		return 0;
	if (wait_exit(p, timeout_ms))
		return -ETIMEDOUT;
	reap(p);
	return 0;
}

void exproc_kill(struct exproc *p)
{
	if (!p->pid || p->reaped)
		return;
	kill(-p->pid, SIGTERM);
	wait_exit(p, EXPROC_KILL_GRACE_MS);
	/* Stragglers of the group too; the unreaped leader keeps its id ours. */
	kill(-p->pid, SIGKILL);
	wait_exit(p, -1);
	reap(p);
}

void exproc_close(struct exproc *p)
{
	if (!p)
		return;
	exproc_kill(p);
	if (p->pidfd >= 0)
		close(p->pidfd);
	if (p->out_fd >= 0)
		close(p->out_fd);
	if (p->err_fd >= 0)
		close(p->err_fd);
	p->pidfd = p->out_fd = p->err_fd = -1;
}

char *exproc_output(const struct exproc *p, int which, size_t *len)
{
	int fd = which == 2 ? p->err_fd : p->out_fd;
	struct stat st;
	size_t size = 0, got = 0;
	char *buf;

	if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0)
		size = (size_t)st.st_size > OUTPUT_MAX ? OUTPUT_MAX : (size_t)st.st_size;
	buf = malloc(size + 1);
	if (!buf)
		return NULL;
	while (got < size) {
		ssize_t n = pread(fd, buf + got, size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	if (len)
		*len = got;
	return buf;
}

const char *exproc_status_str(int status)
{
	static _Thread_local char buf[64];

	if (WIFEXITED(status))
		snprintf(buf, sizeof(buf), "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, sizeof(buf), "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, sizeof(buf), "ended with wait status %#x", status);
	return buf;
}

int exproc_exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int needs_quotes(const char *w)
{
	if (!*w)
		return 1;
	for (; *w; w++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_./:=,@%+", *w))
			return 1;
	return 0;
}

char *exproc_cmdline(const char *const *prefix, const char *const *argv)
{
	const char *const *parts[2] = { prefix, argv };
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int first = 1, k;

	if (!f)
		return NULL;
	for (k = 0; k < 2; k++) {
		const char *const *v;

		for (v = parts[k]; v && *v; v++, first = 0) {
			if (!first)
				fputc(' ', f);
			if (needs_quotes(*v))
				sh_quote(f, *v);
			else
				fputs(*v, f);
		}
	}
	if (fclose(f))
		return NULL;
	return buf;
}

int exproc_run(const char *const *prefix, const char *const *argv,
	       int timeout_ms, struct exproc_result *r, char **err)
{
	return exproc_run_on(prefix, argv, NULL, timeout_ms, r, err);
}

int exproc_run_on(const char *const *prefix, const char *const *argv,
		  const cpu_set_t *cpus, int timeout_ms, struct exproc_result *r,
		  char **err)
{
	struct exproc p;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = exproc_spawn_on(&p, prefix, argv, cpus, err);
	if (ret)
		return ret;
	if (wait_exit(&p, timeout_ms) == -ETIMEDOUT) {
		r->timed_out = 1;
		kill(-p.pid, SIGKILL);
		wait_exit(&p, -1);
		kill(-p.pid, SIGKILL);	/* what the leader started meanwhile */
	}
	reap(&p);
	r->status = p.status;
	r->usage = p.usage;
	r->out = exproc_output(&p, 1, &r->out_len);
	r->errout = exproc_output(&p, 2, &r->err_len);
	exproc_close(&p);
	if (!r->out || !r->errout) {
		exproc_result_free(r);
		return ex_errf(err, -ENOMEM, "out of memory");
	}
	return 0;
}

void exproc_result_free(struct exproc_result *r)
{
	if (!r)
		return;
	free(r->out);
	free(r->errout);
	r->out = r->errout = NULL;
	r->out_len = r->err_len = 0;
}

const char *exproc_tail(const char *text, size_t len, size_t max)
{
	const char *start, *nl;

	if (len <= max)
		return text;
	start = text + (len - max);
	nl = memchr(start, '\n', (size_t)(text + len - start));
	return nl && nl + 1 < text + len ? nl + 1 : start;
}

int exproc_find_program(const char *name)
{
	const char *path;
	char buf[4096];

	if (!name || !*name)
		return 0;
	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t dirlen = end ? (size_t)(end - path) : strlen(path);
		struct stat st;

		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)dirlen,
			     dirlen ? path : ".", name) < (int)sizeof(buf) &&
		    !stat(buf, &st) && S_ISREG(st.st_mode) && !access(buf, X_OK))
			return 1;
		if (!end)
			break;
		path = end + 1;
	}
	return 0;
}

/* Scan /proc/net/tcp{,6} text for a socket in state LISTEN (0A) on @port. */
static int text_has_listener(const char *text, int port)
{
	const char *line = text;

	while (line && *line) {
		unsigned int lport, state;
		char local[64];

		if (sscanf(line, " %*[0-9]: %63s %*s %x", local, &state) == 2) {
			const char *colon = strrchr(local, ':');

			if (colon && sscanf(colon + 1, "%x", &lport) == 1 &&
			    (int)lport == port && state == 0x0A)
				return 1;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

static int read_file_text(const char *path, char **text)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&buf, &size);
	char chunk[8192];
	size_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	ssize_t got;

	if (!mem) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	if (fd < 0)
		ret = -errno;
	while (fd >= 0 && (got = read(fd, chunk, sizeof(chunk))) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		n = (size_t)got;
		fwrite(chunk, 1, n, mem);
	}
	if (fd >= 0)
		close(fd);
	if (fclose(mem)) {
		free(buf);
		return -ENOMEM;
	}
	*text = buf;
	return ret;
}

int exproc_tcp_listening(const char *const *prefix, int port, char **err)
{
	static const char *const cat[] = { "cat", "/proc/net/tcp", "/proc/net/tcp6", NULL };
	struct exproc_result r;
	int found, ret;

	if (!words(prefix)) {
		const char *files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
		int i, readable = 0;

		for (i = 0, found = 0; i < 2 && !found; i++) {
			char *text = NULL;

			ret = read_file_text(files[i], &text);
			if (!ret) {
				readable++;
				found = text_has_listener(text, port);
			}
			free(text);
		}
		if (!found && !readable)
			return ex_errf(err, -EIO, "cannot read /proc/net/tcp: %s",
				       strerror(-ret));
		return found;
	}
	/* cat exits 1 if IPv6 is off; the IPv4 table is still there. */
	ret = exproc_run(prefix, cat, 10000, &r, err);
	if (ret)
		return ret;
	found = text_has_listener(r.out, port);
	if (!found && (r.timed_out || !strstr(r.out, "local_address"))) {
		char *cmd = exproc_cmdline(prefix, cat);

		ret = ex_errf(err, -EIO, "cannot read the TCP table with '%s': %s\n%s",
			      cmd ? cmd : "cat", r.timed_out ? "timed out" :
			      exproc_status_str(r.status),
			      exproc_tail(r.errout, r.err_len, 2000));
		free(cmd);
		exproc_result_free(&r);
		return ret;
	}
	exproc_result_free(&r);
	return found;
}

int exproc_wait_listen(const char *const *prefix, int port, int timeout_ms,
		       struct exproc *watch, char **err)
{
	long long deadline = ex_monotonic_ms() + timeout_ms;
	int ret;

	for (;;) {
		ret = exproc_tcp_listening(prefix, port, err);
		if (ret < 0)
			return ret;
		if (ret > 0)
			return 0;
		if (watch && exproc_wait(watch, 0) == 0)
			return ex_errf(err, -ECHILD, "%s before TCP port %d listened",
				       exproc_status_str(watch->status), port);
		if (ex_monotonic_ms() >= deadline)
			return ex_errf(err, -ETIMEDOUT,
				       "nothing listens on TCP port %d after %d ms",
				       port, timeout_ms);
		sleep_ms(20);
	}
}
