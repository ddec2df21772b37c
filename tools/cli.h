/* ksft-metric: what the subcommands share (options, inputs, confined paths). */
#ifndef KSFT_METRIC_CLI_H
#define KSFT_METRIC_CLI_H

#include <stddef.h>
#include <stdio.h>

#include <ksftmetric/report.h>

/* Exit codes. */
#define EXIT_OK 0
#define EXIT_REGRESSION 1
#define EXIT_USAGE 2		/* also unreadable input, nothing usable */

/* Where files may be read and written (--base-dir). */
struct confine {
	char *base;		/* resolved directory, NULL: anywhere */
	int fd;			/* base held open (valid only with base) */
};

/* A file to be written: its parent directory held open, and its name. */
struct confine_target {
	int dirfd;
	char *name;
	const char *path;	/* as given, for messages */
	const char *base;	/* --base-dir, NULL: not confined */
};

int confine_init(struct confine *c, const char *dir);
void confine_free(struct confine *c);
/* Open @path ("-" = stdin) for reading; prints the reason and returns NULL. */
FILE *confine_open_read(const struct confine *c, const char *path);
/* Read a whole file ("-" = stdin) into memory; -1 after printing why. */
int confine_read_all(const struct confine *c, const char *path, char **data,
		     size_t *len);
/* Check that @path may be written; 0 or -1 after printing why. */
int confine_check_write(const struct confine *c, const char *path);
/* Write @len bytes to @path ("-" = stdout): replaced atomically. */
int confine_write(const struct confine *c, const char *path, const char *data,
		  size_t len);
/*
 * The same in steps, for a read-modify-write (save --append): open resolves
 * @path's directory (confined) and holds it; lock takes an exclusive flock
 * on it until close; read gives the current file (1: there is none);
 * write replaces it by a temporary file renamed in that same directory,
 * keeping the old file's mode. Each prints why and returns -1 on failure.
 */
int confine_target_open(const struct confine *c, const char *path,
			struct confine_target *t);
int confine_target_lock(struct confine_target *t);
int confine_target_read(struct confine_target *t, char **data, size_t *len);
int confine_target_write(struct confine_target *t, const char *data, size_t len);
void confine_target_close(struct confine_target *t);

/* Read every input into @r, print its warnings; returns an exit code. */
int cli_read_inputs(const struct confine *c, struct ksft_metric_report *r,
		    char *const *files, int n, int quiet);
/* Read --baseline files; returns an exit code. */
int cli_read_baselines(const struct confine *c,
		       struct ksft_metric_report_baseline *b,
		       char *const *files, size_t n);
int cli_parse_format(const char *s, int allow_openmetrics, int *fmt);
int cli_parse_double(const char *opt, const char *s, double min, double max,
		     double *out);
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int cmd_report(int argc, char **argv);
int cmd_save(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);

#endif
