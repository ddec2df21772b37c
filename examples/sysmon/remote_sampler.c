// SPDX-License-Identifier: GPL-2.0
/*
 * The remote endpoint's sampler: PREFIX... sh -s, fed a script on stdin that
 * answers each "s" line with /proc/stat, a NIC line and an end marker.
 *
 * Why on request and why a ready line: the script and the requests share
 * the shell's stdin. dash reads its script from a pipe in 8 KiB chunks, so a
 * request written before the shell has parsed the whole loop could be
 * swallowed as script text; its read builtin then takes one byte at a time.
 * The loop prints the ready line only once parsed, and no request is
 * written before it arrives. Sampling on request (not on a remote timer)
 * keeps both hosts' samples at the same instants.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "remote_sampler.h"
#include "sh_quote.h"
#include "sm_error.h"

extern char **environ;

#define READY_MARK "__KSFT_SYSMON_READY__"
#define NIC_MARK "__KSFT_NIC_STATS__"
#define END_LINE "__KSFT_SYSTEM_STAT_END__"
#define END_MARK END_LINE "\n"
#define MAX_RESPONSE (64u << 20)
#define STDERR_TAIL 1024
#define EXIT_WAIT_MS 2000

struct remote_sampler {
	char *endpoint;		/* the prefix as a readable command line */
	pid_t pid;		/* 0 once reaped */
	int status;		/* wait status once reaped */
	int in_fd, out_fd, err_fd;
	int timeout_ms;
	int has_nic;
	long clk_tck;
	int requested;
	int dead;		/* its failure was reported already */
	char *buf;		/* unconsumed stdout bytes */
	size_t len, cap, scanned;
	char tail[STDERR_TAIL];	/* last bytes of its stderr */
	size_t tail_len;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *remote_sampler_script(const char *ifname, const char *root)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	/* Assignments first: they run before the compound command is parsed. */
	fputs("R=", f);
	sh_quote(f, root ? root : "");
	if (ifname) {
		fputs(" IF=", f);
		sh_quote(f, ifname);
	}
	fputs("\n{\n"
	      "T=$(getconf CLK_TCK 2>/dev/null) || T=\n"
	      "printf '" READY_MARK " %s\\n' \"${T:-100}\"\n"
	      "while read -r req && [ \"$req\" = s ]; do\n"
	      "cat \"$R/proc/stat\" || exit 3\n", f);
	if (ifname)
		fputs("printf '" NIC_MARK "'\n"
		      "for c in rx_dropped rx_missed_errors tx_dropped; do\n"
		      "p=\"$R/sys/class/net/$IF/statistics/$c\"\n"
		      "v=\n"
		      "read -r v 2>/dev/null <\"$p\"\n"
		      "case $v in ''|*[!0-9]*)\n"
		      "printf 'ksft-sysmon: cannot read a counter from %s\\n' \"$p\" >&2; exit 4;;\n"
		      "esac\n"
		      "printf ' %s' \"$v\"\n"
		      "done\n"
		      "printf '\\n'\n", f);
	fputs("printf '%s\\n' " END_LINE "\n"
	      "done\n"
	      "}\n", f);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static char *endpoint_name(const char *const *argv)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i;

	if (!f)
		return NULL;
	for (i = 0; argv[i]; i++) {
		if (i)
			fputc(' ', f);
		if (argv[i][0] && !argv[i][strspn(argv[i], "abcdefghijklmnopqrstuvwxyz"
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-")])
			fputs(argv[i], f);
		else
			sh_quote(f, argv[i]);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* A copy of @fd that is not 0, 1 or 2, so the child's dup2()s cannot clash. */
static int fd_above_stdio(int fd)
{
	int nfd;

	if (fd > 2)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return nfd;
}

/* Keep the last bytes of its stderr; close it at EOF (so poll() stops waking). */
static void read_stderr(struct remote_sampler *r)
{
	char chunk[STDERR_TAIL];
	ssize_t n = -1;

	while (r->err_fd >= 0 && (n = read(r->err_fd, chunk, sizeof(chunk))) != 0) {
		size_t k = (size_t)n, keep;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		keep = r->tail_len + k > STDERR_TAIL ? STDERR_TAIL - k : r->tail_len;
		memmove(r->tail, r->tail + r->tail_len - keep, keep);
		memcpy(r->tail + keep, chunk, k);
		r->tail_len = keep + k;
	}
	if (r->err_fd >= 0 && n == 0) {
		close(r->err_fd);
		r->err_fd = -1;
	}
}

/* " (stderr: <its last line>)" or "". */
static void stderr_note(struct remote_sampler *r, char *dst, size_t size)
{
	size_t end, start;
	char ex[256];

	read_stderr(r);
	end = r->tail_len;
	while (end && (r->tail[end - 1] == '\n' || r->tail[end - 1] == '\r'))
		end--;
	start = end;
	while (start && r->tail[start - 1] != '\n')
		start--;
	if (start == end) {
		dst[0] = '\0';
		return;
	}
	sm_excerpt(ex, sizeof(ex), r->tail + start, end - start);
	snprintf(dst, size, " (stderr: %s)", ex);
}

/* Wait up to @ms for the child to exit; @return 1 once reaped. */
static int reap(struct remote_sampler *r, int ms)
{
	int64_t deadline = now_ms() + ms;
	struct timespec nap = { 0, 2 * 1000 * 1000 };

	while (r->pid > 0) {
		pid_t p = waitpid(r->pid, &r->status, WNOHANG);

		if (p == r->pid || (p < 0 && errno != EINTR)) {
			r->pid = 0;
			break;
		}
		if (now_ms() >= deadline)
			return 0;
		nanosleep(&nap, NULL);
	}
	return 1;
}

/* The message for a sampler that stopped talking: why, if it exited. */
static int died(struct remote_sampler *r, const char *what)
{
	char note[320];

	r->dead = 1;
	reap(r, 1000);
	stderr_note(r, note, sizeof(note));
	if (r->pid > 0)
		return sm_fail(-EPROTO, "remote endpoint `%s`: sampler %s%s", r->endpoint, what,
			       note);
	if (WIFSIGNALED(r->status))
		return sm_fail(-EPROTO, "remote endpoint `%s`: sampler killed by signal %d%s",
			       r->endpoint, WTERMSIG(r->status), note);
	return sm_fail(-EPROTO, "remote endpoint `%s`: sampler exited with status %d%s",
		       r->endpoint, WEXITSTATUS(r->status), note);
}

/* Read more of its stdout (draining stderr meanwhile) until @deadline. */
static int fill(struct remote_sampler *r, int64_t deadline, const char *waiting_for)
{
	for (;;) {
		struct pollfd pfd[2] = { { r->out_fd, POLLIN, 0 }, { r->err_fd, POLLIN, 0 } };
		int64_t left = deadline - now_ms();
		ssize_t n;
		int k;

		if (left <= 0)
			return sm_fail(-ETIMEDOUT, "remote endpoint `%s`: no %s within %.1f s",
				       r->endpoint, waiting_for, r->timeout_ms / 1000.0);
		k = poll(pfd, 2, (int)(left > INT32_MAX ? INT32_MAX : left));
		if (k < 0 && errno != EINTR)
			return sm_fail(-errno, "remote endpoint `%s`: poll: %s", r->endpoint,
				       strerror(errno));
		if (k <= 0)
			continue;
		if (pfd[1].revents)
			read_stderr(r);
		if (!pfd[0].revents)
			continue;
		if (r->cap - r->len < 65536) {
			size_t cap = r->cap ? r->cap * 2 : 131072;
			char *b;

			if (cap > MAX_RESPONSE + 131072u)
				return sm_fail(-EPROTO, "remote endpoint `%s`: more than %u MiB without %s",
					       r->endpoint, MAX_RESPONSE >> 20, waiting_for);
			b = realloc(r->buf, cap);
			if (!b)
				return sm_fail(-ENOMEM, "out of memory");
			r->buf = b;
			r->cap = cap;
		}
		n = read(r->out_fd, r->buf + r->len, r->cap - r->len);
		if (n > 0) {
			r->len += (size_t)n;
			return 0;
		}
		if (n == 0)
			return died(r, "closed its output");
		if (errno != EINTR && errno != EAGAIN)
			return sm_fail(-errno, "remote endpoint `%s`: read: %s", r->endpoint,
				       strerror(errno));
	}
}

static void consume(struct remote_sampler *r, size_t n)
{
	memmove(r->buf, r->buf + n, r->len - n);
	r->len -= n;
	r->scanned = 0;
}

int remote_reply_ready(const char *line, size_t len, long *clk_tck)
{
	char num[24];
	size_t n = len - sizeof(READY_MARK);
	long t;

	if (len <= sizeof(READY_MARK) || line[len - 1] != '\n' ||
	    memcmp(line, READY_MARK " ", sizeof(READY_MARK)))
		return 0;
	/* strtol() on a copy: the line is not NUL-terminated. */
	if (n >= sizeof(num))
		n = sizeof(num) - 1;
	memcpy(num, line + sizeof(READY_MARK), n);
	num[n] = '\0';
	t = strtol(num, NULL, 10);
	*clk_tck = t > 0 && t < 1000000 ? t : 100;
	return 1;
}

static int wait_ready(struct remote_sampler *r)
{
	int64_t deadline = now_ms() + r->timeout_ms;
	size_t skipped = 0;

	for (;;) {
		char *nl;
		int err;

		while (r->len && (nl = memchr(r->buf, '\n', r->len))) {
			size_t l = (size_t)(nl - r->buf) + 1;

			if (remote_reply_ready(r->buf, l, &r->clk_tck)) {
				consume(r, l);
				return 0;
			}
			skipped += l;	/* e.g. a login banner */
			consume(r, l);
		}
		if (skipped > (1u << 20))
			return sm_fail(-EPROTO, "remote endpoint `%s`: no ready line in 1 MiB of output",
				       r->endpoint);
		err = fill(r, deadline, "ready line");
		if (err)
			return err;
	}
}

int remote_sampler_start(struct remote_sampler **out, const char *const *prefix,
			 const char *ifname, const char *root, int timeout_ms)
{
	int in_sv[2] = { -1, -1 }, out_p[2] = { -1, -1 }, err_p[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	struct remote_sampler *r;
	posix_spawnattr_t attr;
	const char **argv;
	sigset_t none, dfl;
	char *script;
	size_t n = 0, i;
	int err;

	*out = NULL;
	while (prefix[n])
		n++;
	r = calloc(1, sizeof(*r));
	argv = calloc(n + 3, sizeof(*argv));
	script = remote_sampler_script(ifname, root);
	if (!r || !argv || !script || !(r->endpoint = endpoint_name(prefix))) {
		free(r);
		free(argv);
		free(script);
		return sm_fail(-ENOMEM, "out of memory");
	}
	r->in_fd = r->out_fd = r->err_fd = -1;
	r->timeout_ms = timeout_ms;
	r->has_nic = ifname != NULL;
	r->clk_tck = 100;
	for (i = 0; i < n; i++)
		argv[i] = prefix[i];
	argv[n] = "sh";
	argv[n + 1] = "-s";

	/* stdin is a socket so that writes to a dead sampler fail with EPIPE, not SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_sv) ||
	    pipe2(out_p, O_CLOEXEC) || pipe2(err_p, O_CLOEXEC)) {
		err = sm_fail(-errno, "remote endpoint `%s`: cannot create pipes: %s",
			      r->endpoint, strerror(errno));
		goto fail_fds;
	}
	in_sv[1] = fd_above_stdio(in_sv[1]);
	out_p[1] = fd_above_stdio(out_p[1]);
	err_p[1] = fd_above_stdio(err_p[1]);
	if (in_sv[1] < 0 || out_p[1] < 0 || err_p[1] < 0) {
		err = sm_fail(-EMFILE, "remote endpoint `%s`: out of file descriptors",
			      r->endpoint);
		goto fail_fds;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in_sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, out_p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err_p[1], 2);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	err = posix_spawnp(&r->pid, argv[0], &fa, &attr, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (err) {
		r->pid = 0;
		err = sm_fail(-err, "remote endpoint `%s`: cannot run %s: %s", r->endpoint,
			      argv[0], strerror(err));
		goto fail_fds;
	}
	close(in_sv[1]);
	close(out_p[1]);
	close(err_p[1]);
	r->in_fd = in_sv[0];
	r->out_fd = out_p[0];
	r->err_fd = err_p[0];
	fcntl(r->err_fd, F_SETFL, O_NONBLOCK);
	free(argv);

	/* A dead sampler shows up as EPIPE here or EOF in wait_ready(). */
	for (i = 0, n = strlen(script); i < n;) {
		ssize_t w = send(r->in_fd, script + i, n - i, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break;
		i += (size_t)w;
	}
	free(script);
	err = wait_ready(r);
	if (err) {
		r->dead = 1;	/* keep wait_ready()'s message */
		remote_sampler_stop(r);
		return err;
	}
	*out = r;
	return 0;

fail_fds:
	for (i = 0; i < 2; i++) {
		if (in_sv[i] >= 0)
			close(in_sv[i]);
		if (out_p[i] >= 0)
			close(out_p[i]);
		if (err_p[i] >= 0)
			close(err_p[i]);
	}
	free(argv);
	free(script);
	free(r->endpoint);
	free(r);
	return err;
}

int remote_sampler_request(struct remote_sampler *r)
{
	ssize_t w;

	if (r->requested)
		return 0;
	do
		w = send(r->in_fd, "s\n", 2, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	if (w != 2)
		return died(r, "stopped reading requests");
	r->requested = 1;
	return 0;
}

static int parse_nic_line(const char *endpoint, const char *line, size_t len,
			  uint64_t nic[NIC_NCOUNTERS])
{
	const char *p = line + strlen(NIC_MARK), *end = line + len;
	char ex[128];
	int i;

	for (i = 0; i < NIC_NCOUNTERS; i++) {
		uint64_t v = 0;
		const char *start;

		if (p >= end || *p != ' ')
			goto bad;
		start = ++p;
		while (p < end && *p >= '0' && *p <= '9') {
			unsigned d = (unsigned)(*p - '0');

			if (v > (UINT64_MAX - d) / 10)
				goto bad;
			v = v * 10 + d;
			p++;
		}
		if (p == start)
			goto bad;
		nic[i] = v;
	}
	if (p == end)
		return 0;
bad:
	sm_excerpt(ex, sizeof(ex), line, len);
	return sm_fail(-EPROTO, "remote endpoint `%s`: malformed NIC counter line %s",
		       endpoint, ex);
}

long remote_reply_find_end(const char *buf, size_t len, size_t from)
{
	const size_t ml = sizeof(END_MARK) - 1;
	const char *p = buf + from, *end = buf + len;

	if (!len || from >= len)
		return -1;
	while ((p = memmem(p, (size_t)(end - p), END_MARK, ml))) {
		if (p == buf || p[-1] == '\n')
			return (long)(p - buf);
		p++;
	}
	return -1;
}

size_t remote_reply_end_len(void)
{
	return sizeof(END_MARK) - 1;
}

int remote_reply_parse(const char *endpoint, const char *buf, size_t stat_len,
		       int has_nic, struct cpu_snapshot *cpu,
		       uint64_t nic[NIC_NCOUNTERS])
{
	char source[512];
	int err;

	if (has_nic) {
		/* The last line before the marker carries the counters. */
		size_t ls = stat_len ? stat_len - 1 : 0;

		while (ls && buf[ls - 1] != '\n')
			ls--;
		/* The line itself must hold the mark and its '\n' (fuzz_remote_reply). */
		if (stat_len - ls < sizeof(NIC_MARK) ||
		    memcmp(buf + ls, NIC_MARK, sizeof(NIC_MARK) - 1))
			return sm_fail(-EPROTO, "remote endpoint `%s`: answer has no NIC counter line",
				       endpoint);
		err = parse_nic_line(endpoint, buf + ls, stat_len - 1 - ls, nic);
		if (err)
			return err;
		stat_len = ls;
	}
	snprintf(source, sizeof(source), "remote endpoint `%s`: /proc/stat", endpoint);
	return cpu_snapshot_parse(cpu, buf, stat_len, source);
}

int remote_sampler_collect(struct remote_sampler *r, struct cpu_snapshot *cpu,
			   uint64_t nic[NIC_NCOUNTERS])
{
	int64_t deadline = now_ms() + r->timeout_ms;
	size_t total;
	long at;
	int err;

	err = remote_sampler_request(r);
	if (err)
		return err;
	while ((at = remote_reply_find_end(r->buf, r->len, r->scanned)) < 0) {
		size_t ml = sizeof(END_MARK) - 1;

		r->scanned = r->len > ml ? r->len - ml : 0;
		err = fill(r, deadline, "complete sample");
		if (err)
			return err;
	}
	r->requested = 0;
	total = (size_t)at + sizeof(END_MARK) - 1;
	err = remote_reply_parse(r->endpoint, r->buf, (size_t)at, r->has_nic, cpu, nic);
	consume(r, total);
	return err;
}

long remote_sampler_clk_tck(const struct remote_sampler *r)
{
	return r->clk_tck;
}

int remote_sampler_stop(struct remote_sampler *r)
{
	int err = 0, killed = 0;
	char note[320];

	if (!r)
		return 0;
	/* EOF on its stdin ends the loop; closing stdout unblocks a writer. */
	if (r->in_fd >= 0)
		close(r->in_fd);
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (!reap(r, EXIT_WAIT_MS)) {
		kill(r->pid, SIGTERM);
		killed = 1;
		if (!reap(r, 1000)) {
			kill(r->pid, SIGKILL);
			while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
				;
			r->pid = 0;
		}
	}
	if (!killed && !r->dead && WIFEXITED(r->status) && WEXITSTATUS(r->status)) {
		stderr_note(r, note, sizeof(note));
		err = sm_fail(-EPROTO, "remote endpoint `%s`: sampler exited with status %d at stop%s",
			      r->endpoint, WEXITSTATUS(r->status), note);
	}
	if (r->err_fd >= 0)
		close(r->err_fd);
	free(r->buf);
	free(r->endpoint);
	free(r);
	return err;
}
