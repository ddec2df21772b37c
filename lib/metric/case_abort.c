/*
 * A test that dies with a case open still gets its lines out: at exit() and
 * on SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGABRT (abort(), failed asserts)
 * the buffered lines are written, followed by
 *   <prefix>ktap-metric-abort-json: {"reason":"SIGTERM"}
 * which consumers read as "this case ended abnormally" (at exit() the
 * line also carries the exit status, see exit_flush()). Only the process
 * that opened the case does this: a forked child never flushes or marks
 * its parent's case. Handlers are only installed where the disposition is
 * still the default: a test's own handler is never replaced. The signal
 * path is async-signal-safe: static storage, write(2), only *tried* locks
 * (see ksftm_lock()), and no line is ever cut.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case_abort.h"
#include "case_flush.h"
#include "case_state.h"
#include "json_text.h"
#include "ktap_tags.h"
#include "sink.h"

/* Under ksftm_case_lock: fork() (fork.c) takes it, so no child inherits a
 * half-done install (a pthread_once() in progress in a thread the child does
 * not have would hang it under TSan, whose pthread_once has no fork
 * generation as glibc's has). */
static int installed;

static const struct { int sig; const char *name; } fatal[] = {
	{ SIGTERM, "SIGTERM" }, { SIGINT, "SIGINT" }, { SIGHUP, "SIGHUP" },
	{ SIGQUIT, "SIGQUIT" }, { SIGABRT, "SIGABRT" },
};

/* Is the open case this process's own (not a parent's, inherited by fork)? */
static int case_is_ours(void)
{
	return atomic_load(&ksftm_case_open) && atomic_load(&ksftm_case_owner) == getpid();
}

/* Non-negative @n as decimal, without stdio. */
static void add_uint(struct strbuf *sb, unsigned long n)
{
	char d[24];
	size_t i = sizeof(d);

	do
		d[--i] = (char)('0' + n % 10);
	while ((n /= 10) && i);
	strbuf_add(sb, d + i, sizeof(d) - i);
}

/*
 * The "case ended abnormally" line, into @sb: the reason, the exit status
 * (@status >= 0) and the count of lines too long to write (@dropped > 0).
 */
static void abort_line(struct strbuf *sb, const char *prefix, size_t plen,
		       const char *reason, int status, size_t dropped)
{
	static const char tag[] = KSFTM_TAG_ABORT " {";

	strbuf_add(sb, prefix, plen);
	strbuf_add(sb, tag, sizeof(tag) - 1);
	if (dropped) {
		strbuf_add(sb, "\"dropped\":", 10);
		add_uint(sb, dropped);
		strbuf_addc(sb, ',');
	}
	strbuf_add(sb, "\"reason\":", 9);
	json_add_string(sb, reason, strlen(reason));
	if (status >= 0) {
		strbuf_add(sb, ",\"status\":", 10);
		add_uint(sb, (unsigned long)status);
	}
	strbuf_add(sb, "}\n", 2);
}

/*
 * At exit(): an ordinary context, the ordinary flush. kselftest.h's exit
 * helpers print before they call exit(), so these lines may follow the
 * case's own result line: the exit status in the marker lets a consumer
 * tell (ksft_exit_skip() exits with KSFT_SKIP = 4 right after printing
 * the case's "ok N # SKIP" line).
 */
static void exit_flush(int status)
{
	struct closed_case cc;
	struct strbuf sb = STRBUF_INIT;
	size_t plen;
	char *prefix;

	if (!case_is_ours() || case_close(&cc))
		return;
	case_flush(&cc, NULL, NULL);
	closed_case_free(&cc);
	prefix = sink_prefix_dup(&plen);
	if (!prefix)
		return;
	abort_line(&sb, prefix, plen, "exit", status, 0);
	if (!sb.oom)
		sink_write(sb.data, sb.len);
	strbuf_free(&sb);
	free(prefix);
}

#ifdef __GLIBC__
static void on_exit_flush(int status, void *arg)
{
	(void)arg;
	exit_flush(status & 0xff);
}
#else
static void on_exit_flush(void)
{
	exit_flush(-1);		/* the status is not known */
}
#endif

/*
 * In a signal handler nothing may allocate: static storage for the thread
 * buffers taken, the merge cursors and the staged text (a line that does
 * not fit is dropped whole and counted; 1 MiB holds hundreds of 256-CPU
 * samples).
 */
#define EMERGENCY_THREADS 256
#define EMERGENCY_TEXT (1 << 20)

static void emergency_flush(const char *reason)
{
	static struct case_data *taken[EMERGENCY_THREADS];
	static uint64_t cursors[EMERGENCY_THREADS * 4];
	static char text[EMERGENCY_TEXT];
	static char prefix[256];
	struct strbuf sb = STRBUF_FIXED(text, sizeof(text));
	struct closed_case cc;
	size_t plen, dropped = 0;

	if (case_flush_cursor_size() > sizeof(cursors) / EMERGENCY_THREADS)
		return;
	if (!case_is_ours() || case_close_into(&cc, taken, EMERGENCY_THREADS))
		return;
	case_flush_emergency(&cc, text, sizeof(text), cursors, &dropped);
	plen = sink_prefix_copy(prefix, sizeof(prefix));
	abort_line(&sb, prefix, plen, reason, -1, dropped);
	if (!sb.oom)
		sink_write(sb.data, sb.len);
	/* The process is dying: nothing is freed. */
}

static void on_fatal_signal(int sig)
{
	const char *name = "signal";
	int saved = errno;
	size_t i;

	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (fatal[i].sig == sig)
			name = fatal[i].name;
	ksftm_emergency = 1;
	emergency_flush(name);
	ksftm_emergency = 0;
	errno = saved;
	/* SA_RESETHAND restored the default: die of the same signal. */
	raise(sig);
}

static void install(void)
{
	struct sigaction sa, old;
	size_t i;

#ifdef __GLIBC__
	on_exit(on_exit_flush, NULL);
#else
	atexit(on_exit_flush);
#endif
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		if (sigaction(fatal[i].sig, NULL, &old) || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;
		sigaction(fatal[i].sig, &sa, NULL);
	}
}

void case_abort_install(void)
{
	if (!installed) {
		install();
		installed = 1;
	}
}
