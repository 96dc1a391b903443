/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.h - reading the small text files of /proc and /sys, and replacing
 * the files irqtune keeps, shared by every module that touches them.
 * Strict numbers and bounded copies are strutil.h's. */
#ifndef IRQTUNE_FILEIO_H
#define IRQTUNE_FILEIO_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Read a whole small file into @buf (NUL-terminated, trailing whitespace
 * trimmed). Returns the length or -errno; -EFBIG if it does not fit. */
long read_small_file(const char *path, char *buf, size_t len);
/* The same for @path relative to the directory @dfd (or AT_FDCWD): what a
 * walk over thousands of sysfs files uses, to spare the path lookups. */
long read_small_file_at(int dfd, const char *path, char *buf, size_t len);
/* The same from an open @fd (left open), from where it stands. */
long read_small_fd(int fd, char *buf, size_t len);

/* Open @path for reading as a file that decides where IRQs go: a regular
 * file owned by root (or by the effective user) and writable by nobody
 * else. 0 with *@ret_f set; -EINVAL (not a regular file), -EPERM (owner or
 * mode), -ENOMEM or the -errno of open(2), with @why (of @why_len bytes)
 * saying which, e.g. "writable by anyone (mode 0666): refusing it". */
int fopen_trusted(const char *path, FILE **ret_f, char *why, size_t why_len);

/* Replace @path with @len bytes of @text, mode @mode: a temporary file in
 * the same directory, fsync, rename, so a reader sees the old file or the
 * new one, never part of one. The entry replaced must be a regular file of
 * the effective user: -ELOOP for a symlink, -EPERM for anything else. */
int write_file_atomic(const char *path, const char *text, size_t len, mode_t mode);

/* Read a file irqtune keeps for itself (under /run/irqtune) into @buf of
 * @len bytes, NUL-terminated: only a regular file of root's (or ours) that
 * no one else can write, not a symlink, shorter than @len, with no NUL.
 * The length, or -errno (-ELOOP, -EPERM, -EFBIG, -EINVAL...) with @why. */
long read_own_file(const char *path, char *buf, size_t len, char *why, size_t why_len);
/* Replace such a file (mode 0644) atomically, making its directory first. */
int write_own_file(const char *path, const char *text, size_t len);

#endif
