/*
 * --base-dir: every file read or written must resolve (symlinks and ".."
 * followed) under one directory, for automation handling untrusted paths.
 * Files are then opened by their resolved name with O_NOFOLLOW, and
 * outputs are written to a temporary file renamed into place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ksft-metric: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int confine_init(struct confine *c, const char *dir)
{
	struct stat st;

	c->base = NULL;
	if (!dir)
		return 0;
	if (!*dir) {
		cli_error("--base-dir: empty path");
		return -1;
	}
	c->base = realpath(dir, NULL);
	if (!c->base || stat(c->base, &st) || !S_ISDIR(st.st_mode)) {
		cli_error("--base-dir %s: %s", dir,
			  c->base ? "not a directory" : strerror(errno));
		free(c->base);
		c->base = NULL;
		return -1;
	}
	return 0;
}

void confine_free(struct confine *c)
{
	free(c->base);
	c->base = NULL;
}

static int under_base(const struct confine *c, const char *resolved)
{
	size_t n = strlen(c->base);

	if (!strcmp(c->base, "/"))
		return 1;
	return !strncmp(resolved, c->base, n) &&
	       (resolved[n] == '/' || resolved[n] == '\0');
}

static int refuse(const struct confine *c, const char *path, const char *resolved)
{
	cli_error("refusing to access '%s': it resolves to '%s', outside --base-dir '%s'",
		  path, resolved, c->base);
	return -1;
}

/* The resolved name of an existing @path; NULL after printing why. */
static char *resolve_existing(const struct confine *c, const char *path)
{
	char *res;

	if (!*path || strchr(path, '\n')) {
		cli_error("invalid path '%s'", path);
		return NULL;
	}
	if (!c->base)
		return strdup(path);
	res = realpath(path, NULL);
	if (!res) {
		cli_error("%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!under_base(c, res)) {
		refuse(c, path, res);
		free(res);
		return NULL;
	}
	return res;
}

FILE *confine_open_read(const struct confine *c, const char *path)
{
	struct stat st;
	char *res;
	FILE *f;
	int fd;

	if (!strcmp(path, "-"))
		return stdin;
	res = resolve_existing(c, path);
	if (!res)
		return NULL;
	fd = open(res, O_RDONLY | O_CLOEXEC | (c->base ? O_NOFOLLOW : 0));
	if (fd < 0 || fstat(fd, &st)) {
		cli_error("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(res);
		return NULL;
	}
	free(res);
	if (S_ISDIR(st.st_mode)) {
		cli_error("%s: is a directory", path);
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		cli_error("%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

int confine_read_all(const struct confine *c, const char *path, char **data,
		     size_t *len)
{
	FILE *f = confine_open_read(c, path);
	size_t cap = 1 << 16, n = 0, got;
	char *buf;

	if (!f)
		return -1;
	buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (!buf || ferror(f)) {
		cli_error("%s: %s", path, buf ? "read error" : "out of memory");
		free(buf);
		if (f != stdin)
			fclose(f);
		return -1;
	}
	if (f != stdin)
		fclose(f);
	*data = buf;
	*len = n;
	return 0;
}

/* Resolved target of a path to be written; NULL after printing why. */
static char *resolve_target(const struct confine *c, const char *path)
{
	char *copy, *dir, *base, *rdir, *res;
	struct stat st;

	if (!*path || strchr(path, '\n')) {
		cli_error("invalid path '%s'", path);
		return NULL;
	}
	if (!lstat(path, &st)) {
		res = realpath(path, NULL);
		if (!res) {
			cli_error("%s: %s (dangling symlink?)", path, strerror(errno));
			return NULL;
		}
		if (stat(res, &st) == 0 && S_ISDIR(st.st_mode)) {
			cli_error("cannot write '%s': it is a directory", path);
			free(res);
			return NULL;
		}
	} else {
		copy = strdup(path);
		if (!copy)
			return NULL;
		dir = dirname(copy);
		rdir = realpath(dir, NULL);
		if (!rdir) {
			cli_error("cannot write '%s': %s: %s", path, dir, strerror(errno));
			free(copy);
			return NULL;
		}
		free(copy);
		copy = strdup(path);
		base = copy ? basename(copy) : NULL;
		if (!base || !strcmp(base, ".") || !strcmp(base, "..") ||
		    !strcmp(base, "/") ||
		    asprintf(&res, "%s/%s", strcmp(rdir, "/") ? rdir : "", base) < 0) {
			cli_error("cannot write '%s': bad file name", path);
			free(copy);
			free(rdir);
			return NULL;
		}
		free(copy);
		free(rdir);
	}
	if (c->base && !under_base(c, res)) {
		refuse(c, path, res);
		free(res);
		return NULL;
	}
	return res;
}

int confine_check_write(const struct confine *c, const char *path)
{
	char *res;

	if (!strcmp(path, "-"))
		return 0;
	res = resolve_target(c, path);
	free(res);
	return res ? 0 : -1;
}

static int write_fd(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int confine_write(const struct confine *c, const char *path, const char *data,
		  size_t len)
{
	char *res, *tmp = NULL, *slash;
	struct stat st;
	mode_t mask;
	int fd;

	if (!strcmp(path, "-")) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
			cli_error("stdout: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	res = resolve_target(c, path);
	if (!res)
		return -1;
	if (!stat(res, &st) && !S_ISREG(st.st_mode)) {
		/* A device or FIFO (e.g. /dev/stdout): write in place. */
		fd = open(res, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write_fd(fd, data, len)) {
			cli_error("%s: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			free(res);
			return -1;
		}
		close(fd);
		free(res);
		return 0;
	}
	slash = strrchr(res, '/');
	if (asprintf(&tmp, "%.*s.ksft-metric-XXXXXX",
		     slash ? (int)(slash - res + 1) : 0, res) < 0) {
		free(res);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		goto fail;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) || write_fd(fd, data, len) || fsync(fd)) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		close(fd);
		unlink(tmp);
		goto fail;
	}
	if (close(fd) || rename(tmp, res)) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		goto fail;
	}
	free(tmp);
	free(res);
	return 0;
fail:
	free(tmp);
	free(res);
	return -1;
}
