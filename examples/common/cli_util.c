// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the example command lines (see cli_util.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "proc.h"

#define FILE_MAX (64u << 20)

const char *ex_fmt_double(double v, char buf[40])
{
	int prec;

	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, 40, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!strpbrk(buf, ".eEn"))
		strcat(buf, ".0");
	return buf;
}

int ex_read_file(const char *path, char **text, size_t *len, char **err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t size = 0, cap = 0;
	int ret = 0;

	*text = NULL;
	if (!f)
		return ex_errf(err, -errno, "%s: cannot open: %s", path, strerror(errno));
	for (;;) {
		size_t n;

		if (cap - size < 4096) {
			char *nb;

			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				ret = ex_errf(err, -ENOMEM, "%s: out of memory", path);
				break;
			}
			buf = nb;
		}
		n = fread(buf + size, 1, cap - size, f);
		size += n;
		if (n == 0) {
			if (ferror(f))
				ret = ex_errf(err, -EIO, "%s: read error", path);
			break;
		}
		if (size > FILE_MAX) {
			ret = ex_errf(err, -EFBIG, "%s: larger than %u bytes", path, FILE_MAX);
			break;
		}
	}
	fclose(f);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[size] = '\0';
	*text = buf;
	if (len)
		*len = size;
	return 0;
}

int ex_take_words(int argc, char **argv, int i, const char ***out, char **store)
{
	const char **words = calloc((size_t)argc + 1, sizeof(*words));
	int n = 0;

	*out = NULL;
	*store = NULL;
	if (!words)
		return -1;
	if (i < argc && strchr(argv[i], ' ') && (i + 1 == argc ||
						 !strncmp(argv[i + 1], "--", 2))) {
		/* One quoted argument: "ip netns exec NS". */
		char *save = NULL, *w, *copy = strdup(argv[i]);
		const char **more;

		if (!copy) {
			free(words);
			return -1;
		}
		for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
			more = realloc(words, (size_t)(n + 2) * sizeof(*words));
			if (!more) {
				free(copy);
				free(words);
				return -1;
			}
			words = more;
			words[n++] = w;
			words[n] = NULL;
		}
		*store = copy;
		i++;
	} else {
		while (i < argc && strncmp(argv[i], "--", 2))
			words[n++] = argv[i++];
	}
	if (!n) {
		free(*store);
		*store = NULL;
		free(words);
		return -1;
	}
	*out = words;
	return i;
}

int ex_parse_int(const char *prog, const char *s, const char *what, int min,
		 int max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: bad %s: %s\n", prog, what, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

int ex_opt_remote(const char *prog, int argc, char **argv,
		  const char ***remote, char **store)
{
	free(*remote);
	free(*store);
	if (optarg == argv[optind - 1])
		optind = ex_take_words(argc, argv, optind - 1, remote, store);
	else	/* --remote="ip netns exec NS" */
		optind = ex_take_words(1, &optarg, 0, remote, store) < 0 ? -1 : optind;
	if (optind < 0) {
		fprintf(stderr, "%s: --remote needs a command\n", prog);
		return -1;
	}
	return 0;
}

int ex_parse_file(const char *path,
		  int (*parse)(const char *text, size_t len, const char *name,
			       void *res, char **err),
		  void *res, size_t res_size, char **err)
{
	char *text;
	size_t len;
	int ret;

	memset(res, 0, res_size);
	ret = ex_read_file(path, &text, &len, err);
	if (ret)
		return ret;
	ret = parse(text, len, path, res, err);
	free(text);
	return ret;
}

int ex_cli_main(int argc, char **argv, void (*usage)(FILE *f),
		int (*cmd_parse)(int argc, char **argv),
		int (*cmd_run)(int argc, char **argv))
{
	if (argc >= 2 && !strcmp(argv[1], "parse"))
		return cmd_parse(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
