// SPDX-License-Identifier: GPL-2.0-or-later
/* capture.c - the capture file: named members in memory, and the .tar.gz
 * they are written to and read from with libarchive. Reading distrusts
 * the file: every size is checked against the bounds before it is
 * believed, and memory grows with the data actually decompressed, never
 * with what a header claims. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <archive.h>
#include <archive_entry.h>

#include "capture.h"
#include "fileio.h"
#include "strutil.h"

struct capture *capture_new(void)
{
	return calloc(1, sizeof(struct capture));
}

void capture_free(struct capture *cap)
{
	if (!cap)
		return;
	for (unsigned int i = 0; i < cap->nr; i++) {
		free(cap->m[i].name);
		free(cap->m[i].data);
	}
	free(cap->m);
	free(cap);
}

static void say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* libarchive is opened when a capture is written or read, not linked:
 * with what it links (ICU, libxml2, libstdc++, nettle and six compression
 * libraries) it cost every run 1.2 ms of CPU to map and relocate, a
 * twentieth of a whole run on a 256-CPU machine, for the runs that never
 * capture. Its soname has been libarchive.so.13 since libarchive 3.0. */
#define LIBARCHIVE_SONAME	"libarchive.so.13"

#define LA_FUNCS(X) \
	X(archive_entry_clear) \
	X(archive_entry_filetype) \
	X(archive_entry_free) \
	X(archive_entry_new) \
	X(archive_entry_pathname) \
	X(archive_entry_perm) \
	X(archive_entry_set_filetype) \
	X(archive_entry_set_mtime) \
	X(archive_entry_set_pathname) \
	X(archive_entry_set_perm) \
	X(archive_entry_set_size) \
	X(archive_entry_size) \
	X(archive_errno) \
	X(archive_error_string) \
	X(archive_read_data) \
	X(archive_read_free) \
	X(archive_read_new) \
	X(archive_read_next_header) \
	X(archive_read_open_filename) \
	X(archive_read_open_memory) \
	X(archive_read_support_filter_gzip) \
	X(archive_read_support_format_tar) \
	X(archive_write_add_filter_gzip) \
	X(archive_write_close) \
	X(archive_write_data) \
	X(archive_write_free) \
	X(archive_write_header) \
	X(archive_write_new) \
	X(archive_write_open2) \
	X(archive_write_set_bytes_in_last_block) \
	X(archive_write_set_format_pax_restricted)

static struct {
	void *handle;
#define LA_POINTER(f) __typeof__(f) *f;
	LA_FUNCS(LA_POINTER)
#undef LA_POINTER
} la;

/* 0 once every function is there, else -ELIBACC with @why. */
static int la_open(char *why, size_t why_len)
{
	void *h;
	const char *missing = NULL;

	if (la.handle)
		return 0;
	h = dlopen(LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();

		str_copy(why, why_len, e ? e : "cannot load " LIBARCHIVE_SONAME);
		return -ELIBACC;
	}
#define LA_RESOLVE(f) \
	if (!missing && !(la.f = (__typeof__(la.f))dlsym(h, #f))) \
		missing = #f;
	LA_FUNCS(LA_RESOLVE)
#undef LA_RESOLVE
	if (missing) {
		say(why, why_len, "%s has no %s", LIBARCHIVE_SONAME, missing);
		dlclose(h);
		return -ELIBACC;
	}
	la.handle = h;
	return 0;
}


/* Relative, no empty, "." or ".." component: a name that cannot point
 * outside the capture if anyone ever extracts it. */
static bool name_ok(const char *name)
{
	const char *p = name;
	size_t n = strlen(name);

	if (n == 0 || n >= CAPTURE_NAME_MAX || name[0] == '/')
		return false;
	while (*p) {
		const char *end = strchr(p, '/');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (l == 0 || (l == 1 && p[0] == '.') ||
		    (l == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!end)
			break;
		p = end + 1;
		if (!*p)
			return false;	/* a trailing slash */
	}
	return true;
}

static int add(struct capture *cap, const char *name, char *data, size_t len,
	       mode_t mode)
{
	struct capture_member *m;

	if (!name_ok(name))
		return -EINVAL;
	if (cap->nr >= CAPTURE_MEMBERS_MAX || len > CAPTURE_MEMBER_MAX ||
	    len > CAPTURE_TOTAL_MAX - cap->total)
		return -EFBIG;
	if (cap->nr == cap->cap) {
		unsigned int n = cap->cap ? cap->cap * 2 : 64;

		m = realloc(cap->m, n * sizeof(*m));
		if (!m)
			return -ENOMEM;
		cap->m = m;
		cap->cap = n;
	}
	m = &cap->m[cap->nr];
	m->name = strdup(name);
	if (!m->name)
		return -ENOMEM;
	m->data = data;
	m->len = len;
	m->mode = mode & 07777;
	m->order = cap->nr;
	cap->nr++;
	cap->total += len;
	cap->sorted = 0;
	return 0;
}

int capture_put(struct capture *cap, const char *name, const void *data,
		size_t len, mode_t mode)
{
	char *copy;
	int r;

	if (len > CAPTURE_MEMBER_MAX)
		return -EFBIG;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	r = add(cap, name, copy, len, mode ? mode : 0644);
	if (r < 0)
		free(copy);
	return r;
}

int capture_put_dir(struct capture *cap, const char *name)
{
	return add(cap, name, NULL, 0, 0755);
}

static int member_cmp(const void *a, const void *b)
{
	const struct capture_member *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void sort(struct capture *cap)
{
	if (cap->sorted)
		return;
	if (cap->nr)
		qsort(cap->m, cap->nr, sizeof(*cap->m), member_cmp);
	cap->sorted = 1;
}

/* First member not below @key. */
static unsigned int lower_bound(const struct capture *cap, const char *key)
{
	unsigned int lo = 0, hi = cap->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (strcmp(cap->m[mid].name, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct capture_member *capture_get(struct capture *cap, const char *name)
{
	unsigned int i;

	sort(cap);
	i = lower_bound(cap, name);
	/* Written captures keep the last of a name read twice. */
	while (i + 1 < cap->nr && strcmp(cap->m[i + 1].name, name) == 0)
		i++;
	return i < cap->nr && strcmp(cap->m[i].name, name) == 0 ? &cap->m[i] : NULL;
}

static int order_cmp(const void *a, const void *b)
{
	const struct capture_member *x = *(const struct capture_member *const *)a;
	const struct capture_member *y = *(const struct capture_member *const *)b;

	return x->order < y->order ? -1 : x->order > y->order;
}

int capture_subdirs(struct capture *cap, const char *dir,
		    const struct capture_member ***ret, unsigned int *ret_nr)
{
	const struct capture_member **out = NULL;
	unsigned int n = 0, cap_out = 0;
	char prefix[CAPTURE_NAME_MAX + 1];
	size_t pl;

	if ((size_t)snprintf(prefix, sizeof(prefix), "%s/", dir) >= sizeof(prefix)) {
		*ret = NULL;
		*ret_nr = 0;
		return 0;
	}
	pl = strlen(prefix);
	sort(cap);
	for (unsigned int i = lower_bound(cap, prefix); i < cap->nr; i++) {
		const struct capture_member *m = &cap->m[i];

		if (strncmp(m->name, prefix, pl) != 0)
			break;
		if (m->data || strchr(m->name + pl, '/'))
			continue;
		if (n == cap_out) {
			const struct capture_member **p;

			cap_out = cap_out ? cap_out * 2 : 8;
			p = realloc(out, cap_out * sizeof(*p));
			if (!p) {
				free(out);
				return -ENOMEM;
			}
			out = p;
		}
		out[n++] = m;
	}
	if (n)
		qsort(out, n, sizeof(*out), order_cmp);
	*ret = out;
	*ret_nr = n;
	return 0;
}

const char *capture_field(const struct capture_member *m, const char *key,
			  char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *p, *end;

	if (!m || !m->data || len == 0)
		return NULL;
	for (p = m->data; p < m->data + m->len; p = end + 1) {
		end = memchr(p, '\n', (size_t)(m->data + m->len - p));
		if (!end)
			end = m->data + m->len;
		if ((size_t)(end - p) > kl && strncmp(p, key, kl) == 0 && p[kl] == ' ') {
			size_t vl = (size_t)(end - p) - kl - 1;

			if (vl >= len)
				vl = len - 1;
			memcpy(buf, p + kl + 1, vl);
			buf[vl] = '\0';
			return buf;
		}
	}
	return NULL;
}

int capture_unescape(const char *field, char *dst, size_t len)
{
	size_t o = 0;

	if (len == 0)
		return -EINVAL;
	dst[0] = '\0';
	if (strcmp(field, "-") == 0)
		return 1;
	if (strcmp(field, ".") == 0)
		return 0;
	for (const char *p = field; *p; p++) {
		int c = (unsigned char)*p;

		if (c == '\\') {
			int hi, lo;

			if (p[1] != 'x' || (hi = hex_digit(p[2])) < 0 || (lo = hex_digit(p[3])) < 0)
				return -EINVAL;
			c = hi << 4 | lo;
			p += 3;
			if (c == 0)
				return -EINVAL;
		}
		if (o + 1 < len)
			dst[o++] = (char)c;
	}
	dst[o] = '\0';
	return 0;
}

unsigned int capture_split(char *line, char **fields, unsigned int max)
{
	unsigned int n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \t", &save); t && n < max;
	     t = strtok_r(NULL, " \t", &save))
		fields[n++] = t;
	return n;
}

/* --- writing --- */

struct membuf {
	char *data;
	size_t len, cap;
	int err;
};

static la_ssize_t membuf_write(struct archive *a, void *ctx, const void *buf, size_t len)
{
	struct membuf *mb = ctx;

	(void)a;
	if (len > mb->cap - mb->len) {
		size_t n = mb->cap ? mb->cap : 65536;
		char *p;

		while (n - mb->len < len)
			n *= 2;
		p = realloc(mb->data, n);
		if (!p) {
			mb->err = ENOMEM;
			return -1;
		}
		mb->data = p;
		mb->cap = n;
	}
	memcpy(mb->data + mb->len, buf, len);
	mb->len += len;
	return (la_ssize_t)len;
}

int capture_write(struct capture *cap, const char *path, char *why, size_t why_len)
{
	struct membuf mb = { 0 };
	struct archive_entry *e = NULL;
	struct capture_member **byorder = NULL;
	struct archive *a;
	time_t now = time(NULL);
	int r = la_open(why, why_len);

	if (r < 0)
		return r;
	sort(cap);
	byorder = calloc(cap->nr ? cap->nr : 1, sizeof(*byorder));
	a = la.archive_write_new();
	e = la.archive_entry_new();
	if (!byorder || !a || !e) {
		r = -ENOMEM;
		say(why, why_len, "out of memory");
		goto out;
	}
	/* Of a file read twice, the last reading; of a directory met twice,
	 * the first (its place among its siblings is the order readdir gave
	 * them); then the order of reading, the meta member first because it
	 * was put first. */
	for (unsigned int i = 0, j; i < cap->nr; i = j) {
		for (j = i + 1; j < cap->nr && strcmp(cap->m[i].name, cap->m[j].name) == 0; j++)
			;
		byorder[cap->m[j - 1].data ? cap->m[j - 1].order : cap->m[i].order] =
			cap->m[j - 1].data ? &cap->m[j - 1] : &cap->m[i];
	}
	/* pax: names of any length and bytes, sizes of any width. */
	/* No padding to a 10240-byte block after the gzip stream: a file
	 * cut short must show as cut, not as padding lost. */
	if (la.archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    la.archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    la.archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    la.archive_write_open2(a, &mb, NULL, membuf_write, NULL, NULL) != ARCHIVE_OK) {
		r = mb.err ? -mb.err : -EIO;
		say(why, why_len, "%s", la.archive_error_string(a));
		goto out;
	}
	for (unsigned int i = 0; i <= cap->nr; i++) {
		/* The meta member, last written, goes first: readers check it
		 * before anything else. */
		const struct capture_member *m = i == 0 ? capture_get(cap, CAPTURE_META) :
						 byorder[i - 1];

		if (!m || (i > 0 && strcmp(m->name, CAPTURE_META) == 0))
			continue;
		la.archive_entry_clear(e);
		la.archive_entry_set_pathname(e, m->name);
		la.archive_entry_set_filetype(e, m->data ? AE_IFREG : AE_IFDIR);
		la.archive_entry_set_perm(e, m->mode);
		la.archive_entry_set_size(e, (la_int64_t)m->len);
		la.archive_entry_set_mtime(e, now, 0);
		if (la.archive_write_header(a, e) != ARCHIVE_OK ||
		    (m->len && la.archive_write_data(a, m->data, m->len) != (la_ssize_t)m->len)) {
			r = mb.err ? -mb.err : -EIO;
			say(why, why_len, "%s: %s", m->name, la.archive_error_string(a));
			goto out;
		}
	}
	if (la.archive_write_close(a) != ARCHIVE_OK) {
		r = mb.err ? -mb.err : -EIO;
		say(why, why_len, "%s", la.archive_error_string(a));
		goto out;
	}
	r = write_file_atomic(path, mb.data, mb.len, 0600);
	if (r < 0)
		say(why, why_len, "%s%s", strerror(-r),
		    r == -ELOOP || r == -EPERM ? " (not a regular file of ours: refusing it)" : "");
out:
	la.archive_entry_free(e);
	if (a)
		la.archive_write_free(a);
	free(byorder);
	free(mb.data);
	return r;
}

/* --- reading --- */

/* One file member's data, at most @declared bytes: the buffer grows with
 * what arrives, so a header that lies costs nothing. */
static int read_data(struct archive *a, size_t declared, char **ret, size_t *ret_len)
{
	size_t cap = declared < 65536 ? declared + 1 : 65536, len = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		la_ssize_t n;

		if (len + 1 >= cap && cap <= declared) {
			size_t ncap = cap * 2 > declared + 1 ? declared + 1 : cap * 2;
			char *p = realloc(buf, ncap);

			if (!p) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
			cap = ncap;
		}
		n = la.archive_read_data(a, buf + len, cap - 1 - len);
		if (n < 0) {
			free(buf);
			return -EIO;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > declared) {
			free(buf);
			return -EIO;
		}
	}
	if (len != declared) {
		free(buf);
		return -EIO;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* "format irqtune-capture" and "version CAPTURE_VERSION" in the meta member. */
static int check_meta(struct capture *cap, char *why, size_t why_len)
{
	const struct capture_member *m = capture_get(cap, CAPTURE_META);
	char v[64];
	int version;

	if (!m || !m->data || !capture_field(m, "format", v, sizeof(v)) ||
	    strcmp(v, CAPTURE_FORMAT) != 0) {
		say(why, why_len, "not an irqtune capture (no \"format %s\" in %s)",
		    CAPTURE_FORMAT, CAPTURE_META);
		return -EINVAL;
	}
	if (!capture_field(m, "version", v, sizeof(v)) ||
	    parse_int(v, 0, INT32_MAX, &version) < 0) {
		say(why, why_len, "%s has no valid version", CAPTURE_META);
		return -EINVAL;
	}
	if (version != CAPTURE_VERSION) {
		/* Version 1 kept the topology, the bans and the costs as
		 * irqtune had parsed them, not the files: nothing to replay
		 * through the parsers. */
		say(why, why_len, "format version %d; this irqtune reads version %d only%s",
		    version, CAPTURE_VERSION, version < CAPTURE_VERSION ?
		    " (take the capture again with this irqtune)" : "");
		return -EPROTONOSUPPORT;
	}
	return 0;
}

static int read_members(struct archive *a, struct capture *cap, char *why, size_t why_len)
{
	struct archive_entry *e;
	int r, ar;

	while ((ar = la.archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = la.archive_entry_pathname(e);
		char clean[CAPTURE_NAME_MAX + 1];
		mode_t type = la.archive_entry_filetype(e);
		la_int64_t size = la.archive_entry_size(e);
		size_t nl;
		char *data = NULL;
		size_t len = 0;

		if (!name || strlen(name) >= sizeof(clean)) {
			say(why, why_len, "member %u: no name, or one too long", cap->nr + 1);
			return -EINVAL;
		}
		if (cap->nr == 0 && strcmp(name, CAPTURE_META) != 0) {
			say(why, why_len, "not an irqtune capture (its first member is not %s)",
			    CAPTURE_META);
			return -EINVAL;
		}
		str_copy(clean, sizeof(clean), name);
		nl = strlen(clean);
		if (type == AE_IFDIR && nl > 1 && clean[nl - 1] == '/')
			clean[nl - 1] = '\0';
		if (!name_ok(clean)) {
			say(why, why_len, "member '%.200s': not a safe relative name", name);
			return -EINVAL;
		}
		if (cap->nr >= CAPTURE_MEMBERS_MAX) {
			say(why, why_len, "more than %u members", CAPTURE_MEMBERS_MAX);
			return -EFBIG;
		}
		if (type == AE_IFDIR) {
			r = capture_put_dir(cap, clean);
			if (r < 0)
				goto bad;
			continue;
		}
		if (type != AE_IFREG) {
			say(why, why_len, "member '%.200s': not a regular file or directory", clean);
			return -EINVAL;
		}
		if (size < 0 || (uint64_t)size > CAPTURE_MEMBER_MAX ||
		    (uint64_t)size > CAPTURE_TOTAL_MAX - cap->total) {
			say(why, why_len, "member '%.200s': %lld bytes, beyond the bounds "
			    "(%zu MiB a member, %zu MiB in all)", clean, (long long)size,
			    CAPTURE_MEMBER_MAX >> 20, CAPTURE_TOTAL_MAX >> 20);
			return -EFBIG;
		}
		r = read_data(a, (size_t)size, &data, &len);
		if (r == -EIO) {
			say(why, why_len, "member '%.200s': truncated or corrupt (%s)", clean,
			    la.archive_error_string(a) ? la.archive_error_string(a) : "short data");
			return -EINVAL;
		}
		if (r < 0)
			goto bad;
		r = add(cap, clean, data, len, la.archive_entry_perm(e));
		if (r < 0) {
			free(data);
			goto bad;
		}
	}
	if (ar != ARCHIVE_EOF) {
		say(why, why_len, "truncated or corrupt: %s", la.archive_error_string(a) ?
		    la.archive_error_string(a) : "unreadable");
		return -EINVAL;
	}
	if (cap->nr == 0) {
		say(why, why_len, "not an irqtune capture (no members)");
		return -EINVAL;
	}
	sort(cap);
	for (unsigned int i = 0; i + 1 < cap->nr; i++)
		if (strcmp(cap->m[i].name, cap->m[i + 1].name) == 0) {
			say(why, why_len, "member '%.200s' appears twice", cap->m[i].name);
			return -EINVAL;
		}
	return check_meta(cap, why, why_len);
bad:
	say(why, why_len, "%s", r == -ENOMEM ? "out of memory" : "beyond the bounds");
	return r;
}

static int read_from(struct archive *a, int opened, struct capture **ret,
		     char *why, size_t why_len)
{
	struct capture *cap;
	int r;

	if (opened != ARCHIVE_OK) {
		const char *s = la.archive_error_string(a);

		/* Failing to open it is its errno; anything else, its contents. */
		switch (la.archive_errno(a)) {
		case ENOENT: case EACCES: case EPERM: case EISDIR: case ENOTDIR:
		case ELOOP: case ENAMETOOLONG: case EIO: case ENOMEM:
			r = -la.archive_errno(a);
			break;
		default:
			r = -EINVAL;
		}
		if (r == -EINVAL)
			say(why, why_len, "not a gzip'd tar archive, or a truncated one: %s",
			    s ? s : "unreadable");
		else
			say(why, why_len, "cannot open it: %s", strerror(-r));
		la.archive_read_free(a);
		return r;
	}
	cap = capture_new();
	if (!cap) {
		la.archive_read_free(a);
		say(why, why_len, "out of memory");
		return -ENOMEM;
	}
	r = read_members(a, cap, why, why_len);
	la.archive_read_free(a);
	if (r < 0) {
		capture_free(cap);
		return r;
	}
	*ret = cap;
	return 0;
}

static struct archive *reader(void)
{
	struct archive *a = la.archive_read_new();

	if (!a)
		return NULL;
	/* Only what capture_write() makes: nothing else is a capture. */
	la.archive_read_support_filter_gzip(a);
	la.archive_read_support_format_tar(a);
	return a;
}

int capture_read(const char *path, struct capture **ret, char *why, size_t why_len)
{
	struct archive *a;
	int r = la_open(why, why_len);

	if (r < 0)
		return r;
	a = reader();
	if (!a) {
		say(why, why_len, "out of memory");
		return -ENOMEM;
	}
	return read_from(a, la.archive_read_open_filename(a, path, 65536), ret, why, why_len);
}

int capture_read_mem(const void *buf, size_t len, struct capture **ret,
		     char *why, size_t why_len)
{
	struct archive *a;
	int r = la_open(why, why_len);

	if (r < 0)
		return r;
	a = reader();
	if (!a) {
		say(why, why_len, "out of memory");
		return -ENOMEM;
	}
	return read_from(a, la.archive_read_open_memory(a, buf, len), ret, why, why_len);
}
