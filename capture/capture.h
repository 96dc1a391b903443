/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.h - the capture file of --capture and --replay: every input one
 * run read, as named members held in memory, written and read as a
 * gzip-compressed POSIX tar archive (libarchive), so that `tar tzvf` lists
 * it and a reporter can read all of it before sending it. The format is in
 * irqtune(8). Library-like: returns errors, never prints them. */
#ifndef IRQTUNE_CAPTURE_H
#define IRQTUNE_CAPTURE_H

#include <stddef.h>
#include <sys/types.h>

/* The first member, whose text says what the file is (see irqtune(8)). */
#define CAPTURE_META		"irqtune-capture"
#define CAPTURE_FORMAT		"irqtune-capture"
#define CAPTURE_VERSION		2

/* Bounds on what a capture may hold, so that a hostile file cannot make a
 * replay allocate more than this: a 1,152-CPU machine with 4,096 IRQs
 * reads ~100 MiB of /proc text, twice the interrupts table among it. */
#define CAPTURE_MEMBERS_MAX	(1u << 18)
#define CAPTURE_MEMBER_MAX	((size_t)128 << 20)
#define CAPTURE_TOTAL_MAX	((size_t)512 << 20)
#define CAPTURE_NAME_MAX	1024
#define CAPTURE_WHY_MAX		256

struct capture_member {
	char *name;		/* relative, no "." or ".." components */
	char *data;		/* NUL-terminated beyond len; NULL for a directory */
	size_t len;
	mode_t mode;		/* permission bits, as the file had them */
	unsigned int order;	/* position in the archive */
};

struct capture {
	struct capture_member *m;	/* sorted by name once read */
	unsigned int nr, cap;
	size_t total;			/* bytes of data held */
	int sorted;
};

struct capture *capture_new(void);
void capture_free(struct capture *cap);

/* Add or replace the file @name with @len bytes of @data (copied), mode
 * @mode; @mode 0 keeps the mode of the member replaced (0644 for a new
 * one). 0, -EINVAL (a bad name), -EFBIG (beyond the bounds) or -ENOMEM. */
int capture_put(struct capture *cap, const char *name, const void *data,
		size_t len, mode_t mode);
/* Add the directory @name (no trailing slash), once. */
int capture_put_dir(struct capture *cap, const char *name);

/* The member @name, NULL when there is none. Sorts on first use. */
const struct capture_member *capture_get(struct capture *cap, const char *name);
/* The directories directly under @dir, in the order they were put or
 * read, into *@ret (malloc'd, *@ret_nr of them). 0 or -ENOMEM. */
int capture_subdirs(struct capture *cap, const char *dir,
		    const struct capture_member ***ret, unsigned int *ret_nr);

/* Write @cap to @path as a .tar.gz, through a temporary file renamed over
 * it, mode 0600 (it names the machine's devices and host). 0 or -errno,
 * with @why saying what failed. */
int capture_write(struct capture *cap, const char *path, char *why, size_t why_len);

/* Read a capture from @path, or from @len bytes at @buf. The archive must be
 * gzip'd tar with CAPTURE_META first, of format CAPTURE_FORMAT and version
 * CAPTURE_VERSION, and hold only regular files and directories with safe
 * names within the bounds above. 0, or -EINVAL (not a capture, or a bad
 * one), -EPROTONOSUPPORT (another version), -EFBIG (beyond the bounds),
 * -ENOMEM or the -errno of opening it, with @why (CAPTURE_WHY_MAX is
 * enough) saying what is wrong. */
int capture_read(const char *path, struct capture **ret, char *why, size_t why_len);
int capture_read_mem(const void *buf, size_t len, struct capture **ret,
		     char *why, size_t why_len);

/* The value of "KEY VALUE" line @key of the text @m (a member), copied to
 * @buf; NULL when @m is NULL or has no such line. */
const char *capture_field(const struct capture_member *m, const char *key,
			  char *buf, size_t len);
/* The reverse, into @dst (cut to @len - 1 bytes): 1 for "-" (none, @dst
 * empty), 0 for a string, -EINVAL for a malformed escape. */
int capture_unescape(const char *field, char *dst, size_t len);
/* Split the line @line (modified) into at most @max blank-separated
 * fields; the count. */
unsigned int capture_split(char *line, char **fields, unsigned int max);

#endif
