/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lock.h - the run lock that keeps cron, timer, udev and manual runs from
 * interleaving their writes. */
#ifndef IRQTUNE_LOCK_H
#define IRQTUNE_LOCK_H

/* Take the exclusive lock at @path, waiting up to @wait_seconds (0: don't
 * wait). Returns an fd to keep open for the run, -EWOULDBLOCK when another
 * run holds it, -EPERM when the file is not a root-owned regular file (a
 * symlink or someone else's file in its place), or another -errno. The lock
 * dies with the process, so a killed run never leaves it stale. */
int lock_take(const char *path, double wait_seconds);
void lock_release(int fd);

#endif
