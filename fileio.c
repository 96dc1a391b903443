/* fileio.c - small-file reads and strict number parsing. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fileio.h"

long read_small_file(const char *path, char *buf, size_t len)
{
	return read_small_file_at(AT_FDCWD, path, buf, len);
}

long read_small_file_at(int dfd, const char *path, char *buf, size_t len)
{
	size_t got = 0;
	int fd;

	if (len == 0)
		return -EINVAL;
	fd = openat(dfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got == len) {
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
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

int parse_u64(const char *s, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

int parse_int(const char *s, int min, int max, int *ret)
{
	uint64_t v;
	int neg = 0, r;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '-') {
		neg = 1;
		s++;
		/* "- 5" is not a number: the sign is the number's */
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
	}
	r = parse_u64(s, (uint64_t)INT_MAX + 1, &v);
	if (r < 0)
		return r;
	if (neg ? -(int64_t)v < min : (int64_t)v > max)
		return -ERANGE;
	*ret = neg ? (int)-(int64_t)v : (int)v;
	return 0;
}

void str_copy(char *dst, size_t len, const char *src)
{
	size_t n;

	if (len == 0)
		return;
	n = src ? strnlen(src, len - 1) : 0;
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}
