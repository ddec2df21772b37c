/* Helpers for the producer API suites; see producer_util.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_case.h"
#include "producer_util.h"

void pu_reset(void)
{
	if (ksft_metric_case_is_open()) {
		char *out = NULL;

		ksft_metric_case_end_buffer(&out, NULL);
		ksft_metric_free(out);
	}
	ck_assert_int_eq(ksft_metric_set_prefix("# "), 0);
	ck_assert_int_eq(ksft_metric_set_output_file(stdout), 0);
	ck_assert_int_eq(ksft_metric_set_buffer_limit(KSFT_METRIC_DEFAULT_BUFFER_LIMIT), 0);
	ck_assert_int_eq(ksft_metric_set_stream(0), 0);
}

TCase *pu_tcase(const char *name, const TTest *t)
{
	return ck_tcase(name, t, pu_reset, NULL);
}

void pu_begin(void)
{
	int r = ksft_metric_case_begin();

	ck_assert_msg(r == 0, "ksft_metric_case_begin() returned %d (%s)", r,
		      ksft_metric_errmsg());
}

size_t pu_count_lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

char *pu_end_raw(int *nlines)
{
	char *out = (char *)1;	/* must be overwritten */
	size_t len = (size_t)-1;
	char *copy;
	int r = ksft_metric_case_end_buffer(&out, &len);

	ck_assert_msg(r >= 0, "ksft_metric_case_end_buffer() returned %d (%s)", r,
		      ksft_metric_errmsg());
	ck_assert_msg(out != NULL && out != (char *)1, "no buffer returned");
	/* Checked before strlen() so a missing NUL fails cleanly (also under ASan). */
	ck_assert_msg(out[len] == '\0', "text of %zu bytes is not NUL-terminated (byte 0x%02x follows)",
		      len, (unsigned char)out[len]);
	ck_assert_msg(strlen(out) == len, "len %zu but strlen %zu", len, strlen(out));
	ck_assert_msg(pu_count_lines(out) == (size_t)r,
		      "returned %d lines but text has %zu", r, pu_count_lines(out));
	ck_assert_msg(len == 0 || out[len - 1] == '\n', "text does not end with a newline");
	ck_assert_int_eq(ksft_metric_case_is_open(), 0);
	/* Hand back memory the caller frees with free(), like every other helper. */
	copy = strdup(out);
	ck_assert_ptr_nonnull(copy);
	ksft_metric_free(out);
	if (nlines)
		*nlines = r;
	return copy;
}

char *pu_end_text(int *nlines)
{
	int n;
	char *text = pu_end_raw(&n), *in = text, *out = text;

	/* Refused-call warnings are test_rejects.c's; the rest compare metric lines. */
	while (*in) {
		char *nl = strchr(in, '\n');
		size_t len = nl ? (size_t)(nl - in) + 1 : strlen(in);

		if (strstr(in, "ktap-metric-warning-json: {") &&
		    strstr(in, "ktap-metric-warning-json: {") < in + len) {
			n--;
		} else {
			memmove(out, in, len);
			out += len;
		}
		in += len;
	}
	*out = '\0';
	if (nlines)
		*nlines = n;
	return text;
}

/* Length of a JSON number at @p (as json.dumps prints one), 0 if none. */
static size_t number_len(const char *p)
{
	size_t n = 0;

	if (p[n] == '-')
		n++;
	while ((p[n] >= '0' && p[n] <= '9') || p[n] == '.' || p[n] == 'e' ||
	       p[n] == 'E' || p[n] == '+' || p[n] == '-')
		n++;
	return n;
}

char *pu_mask_time(const char *text)
{
	static const char key[] = "\"time\":";
	size_t cap = strlen(text) + 1, o = 0;
	char *out = malloc(cap);
	const char *p = text;

	ck_assert_ptr_nonnull(out);
	for (;;) {
		const char *k = strstr(p, key);
		size_t pre, num;

		if (!k) {
			memcpy(out + o, p, strlen(p) + 1);
			return out;
		}
		pre = (size_t)(k - p) + sizeof(key) - 1;
		memcpy(out + o, p, pre);
		o += pre;
		p += pre;
		num = number_len(p);
		ck_assert_msg(num > 0, "\"time\" is not followed by a number: %.40s", k);
		/* The token is never longer than a number. */
		memcpy(out + o, PU_TIME_TOKEN, sizeof(PU_TIME_TOKEN) - 1);
		o += sizeof(PU_TIME_TOKEN) - 1;
		p += num;
	}
}

int pu_time_of(const char *line, double *t, char *digits, size_t size)
{
	static const char key[] = "\"time\":";
	const char *k = strstr(line, key), *nl = strchr(line, '\n');
	size_t n;
	char buf[64];

	if (!k || (nl && k > nl))
		return 0;
	k += sizeof(key) - 1;
	n = number_len(k);
	if (!n || n >= sizeof(buf))
		return 0;
	memcpy(buf, k, n);
	buf[n] = '\0';
	if (t)
		*t = strtod(buf, NULL);
	if (digits && size) {
		snprintf(digits, size, "%s", buf);
	}
	return 1;
}

/* Start of line @i (0-based) in @s, or NULL; *len gets its length without '\n'. */
static const char *nth_line(const char *s, size_t i, size_t *len)
{
	const char *nl;

	while (i--) {
		nl = strchr(s, '\n');
		if (!nl)
			return NULL;
		s = nl + 1;
	}
	if (!*s)
		return NULL;
	nl = strchr(s, '\n');
	*len = nl ? (size_t)(nl - s) : strlen(s);
	return s;
}

static void print_diff(const char *got, const char *want)
{
	size_t i, gl = 0, wl = 0;

	fprintf(stderr, "--- want\n+++ got\n");
	for (i = 0;; i++) {
		const char *g = nth_line(got, i, &gl), *w = nth_line(want, i, &wl);

		if (!g && !w)
			break;
		if (g && w && gl == wl && !memcmp(g, w, gl)) {
			fprintf(stderr, " %.*s\n", (int)gl, g);
			continue;
		}
		if (w)
			fprintf(stderr, "-%.*s\n", (int)wl, w);
		if (g)
			fprintf(stderr, "+%.*s\n", (int)gl, g);
	}
}

void pu_text_eq_at(const char *file, int line, const char *got, const char *want)
{
	size_t i, gl = 0, wl = 0, col;
	const char *g, *w;

	ck_assert_msg(got != NULL, "%s:%d: got NULL text", file, line);
	if (!strcmp(got, want))
		return;
	for (i = 0;; i++) {
		g = nth_line(got, i, &gl);
		w = nth_line(want, i, &wl);
		if (!g || !w || gl != wl || memcmp(g, w, gl))
			break;
	}
	print_diff(got, want);
	if (!g || !w)
		ck_abort_msg("%s:%d: output differs at line %zu: %s\n  want: %.400s\n  got:  %.400s",
			     file, line, i + 1, g ? "extra line" : "line missing",
			     w ? w : "(none)", g ? g : "(none)");
	for (col = 0; col < gl && col < wl && g[col] == w[col]; col++)
		;
	ck_abort_msg("%s:%d: output differs at line %zu column %zu\n  want: %.*s\n  got:  %.*s",
		     file, line, i + 1, col + 1, (int)(wl < 400 ? wl : 400), w,
		     (int)(gl < 400 ? gl : 400), g);
}

void pu_expect_end_at(const char *file, int line, const char *want)
{
	int n;
	char *text = pu_end_text(&n), *masked = pu_mask_time(text);

	pu_text_eq_at(file, line, masked, want);
	ck_assert_msg((size_t)n == pu_count_lines(want), "%s:%d: %d lines, want %zu",
		      file, line, n, pu_count_lines(want));
	free(masked);
	free(text);
}

char *pu_read_fd(int fd, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);

	ck_assert_ptr_nonnull(buf);
	for (;;) {
		ssize_t r;

		if (cap - n < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		ck_assert_msg(r >= 0, "read: %s", strerror(errno));
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *pu_read_stream(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0, r;
	char *buf = malloc(cap);

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fflush(f), 0);
	rewind(f);
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (cap - n < 2) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int pu_collect_cb(const char *line, size_t len, void *ctx)
{
	struct pu_lines *l = ctx;
	char *copy;

	if (l->fail_at && l->n + 1 == l->fail_at)
		return l->fail_err;
	if (memchr(line, '\n', len))
		l->saw_newline = 1;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, line, len);
	copy[len] = '\0';
	l->v[l->n++] = copy;
	return 0;
}

char *pu_lines_join(const struct pu_lines *l)
{
	size_t i, total = 1, o = 0;
	char *out;

	for (i = 0; i < l->n; i++)
		total += strlen(l->v[i]) + 1;
	out = malloc(total);
	ck_assert_ptr_nonnull(out);
	for (i = 0; i < l->n; i++) {
		size_t n = strlen(l->v[i]);

		memcpy(out + o, l->v[i], n);
		o += n;
		out[o++] = '\n';
	}
	out[o] = '\0';
	return out;
}

void pu_lines_free(struct pu_lines *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Directory part of @path into @out ("." if none). */
static void dir_of(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(out, size, ".");
	else
		snprintf(out, size, "%.*s", (int)(slash - path), path);
}

char *pu_read_golden(const char *src_file, const char *name)
{
	char exe[PATH_MAX], build[PATH_MAX], src_dir[PATH_MAX], path[3 * PATH_MAX + 64];
	char tried[2][3 * PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int i, fd = -1;
	char *text;

	dir_of(src_file, src_dir, sizeof(src_dir));
	build[0] = '\0';
	if (n > 0) {
		char metric_dir[PATH_MAX], tests_dir[PATH_MAX];

		exe[n] = '\0';
		dir_of(exe, metric_dir, sizeof(metric_dir));	/* <build>/tests/metric */
		dir_of(metric_dir, tests_dir, sizeof(tests_dir));	/* <build>/tests */
		dir_of(tests_dir, build, sizeof(build));	/* <build> */
	}
	for (i = 0; i < 2 && fd < 0; i++) {
		if (src_dir[0] == '/' || i == 1)
			snprintf(path, sizeof(path), "%s/golden/%s", src_dir, name);
		else
			snprintf(path, sizeof(path), "%s/%s/golden/%s", build, src_dir, name);
		snprintf(tried[i], sizeof(tried[i]), "%s", path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	ck_assert_msg(fd >= 0, "golden file %s not found (tried %s and %s)", name, tried[0], tried[1]);
	text = pu_read_fd(fd, NULL);
	close(fd);
	return text;
}
