/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process helpers shared by the iperf3 and kperf runners: run a command by
 * argv (never through a local shell), optionally behind a prefix such as
 * "ip netns exec NS" or "ssh host", wait for it with a timeout, kill its
 * process group, and wait for a TCP port to listen.
 *
 * Error rule: int calls return 0 (or a documented value) on success and a
 * negative errno on failure; when @err is not NULL it then receives a
 * malloc'd message (free() it). Not thread-safe: one runner per thread.
 */
#ifndef KSFTM_EXAMPLE_PROC_H
#define KSFTM_EXAMPLE_PROC_H

#include <stddef.h>
#include <sys/types.h>

#include "taskstat.h"

/**
 * struct exproc - a running (or finished) child process
 *
 * The child leads its own process group, so a kill reaches everything it
 * started that did not detach on purpose (daemons call setsid()). Its stdout
 * and stderr go to anonymous memory files rather than pipes: nothing blocks
 * when nobody reads (a server running alongside a client), and a grandchild
 * that keeps the descriptors open cannot make a wait hang.
 */
struct exproc {
	pid_t pid;	/* process (and group) id; 0 once reaped */
	int pidfd;	/* for poll(); -1 where the kernel lacks pidfd_open */
	int out_fd;	/* memfd with everything written to stdout */
	int err_fd;	/* memfd with everything written to stderr */
	int status;	/* waitpid() status, valid once reaped */
	int reaped;
	struct ex_task_usage usage;	/* its CPU time, waits, switches; valid
					   once reaped (wait4 and schedstat) */
};

/** Grace period between SIGTERM and SIGKILL in exproc_kill(). */
#define EXPROC_KILL_GRACE_MS 1000

/**
 * exproc_spawn() - start @argv, here or behind @prefix
 * @prefix: NULL-terminated words that reach another endpoint, e.g.
 *          "ip netns exec NS" or "ssh host" (NULL or empty: run here)
 * @argv:   NULL-terminated command; argv[0] is looked up on PATH
 *
 * Behind a prefix the command runs as "PREFIX sh -s" with the script
 * "exec 'argv0' 'argv1' ... </dev/null" on stdin, every word single-quoted
 * (sh_quote()): ssh joins its words and has the remote shell parse them
 * again, so only the fixed words "sh -s" go that way and @argv arrives
 * word for word, whatever it holds. The prefix must pass stdin on (ssh
 * does; "docker exec" needs -i). stdin is /dev/null for @argv either way.
 * The child is killed if the spawning thread dies.
 * @return 0; -ENOENT etc. when the program cannot be executed (the
 * message names it); -ENOMEM.
 */
int exproc_spawn(struct exproc *p, const char *const *prefix,
		 const char *const *argv, char **err);

/**
 * exproc_spawn_on() - exproc_spawn() pinned to @cpus (NULL: not pinned):
 * the child sets its affinity before exec, so the command (also behind a
 * prefix that execs, such as "ip netns exec") inherits it. Behind ssh only
 * the local ssh process is pinned.
 */
int exproc_spawn_on(struct exproc *p, const char *const *prefix,
		    const char *const *argv, const cpu_set_t *cpus, char **err);

/**
 * exproc_wait() - wait up to @timeout_ms (< 0: forever) for @p to exit
 *
 * Reaps it once it has exited; the rest of its process group is left
 * alone (daemons detach only after their parent exits). @return 0 when
 * reaped, -ETIMEDOUT when it is still running.
 */
int exproc_wait(struct exproc *p, int timeout_ms);

/**
 * exproc_kill() - end @p: SIGTERM to its group, SIGKILL to the group once
 * @p exited or after EXPROC_KILL_GRACE_MS, and reap it. Does nothing once
 * reaped.
 */
void exproc_kill(struct exproc *p);

/** exproc_close() - kill @p if still running and release it. NULL-safe. */
void exproc_close(struct exproc *p);

/**
 * exproc_output() - what @p wrote so far
 * @which: 1 for stdout, 2 for stderr
 * @len:   receives the length (may be NULL)
 *
 * @return a malloc'd NUL-terminated copy (at most 16 MiB), NULL on ENOMEM.
 */
char *exproc_output(const struct exproc *p, int which, size_t *len);

/**
 * exproc_status_str() - describe a wait status: "exited with status 1",
 * "killed by signal 9". @return a static or thread-unsafe buffer.
 */
const char *exproc_status_str(int status);

/** exproc_exit_code() - exit code of a wait status, or -1 if signalled. */
int exproc_exit_code(int status);

/**
 * exproc_cmdline() - @prefix + @argv as one readable line for messages,
 * words with spaces or quotes single-quoted. @return malloc'd or NULL.
 */
char *exproc_cmdline(const char *const *prefix, const char *const *argv);

/**
 * struct exproc_result - outcome of exproc_run()
 */
struct exproc_result {
	int status;		/* wait status (valid unless timed_out) */
	int timed_out;		/* 1 if killed after the timeout */
	char *out;		/* stdout, malloc'd, NUL-terminated */
	size_t out_len;
	char *errout;		/* stderr, malloc'd, NUL-terminated */
	size_t err_len;
	struct ex_task_usage usage;	/* what the process used (struct exproc) */
};

/**
 * exproc_run() - spawn, wait up to @timeout_ms, collect; on expiry SIGKILL
 * the whole process group at once (no grace)
 *
 * @return 0 when the command ran (whatever its exit status; a timeout sets
 * r->timed_out); a negative errno when it could not be started.
 */
int exproc_run(const char *const *prefix, const char *const *argv,
	       int timeout_ms, struct exproc_result *r, char **err);

/** exproc_run_on() - exproc_run() pinned to @cpus (see exproc_spawn_on()). */
int exproc_run_on(const char *const *prefix, const char *const *argv,
		  const cpu_set_t *cpus, int timeout_ms, struct exproc_result *r,
		  char **err);

/** exproc_result_free() - free the outputs of @r. NULL-safe. */
void exproc_result_free(struct exproc_result *r);

/**
 * exproc_tail() - the last @max bytes of @text (from a line start where
 * possible), for error messages. @return a pointer into @text.
 */
const char *exproc_tail(const char *text, size_t len, size_t max);

/**
 * exproc_find_program() - @return 1 if @name (a path, or a name looked up
 * on PATH) is an executable file here, else 0.
 */
int exproc_find_program(const char *name);

/**
 * exproc_tcp_listening() - is some TCP socket listening on @port?
 * @prefix: where to look: NULL/empty for this network namespace, otherwise
 *          "cat /proc/net/tcp /proc/net/tcp6" runs behind it
 *
 * @return 1 listening, 0 not, negative errno if it cannot be told.
 */
int exproc_tcp_listening(const char *const *prefix, int port, char **err);

/**
 * exproc_wait_listen() - poll exproc_tcp_listening() until true
 * @watch: a server process expected to open the port, or NULL; if it exits
 *         first, the wait fails at once with its output in the message
 *
 * @return 0; -ETIMEDOUT; -ECHILD if @watch exited; other negative errno.
 */
int exproc_wait_listen(const char *const *prefix, int port, int timeout_ms,
		       struct exproc *watch, char **err);

/** ex_errf() - set *@err (if @err) to a formatted malloc'd message; @return @ret. */
int ex_errf(char **err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** ex_monotonic_ms() - CLOCK_MONOTONIC in milliseconds. */
long long ex_monotonic_ms(void);

#endif
