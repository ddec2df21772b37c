/* ksft-metric ingest: store the inputs as one run in the run history. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"

#define OPT_NEW_CONTEXT 256

static const char ingest_usage[] =
	"usage: ksft-metric ingest --db DB [--create] [--new-context] [--run ID] [--order KEY]\n"
	"                          [--context KEY=VALUE ...] [--host-context] [--window N]\n"
	"                          [--fdr Q] [--base-dir DIR] FILE...\n"
	"\n"
	"Store the inputs (several FILEs: repeats of one run) as one run of the\n"
	"history DB: every series, its policy, processed samples, summaries and\n"
	"case status, in one transaction. Each series is judged against the runs\n"
	"before it, as 'compare --db' would; a regression is stored but kept out\n"
	"of later baselines until 'ksft-metric accept'.\n"
	"\n"
	"  -D, --db DB          SQLite file or postgresql://... URI\n"
	"  -c, --create         the history may be new: create the SQLite file, or\n"
	"                       store into a database that holds no run (else both\n"
	"                       are refused: a mistyped --db)\n"
	"      --new-context    this run's machine is new to the history although its\n"
	"                       context lacks a key (runner=...) that every other\n"
	"                       machine of its series has (else refused: a forgotten\n"
	"                       or mistyped --context)\n"
	"  -r, --run ID         the run's unique id (default: its content key, a hash\n"
	"                       of its context and its series' stored samples)\n"
	"  -O, --order KEY      the CI's order for the run (commit date, build number;\n"
	"                       compared as text, ISO date-times with a zone in UTC;\n"
	"                       ties broken by the run id), default: the run's start\n"
	"                       time in its logs, else the database's clock\n"
	"  -x, --context K=V    CI metadata (commit, branch, runner, device...), over\n"
	"                       the logs' context lines; repeat for more\n"
	"  -H, --host-context   add this host's hostname, kernel, arch and CPUs where\n"
	"                       neither the logs nor --context say them (only when\n"
	"                       the logs come from this machine)\n"
	"  -w, --window N       runs judged against (30)\n"
	"  -F, --fdr Q          run-level false-alarm rate of regressions (0.01;\n"
	"                       improvements apart, at the same rate)\n"
	"  -C, --base-dir DIR   every file read or written must resolve under DIR\n"
	"  -q, --quiet          do not print input warnings\n"
	"  -h, --help           this help\n"
	"\n"
	"A run whose machine is new to the history is stored with a warning naming\n"
	"the machines that hold its series. A run stored already (the same context\n"
	"and series, whatever its --order or --run: a CI's retry) is not stored\n"
	"again: 'already ingested as run ID', exit 0.\n"
	"\n"
	"Exit status: 0 stored, 2 bad usage, unreadable input or refused run.\n";

/* This host's facts as KEY=VALUE items (malloc'd), for --host-context. */
static int host_items(char ***items, size_t *n)
{
	struct utsname u;
	char model[256] = "", line[512], **v = calloc(5, sizeof(*v));
	FILE *f = fopen("/proc/cpuinfo", "re");
	size_t k = 0;

	if (!v || uname(&u)) {
		int err = v ? errno : ENOMEM;

		free(v);
		if (f)
			fclose(f);
		return -err;
	}
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			snprintf(model, sizeof(model), "%s", colon + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
	if (asprintf(&v[k++], "hostname=%s", u.nodename) < 0 ||
	    asprintf(&v[k++], "kernel=%s", u.release) < 0 ||
	    asprintf(&v[k++], "arch=%s", u.machine) < 0 ||
	    asprintf(&v[k++], "cpu_count=%ld", sysconf(_SC_NPROCESSORS_ONLN)) < 0 ||
	    (*model && asprintf(&v[k++], "cpu_model=%s", model) < 0)) {
		v[k - 1] = NULL;
		while (k--)
			free(v[k]);
		free(v);
		return -ENOMEM;
	}
	*items = v;
	*n = k;
	return 0;
}

/* Is KEY (of "KEY=VALUE") said by the logs or by --context already? */
static int key_known(const struct cli_common *cc, const char *item)
{
	size_t klen = strcspn(item, "="), i;
	const char *ctx = ksft_metric_report_context_json(cc->r);
	char quoted[300];

	for (i = 0; i < cc->n_context; i++)
		if (!strncmp(cc->context[i], item, klen + 1))
			return 1;
	snprintf(quoted, sizeof(quoted), "\"%.*s\":", (int)klen, item);
	return strstr(ctx, quoted) != NULL;
}

int cmd_ingest(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_OPTION_DB,
		{ "run", required_argument, NULL, 'r' },
		{ "order", required_argument, NULL, 'O' },
		CLI_OPTION_CONTEXT,
		{ "host-context", no_argument, NULL, 'H' },
		{ "create", no_argument, NULL, 'c' },
		{ "new-context", no_argument, NULL, OPT_NEW_CONTEXT },
		{ "window", required_argument, NULL, 'w' },
		{ "fdr", required_argument, NULL, 'F' },
		CLI_OPTION_BASE_DIR,
		CLI_OPTION_QUIET,
		CLI_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_ingest_opts io = KSFT_METRIC_REPORT_INGEST_OPTS_INIT;
	struct ksft_metric_report_history *h = NULL;
	struct cli_common cc;
	char **host = NULL, *run_id = NULL;
	size_t n_host = 0, i;
	struct ksft_metric_report_gate_opts go = KSFT_METRIC_REPORT_GATE_OPTS_INIT;
	int ch, ret, stored, host_ctx = 0, create = 0, new_context = 0, fit, gate;

	ret = cli_common_init(&cc, "ingest", ingest_usage, 0, argc + 5);
	if (ret != EXIT_OK)
		return ret;
	while ((ch = cli_getopt(&cc, argc, argv, "D:r:O:x:Hcw:F:C:qh", opts)) != -1) {
		ret = EXIT_USAGE;
		if (ch == 'r') {
			io.run_id = optarg;
		} else if ((gate = cli_gate_option(ch, optarg, &io.window, &io.fdr, &io.order))) {
			if (gate < 0)
				goto out;
		} else if (ch == 'H') {
			host_ctx = 1;
		} else if (ch == 'c') {
			create = 1;
		} else if (ch == OPT_NEW_CONTEXT) {
			new_context = 1;
		} else if ((ret = cli_common_option(&cc, ch, optarg)) != CLI_OPT_NEXT) {
			goto out;
		}
	}
	if (!cc.db) {
		ret = cli_needs(&cc, "--db");
		goto out;
	}
	ret = cli_load(&cc, argv + optind, argc - optind, NULL);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_USAGE;
	if (host_ctx) {
		if (host_items(&host, &n_host)) {
			cli_error("cannot read this host's facts");
			goto out;
		}
		for (i = 0; i < n_host; i++)
			if (!key_known(&cc, host[i]))
				cc.context[cc.n_context++] = host[i];
	}
	io.context = cc.context;
	io.n_context = cc.n_context;
	cc.db_create = create;	/* only --create starts a history (issue 40) */
	h = cli_open_history(&cc);
	if (!h)
		goto out;
	/* A mistyped --db or a forgotten --context is refused, a new machine
	 * said aloud: the library's one answer, as compare --db's. */
	go.context = cc.context;
	go.n_context = cc.n_context;
	fit = cli_history_fit(&cc, h, &go, 1);
	if (fit < 0)
		goto out;
	if ((fit == KSFT_METRIC_REPORT_HISTORY_EMPTY && !create) ||
	    (fit == KSFT_METRIC_REPORT_HISTORY_KEY_MISSING && !new_context)) {
		if (cc.unusable)
			cli_error("ingest: %s", cc.unusable);
		else
			cli_oom("ingest");
		goto out;
	}
	if (fit != KSFT_METRIC_REPORT_HISTORY_FITS && fit != KSFT_METRIC_REPORT_HISTORY_EMPTY &&
	    cc.unusable)
		cli_error("ingest: warning: %s", cc.unusable);
	stored = ksft_metric_report_history_ingest(h, cc.r, &io, &run_id);
	if (stored == -EALREADY && run_id) {
		/* A retry: the same run, whatever its order or id (issue 40). */
		printf("already ingested as run %s: nothing stored\n", run_id);
		ret = EXIT_OK;
		goto out;
	}
	if (stored < 0) {
		cli_error("%s: %s", cc.db_shown, ksft_metric_report_errmsg());
		goto out;
	}
	printf("ingested run %s: %d series\n", run_id, stored);
	ret = EXIT_OK;
out:
	ksft_metric_report_text_free(run_id);
	ksft_metric_report_history_close(h);
	for (i = 0; i < n_host; i++)
		free(host[i]);
	free(host);
	cli_common_free(&cc);
	return ret;
}
