/* The inputs' boots grouped by seed (seed_runs.c). */
#ifndef KSFTM_SEED_RUNS_H
#define KSFTM_SEED_RUNS_H

#include <ksftmetric/report.h>

struct confine;

/*
 * Each of @files read alone for its seed (its context's "seed"); when any
 * names one, every file must, and the files of each seed are added to @b
 * as one run (in the order the seeds first appear). @whole is the report
 * of all @files read in order (the command's own): one file is that
 * report already, so it is not read again (its seed and its run are
 * @whole's). @return the number of seeds (0: no file names one, @b
 * untouched), or -1 after printing why (a file without a seed among
 * seeded ones, an unreadable file).
 */
int seed_runs_add(const struct confine *c, char *const *files, int n,
		  const struct ksft_metric_report *whole,
		  struct ksft_metric_report_baseline *b);

#endif
