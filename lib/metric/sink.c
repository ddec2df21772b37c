/*
 * Output sink. Lines are written whole: under the stdio stream lock (so they
 * stay ordered with the test's own printf output), in write(2) calls of
 * whole lines no larger than PIPE_BUF where possible, or one callback each.
 * SIGPIPE is blocked around writes: a closed pipe is an error, not a death.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ksftmetric/metric.h>

#include "lock.h"
#include "errmsg.h"
#include "json_text.h"
#include "sink.h"

enum sink_kind { SINK_FILE, SINK_FD, SINK_CALLBACK };

static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static enum sink_kind kind = SINK_FILE;
static FILE *sink_file;		/* NULL: stdout */
static int sink_file_fd = -1;	/* its descriptor, for the signal path */
static int sink_fd = -1;
static ksft_metric_sink_fn sink_fn;
static void *sink_ctx;
static char *prefix;		/* NULL: "# " */
static __thread int in_callback;	/* this thread runs the user's callback */

char *sink_prefix_dup(size_t *len)
{
	char *p;

	if (ksftm_lock(&sink_lock))
		return NULL;
	p = strdup(prefix ? prefix : "# ");
	pthread_mutex_unlock(&sink_lock);
	if (p)
		*len = strlen(p);
	return p;
}

size_t sink_prefix_copy(char *buf, size_t size)
{
	const char *p;
	size_t len;

	if (ksftm_lock(&sink_lock))
		return 0;
	p = prefix ? prefix : "# ";
	len = strlen(p);
	if (len < size)
		memcpy(buf, p, len + 1);
	else
		len = 0;
	pthread_mutex_unlock(&sink_lock);
	return len;
}

struct pipe_guard {
	sigset_t set, old;
	int was_pending;
};

static void pipe_guard_begin(struct pipe_guard *g)
{
	sigset_t pending;

	sigemptyset(&g->set);
	sigaddset(&g->set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &g->set, &g->old);
	sigpending(&pending);
	g->was_pending = sigismember(&pending, SIGPIPE);
}

static void pipe_guard_end(struct pipe_guard *g, int err)
{
	static const struct timespec zero;

	/* Swallow the SIGPIPE our own write raised, and only that one. */
	if (err == EPIPE && !g->was_pending) {
		if (ksftm_emergency) {
			/* sigtimedwait() is not async-signal-safe; ignoring discards it. */
			struct sigaction ign, old;

			memset(&ign, 0, sizeof(ign));
			ign.sa_handler = SIG_IGN;
			if (!sigaction(SIGPIPE, &ign, &old))
				sigaction(SIGPIPE, &old, NULL);
		} else {
			sigtimedwait(&g->set, NULL, &zero);
		}
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (w == 0)
			return EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Batches of whole lines up to PIPE_BUF, so a pipe never splits a line. */
static int write_fd_lines(int fd, const char *buf, size_t len)
{
	size_t start = 0;

	while (start < len) {
		size_t end = start, next;
		int err;

		do {
			const char *nl = memchr(buf + end, '\n', len - end);

			next = nl ? (size_t)(nl - buf) + 1 : len;
			if (end > start && next - start > PIPE_BUF)
				break;
			end = next;
		} while (end < len && end - start < PIPE_BUF);
		err = write_all(fd, buf + start, end - start);
		if (err)
			return err;
		start = end;
	}
	return 0;
}

/*
 * The fatal-signal path never touches stdio: the interrupted code may be
 * inside this very stream (its lock is recursive, so even a try-lock
 * would succeed), so its buffered bytes cannot be trusted and are left
 * alone (the signal's default action drops them anyway). Our lines go
 * to the stream's descriptor, remembered from the last ordinary write.
 */
static int write_file_emergency(FILE *f, const char *buf, size_t len)
{
	int fd = sink_file_fd;

	if (fd < 0 && f == stdout)
		fd = STDOUT_FILENO;
	if (fd < 0)
		return EBADF;
	return write_fd_lines(fd, buf, len);
}

static int write_file(FILE *f, const char *buf, size_t len)
{
	int err = 0;

	if (ksftm_emergency)
		return write_file_emergency(f, buf, len);
	flockfile(f);
	sink_file_fd = fileno_unlocked(f);
	clearerr_unlocked(f);
	if (fwrite_unlocked(buf, 1, len, f) != len || fflush_unlocked(f))
		err = errno ? errno : EIO;
	funlockfile(f);
	return err;
}

static int write_callback(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int ret;

		in_callback = 1;
		ret = sink_fn(p, n, sink_ctx);
		in_callback = 0;

		if (ret)
			return ret < 0 ? -ret : EIO;
		p += n + 1;
	}
	return 0;
}

int sink_write(const char *buf, size_t len)
{
	struct pipe_guard g;
	const char *where = "output callback";
	int err;

	if (ksftm_lock(&sink_lock))
		return ksftm_fail(EDEADLK, "the metric output is busy in another thread; lines dropped");
	if (kind == SINK_CALLBACK && ksftm_emergency) {
		err = ECANCELED;	/* user code is not signal-safe: skip it */
	} else if (kind == SINK_CALLBACK) {
		err = write_callback(buf, len);
	} else {
		pipe_guard_begin(&g);
		errno = 0;
		if (kind == SINK_FD) {
			err = write_fd_lines(sink_fd, buf, len);
			where = "output file descriptor";
		} else {
			err = write_file(sink_file ? sink_file : stdout, buf, len);
			where = "output stream";
		}
		pipe_guard_end(&g, err);
	}
	pthread_mutex_unlock(&sink_lock);
	if (err && ksftm_emergency)
		return -err;	/* no strerror()/vsnprintf() in a signal handler */
	if (err)
		return ksftm_fail(err, "writing metric lines to the %s failed: %s",
				  where, strerror(err));
	return 0;
}

KSFT_METRIC_API int ksft_metric_set_output_file(FILE *f)
{
	if (!f)
		return ksftm_fail(EINVAL, "output stream is NULL");
	pthread_mutex_lock(&sink_lock);
	kind = SINK_FILE;
	sink_file = f;
	sink_file_fd = fileno(f);
	pthread_mutex_unlock(&sink_lock);
	return 0;
}

KSFT_METRIC_API int ksft_metric_set_output_fd(int fd)
{
	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return ksftm_fail(EBADF, "output file descriptor %d is not open", fd);
	pthread_mutex_lock(&sink_lock);
	kind = SINK_FD;
	sink_fd = fd;
	pthread_mutex_unlock(&sink_lock);
	return 0;
}

KSFT_METRIC_API int ksft_metric_set_output_callback(ksft_metric_sink_fn fn, void *ctx)
{
	if (!fn)
		return ksftm_fail(EINVAL, "output callback is NULL");
	pthread_mutex_lock(&sink_lock);
	kind = SINK_CALLBACK;
	sink_fn = fn;
	sink_ctx = ctx;
	pthread_mutex_unlock(&sink_lock);
	return 0;
}

KSFT_METRIC_API int ksft_metric_set_prefix(const char *p)
{
	char *copy;

	if (!p)
		return ksftm_fail(EINVAL, "line prefix is NULL");
	if (strchr(p, '\n') || strchr(p, '\r'))
		return ksftm_fail(EINVAL, "line prefix contains a line break");
	if (!utf8_valid(p, strlen(p)))
		return ksftm_fail(EINVAL, "line prefix is not valid UTF-8");
	copy = strdup(p);
	if (!copy)
		return ksftm_fail(ENOMEM, "out of memory setting the line prefix");
	pthread_mutex_lock(&sink_lock);
	free(prefix);
	prefix = copy;
	pthread_mutex_unlock(&sink_lock);
	return 0;
}

int sink_in_callback(void)
{
	return in_callback;
}

void sink_lock_for_fork(void)
{
	pthread_mutex_lock(&sink_lock);
}

void sink_unlock_after_fork(void)
{
	pthread_mutex_unlock(&sink_lock);
}
