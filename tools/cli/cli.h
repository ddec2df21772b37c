/* ksft-metric: what the subcommands share (options, inputs, confined paths). */
#ifndef KSFT_METRIC_CLI_H
#define KSFT_METRIC_CLI_H

#include <stddef.h>
#include <stdio.h>

#include <ksftmetric/report.h>

struct option;

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
/* Read a whole file ("-" = stdin) into memory; a negative errno after printing why. */
int confine_read_all(const struct confine *c, const char *path, char **data,
		     size_t *len);
/*
 * confine_read_all(), but a regular file is mapped (read-only, private),
 * not copied: a 72 MB baseline was 18,000 page faults and a copy (issue
 * 45). *@mapped says which; give it back with confine_release().
 */
int confine_map_all(const struct confine *c, const char *path, char **data,
		    size_t *len, int *mapped);
void confine_release(char *data, size_t len, int mapped);
/* Check that @path may be written; 0 or a negative errno after printing why. */
int confine_check_write(const struct confine *c, const char *path);
/* Write @len bytes to @path ("-" = stdout): replaced atomically. */
int confine_write(const struct confine *c, const char *path, const char *data,
		  size_t len);
/*
 * What writes a file's contents to @f: 0, the negative errno of a failed
 * write (the caller says it, naming the file), or positive: failed,
 * and it said why.
 */
typedef int (*confine_fill_fn)(FILE *f, void *arg);
/* confine_write() of what @fill writes, as it writes it (issue 45: no
 * whole text in memory); a file appears only when @fill succeeds. */
int confine_write_by(const struct confine *c, const char *path, confine_fill_fn fill,
		     void *arg);
/*
 * The same in steps, for a read-modify-write (save --append): open resolves
 * @path's directory (confined) and holds it; lock takes an exclusive flock
 * on it until close; read gives the current file (1: there is none);
 * write replaces it by a temporary file renamed in that same directory,
 * keeping the old file's mode. Each prints why and returns a negative errno.
 */
int confine_target_open(const struct confine *c, const char *path,
			struct confine_target *t);
int confine_target_lock(struct confine_target *t);
int confine_target_read(struct confine_target *t, char **data, size_t *len);
int confine_target_write(struct confine_target *t, const char *data, size_t len);
void confine_target_close(struct confine_target *t);

/* cli_read_inputs() in two: the logs read (a file's error said), then
 * their warnings printed (unless @quiet) and no metrics at all refused. */
int cli_read_logs(const struct confine *c, struct ksft_metric_report *r,
		  char *const *files, int n);
int cli_inputs_checked(const struct confine *c, const struct ksft_metric_report *r,
		       char *const *files, int n, int quiet);
/* A --baseline file's error: what the file is when it is no baseline
 * (from its first bytes, @data), else the library's message. */
void cli_baseline_error(const char *file, const char *data, size_t len);
/* Read every input into @r, print its warnings; returns an exit code. */
int cli_read_inputs(const struct confine *c, struct ksft_metric_report *r,
		    char *const *files, int n, int quiet);
/* Read --baseline files; returns an exit code. */
int cli_read_baselines(const struct confine *c,
		       struct ksft_metric_report_baseline *b,
		       char *const *files, size_t n);
int cli_parse_format(const char *s, int allow_openmetrics, int *fmt);
/*
 * What the subcommands share: the common options and the sequence
 * confine (--base-dir), check the output, create the report and the
 * baseline, read the --baseline files, read the inputs.
 *
 * A subcommand fills name, usage and allow_openmetrics through
 * cli_common_init(), handles its own option letters first and passes
 * every other one to cli_common_option(), then calls cli_load() and in
 * the end cli_common_free().
 */
struct cli_common {
	const char *name;	/* "compare", for "compare needs ..." */
	const char *usage;	/* printed by --help and on a usage error */
	int allow_openmetrics;	/* --format openmetrics accepted */

	/* The common options. */
	const char *out;	/* -o, NULL: not given (stdout) */
	const char *base;	/* -C, NULL: not confined */
	int fmt;		/* -f, KSFT_METRIC_REPORT_TEXT by default */
	int quiet;		/* -q */
	int verbose;		/* -v: the text shows everything */
	char **baselines;	/* -b, in the order given */
	size_t n_baselines;
	struct ksft_metric_report_compare_opts copts;	/* -t, -a */
	int alpha_given;	/* -a on the command line (copts.alpha has a default) */
	const char *db;		/* -D, the run history (NULL: none) */
	char db_shown[KSFT_METRIC_REPORT_HISTORY_NAME_MAX];	/* -D as messages show it */
	const char *title;	/* -T (plot, html), NULL: not given */
	const char **context;	/* -x KEY=VALUE, in the order given */
	size_t n_context;
	int first_run;		/* --first-run: an empty history judges all new */
	int db_create;		/* ingest: a missing --db is created */
	int db_missing;		/* cli_open_history(): none there (--first-run) */
	char *unusable;		/* cli_history_judge(): why the history cannot judge, as printed */
	/* cli_load_picture()'s @own_option: a command's own options
	 * (html --profile-a):
	 * CLI_OPT_NEXT when taken, 0 when not its own, else an exit code. */
	int (*picture_option)(void *ctx, int ch, char *arg);
	void *picture_ctx;

	/* What cli_getopt() parses, for the message on a bad option. */
	char **argv;
	const char *optstring;
	const struct option *opts;

	/* Made by cli_load(), released by cli_common_free(). */
	struct confine c;
	struct ksft_metric_report *r;
	struct ksft_metric_report_baseline *b;
};

/* Long options of the common letters (cli_common_option() handles them). */
#define CLI_OPTION_BASELINE	{ "baseline", required_argument, NULL, 'b' }
#define CLI_OPTION_TOLERANCE	{ "tolerance", required_argument, NULL, 't' }
#define CLI_OPTION_ALPHA	{ "alpha", required_argument, NULL, 'a' }
#define CLI_OPTION_FORMAT	{ "format", required_argument, NULL, 'f' }
#define CLI_OPTION_OUTPUT	{ "output", required_argument, NULL, 'o' }
#define CLI_OPTION_BASE_DIR	{ "base-dir", required_argument, NULL, 'C' }
#define CLI_OPTION_QUIET	{ "quiet", no_argument, NULL, 'q' }
/* --help and --version: every command takes both. */
#define CLI_OPTION_HELP		{ "help", no_argument, NULL, 'h' }, \
				{ "version", no_argument, NULL, 'V' }
#define CLI_OPTION_DB		{ "db", required_argument, NULL, 'D' }
#define CLI_OPTION_CONTEXT	{ "context", required_argument, NULL, 'x' }
#define CLI_OPTION_VERBOSE	{ "verbose", no_argument, NULL, 'v' }
/* --baseline judged across how the runs were measured (issue 42): no letter. */
#define CLI_OPT_ALLOW_CONTEXT	0x1000
#define CLI_OPTION_ALLOW_CONTEXT { "allow-context-mismatch", no_argument, NULL, CLI_OPT_ALLOW_CONTEXT }

/* cli_common_option(): the option was taken, go on parsing. */
#define CLI_OPT_NEXT (-1)

/*
 * getopt_long() for @cc's command, quiet: a bad option comes back as '?'
 * and cli_common_option() says what was wrong ("ksft-metric CMD: unknown
 * option '--x'", a did-you-mean and where the options are).
 */
int cli_getopt(struct cli_common *cc, int argc, char **argv, const char *optstring,
	       const struct option *opts);
/* Levenshtein distance of @a (@alen bytes) and @b (@blen), for did-you-mean. */
size_t cli_edit_distance(const char *a, size_t alen, const char *b, size_t blen);
/* The closest of the @n @names to @s (@len bytes), or NULL when none is close. */
const char *cli_closest(const char *s, size_t len, const char *const *names, size_t n);

/* Set up @cc for a command of @argc arguments; an exit code. */
int cli_common_init(struct cli_common *cc, const char *name,
		    const char *cmd_usage, int allow_openmetrics, int argc);
/*
 * Handle getopt's @ch (with @arg) for a common option, --help ('h') or a
 * bad option (anything else: the usage on stderr). Returns CLI_OPT_NEXT,
 * or the exit code to return now (EXIT_OK after --help, EXIT_USAGE).
 */
int cli_common_option(struct cli_common *cc, int ch, char *arg);
/* "NAME needs @what" and the usage on stderr; returns EXIT_USAGE. */
int cli_needs(const struct cli_common *cc, const char *what);
/*
 * Confine to --base-dir and check that -o (when given) may be written -
 * or with @t, open it as @t (not for "-"), its directory held from here
 * on. 0, or a negative errno after printing why.
 */
int cli_confine(struct cli_common *cc, struct confine_target *t);
/*
 * cli_confine(), then create the (empty) report and baseline: cli_load()'s
 * first step, and compare's when it reads the log before its baseline.
 * Returns an exit code.
 */
int cli_load_begin(struct cli_common *cc, struct confine_target *t);
/*
 * cli_confine(), then create the report and the baseline; read the --baseline files and
 * the @n inputs @files. Returns an exit code.
 */
int cli_load(struct cli_common *cc, char *const *files, int n,
	     struct confine_target *t);
void cli_common_free(struct cli_common *cc);
/*
 * The judging choice, one rule for every command that judges: --baseline
 * files or a run history --db, never both. db_ok: the command can judge
 * against a history; needed: it cannot run without one of the two.
 */
int cli_judging(const struct cli_common *cc, int db_ok, int needed);
/*
 * plot and html: set up @cc for command @name (cli_common_init(), with
 * @cmd_usage), parse @argv (getopt_long with @optstring/@opts; -T is the
 * title, cc->title, then cc->picture_option() when set, every other letter
 * a common option), require -o (@what names
 * it in the message), check the judging choice (cli_judging(); @db_ok)
 * and cli_load() the inputs. Returns an exit code;
 * EXIT_OK without cc->r after --help (nothing more to do). Free @cc with
 * cli_common_free() in any case.
 */
int cli_load_picture(struct cli_common *cc, const char *name, const char *cmd_usage,
		     int argc, char **argv, const char *optstring,
		     const struct option *opts, int db_ok, const char *what,
		     int (*own_option)(void *ctx, int ch, char *arg), void *own_ctx);
/* Write @text to @out (NULL or "-": stdout) and free it; an exit code. */
int cli_emit(const struct confine *c, const char *out, char *text, size_t len);
/* Write @r in @fmt (ksft_metric_report_write()), or the comparison @cmp
 * (ksft_metric_report_comparison_write()), to @out as it is made; an exit code. */
int cli_emit_report(const struct confine *c, const char *out,
		    const struct ksft_metric_report *r, int fmt,
		    const struct ksft_metric_report_format_opts *opts);
int cli_emit_comparison(const struct confine *c, const char *out,
			const struct ksft_metric_report_comparison *cmp, int fmt);
/*
 * Write @doc (a page or a picture the tool made, malloc'd; NULL: out of
 * memory, said here) to -o and free() it; an exit code.
 */
int cli_emit_doc(const struct cli_common *cc, char *doc, size_t len);
/*
 * cc->fmt with, for text, the width and verbosity flags: 80 columns when
 * $COLUMNS (else the terminal written to) says fewer than 120 (issue 34);
 * -v the whole run context.
 */
int cli_text_fmt(const struct cli_common *cc);
int cli_parse_double(const char *opt, const char *s, double min, double max,
		     double *out);
/* The history gate's options: compare --db, report --db, ingest. */
#define CLI_OPTIONS_GATE	{ "window", required_argument, NULL, 'w' }, \
				{ "fdr", required_argument, NULL, 'F' }, \
				{ "order", required_argument, NULL, 'O' }
#define CLI_MAX_WINDOW 100000
/*
 * getopt's @ch (with @arg) when it is -w (--window, into *@window), -F
 * (--fdr, *@fdr) or -O (--order, *@order): 1 taken, 0 another letter, a
 * negative errno after printing why.
 */
int cli_gate_option(int ch, const char *arg, size_t *window, double *fdr, const char **order);
/* --tolerance: "5%" or "5", both 5 percent; a negative errno after printing why. */
int cli_parse_tolerance(const char *s, double *pct);
/*
 * The process's SQLite settings (one thread: no mutexes, no memory
 * statistics), before any history is opened; main() calls it.
 */
void cli_sqlite_process_setup(void);
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Out of memory: "ksft-metric: @who: out of memory" (without "@who: "
 * when NULL), the text of lib/common's ksftm_oom(); returns -ENOMEM.
 */
int cli_oom(const char *who);
/* @s to @f with C0 (but tab, line feed), DEL and C1 controls as '?' (printable.c). */
void cli_put_printable(FILE *f, const char *s);

/*
 * file_kind.c: what @data (a file's first bytes) is, as an error shows it
 * ("a KTAP log without ktap-metric lines", "a baseline written by
 * ksft-metric save (...)", "a text file (...)"); cli_path_kind() reads
 * @path's first bytes ("" when it cannot, or for stdin).
 */
const char *cli_file_kind(const char *data, size_t len);
const char *cli_path_kind(const struct confine *c, const char *path);

int cmd_report(int argc, char **argv);
int cmd_save(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_accept(int argc, char **argv);
int cmd_pin(int argc, char **argv);
int cmd_prune(int argc, char **argv);
int cmd_site(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_profile_diff(int argc, char **argv);

/*
 * Open --db (confined to --base-dir when it is a file); prints why and
 * returns NULL on failure. Call after cli_load() or confine_init(). Only
 * with db_create (ingest) is a missing SQLite file created; otherwise a
 * missing one fails, or with first_run sets db_missing (no message).
 */
struct ksft_metric_report_history *cli_open_history(struct cli_common *cc);
/*
 * accept, pin and prune, which read no input: confine to --base-dir
 * (confine_init()), then cli_open_history(); NULL after saying why.
 */
struct ksft_metric_report_history *cli_open_history_alone(struct cli_common *cc);
/* history_check.c: is --db a SQLite file there (1), none (0), or a negative errno (said why). */
int cli_history_exists(const struct cli_common *cc);
/*
 * What cli_history_judge() returns besides the failing count (>= 0):
 * CLI_JUDGE_ERROR after printing an error; CLI_JUDGE_UNUSABLE when the
 * history cannot judge this run (exit 2, the rows are there), after
 * printing "NAME: why" unless the open said it (cc->unusable then NULL).
 */
enum cli_judge {
	CLI_JUDGE_ERROR = -1,
	CLI_JUDGE_UNUSABLE = -2,
};
/*
 * compare, report and html --db: judge cc->r against the history --db
 * (opened into *@h), failing loudly on a history that cannot judge it
 * (without --first-run; the reason printed and kept in cc->unusable,
 * and the rows are in *@out). Returns the failing count or an enum
 * cli_judge.
 */
int cli_history_judge(struct cli_common *cc, struct ksft_metric_report_gate_opts *go,
		      struct ksft_metric_report_history **h,
		      struct ksft_metric_report_comparison **out);
/*
 * The judging step of report, plot and html: cc->r judged against the
 * history --db (cli_history_judge(), with @go, the history left open in
 * *@h; a history that cannot judge the run fails) or against the
 * --baseline files, into *@cmp (left NULL with neither). EXIT_OK, or
 * EXIT_USAGE after saying why.
 */
int cli_judge(struct cli_common *cc, struct ksft_metric_report_gate_opts *go,
	      struct ksft_metric_report_history **h,
	      struct ksft_metric_report_comparison **cmp);
/*
 * history and site: open --db (call after confine_init()), write its
 * history document (ksft_metric_report_history_format() with @ho, the
 * run context from --context) in @fmt into *@text (free it with
 * ksft_metric_report_text_free()), close it. An exit code, said why.
 */
int cli_history_text(struct cli_common *cc, struct ksft_metric_report_history_opts *ho,
		     int fmt, char **text, size_t *len);
/*
 * Can history @h judge cc->r (ksft_metric_report_history_check(), the
 * run's context from @go)? Its answer (an enum
 * ksft_metric_report_history_fit), with cc->unusable the reason and what
 * to do about it on @ingest's command line or compare's (NULL when it
 * fits, or out of memory); a negative errno after printing a read error.
 */
int cli_history_fit(struct cli_common *cc, struct ksft_metric_report_history *h,
		    const struct ksft_metric_report_gate_opts *go, int ingest);
#define CLI_OPTION_FIRST_RUN	{ "first-run", no_argument, NULL, 'N' }
/* accept and pin: one RUN (accept: [SERIES]) acted on in the history --db. */
int cli_run_action(int argc, char **argv, const char *name, const char *usage, int accept);
/* Parse a count option in [1, @max]; a negative errno after printing why. */
int cli_parse_size(const char *opt, const char *s, size_t max, size_t *out);

#endif
