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
