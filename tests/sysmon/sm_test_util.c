// SPDX-License-Identifier: GPL-2.0
/* Fixture roots and parsed case output for the sysmon suites. */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sm_test_util.h"
#include "sysmon.h"

const char *sm_fixture(const char *name)
{
	static _Thread_local char path[4096];

	snprintf(path, sizeof(path), "%s/%s", SM_FIXTURE_DIR, name);
	return path;
}

static void mkdir_p(const char *path)
{
	char tmp[4096], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(tmp, 0755);
		*p = '/';
	}
	ck_assert_msg(!mkdir(tmp, 0755) || errno == EEXIST, "mkdir %s: %s", tmp, strerror(errno));
}

char *sm_root_new(void)
{
	char tmpl[] = "/tmp/ksft-sysmon-test-XXXXXX", sub[4096];
	char *root = mkdtemp(tmpl);

	ck_assert_msg(root != NULL, "mkdtemp: %s", strerror(errno));
	snprintf(sub, sizeof(sub), "%s/proc", root);
	mkdir_p(sub);
	snprintf(sub, sizeof(sub), "%s/sys/class/net", root);
	mkdir_p(sub);
	return strdup(root);
}

static void write_file(const char *path, const void *data, size_t len)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	ck_assert_msg(f != NULL, "fopen %s: %s", tmp, strerror(errno));
	ck_assert(fwrite(data, 1, len, f) == len);
	ck_assert(fclose(f) == 0);
	ck_assert_msg(rename(tmp, path) == 0, "rename %s: %s", path, strerror(errno));
}

void sm_root_stat(const char *root, const char *name)
{
	char path[4096], buf[65536];
	FILE *f = fopen(sm_fixture(name), "r");
	size_t n;

	ck_assert_msg(f != NULL, "fixture %s: %s", name, strerror(errno));
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/proc/stat", root);
	write_file(path, buf, n);
}

void sm_root_nic(const char *root, const char *ifname, uint64_t rx_dropped,
		 uint64_t rx_missed, uint64_t tx_dropped)
{
	static const char *const names[3] = { "rx_dropped", "rx_missed_errors", "tx_dropped" };
	const uint64_t v[3] = { rx_dropped, rx_missed, tx_dropped };
	char path[4096], text[32];
	int i;

	snprintf(path, sizeof(path), "%s/sys/class/net/%s/statistics", root, ifname);
	mkdir_p(path);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/sys/class/net/%s/statistics/%s", root, ifname,
			 names[i]);
		snprintf(text, sizeof(text), "%llu\n", (unsigned long long)v[i]);
		write_file(path, text, strlen(text));
	}
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void sm_root_free(char *root)
{
	if (root)
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(root);
}

void sm_begin(void)
{
	if (ksft_metric_case_is_open()) {
		char *junk = NULL;

		ksft_metric_case_end_buffer(&junk, NULL);
		ksft_metric_free(junk);
	}
	ck_assert_int_eq(ksft_metric_case_begin(), 0);
}

static void push(json_t ***v, size_t *n, json_t *o)
{
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	ck_assert(*v != NULL);
	(*v)[(*n)++] = o;
}

void sm_end(struct sm_case *c)
{
	static const char obs[] = "# ktap-metric-json: ", pol[] = "# ktap-metric-policy-json: ";
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	int n = ksft_metric_case_end_buffer(&text, &len);

	memset(c, 0, sizeof(*c));
	ck_assert_msg(n >= 0, "case end: %d (%s)", n, ksft_metric_errmsg());
	/* By length: libksftmetric leaves an empty (0-line) buffer unterminated. */
	c->text = strndup(text ? text : "", text ? len : 0);
	ksft_metric_free(text);
	text = strdup(c->text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_error_t e;
		json_t *o;

		if (!strncmp(line, obs, sizeof(obs) - 1)) {
			o = json_loads(line + sizeof(obs) - 1, 0, &e);
			ck_assert_msg(o != NULL, "bad JSON line %s: %s", line, e.text);
			push(&c->obs, &c->n_obs, o);
		} else if (!strncmp(line, pol, sizeof(pol) - 1)) {
			o = json_loads(line + sizeof(pol) - 1, 0, &e);
			ck_assert_msg(o != NULL, "bad JSON line %s: %s", line, e.text);
			push(&c->pol, &c->n_pol, o);
			c->pol_text = realloc(c->pol_text, c->n_pol * sizeof(*c->pol_text));
			c->pol_text[c->n_pol - 1] = strdup(line + sizeof(pol) - 1);
		} else {
			ck_abort_msg("unexpected line: %s", line);
		}
	}
	free(text);
}

void sm_case_free(struct sm_case *c)
{
	size_t i;

	for (i = 0; i < c->n_obs; i++)
		json_decref(c->obs[i]);
	for (i = 0; i < c->n_pol; i++) {
		json_decref(c->pol[i]);
		free(c->pol_text[i]);
	}
	free(c->obs);
	free(c->pol);
	free(c->pol_text);
	free(c->text);
	memset(c, 0, sizeof(*c));
}

static int str_is(json_t *o, const char *key, const char *want)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v && !strcmp(v, want);
}

static int matches(json_t *o, const char *name, const char *host)
{
	return str_is(o, "name", name) && str_is(o, "host", host);
}

json_t *sm_find(const struct sm_case *c, const char *name, const char *host, size_t k)
{
	size_t i;

	for (i = 0; i < c->n_obs; i++)
		if (matches(c->obs[i], name, host) && !k--)
			return c->obs[i];
	return NULL;
}

size_t sm_count(const struct sm_case *c, const char *name, const char *host)
{
	size_t i, n = 0;

	for (i = 0; i < c->n_obs; i++)
		n += matches(c->obs[i], name, host);
	return n;
}

void sm_assert_array_at(const char *file, int line, json_t *o, const double *want, size_t n)
{
	json_t *v;
	char *dump;
	size_t i;

	ck_assert_msg(o != NULL, "%s:%d: observation missing", file, line);
	v = json_object_get(o, "value");
	dump = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	ck_assert_msg(json_is_array(v) && json_array_size(v) == n,
		      "%s:%d: value %s has not %zu entries", file, line, dump, n);
	ck_assert_str_eq(json_string_value(json_object_get(o, "shape")), "per-cpu");
	for (i = 0; i < n; i++) {
		json_t *e = json_array_get(v, i);

		if (isnan(want[i]))
			ck_assert_msg(json_is_null(e), "%s:%d: entry %zu of %s is not null",
				      file, line, i, dump);
		else
			ck_assert_msg(json_is_real(e) && json_real_value(e) == want[i],
				      "%s:%d: entry %zu of %s is not %.17g", file, line, i,
				      dump, want[i]);
	}
	free(dump);
}

void sm_assert_int_at(const char *file, int line, json_t *o, int64_t want)
{
	json_t *v;

	ck_assert_msg(o != NULL, "%s:%d: observation missing", file, line);
	v = json_object_get(o, "value");
	ck_assert_msg(json_is_integer(v) && json_integer_value(v) == want,
		      "%s:%d: value is not the integer %lld", file, line, (long long)want);
	ck_assert_str_eq(json_string_value(json_object_get(o, "shape")), "scalar");
}
