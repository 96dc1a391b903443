// SPDX-License-Identifier: GPL-2.0-or-later
/* lock.c - an flock(2) on a root-owned file in /run. flock, not a pid file:
 * the kernel drops it when the holder dies, so there is nothing stale to
 * clean up after SIGKILL. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <sys/time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "lock.h"

static void on_alarm(int sig)
{
	(void)sig;	/* only here to interrupt flock() */
}

/* Block in flock() until it succeeds or an interval timer interrupts it;
 * no polling, so the wait costs nothing and is not a sleep loop. */
static int wait_flock(int fd, double seconds)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval it = { 0 }, off = { 0 };
	int r;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, &old) < 0)
		return -errno;
	it.it_value.tv_sec = (time_t)seconds;
	it.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
	if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
		it.it_value.tv_usec = 1;
	setitimer(ITIMER_REAL, &it, NULL);
	r = flock(fd, LOCK_EX) == 0 ? 0 : -errno;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	return r == -EINTR ? -EWOULDBLOCK : r;
}

int lock_take(const char *path, double wait_seconds)
{
	struct stat st;
	int fd, r;

	/* O_NOFOLLOW: a symlink planted in /run must not redirect our open. */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0)
		return errno == ELOOP ? -EPERM : -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		r = -EPERM;
		goto out_close;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	r = errno == EWOULDBLOCK && wait_seconds > 0 ? wait_flock(fd, wait_seconds) : -errno;
	if (r == 0)
		return fd;
out_close:
	close(fd);
	return r;
}

void lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
