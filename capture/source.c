// SPDX-License-Identifier: GPL-2.0-or-later
/* source.c - the live filesystem, recorded or not, and a capture served in
 * its place. Recording keeps what was read successfully, the directories
 * listed, and for the files read with source_read() and the trusted and
 * own files why one could not be read ("error/PATH"): a replay finds the
 * same file, the same listing, or the same error. A file that was not
 * there is absent from the capture, and absent on replay (-ENOENT). */
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fileio.h"
#include "pathnames.h"
#include "source.h"
#include "strutil.h"

static int member_name(char *buf, size_t len, const char *tag, const char *path)
{
	if (path[0] != '/')
		return -EINVAL;
	if ((size_t)snprintf(buf, len, "%s%s", tag ? tag : "root", path) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int source_member(char *buf, size_t len, const char *tag, const char *path)
{
	return member_name(buf, len, tag, path);
}

static void record_failed(struct source *src, int r)
{
	if (r < 0 && src->err == 0)
		src->err = r;
}

void source_keep(struct source *src, const char *name, const char *data, size_t len)
{
	if (src && src->mode == SOURCE_RECORD)
		record_failed(src, capture_put(src->cap, name, data, len, 0644));
}

#define ERROR_TAG	"error"

/* Why @path could not be had, kept as "error/PATH": "ERRNO WHY". */
static void record_error(struct source *src, const char *path, int r, const char *why)
{
	char name[CAPTURE_NAME_MAX], text[CAPTURE_WHY_MAX + 16];
	int n;

	if (member_name(name, sizeof(name), ERROR_TAG, path) < 0)
		return;
	n = snprintf(text, sizeof(text), "%d %s\n", -r, why);
	if (n > 0)
		record_failed(src, capture_put(src->cap, name, text,
			      (size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1, 0644));
}

/* The error a capture kept for @path: 0 when none, else -errno with @why. */
static int replayed_error(struct source *src, const char *path, char *why, size_t why_len)
{
	char name[CAPTURE_NAME_MAX], *end;
	const struct capture_member *m;
	long e;

	if (member_name(name, sizeof(name), ERROR_TAG, path) < 0)
		return 0;
	m = capture_get(src->cap, name);
	if (!m || !m->data)
		return 0;
	errno = 0;
	e = strtol(m->data, &end, 10);
	if (errno || end == m->data || *end != ' ' || e <= 0 || e > 4095) {
		snprintf(why, why_len, "unreadable (a malformed %s member)", ERROR_TAG);
		return -EIO;
	}
	snprintf(why, why_len, "%.*s", (int)strcspn(end + 1, "\n"), end + 1);
	return (int)-e;
}

/* A file the capture does not hold: the error the live run met, or that
 * it was never read (-ENOENT). */
static int replayed_missing(struct source *src, const char *path, char *why, size_t why_len)
{
	int r = replayed_error(src, path, why, why_len);

	if (r < 0)
		return r;
	snprintf(why, why_len, "%s", strerror(ENOENT));
	return -ENOENT;
}

long source_read(struct source *src, const char *path, char *buf, size_t len)
{
	return source_read_tag(src, NULL, path, buf, len);
}

long source_read_tag(struct source *src, const char *tag, const char *path,
		     char *buf, size_t len)
{
	char name[CAPTURE_NAME_MAX], why[CAPTURE_WHY_MAX];
	const struct capture_member *m;
	long n;
	size_t l;

	if (!src || src->mode == SOURCE_LIVE)
		return read_small_file(path, buf, len);
	if (member_name(name, sizeof(name), tag, path) < 0)
		return -ENAMETOOLONG;
	if (src->mode == SOURCE_RECORD) {
		n = read_small_file(path, buf, len);
		if (n >= 0)
			record_failed(src, capture_put(src->cap, name, buf, (size_t)n,
				strcmp(path, src->mode_path) == 0 ? src->last_mode : 0644));
		/* A snapshot's readers take every failure alike: only the
		 * others' errors are kept, one per path. */
		else if (n != -ENOENT && !tag)
			record_error(src, path, (int)n, strerror((int)-n));
		return n;
	}
	/* The file if it was read, else why it could not be. */
	m = capture_get(src->cap, name);
	if (!m || !m->data) {
		n = tag ? 0 : replayed_error(src, path, why, sizeof(why));
		return n < 0 ? n : -ENOENT;
	}
	if (len == 0)
		return -EINVAL;
	if (m->len >= len)
		return -EFBIG;
	/* As read_small_file() leaves it: trailing whitespace trimmed. */
	l = m->len;
	while (l > 0 && isspace((unsigned char)m->data[l - 1]))
		l--;
	memcpy(buf, m->data, l);
	buf[l] = '\0';
	return (long)l;
}

int source_mode(struct source *src, const char *path, mode_t *ret)
{
	char name[CAPTURE_NAME_MAX];
	const struct capture_member *m;
	struct stat st;

	if (!src || src->mode != SOURCE_REPLAY) {
		if (stat(path, &st) < 0)
			return -errno;
		*ret = st.st_mode & 07777;
		if (src && src->mode == SOURCE_RECORD) {
			str_copy(src->mode_path, sizeof(src->mode_path), path);
			src->last_mode = *ret;
		}
		return 0;
	}
	if (member_name(name, sizeof(name), NULL, path) < 0)
		return -ENAMETOOLONG;
	m = capture_get(src->cap, name);
	if (!m)
		return -ENOENT;
	*ret = m->mode;
	return 0;
}

static int subdirs_fd(struct source *src, const char *tag, const char *dir, int fd,
		      int (*fn)(void *ctx, const char *name), void *ctx);

int source_subdirs(struct source *src, const char *dir,
		   int (*fn)(void *ctx, const char *name), void *ctx)
{
	return source_subdirs_tag(src, NULL, dir, fn, ctx);
}

int source_kthreads(struct source *src, int (*fn)(void *ctx, const char *name), void *ctx)
{
	char buf[65536], *p, *save = NULL;
	int r = 0;

	if (source_read(src, _PATH_PROC_KTHREADS, buf, sizeof(buf)) < 0)
		return source_subdirs(src, _PATH_PROC, fn, ctx);
	for (p = strtok_r(buf, " \n", &save); p && r == 0; p = strtok_r(NULL, " \n", &save))
		r = fn(ctx, p);
	return r;
}

int source_subdirs_tag(struct source *src, const char *tag, const char *dir,
		       int (*fn)(void *ctx, const char *name), void *ctx)
{
	char name[CAPTURE_NAME_MAX];
	const struct capture_member **subs;
	unsigned int nr;
	int fd, r = 0;

	if (src && src->mode == SOURCE_REPLAY) {
		size_t pl;

		if (member_name(name, sizeof(name), tag, dir) < 0)
			return 0;
		r = capture_subdirs(src->cap, name, &subs, &nr);
		if (r < 0)
			return r;
		pl = strlen(name) + 1;
		for (unsigned int i = 0; i < nr && r == 0; i++)
			r = fn(ctx, subs[i]->name + pl);
		free(subs);
		return r;
	}
	/* getdents64(2) on an fd, not opendir(3): that fstat(2)s every
	 * directory it opens, 16,000 of /proc/irq's at 8192 CPUs. /proc as
	 * "/proc/": umockdev redirects what is under /proc/ to a test
	 * machine's tree, not /proc itself, and there its processes are the
	 * tree's (as fakekernel.so's opendir(3) lists them). */
	fd = open(strcmp(dir, _PATH_PROC) == 0 ? _PATH_PROC "/" : dir,
		  O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	r = subdirs_fd(src, tag, dir, fd, fn, ctx);
	close(fd);
	return r;
}

/* The live listing of @dir, open as @fd (at its start): for the two above
 * and source_dir_subdirs(). */
static int subdirs_fd(struct source *src, const char *tag, const char *dir, int fd,
		      int (*fn)(void *ctx, const char *name), void *ctx)
{
	char name[CAPTURE_NAME_MAX], sub[CAPTURE_NAME_MAX];
	/* As glibc's readdir(3) buffers: 32 KiB, aligned for struct dirent64. */
	char ents[32768] __attribute__((aligned(8)));
	int r = 0;

	while (r == 0) {
		ssize_t n = getdents64(fd, ents, sizeof(ents));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t off = 0; off < n && r == 0;) {
			struct dirent64 *de = (struct dirent64 *)(ents + off);

			off += de->d_reclen;
			/* "." and ".." cannot be members; no action name starts so. */
			if (de->d_type != DT_DIR || de->d_name[0] == '.')
				continue;
			if (src && src->mode == SOURCE_RECORD &&
			    member_name(name, sizeof(name), tag, dir) == 0 &&
			    (size_t)snprintf(sub, sizeof(sub), "%s/%s", name, de->d_name) < sizeof(sub))
				record_failed(src, capture_put_dir(src->cap, sub));
			r = fn(ctx, de->d_name);
		}
	}
	return r;
}

/* A live directory is opened once and its files read relative to it:
 * the kernel then resolves one name per file instead of the whole path
 * (four components for /proc/irq/N/FILE, 6,000 lookups on a 1,500-IRQ
 * machine), and the mode comes from fstat(2) of the file read. Recording
 * and replaying go by the paths, as before. */
void source_dir_open(struct source *src, const char *dir, struct source_dir *ret)
{
	ret->src = src;
	ret->path = dir;
	ret->fd = -1;
	if (!src || src->mode == SOURCE_LIVE)
		ret->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
}

void source_dir_close(struct source_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

static int dir_path(const struct source_dir *d, const char *name, char *buf, size_t len)
{
	size_t dl = strlen(d->path), nl = strlen(name);

	if (dl + 1 + nl >= len)
		return -ENAMETOOLONG;
	memcpy(buf, d->path, dl);
	buf[dl] = '/';
	memcpy(buf + dl + 1, name, nl + 1);
	return 0;
}

long source_dir_read(struct source_dir *d, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	int r;

	if (d->fd >= 0)
		return read_small_file_at(d->fd, name, buf, len);
	r = dir_path(d, name, path, sizeof(path));
	return r < 0 ? r : source_read(d->src, path, buf, len);
}

int source_dir_read_mode(struct source_dir *d, const char *name, char *buf, size_t len,
			 mode_t *ret_mode, long *ret_read)
{
	char path[PATH_MAX];
	struct stat st;
	mode_t mode;
	int fd, r;

	if (d->fd < 0) {
		r = dir_path(d, name, path, sizeof(path));
		if (r < 0)
			return r;
		r = source_mode(d->src, path, &mode);
		if (r < 0)
			return r;
		*ret_mode = mode;
		*ret_read = source_read(d->src, path, buf, len);
		return 0;
	}
	fd = openat(d->fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			return r;
		/* Not to be opened (EACCES...): its mode all the same, as
		 * stat(2) of its path would give it. */
		if (fstatat(d->fd, name, &st, 0) < 0)
			return -errno;
		*ret_mode = st.st_mode & 07777;
		*ret_read = r;
		return 0;
	}
	/* fstat(2) of the file read, not stat(2) of its path: one lookup. */
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	*ret_mode = st.st_mode & 07777;
	*ret_read = read_small_fd(fd, buf, len);
	close(fd);
	return 0;
}

int source_dir_subdirs(struct source_dir *d, int (*fn)(void *ctx, const char *name),
		       void *ctx)
{
	if (d->fd >= 0)
		return subdirs_fd(d->src, NULL, d->path, d->fd, fn, ctx);
	return source_subdirs(d->src, d->path, fn, ctx);
}

/* The whole of what @fd reads (at most CAPTURE_MEMBER_MAX bytes); the fd
 * stays open. */
static int slurp_fd(int fd, char **ret, size_t *ret_len)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *p;

			if (cap >= CAPTURE_MEMBER_MAX) {
				free(buf);
				return -EFBIG;
			}
			p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* The whole of a /proc file, whose size stat(2) does not tell. */
static int slurp(const char *path, char **ret, size_t *ret_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int r;

	if (fd < 0)
		return -errno;
	r = slurp_fd(fd, ret, ret_len);
	close(fd);
	return r;
}

int source_fopen(struct source *src, const char *tag, const char *path, FILE **ret)
{
	char name[CAPTURE_NAME_MAX];
	const struct capture_member *m;
	char *data = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (!src || src->mode == SOURCE_LIVE) {
		f = fopen(path, "re");
		if (!f)
			return -errno;
		*ret = f;
		return 0;
	}
	r = member_name(name, sizeof(name), tag, path);
	if (r < 0)
		return r;
	if (src->mode == SOURCE_RECORD) {
		r = slurp(path, &data, &len);
		if (r < 0)
			return r;
		r = capture_put(src->cap, name, data, len, 0444);
		free(data);
		if (r < 0) {
			record_failed(src, r);
			return r;
		}
		m = &src->cap->m[src->cap->nr - 1];	/* just appended */
	} else {
		m = capture_get(src->cap, name);
		if (!m || !m->data)
			return -ENOENT;
	}
	/* An empty member still makes a stream (glibc 2.22 and later). */
	f = fmemopen(m->data, m->len, "r");
	if (!f)
		return -errno;
	*ret = f;
	return 0;
}

int source_isdir(struct source *src, const char *path)
{
	char name[CAPTURE_NAME_MAX];
	const struct capture_member *m;
	struct stat st;

	if (src && src->mode == SOURCE_REPLAY) {
		if (member_name(name, sizeof(name), NULL, path) < 0)
			return -ENAMETOOLONG;
		m = capture_get(src->cap, name);
		if (!m)
			return -ENOENT;
		return m->data ? -ENOTDIR : 0;
	}
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (src && src->mode == SOURCE_RECORD &&
	    member_name(name, sizeof(name), NULL, path) == 0)
		record_failed(src, capture_put_dir(src->cap, name));
	return 0;
}

/* A directory entry that is a directory or a symbolic link (sysfs's
 * cpuN/nodeM: the link's name is what counts, even where its node
 * directory is gone); lstat(2) where the filesystem gives no type. */
static bool entry_is_dir(const char *dir, const struct dirent *de)
{
	char path[PATH_MAX];
	struct stat st;

	if (de->d_type == DT_DIR || de->d_type == DT_LNK)
		return true;
	if (de->d_type != DT_UNKNOWN)
		return false;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
		return false;
	return lstat(path, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode));
}

int source_list(struct source *src, const char *dir,
		int (*fn)(void *ctx, const char *name), void *ctx)
{
	char name[CAPTURE_NAME_MAX], sub[CAPTURE_NAME_MAX];
	const struct capture_member **subs;
	bool record = src && src->mode == SOURCE_RECORD;
	unsigned int nr;
	struct dirent *de;
	DIR *d;
	int r;

	if (member_name(name, sizeof(name), NULL, dir) < 0)
		return -ENAMETOOLONG;
	if (src && src->mode == SOURCE_REPLAY) {
		const struct capture_member *m = capture_get(src->cap, name);
		size_t pl = strlen(name) + 1;

		if (!m)
			return -ENOENT;
		if (m->data)
			return -ENOTDIR;
		r = capture_subdirs(src->cap, name, &subs, &nr);
		if (r < 0)
			return r;
		for (unsigned int i = 0; i < nr && r == 0; i++)
			r = fn(ctx, subs[i]->name + pl);
		free(subs);
		return r;
	}
	d = opendir(dir);
	if (!d)
		return -errno;
	if (record)
		record_failed(src, capture_put_dir(src->cap, name));
	r = 0;
	while (r == 0) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			r = -errno;
			break;
		}
		/* "." and "..", and nothing the readers look for starts so. */
		if (de->d_name[0] == '.' || !entry_is_dir(dir, de))
			continue;
		if (record &&
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", name, de->d_name) < sizeof(sub))
			record_failed(src, capture_put_dir(src->cap, sub));
		r = fn(ctx, de->d_name);
	}
	closedir(d);
	return r;
}

int source_fopen_trusted(struct source *src, const char *path, FILE **ret,
			 char *why, size_t why_len)
{
	char name[CAPTURE_NAME_MAX];
	const struct capture_member *m;
	char *data = NULL;
	size_t len = 0;
	struct stat st;
	FILE *f;
	int r;

	if (!src || src->mode == SOURCE_LIVE)
		return fopen_trusted(path, ret, why, why_len);
	r = member_name(name, sizeof(name), NULL, path);
	if (r < 0) {
		snprintf(why, why_len, "%s", strerror(-r));
		return r;
	}
	if (src->mode == SOURCE_REPLAY) {
		m = capture_get(src->cap, name);
		if (!m || !m->data)
			return replayed_missing(src, path, why, why_len);
	} else {
		r = fopen_trusted(path, &f, why, why_len);
		if (r < 0) {
			if (r != -ENOENT)
				record_error(src, path, r, why);
			return r;
		}
		r = fstat(fileno(f), &st);
		if (r == 0)
			r = slurp_fd(fileno(f), &data, &len);
		else
			r = -errno;
		fclose(f);
		if (r == 0)
			r = capture_put(src->cap, name, data, len, st.st_mode & 07777);
		free(data);
		if (r < 0) {
			record_failed(src, r);
			snprintf(why, why_len, "%s", strerror(-r));
			return r;
		}
		m = &src->cap->m[src->cap->nr - 1];	/* just appended */
	}
	f = fmemopen(m->data, m->len, "r");
	if (!f) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	*ret = f;
	return 0;
}

long source_read_own(struct source *src, const char *path, char *buf, size_t len,
		     char *why, size_t why_len)
{
	char name[CAPTURE_NAME_MAX];
	const struct capture_member *m;
	struct stat st;
	long n;

	if (!src || src->mode == SOURCE_LIVE)
		return read_own_file(path, buf, len, why, why_len);
	if (len == 0)
		return -EINVAL;
	if (member_name(name, sizeof(name), NULL, path) < 0) {
		snprintf(why, why_len, "%s", strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	if (src->mode == SOURCE_RECORD) {
		n = read_own_file(path, buf, len, why, why_len);
		if (n < 0 && n != -ENOENT)
			record_error(src, path, (int)n, why);
		if (n >= 0)
			record_failed(src, capture_put(src->cap, name, buf, (size_t)n,
				      stat(path, &st) == 0 ? st.st_mode & 07777 : 0644));
		return n;
	}
	m = capture_get(src->cap, name);
	if (!m || !m->data)
		return replayed_missing(src, path, why, why_len);
	/* As read_own_file() refuses them. */
	if (m->len >= len) {
		snprintf(why, why_len, "larger than %zu bytes: refused", len - 1);
		return -EFBIG;
	}
	memcpy(buf, m->data, m->len);
	buf[m->len] = '\0';
	if (strlen(buf) != m->len) {
		snprintf(why, why_len, "holds a NUL byte: not text");
		return -EINVAL;
	}
	return (long)m->len;
}

#define ENV_TAG	"env/"

const char *source_getenv(struct source *src, const char *name,
			  char *(*getenv_fn)(const char *))
{
	char member[CAPTURE_NAME_MAX];
	const struct capture_member *m;
	const char *v;

	if (!getenv_fn)
		return NULL;
	if ((size_t)snprintf(member, sizeof(member), ENV_TAG "%s", name) >= sizeof(member))
		return NULL;
	if (src && src->mode == SOURCE_REPLAY) {
		m = capture_get(src->cap, member);
		/* A value is a C string: text up to a NUL byte a capture put in. */
		return m && m->data ? m->data : NULL;
	}
	v = getenv_fn(name);
	if (v && src && src->mode == SOURCE_RECORD)
		record_failed(src, capture_put(src->cap, member, v, strlen(v), 0644));
	return v;
}
