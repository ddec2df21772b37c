/*
 * --base-dir: every file read or written must lie beneath one directory,
 * for automation handling untrusted paths. The directory is held open and
 * each path is resolved and opened in one step beneath it (openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or a walk one component at a time
 * where the kernel lacks openat2), never checked by name and opened again:
 * a directory swapped for a symlink meanwhile cannot redirect anything.
 * Outputs go to a temporary file created in the held parent directory and
 * renamed there, keeping the replaced file's mode (confine_write.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(SYS_openat2) && __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#endif

#include "cli.h"
#include "errmsg.h"

int confine_init(struct confine *c, const char *dir)
{
	c->base = NULL;
	c->fd = -1;
	if (!dir)
		return 0;
	if (!*dir) {
		cli_error("--base-dir: empty path");
		return -EINVAL;
	}
	c->base = realpath(dir, NULL);
	if (!c->base) {
		int err = errno;

		cli_error("--base-dir %s: %s", dir, strerror(err));
		return -err;
	}
	/* Held for the whole run: every path resolves beneath this directory. */
	c->fd = open(c->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->fd < 0) {
		int err = errno;

		cli_error("--base-dir %s: %s", dir,
			  err == ENOTDIR ? "not a directory" : strerror(err));
		confine_free(c);
		return -err;
	}
	return 0;
}

void confine_free(struct confine *c)
{
	/* fd is only valid with base: a zero-initialised struct holds fd 0. */
	if (c->base && c->fd >= 0)
		close(c->fd);
	free(c->base);
	c->base = NULL;
	c->fd = -1;
}

/* Skip "/" runs and "." components; @return the next component's start. */
static const char *next_component(const char *p, size_t *len)
{
	for (;;) {
		while (*p == '/')
			p++;
		*len = strcspn(p, "/");
		if (*len == 1 && *p == '.')
			p++;
		else
			return p;
	}
}

/*
 * @path (absolute, or relative to the working directory) relative to the
 * base by name, or NULL when it does not start with the base. What follows
 * is resolved by the kernel beneath the held directory, so a ".." or a
 * symlink in it is caught there, not here.
 */
static char *beneath_name(const struct confine *c, const char *path)
{
	char *abs = NULL, *cwd, *rel = NULL;
	const char *p, *b;
	size_t pl, bl;

	if (path[0] == '/') {
		abs = strdup(path);
	} else {
		cwd = getcwd(NULL, 0);
		/* getcwd() has no symlinks: a leading ".." is its parent, exactly. */
		for (p = next_component(path, &pl); cwd && pl == 2 && !memcmp(p, "..", 2);
		     p = next_component(p + 2, &pl)) {
			char *slash = strrchr(cwd, '/');

			if (slash)
				slash[slash == cwd] = '\0';
			path = p + 2;
		}
		if (cwd && asprintf(&abs, "%s/%s", cwd, path) < 0)
			abs = NULL;
		free(cwd);
	}
	if (!abs)
		return NULL;
	/* c->base comes from realpath(): no ".", "..", symlinks or "//". */
	for (p = abs, b = c->base;;) {
		b = next_component(b, &bl);
		if (!bl)
			break;
		p = next_component(p, &pl);
		if (pl != bl || memcmp(p, b, bl))
			goto out;
		p += pl;
		b += bl;
	}
	while (*p == '/')
		p++;
	rel = strdup(p);
out:
	free(abs);
	return rel;
}

/*
 * The directory @name in @at, not through a symlink: an O_PATH fd (usable
 * as the next dirfd) or -ELOOP / -ENOTDIR / another negative errno. The
 * type comes from the opened fd, so a concurrent swap cannot mislabel it.
 */
static int open_dir_nofollow(int at, const char *name)
{
	struct stat st;
	int fd = openat(at, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(fd);
		return S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
	}
	return fd;
}

/*
 * Resolve beneath @dirfd one component at a time, each opened with
 * O_NOFOLLOW from the directory held before it; ".." steps back to a held
 * directory and never above @dirfd. For kernels without openat2().
 */
static int walk_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
	size_t max = strlen(rel) / 2 + 2, depth = 0, len, nl;
	int *fds, fd = -1, err = 0;
	const char *p = next_component(rel, &len);

	if (!len) {	/* the base itself */
		fd = openat(dirfd, ".", flags | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	fds = malloc(max * sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	fds[0] = dirfd;
	for (;;) {
		const char *next = next_component(p + len, &nl);
		char name[NAME_MAX + 1];

		if (len > NAME_MAX) {
			err = -ENAMETOOLONG;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		if (!strcmp(name, "..")) {
			if (!depth) {
				err = -EXDEV;
				break;
			}
			close(fds[depth--]);
			if (!nl) {
				fd = openat(fds[depth], ".", flags | O_CLOEXEC, mode);
				err = fd < 0 ? -errno : 0;
				break;
			}
		} else if (nl || flags & O_DIRECTORY) {
			fd = open_dir_nofollow(fds[depth], name);
			if (fd < 0) {
				err = fd;
				break;
			}
			if (!nl) {
				int dir = fd;

				fd = openat(dir, ".", flags | O_CLOEXEC, mode);
				err = fd < 0 ? -errno : 0;
				close(dir);
				break;
			}
			fds[++depth] = fd;
			fd = -1;
		} else {
			fd = openat(fds[depth], name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
			err = fd < 0 ? -errno : 0;
			break;
		}
		p = next;
		len = nl;
	}
	while (depth)
		close(fds[depth--]);
	free(fds);
	return err ? err : fd;
}

/* Open @rel beneath the base directory: an fd or a negative errno. */
static int open_beneath(const struct confine *c, const char *rel, int flags,
			mode_t mode)
{
#ifdef HAVE_OPENAT2
	static int no_openat2;

	if (!no_openat2) {
		struct open_how how;
		int tries, fd;

		memset(&how, 0, sizeof(how));
		how.flags = (unsigned long long)(flags | O_CLOEXEC);
		how.mode = flags & O_CREAT ? mode : 0;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
		/* EAGAIN: a rename raced with ".." resolution; the kernel asks to retry. */
		for (tries = 0; tries < 100; tries++) {
			fd = (int)syscall(SYS_openat2, c->fd, *rel ? rel : ".", &how,
					  sizeof(how));
			if (fd >= 0)
				return fd;
			if (errno != EAGAIN && errno != EINTR)
				break;
		}
		if (errno != ENOSYS)
			return -errno;
		no_openat2 = 1;	/* old kernel, or a seccomp filter: walk instead */
	}
#endif
	return walk_beneath(c->fd, rel, flags, mode);
}

/* The message for a path that cannot be used beneath the base; @return -@err (-EXDEV for 0). */
static int refuse(const struct confine *c, const char *path, int err)
{
	if (err == -EXDEV || err == 0)
		cli_error("refusing to access '%s': it is outside --base-dir '%s'", path,
			  c->base);
	else if (err == -ELOOP)
		cli_error("refusing to access '%s': it goes through a symbolic link, which "
			  "is not followed beneath --base-dir '%s'", path, c->base);
	else
		cli_error("%s: %s", path, strerror(-err));
	return err ? err : -EXDEV;
}

static int valid_path(const char *path)
{
	if (!*path || strchr(path, '\n')) {
		cli_error("invalid path '%s'", path);
		return 0;
	}
	return 1;
}

FILE *confine_open_read(const struct confine *c, const char *path)
{
	struct stat st;
	FILE *f;
	int fd;

	if (!strcmp(path, "-"))
		return stdin;
	if (!valid_path(path))
		return NULL;
	if (c->base) {
		char *rel = beneath_name(c, path);

		if (!rel) {
			refuse(c, path, 0);
			return NULL;
		}
		fd = open_beneath(c, rel, O_RDONLY, 0);
		free(rel);
		if (fd < 0) {
			refuse(c, path, fd);
			return NULL;
		}
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			cli_error("%s: %s", path, strerror(errno));
			return NULL;
		}
	}
	if (fstat(fd, &st)) {
		cli_error("%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
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

static int read_fd(FILE *f, const char *path, char **data, size_t *len)
{
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap);

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
		cli_error("%s: %s", path, buf ? "read error" : KSFTM_OOM_TEXT);
		free(buf);
		return buf ? -EIO : -ENOMEM;
	}
	*data = buf;
	*len = n;
	return 0;
}

int confine_read_all(const struct confine *c, const char *path, char **data,
		     size_t *len)
{
	FILE *f = confine_open_read(c, path);
	int ret;

	if (!f)
		return -EIO;	/* said why */
	ret = read_fd(f, path, data, len);
	if (f != stdin)
		fclose(f);
	return ret;
}

int confine_map_all(const struct confine *c, const char *path, char **data,
		    size_t *len, int *mapped)
{
	FILE *f = confine_open_read(c, path);
	struct stat st;
	int ret;

	*mapped = 0;
	if (!f)
		return -EIO;	/* said why */
	if (f != stdin && !fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (unsigned long long)st.st_size <= SIZE_MAX) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);

		if (p != MAP_FAILED) {
			*data = p;
			*len = (size_t)st.st_size;
			*mapped = 1;
			fclose(f);
			return 0;
		}
	}
	ret = read_fd(f, path, data, len);	/* a pipe, or it cannot be mapped */
	if (f != stdin)
		fclose(f);
	return ret;
}

void confine_release(char *data, size_t len, int mapped)
{
	if (mapped)
		munmap(data, len);
	else
		free(data);
}

static int bad_name(const char *name)
{
	return !*name || !strcmp(name, ".") || !strcmp(name, "..");
}

/* Without --base-dir: an existing symlink is replaced where it points. */
static int open_parent_anywhere(struct confine_target *t, const char *path)
{
	char *res = NULL, *copy, *dir;
	struct stat st;
	int ret = -EINVAL;	/* a bad name unless said otherwise */

	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		res = realpath(path, NULL);
		if (!res) {
			int err = errno;

			cli_error("%s: %s (dangling symlink?)", path, strerror(err));
			return -err;
		}
	} else {
		res = strdup(path);
		if (!res)
			return -ENOMEM;
	}
	copy = strdup(res);
	if (copy && !bad_name(basename(res)) && strcmp(basename(res), "/")) {
		t->name = strdup(basename(res));
		dir = dirname(copy);
		t->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (t->dirfd < 0) {
			ret = -errno;
			cli_error("cannot write '%s': %s: %s", path, dir, strerror(-ret));
		} else {
			ret = t->name ? 0 : -ENOMEM;
		}
	} else {
		cli_error("cannot write '%s': bad file name", path);
	}
	free(copy);
	free(res);
	return ret;
}

static int open_parent_beneath(const struct confine *c, struct confine_target *t,
			       const char *path)
{
	char *rel = beneath_name(c, path), *slash;
	int fd;

	if (!rel)
		return refuse(c, path, 0);
	slash = strrchr(rel, '/');
	if (bad_name(slash ? slash + 1 : rel)) {
		cli_error("cannot write '%s': bad file name", path);
		free(rel);
		return -EINVAL;
	}
	t->name = strdup(slash ? slash + 1 : rel);
	if (slash)
		*slash = '\0';
	fd = open_beneath(c, slash ? rel : "", O_RDONLY | O_DIRECTORY, 0);
	free(rel);
	if (fd < 0)
		return refuse(c, path, fd);
	t->dirfd = fd;
	return t->name ? 0 : -ENOMEM;
}

int confine_target_open(const struct confine *c, const char *path,
			struct confine_target *t)
{
	struct stat st;
	int ret;

	memset(t, 0, sizeof(*t));
	t->dirfd = -1;
	t->path = path;
	t->base = c->base;
	if (!valid_path(path))
		return -EINVAL;	/* said why */
	ret = c->base ? open_parent_beneath(c, t, path) : open_parent_anywhere(t, path);
	if (!ret && !fstatat(t->dirfd, t->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (S_ISLNK(st.st_mode) && t->base)
			ret = refuse(c, path, -ELOOP);
		else if (S_ISDIR(st.st_mode)) {
			cli_error("cannot write '%s': it is a directory", path);
			ret = -EISDIR;
		}
	}
	if (ret)
		confine_target_close(t);
	return ret;
}

void confine_target_close(struct confine_target *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);	/* drops the lock too */
	free(t->name);
	t->dirfd = -1;
	t->name = NULL;
}

int confine_target_lock(struct confine_target *t)
{
	int ret;

	do
		ret = flock(t->dirfd, LOCK_EX);
	while (ret && errno == EINTR);
	if (ret) {
		ret = -errno;
		cli_error("cannot lock the directory of '%s': %s", t->path, strerror(-ret));
	}
	return ret;
}

int confine_target_read(struct confine_target *t, char **data, size_t *len)
{
	int fd = openat(t->dirfd, t->name, O_RDONLY | O_CLOEXEC |
			(t->base ? O_NOFOLLOW : 0));
	FILE *f;
	int ret;

	if (fd < 0 && errno == ENOENT)
		return 1;
	if (fd < 0) {
		if (errno == ELOOP && t->base)
			cli_error("refusing to access '%s': it goes through a symbolic link, "
				  "which is not followed beneath --base-dir '%s'", t->path,
				  t->base);
		else
			cli_error("%s: %s", t->path, strerror(errno));
		return -EIO;
	}
	f = fdopen(fd, "r");
	if (!f) {
		cli_error("%s: %s", t->path, strerror(errno));
		close(fd);
		return -EIO;
	}
	ret = read_fd(f, t->path, data, len);
	fclose(f);
	return ret;
}

int confine_check_write(const struct confine *c, const char *path)
{
	struct confine_target t;
	int ret;

	if (!strcmp(path, "-"))
		return 0;
	ret = confine_target_open(c, path, &t);
	if (ret)
		return ret;
	confine_target_close(&t);
	return 0;
}
