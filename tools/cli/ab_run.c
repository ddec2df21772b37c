/* ksft-metric ab --run-a/--run-b: run two commands in pairs (ab_run.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ab_run.h"
#include "cli.h"

char **ab_words(const char *s)
{
	size_t n = 0, len;
	char **w = calloc(strlen(s) / 2 + 2, sizeof(char *));

	if (!w)
		return NULL;
	for (;;) {
		s += strspn(s, " \t\n");
		if (!*s)
			break;
		len = strcspn(s, " \t\n");
		if (!(w[n++] = strndup(s, len))) {
			ab_words_free(w);
			return NULL;
		}
		s += len;
	}
	if (!n) {
		free(w);
		return NULL;
	}
	return w;
}

void ab_words_free(char **w)
{
	size_t i;

	for (i = 0; w && w[i]; i++)
		free(w[i]);
	free(w);
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

int ab_first(uint64_t seed, size_t pair)
{
	return (int)(mix(seed ^ mix((uint64_t)pair)) & 1);
}

uint64_t ab_default_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return mix((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) ^
	       (uint64_t)getpid();
}

/* One run of @argv, its standard output read as a log into a new report. */
static int run_one(const struct ab_run_opts *o, int variant, size_t pair,
		   struct ksft_metric_report **out, int *status)
{
	char *const *argv = o->argv[variant];
	char name[128];
	int fds[2], ret;
	pid_t pid;
	FILE *f;

	*out = NULL;
	if (pipe2(fds, O_CLOEXEC)) {
		int err = errno;

		cli_error("ab: pipe: %s", strerror(err));
		return -err;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		int err = errno;

		cli_error("ab: fork: %s", strerror(err));
		close(fds[0]);
		close(fds[1]);
		return -err;
	}
	if (!pid) {
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(126);
		execvp(argv[0], argv);
		fprintf(stderr, "ksft-metric: ab: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	snprintf(name, sizeof(name), "%s (pair %zu)", variant ? "B" : "A", pair);
	*out = ksft_metric_report_new(NULL);
	f = fdopen(fds[0], "r");
	ret = *out && f ? ksft_metric_report_read_file(*out, f, name) : -ENOMEM;
	if (f)
		fclose(f);	/* the child may still write: it gets SIGPIPE */
	else
		close(fds[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	if (ret < 0) {
		cli_error("ab: %s: %s", name, ksft_metric_report_errmsg());
		return ret;
	}
	return 0;
}

static void print_warnings(const struct ksft_metric_report *r)
{
	const struct ksft_metric_report_warning *w;
	size_t total, n = ksft_metric_report_warnings(r, &w, &total), i;

	for (i = 0; i < n; i++)
		if (w[i].line)
			cli_error("%s:%lu: warning: %s", w[i].file, w[i].line, w[i].reason);
		else
			cli_error("%s: warning: %s", w[i].file, w[i].reason);
}

int ab_run(const struct ab_run_opts *o, ab_take_fn take, void *ctx)
{
	size_t p;
	int t;

	if (!o->quiet)
		cli_error("ab: %zu pairs of A (%s) and B (%s), seed %llu (--seed repeats the "
			  "order)", o->pairs, o->shown[0], o->shown[1],
			  (unsigned long long)o->seed);
	for (p = 0; p < o->pairs; p++) {
		int first = ab_first(o->seed, p);

		for (t = 0; t < 2; t++) {
			int var = t ? !first : first, status = 0, bad;
			struct ksft_metric_report *r;

			bad = run_one(o, var, p, &r, &status);
			if (bad) {
				ksft_metric_report_free(r);
				return bad;
			}
			if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
				cli_error("ab: variant %c: cannot run %s", var ? 'B' : 'A',
					  o->shown[var]);
				ksft_metric_report_free(r);
				return -ENOENT;
			}
			if (!o->quiet) {
				print_warnings(r);
				if (WIFSIGNALED(status))
					cli_error("ab: warning: variant %c, pair %zu: %s killed by "
						  "signal %d", var ? 'B' : 'A', p, o->shown[var],
						  WTERMSIG(status));
				else if (WEXITSTATUS(status))
					cli_error("ab: warning: variant %c, pair %zu: %s exited with "
						  "status %d", var ? 'B' : 'A', p, o->shown[var],
						  WEXITSTATUS(status));
				if (!ksft_metric_report_series_count(r))
					cli_error("ab: warning: variant %c, pair %zu: no metrics in "
						  "the output of %s", var ? 'B' : 'A', p,
						  o->shown[var]);
			}
			bad = take(ctx, r, var, p);
			ksft_metric_report_free(r);
			if (bad)
				return bad;
		}
	}
	return 0;
}
