/*
 * A test that dies with a case open still gets its lines out: at exit() and
 * on SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGABRT (abort(), failed asserts)
 * the buffered lines are written, followed by
 *   <prefix>ktap-metric-abort-json: {"reason":"SIGTERM"}
 * which consumers read as "this case ended abnormally". Handlers are only
 * installed where the disposition is still the default: a test's own
 * handler is never replaced. The signal path is best effort: it only tries
 * locks the interrupted code might hold (see ksftm_lock()).
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "case_abort.h"
#include "case_flush.h"
#include "case_state.h"
#include "json_text.h"
#include "sink.h"

static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static const struct { int sig; const char *name; } fatal[] = {
	{ SIGTERM, "SIGTERM" }, { SIGINT, "SIGINT" }, { SIGHUP, "SIGHUP" },
	{ SIGQUIT, "SIGQUIT" }, { SIGABRT, "SIGABRT" },
};

/* The "case ended abnormally" line, into @sb. */
static void abort_line(struct strbuf *sb, const char *prefix, size_t plen,
		       const char *reason)
{
	static const char tag[] = "ktap-metric-abort-json: {\"reason\":";

	strbuf_add(sb, prefix, plen);
	strbuf_add(sb, tag, sizeof(tag) - 1);
	json_add_string(sb, reason, strlen(reason));
	strbuf_add(sb, "}\n", 2);
}

/* At exit(): an ordinary context, the ordinary flush. */
static void on_exit_flush(void)
{
	struct closed_case cc;
	struct strbuf sb = STRBUF_INIT;
	size_t plen;
	char *prefix;

	if (!atomic_load(&ksftm_case_open) || case_close(&cc))
		return;
	case_flush(&cc, NULL, NULL);
	closed_case_free(&cc);
	prefix = sink_prefix_dup(&plen);
	if (!prefix)
		return;
	abort_line(&sb, prefix, plen, "exit");
	if (!sb.oom)
		sink_write(sb.data, sb.len);
	strbuf_free(&sb);
	free(prefix);
}

/*
 * In a signal handler nothing may allocate: static storage for the thread
 * buffers taken, the merge cursors and the staged text (lines that do not
 * fit are lost; 1 MiB holds hundreds of 256-CPU samples).
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
	size_t plen;

	if (case_flush_cursor_size() > sizeof(cursors) / EMERGENCY_THREADS)
		return;
	if (!atomic_load(&ksftm_case_open) ||
	    case_close_into(&cc, taken, EMERGENCY_THREADS))
		return;
	case_flush_emergency(&cc, text, sizeof(text), cursors);
	plen = sink_prefix_copy(prefix, sizeof(prefix));
	abort_line(&sb, prefix, plen, reason);
	if (!sb.oom)
		sink_write(sb.data, sb.len);
	/* The process is dying: nothing is freed. */
}

static void on_fatal_signal(int sig)
{
	const char *name = "signal";
	size_t i;

	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (fatal[i].sig == sig)
			name = fatal[i].name;
	ksftm_emergency = 1;
	emergency_flush(name);
	ksftm_emergency = 0;
	/* SA_RESETHAND restored the default: die of the same signal. */
	raise(sig);
}

static void install(void)
{
	struct sigaction sa, old;
	size_t i;

	atexit(on_exit_flush);
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
	pthread_once(&install_once, install);
}
