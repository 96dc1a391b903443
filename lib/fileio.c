// SPDX-License-Identifier: GPL-2.0-or-later
/* fileio.c - small-file reads, and replacing a file of ours atomically.
 * The strict number parsers are strutil.c's. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "fileio.h"

long read_small_file(const char *path, char *buf, size_t len)
{
	return read_small_file_at(AT_FDCWD, path, buf, len);
}

long read_small_file_at(int dfd, const char *path, char *buf, size_t len)
{
	long n;
	int fd;

	if (len == 0)
		return -EINVAL;
	fd = openat(dfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	n = read_small_fd(fd, buf, len);
	close(fd);
	return n;
}

long read_small_fd(int fd, char *buf, size_t len)
{
	size_t got = 0;

	if (len == 0)
		return -EINVAL;
	for (;;) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got == len)
			return -EFBIG;
		/* Less than the room left, and less than a page, is the end: a
		 * regular file's read stops short only there, and procfs
		 * (seq_file) and sysfs hand over at once whatever of the file
		 * fits, but for sysfs binary attributes (large cpumaps), a page
		 * at a time. Saves the read(2) of 0 per file: a quarter of the
		 * system calls of reading /proc/irq and sysfs. */
		if (n < 4096)
			break;
	}
	while (got > 0 && isspace((unsigned char)buf[got - 1]))
		got--;
	buf[got] = '\0';
	return (long)got;
}

int fopen_trusted(const char *path, FILE **ret_f, char *why, size_t why_len)
{
	struct stat st;
	FILE *f;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		snprintf(why, why_len, "%s", strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(why, why_len, "%s", strerror(errno));
		close(fd);
		return r;
	}
	/* Whoever can write it decides where IRQs go: root only. */
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "not a regular file");
		r = -EINVAL;
	} else if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(why, why_len, "owned by uid %u, not root: refusing it (chown root)",
			 (unsigned int)st.st_uid);
		r = -EPERM;
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, why_len, "writable by %s (mode %04o): refusing it (chmod go-w)",
			 st.st_mode & S_IWOTH ? "anyone" : "its group",
			 (unsigned int)(st.st_mode & 07777));
		r = -EPERM;
	} else {
		r = 0;
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	*ret_f = f;
	return 0;
}

/* ---- replacing a file atomically ---- */

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Open a fresh ".NAME.XXXXXXXX" beside the target; never an existing file,
 * never through a symlink. node_exporter reads only *.prom, so it ignores it. */
static int open_temp(int dirfd, const char *base, char *tmp, size_t len)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned int rnd;
		int fd;

		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = (unsigned int)getpid() * 2654435761u + (unsigned int)tries;
		snprintf(tmp, len, ".%s.%08x", base, rnd);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC | O_NOCTTY, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

#define STALE_SECONDS	600

/* Our temporary files that a run killed between create and rename left
 * behind: ".NAME." and 8 hex digits, a regular file of ours, older than
 * any run takes. Best effort. */
static void remove_stale(int dirfd, const char *base)
{
	size_t blen = strlen(base);
	struct dirent *de;
	struct stat st;
	int fd = dup(dirfd);
	DIR *d;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		bool ours = n[0] == '.' && strncmp(n + 1, base, blen) == 0 &&
			    n[blen + 1] == '.' && strlen(n + blen + 2) == 8;

		for (int k = 0; ours && k < 8; k++)
			ours = isxdigit((unsigned char)n[blen + 2 + k]);
		if (ours && fstatat(dirfd, n, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    st.st_mtime < time(NULL) - STALE_SECONDS)
			unlinkat(dirfd, n, 0);
	}
	closedir(d);
}

int write_file_atomic(const char *path, const char *text, size_t len, mode_t mode)
{
	char dbuf[PATH_MAX], bbuf[PATH_MAX], tmp[NAME_MAX + 1];
	char *dir, *base;
	struct stat st;
	int dirfd, fd = -1, r = 0;

	if (strlen(path) >= sizeof(dbuf))
		return -ENAMETOOLONG;
	strcpy(dbuf, path);
	strcpy(bbuf, path);
	dir = dirname(dbuf);
	base = basename(bbuf);
	if (!*base || strcmp(base, "/") == 0 || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0 || strlen(base) + 10 > NAME_MAX)
		return -EINVAL;

	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	/* The entry we replace must be a file of ours: a symlink or someone
	 * else's file there is refused, not silently replaced. */
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			r = -ELOOP;
		else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
			r = -EPERM;
	} else if (errno != ENOENT) {
		r = -errno;
	}
	if (r < 0)
		goto out_dir;
	fd = open_temp(dirfd, base, tmp, sizeof(tmp));
	if (fd < 0) {
		r = fd;
		goto out_dir;
	}
	/* The mode asked for, whatever the umask. */
	if (fchmod(fd, mode) < 0 || (r = write_all(fd, text, len)) < 0 ||
	    fsync(fd) < 0) {
		r = r < 0 ? r : -errno;
		goto out_unlink;
	}
	if (close(fd) < 0) {
		fd = -1;
		r = -errno;
		goto out_unlink;
	}
	fd = -1;
	if (renameat(dirfd, tmp, dirfd, base) < 0) {
		r = -errno;
		goto out_unlink;
	}
	(void)fsync(dirfd);	/* the rename itself durable; best effort */
	remove_stale(dirfd, base);
	r = 0;
	goto out_dir;

out_unlink:
	if (fd >= 0)
		close(fd);
	unlinkat(dirfd, tmp, 0);
out_dir:
	close(dirfd);
	return r;
}

long read_own_file(const char *path, char *buf, size_t len, char *why, size_t why_len)
{
	struct stat st;
	ssize_t got;
	long r;
	int fd;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		snprintf(why, why_len, "%s", r == -ELOOP ? "a symlink: refused" : strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(why, why_len, "%s", strerror(errno));
		goto out;
	}
	r = -EPERM;
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "not a regular file: refused");
		goto out;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(why, why_len, "owned by uid %u, not root: refused", (unsigned int)st.st_uid);
		goto out;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, why_len, "writable by others: refused");
		goto out;
	}
	if ((unsigned long long)st.st_size >= len) {
		snprintf(why, why_len, "larger than %zu bytes: refused", len - 1);
		r = -EFBIG;
		goto out;
	}
	got = read(fd, buf, len - 1);
	if (got < 0) {
		r = -errno;
		snprintf(why, why_len, "%s", strerror(errno));
		goto out;
	}
	buf[got] = '\0';
	if (strlen(buf) != (size_t)got) {
		snprintf(why, why_len, "holds a NUL byte: not text");
		r = -EINVAL;
		goto out;
	}
	r = got;
out:
	close(fd);
	return r;
}

/* Create directory @path (mode 0755) if need be; -EPERM unless it then is
 * a real directory of ours that no one else can write. */
static int make_own_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return 0;
}

int write_own_file(const char *path, const char *text, size_t len)
{
	char dbuf[PATH_MAX];
	int r;

	if (strlen(path) >= sizeof(dbuf))
		return -ENAMETOOLONG;
	strcpy(dbuf, path);
	/* Its directory must be a real one, not a symlink someone planted. */
	r = make_own_dir(dirname(dbuf));
	if (r < 0)
		return r;
	return write_file_atomic(path, text, len, 0644);
}
