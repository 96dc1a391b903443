// SPDX-License-Identifier: GPL-2.0-or-later
/* polltime.c - LD_PRELOAD shim for programs that wait in poll(2) instead of
 * sleeping, such as irqbalance's glib main loop, on a simulated machine:
 *
 *	UMOCKDEV_DIR=DIR LD_PRELOAD="$PWD/tests/sim/polltime.so \
 *	    $PWD/tests/shims/fakekernel.so libumockdev-preload.so.0" irqbalance --oneshot
 *
 * fakekernel.so turns sleeps into model time and serves CLOCK_MONOTONIC
 * from the model, but a poll(2) timeout is real time: glib would wait for a
 * monotonic clock that never moves. Here a poll or ppoll with a timeout and
 * nothing ready becomes a nanosleep(2) of that timeout, which the next
 * library (fakekernel.so) turns into a model step, then a poll that does not
 * wait. An infinite timeout stays a real wait.
 *
 * It also keeps irqbalance's UI socket off the host's filesystem: bind(2) of
 * a path under /run goes to DIR/run/ instead (created if need be). Without
 * that, irqbalance falls back to an abstract socket of an all-zero name,
 * the same for every instance: a second one running at the same time, on
 * another simulated machine, fails to bind it and exits.
 *
 * And it keeps irqbalance's capabilities: irqbalance drops them all
 * (libcap-ng's capng_apply()) before its first write, and without
 * CAP_DAC_OVERRIDE the fake kernel, running inside it, can no longer
 * rewrite the testbed's read-only files (effective_affinity is 0444), so
 * accepted writes would go unrecorded. Under UMOCKDEV_DIR capng_apply()
 * does nothing and succeeds.
 *
 * Without UMOCKDEV_DIR it passes every call through. */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

static bool active(void)
{
	const char *dir = getenv("UMOCKDEV_DIR");

	return dir && dir[0] == '/';
}

static int wait_model(int ms)
{
	int (*next_sleep)(const struct timespec *, struct timespec *) =
		(int (*)(const struct timespec *, struct timespec *))
		dlsym(RTLD_NEXT, "nanosleep");
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	return next_sleep ? next_sleep(&ts, NULL) : -1;
}

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	int (*next)(struct pollfd *, nfds_t, int) =
		(int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
	int r;

	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	if (!active() || timeout <= 0)
		return next(fds, n, timeout);
	r = next(fds, n, 0);
	if (r != 0)
		return r;
	wait_model(timeout);
	return next(fds, n, 0);
}

EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
		 const sigset_t *mask)
{
	int (*next)(struct pollfd *, nfds_t, const struct timespec *,
		    const sigset_t *) =
		(int (*)(struct pollfd *, nfds_t, const struct timespec *,
			 const sigset_t *))dlsym(RTLD_NEXT, "ppoll");
	struct timespec zero = { 0, 0 };
	int r;

	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	if (!active() || !tmo || (tmo->tv_sec == 0 && tmo->tv_nsec == 0))
		return next(fds, n, tmo, mask);
	r = next(fds, n, &zero, mask);
	if (r != 0)
		return r;
	wait_model((int)(tmo->tv_sec * 1000 + tmo->tv_nsec / 1000000));
	return next(fds, n, &zero, mask);
}

EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	int (*next)(int, const struct sockaddr *, socklen_t) =
		(int (*)(int, const struct sockaddr *, socklen_t))
		dlsym(RTLD_NEXT, "bind");
	const struct sockaddr_un *un = (const struct sockaddr_un *)addr;

	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	if (active() && addr && addr->sa_family == AF_UNIX &&
	    len > offsetof(struct sockaddr_un, sun_path) &&
	    strncmp(un->sun_path, "/run/", 5) == 0) {
		struct sockaddr_un tb = { .sun_family = AF_UNIX };
		const char *base = strrchr(un->sun_path, '/') + 1;
		char dir[sizeof(tb.sun_path)];
		int n;

		n = snprintf(dir, sizeof(dir), "%s/run", getenv("UMOCKDEV_DIR"));
		if (n < 0 || (size_t)n >= sizeof(dir) ||
		    (mkdir(dir, 0755) < 0 && errno != EEXIST))
			goto out_refuse;
		n = snprintf(tb.sun_path, sizeof(tb.sun_path), "%s/%s", dir, base);
		if (n < 0 || (size_t)n >= sizeof(tb.sun_path))
			goto out_refuse;
		return next(fd, (const struct sockaddr *)&tb, sizeof(tb));
out_refuse:
		errno = ENAMETOOLONG;
		return -1;
	}
	return next(fd, addr, len);
}

EXPORT int capng_apply(int set)
{
	int (*next)(int) = (int (*)(int))dlsym(RTLD_NEXT, "capng_apply");

	if (active())
		return 0;
	return next ? next(set) : -1;
}
