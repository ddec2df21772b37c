// SPDX-License-Identifier: GPL-2.0
/* The runners' shared command line and case opening (see runner_cli.h). */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/metric.h>

#include "cli_util.h"
#include "ktap_out.h"
#include "runner_cli.h"

void ex_runner_cli_init(struct ex_runner_cli *c, const char *prog)
{
	memset(c, 0, sizeof(*c));
	c->prog = prog;
	c->cpus = "default";
	ex_ab_cli_init(&c->ab);
	optind = 0;
}

int ex_runner_getopt(struct ex_runner_cli *c, int argc, char **argv,
		     const struct option *longopts)
{
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		ret = ex_runner_cli_opt(c, opt, argc, argv);
		if (ret < 0)
			return EX_RUNNER_OPT_BAD;
		if (!ret)
			return opt;
	}
	return -1;
}

int ex_runner_cli_opt(struct ex_runner_cli *c, int opt, int argc, char **argv)
{
	int ret = ex_ab_cli_opt(&c->ab, c->prog, opt, argc, argv);

	if (ret)
		return ret;
	switch (opt) {
	case EX_RUNNER_OPT_REMOTE:
		return ex_opt_remote(c->prog, argc, argv, &c->remote, &c->store) ? -1 : 1;
	case EX_RUNNER_OPT_METRICS:
		c->metrics = 1;
		return 1;
	case EX_RUNNER_OPT_CPUS:
		c->cpus = optarg;
		return 1;
	case EX_RUNNER_OPT_IRQ_IF:
		c->irq_if = optarg;
		return 1;
	default:
		return 0;
	}
}

int ex_runner_cli_finish(struct ex_runner_cli *c)
{
	char *err = NULL;

	c->is_ab = ex_ab_cli_finish(&c->ab, c->prog, c->remote);
	if (c->is_ab < 0)
		return -1;
	if (c->is_ab)
		c->metrics = 1;
	if (ex_placement_parse(NULL, c->cpus, &c->pl, &err)) {
		fprintf(stderr, "%s: %s\n", c->prog, err ? err : "out of memory");
		free(err);
		return -1;
	}
	return 0;
}

int ex_runner_case_begin(struct ex_runner_cli *c, const char *name, int *rc)
{
	char *err = NULL, irqs[300];

	if (c->irq_if && ex_nic_irqs_context(c->irq_if, &c->pl, irqs, sizeof(irqs), &err)) {
		ex_ktap_diag(err ? err : "pinning interrupts failed");
		*rc = ex_ktap_finish(name, EX_KTAP_FAIL, NULL);
		free(err);
		return 1;
	}
	if (c->metrics && (ex_cost_context(NULL, &c->pl, c->irq_if) ||
			   ksft_metric_context_emit()))
		ex_ktap_diag(ksft_metric_errmsg());
	if (ex_metric_case_begin(c->metrics)) {
		*rc = 1;
		return 1;
	}
	return 0;
}

void ex_runner_cli_free(struct ex_runner_cli *c)
{
	free(c->remote);
	free(c->store);
	ex_ab_cli_free(&c->ab);
}
