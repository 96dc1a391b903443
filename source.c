/* source.c - the live filesystem, recorded or not, and a capture served in
 * its place. Recording keeps what was read successfully: a file the run
 * could not read is absent from the capture, and a replay finds it absent
 * too (-ENOENT), which is all the readers distinguish. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fileio.h"
#include "source.h"

static int member_name(char *buf, size_t len, const char *tag, const char *path)
{
	if (path[0] != '/')
		return -EINVAL;
	if ((size_t)snprintf(buf, len, "%s%s", tag ? tag : "root", path) >= len)
		return -ENAMETOOLONG;
	return 0;
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

long source_read(struct source *src, const char *path, char *buf, size_t len)
{
	return source_read_tag(src, NULL, path, buf, len);
}

long source_read_tag(struct source *src, const char *tag, const char *path,
		     char *buf, size_t len)
{
	char name[CAPTURE_NAME_MAX];
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
		return n;
	}
	m = capture_get(src->cap, name);
	if (!m || !m->data)
		return -ENOENT;
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

int source_subdirs(struct source *src, const char *dir,
		   int (*fn)(void *ctx, const char *name), void *ctx)
{
	return source_subdirs_tag(src, NULL, dir, fn, ctx);
}

int source_subdirs_tag(struct source *src, const char *tag, const char *dir,
		       int (*fn)(void *ctx, const char *name), void *ctx)
{
	char name[CAPTURE_NAME_MAX], sub[CAPTURE_NAME_MAX];
	const struct capture_member **subs;
	/* As glibc's readdir(3) buffers: 32 KiB, aligned for struct dirent64. */
	char ents[32768] __attribute__((aligned(8)));
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
	 * directory it opens, 16,000 of /proc/irq's at 8192 CPUs. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
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
	close(fd);
	return r;
}

/* The whole of a /proc file, whose size stat(2) does not tell. */
static int slurp(const char *path, char **ret, size_t *ret_len)
{
	size_t cap = 65536, len = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *p;

			if (cap >= CAPTURE_MEMBER_MAX) {
				free(buf);
				close(fd);
				return -EFBIG;
			}
			p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				close(fd);
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
			close(fd);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	*ret = buf;
	*ret_len = len;
	return 0;
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
