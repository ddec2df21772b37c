/*
 * What a file given in the wrong place is, from its first bytes, so an
 * error can say "this is a KTAP log; --baseline wants a file written by
 * ksft-metric save" instead of a parser's complaint (issue 23).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SNIFF_BYTES 65536

/* @s (@n bytes) holds @word at a line start. */
static int has_line(const char *s, size_t n, const char *word)
{
	size_t wl = strlen(word), i;

	for (i = 0; i + wl <= n; i++)
		if ((i == 0 || s[i - 1] == '\n') && !memcmp(s + i, word, wl))
			return 1;
	return 0;
}

const char *cli_file_kind(const char *data, size_t len)
{
	size_t i = 0, bin = 0;

	if (len > SNIFF_BYTES)
		len = SNIFF_BYTES;
	if (!data || !len)
		return "an empty file";
	if (len >= 16 && !memcmp(data, "SQLite format 3", 16))
		return "a SQLite database (a run history: give it as --db)";
	for (i = 0; i < len; i++)
		bin += data[i] == '\0' || ((unsigned char)data[i] < 0x20 && !strchr("\t\r\n\f", data[i]));
	if (bin)
		return "a binary file";
	for (i = 0; i < len && strchr(" \t\r\n", data[i]); i++)
		;
	if (i < len && (data[i] == '{' || data[i] == '[')) {
		if (memmem(data, len, "\"ksft-metric-baseline\"", 22))
			return "a baseline written by ksft-metric save (give it as --baseline)";
		if (memmem(data, len, "\"testsuites\"", 12))
			return "a twister JSON report";
		return "a JSON file";
	}
	if (has_line(data, len, "KTAP version") || has_line(data, len, "TAP version"))
		return memmem(data, len, "ktap-metric", 11) ? "a KTAP log with metrics" :
		       "a KTAP log without ktap-metric lines";
	if (memmem(data, len, "zperf", 5))
		return "zperf console output";
	return "a text file (not a KTAP log, zperf console output or a twister JSON report)";
}

const char *cli_path_kind(const struct confine *c, const char *path)
{
	static char none[] = "";
	FILE *f;
	char *buf;
	size_t n;
	const char *kind;

	if (!strcmp(path, "-"))
		return none;	/* read once, gone */
	f = confine_open_read(c, path);
	if (!f)
		return none;
	buf = malloc(SNIFF_BYTES);
	if (!buf) {
		fclose(f);
		return none;
	}
	n = fread(buf, 1, SNIFF_BYTES, f);
	fclose(f);
	kind = cli_file_kind(buf, n);
	free(buf);
	return kind;
}
