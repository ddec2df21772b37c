/*
 * Writing a file that --base-dir confines (confine.c resolves and holds
 * its directory): a temporary file created in that directory, filled,
 * synced and renamed over the old one, keeping its mode; a device or FIFO
 * is written in place. What fills it is the caller's: bytes it holds
 * (confine_write()) or a writer handed a stream (confine_write_by(), a
 * report as it is made, issue 45).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define TMP_PREFIX ".ksft-metric-"

static int write_fd(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;	/* errno still says why */
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A new file "TMP_PREFIX + random" in the held directory: fd, name in @tmp. */
static int create_temp(int dirfd, char tmp[32])
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	int tries, fd = -1, i;

	for (tries = 0; tries < 100 && fd < 0; tries++) {
		unsigned char rnd[8];

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			for (i = 0; i < 8; i++)
				rnd[i] = (unsigned char)(rand() ^ getpid() ^ tries);
		strcpy(tmp, TMP_PREFIX);
		for (i = 0; i < 8; i++)
			tmp[strlen(TMP_PREFIX) + (size_t)i] = chars[rnd[i] % (sizeof(chars) - 1)];
		tmp[strlen(TMP_PREFIX) + 8] = '\0';
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

/* A file's contents written to @fd by @fill: 0, a negative errno (the
 * caller says it), or positive (failed; @fill said why). */
typedef int (*fd_fill_fn)(int fd, void *arg);

/* @fill's failure said (unless @fill said it): the errno of a failed
 * write, after "cannot write 'PATH'" (a file) or "PATH" (in place). */
static int fill_failed(int ret, int file, const char *path)
{
	if (ret < 0 && file)
		cli_error("cannot write '%s': %s", path, strerror(-ret));
	else if (ret < 0)
		cli_error("%s: %s", path, strerror(-ret));
	return -EIO;
}

static int target_write(struct confine_target *t, fd_fill_fn fill, void *arg)
{
	char tmp[32];
	struct stat st;
	int fd, exists, ret;
	mode_t mask;

	exists = !fstatat(t->dirfd, t->name, &st, AT_SYMLINK_NOFOLLOW);
	if (exists && S_ISLNK(st.st_mode) && t->base) {
		cli_error("refusing to access '%s': it goes through a symbolic link, which "
			  "is not followed beneath --base-dir '%s'", t->path, t->base);
		return -ELOOP;
	}
	if (exists && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		/* A device or FIFO (e.g. /dev/stdout): write in place. */
		fd = openat(t->dirfd, t->name, O_WRONLY | O_CLOEXEC |
			    (t->base ? O_NOFOLLOW : 0));
		if (fd < 0) {
			cli_error("%s: %s", t->path, strerror(errno));
			return -EIO;
		}
		ret = fill(fd, arg);
		close(fd);
		return ret ? fill_failed(ret, 0, t->path) : 0;
	}
	fd = create_temp(t->dirfd, tmp);
	if (fd < 0) {
		cli_error("cannot write '%s': %s", t->path, strerror(errno));
		return -EIO;
	}
	if (exists && S_ISREG(st.st_mode)) {
		/* Replacing a file keeps its owner (where we may) and its mode. */
		if ((st.st_uid != geteuid() || st.st_gid != getegid()) &&
		    fchown(fd, st.st_uid, st.st_gid))
			errno = 0;	/* not ours to give away: keep ours */
		st.st_mode &= 07777;
	} else {
		mask = umask(0);
		umask(mask);
		st.st_mode = 0666 & ~mask;
	}
	ret = fchmod(fd, st.st_mode) ? -errno : fill(fd, arg);
	if (!ret && fsync(fd))
		ret = -errno;
	if (ret) {
		fill_failed(ret, 1, t->path);
		close(fd);
		unlinkat(t->dirfd, tmp, 0);
		return -EIO;
	}
	if (close(fd) || renameat(t->dirfd, tmp, t->dirfd, t->name)) {
		cli_error("cannot write '%s': %s", t->path, strerror(errno));
		unlinkat(t->dirfd, tmp, 0);
		return -EIO;
	}
	return 0;
}

struct data {
	const char *data;
	size_t len;
};

static int fill_data(int fd, void *arg)
{
	const struct data *d = arg;

	return write_fd(fd, d->data, d->len);
}

int confine_target_write(struct confine_target *t, const char *data, size_t len)
{
	struct data d = { data, len };

	return target_write(t, fill_data, &d);
}

struct stream {
	confine_fill_fn fill;
	void *arg;
};

/* A stream on a copy of @fd for the caller's @fill, closed after it. */
static int fill_stream(int fd, void *arg)
{
	const struct stream *s = arg;
	int copy = dup(fd), ret, err;
	FILE *f = copy >= 0 ? fdopen(copy, "w") : NULL;

	if (!f) {
		err = errno;
		if (copy >= 0)
			close(copy);
		return -err;
	}
	ret = s->fill(f, s->arg);
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

int confine_write_by(const struct confine *c, const char *path, confine_fill_fn fill,
		     void *arg)
{
	struct stream s = { fill, arg };
	struct confine_target t;
	int ret;

	if (!strcmp(path, "-")) {
		ret = fill(stdout, arg);
		if (!ret && fflush(stdout))
			ret = -errno;
		return ret ? fill_failed(ret, 0, "stdout") : 0;
	}
	ret = confine_target_open(c, path, &t);
	if (ret)
		return ret;
	ret = target_write(&t, fill_stream, &s);
	confine_target_close(&t);
	return ret;
}

int confine_write(const struct confine *c, const char *path, const char *data,
		  size_t len)
{
	struct confine_target t;
	int ret;

	if (!strcmp(path, "-")) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
			cli_error("stdout: %s", strerror(errno));
			return -EIO;
		}
		return 0;
	}
	ret = confine_target_open(c, path, &t);
	if (ret)
		return ret;
	ret = confine_target_write(&t, data, len);
	confine_target_close(&t);
	return ret;
}
