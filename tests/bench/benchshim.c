// SPDX-License-Identifier: GPL-2.0-or-later
/* benchshim.c - LD_PRELOAD shim for make bench-speed, placed before
 * tests/shims/fakekernel.so:
 *
 *	BENCH_MODE=replay UMOCKDEV_DIR=DIR LD_PRELOAD="benchshim.so \
 *	    fakekernel.so libumockdev-preload.so.0" prog
 *
 * BENCH_MODE=replay plays a machine whose two samples were rendered
 * beforehand (tests/bench/bench-speed.sh), so that nothing of the simulator
 * runs inside the measured process (fakekernel.so's model of an 8192-CPU
 * machine is a gigabyte, and rendering the second sample is seconds of
 * work). DIR has no sim.state, so fakekernel.so passes clocks and writes
 * through; DIR/proc/{interrupts,stat,softirqs} are symlinks to
 * DIR/replay/a/, and the first sleep of the program:
 *  - points them at DIR/replay/b/ (rename of a new symlink: atomic, O(1));
 *  - returns at once and moves CLOCK_MONOTONIC (and _RAW, _COARSE,
 *    BOOTTIME) on by the time asked for; these clocks stand still
 *    otherwise, so the window measures exactly what it should, every run. poll()/ppoll() with a timeout count as sleeps (irqbalance
 *    waits in glib's main loop);
 * and every write-open of a /proc/irq/N/ file the testbed holds goes to
 * DIR/replay/sink, a plain file: the write(2) still happens, the tree stays
 * as built, so runs repeat exactly (not /dev/null: umockdev would take it
 * for a device and try its ioctl socket at every open) (BENCH_WRITES=keep: they go to the testbed file, for a
 * trace that must show them as the kernel would see them).
 *
 * BENCH_MODE=native is the same without umockdev or fakekernel.so, in a
 * private mount namespace where the bench has bind-mounted BENCH_DIR/sys on
 * /sys, BENCH_DIR/proc/irq on /proc/irq and BENCH_DIR/replay/a/X on
 * /proc/X: the swap is a bind mount of replay/b/X over /proc/X (root only,
 * O(1)), and the program runs on the kernel's own path lookup.
 *
 * In every mode (also BENCH_MODE=count, for runs against the live model)
 * it counts the program's write-opens of /proc/irq paths at the libc
 * boundary, where fakekernel.so cannot hide them, and at exit appends
 * "pid N write_opens N sleeps N" to $BENCH_STATS if set.
 * BENCH_NOSWAP=1 keeps the first sample for the second (a window with no
 * load): the bench seeds a state file with counters from before replay/a.
 * BENCH_UPTIME=S starts the replayed monotonic clocks at S seconds, the
 * machine's own uptime, not this host's (irqtune takes the counters of a
 * first snapshot more than two minutes after boot as evidence).
 * Without BENCH_MODE it passes everything through. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

enum mode { MODE_OFF, MODE_COUNT, MODE_REPLAY, MODE_NATIVE };

static struct {
	pthread_once_t once;
	enum mode mode;
	char dir[PATH_MAX];
	char sink[PATH_MAX + 16];
	long long offset_ns;	/* added to the monotonic clocks */
	long long uptime_ns;	/* BENCH_UPTIME: their start, 0 the host's */
	bool swapped;
	bool keep_writes;	/* BENCH_WRITES=keep */
	unsigned long write_opens, sleeps;
	int (*open)(const char *, int, ...);
	int (*open64)(const char *, int, ...);
	int (*openat)(int, const char *, int, ...);
	int (*openat64)(int, const char *, int, ...);
	int (*open_2)(const char *, int);
	int (*open64_2)(const char *, int);
	int (*openat_2)(int, const char *, int);
	int (*openat64_2)(int, const char *, int);
	FILE *(*fopen)(const char *, const char *);
	FILE *(*fopen64)(const char *, const char *);
	int (*clock_gettime)(clockid_t, struct timespec *);
	int (*nanosleep)(const struct timespec *, struct timespec *);
	int (*clock_nanosleep)(clockid_t, int, const struct timespec *,
			       struct timespec *);
	unsigned int (*sleep)(unsigned int);
	int (*usleep)(useconds_t);
	int (*poll)(struct pollfd *, nfds_t, int);
	int (*ppoll)(struct pollfd *, nfds_t, const struct timespec *,
		     const sigset_t *);
} bs = { .once = PTHREAD_ONCE_INIT };

static pthread_mutex_t bs_lock = PTHREAD_MUTEX_INITIALIZER;

#define RESOLVE(f, sym) (*(void **)&bs.f = dlsym(RTLD_NEXT, sym))

static void bs_init(void)
{
	const char *m = getenv("BENCH_MODE"), *d = getenv("BENCH_DIR");

	RESOLVE(open, "open");
	RESOLVE(open64, "open64");
	RESOLVE(openat, "openat");
	RESOLVE(openat64, "openat64");
	RESOLVE(open_2, "__open_2");
	RESOLVE(open64_2, "__open64_2");
	RESOLVE(openat_2, "__openat_2");
	RESOLVE(openat64_2, "__openat64_2");
	RESOLVE(fopen, "fopen");
	RESOLVE(fopen64, "fopen64");
	RESOLVE(clock_gettime, "clock_gettime");
	RESOLVE(nanosleep, "nanosleep");
	RESOLVE(clock_nanosleep, "clock_nanosleep");
	RESOLVE(sleep, "sleep");
	RESOLVE(usleep, "usleep");
	RESOLVE(poll, "poll");
	RESOLVE(ppoll, "ppoll");
	if (!d)
		d = getenv("UMOCKDEV_DIR");
	if (!m || !d || d[0] != '/' || strlen(d) >= sizeof(bs.dir))
		return;
	strcpy(bs.dir, d);
	snprintf(bs.sink, sizeof(bs.sink), "%s/replay/sink", d);
	bs.swapped = getenv("BENCH_NOSWAP") && strcmp(getenv("BENCH_NOSWAP"), "1") == 0;
	bs.keep_writes = getenv("BENCH_WRITES") &&
			 strcmp(getenv("BENCH_WRITES"), "keep") == 0;
	if (getenv("BENCH_UPTIME"))
		bs.uptime_ns = (long long)(strtod(getenv("BENCH_UPTIME"), NULL) * 1e9);
	if (strcmp(m, "replay") == 0)
		bs.mode = MODE_REPLAY;
	else if (strcmp(m, "native") == 0)
		bs.mode = MODE_NATIVE;
	else if (strcmp(m, "count") == 0)
		bs.mode = MODE_COUNT;
}

#define INIT() pthread_once(&bs.once, bs_init)

__attribute__((destructor)) static void bs_report(void)
{
	const char *path = getenv("BENCH_STATS");
	char line[128];
	int fd, n;

	INIT();
	if (bs.mode == MODE_OFF || !path)
		return;
	n = snprintf(line, sizeof(line), "pid %ld write_opens %lu sleeps %lu\n",
		     (long)getpid(), bs.write_opens, bs.sleeps);
	/* Straight to the kernel: no stdio, no preload below us involved. */
	fd = bs.open ? bs.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) < 0)
			n = 0;
		close(fd);
	}
}

/* ---- time ---- */

static bool monotonic(clockid_t clk)
{
	return clk == CLOCK_MONOTONIC || clk == CLOCK_MONOTONIC_RAW ||
	       clk == CLOCK_MONOTONIC_COARSE || clk == CLOCK_BOOTTIME;
}

/* The window passes: the second sample appears, the clock moves on. */
static void pass_time(long long ns)
{
	static const char *const files[] = { "interrupts", "stat", "softirqs" };
	char link[PATH_MAX + 32], target[64];

	pthread_mutex_lock(&bs_lock);
	bs.sleeps++;
	if (ns > 0)
		bs.offset_ns += ns;
	if (!bs.swapped && bs.mode == MODE_NATIVE) {
		bs.swapped = true;
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			char src[PATH_MAX + 32], dst[32];

			snprintf(src, sizeof(src), "%s/replay/b/%s", bs.dir, files[i]);
			snprintf(dst, sizeof(dst), "/proc/%s", files[i]);
			if (mount(src, dst, NULL, MS_BIND, NULL) < 0)
				fprintf(stderr, "benchshim: cannot bind %s on %s: %s\n",
					src, dst, strerror(errno));
		}
	}
	if (!bs.swapped) {
		bs.swapped = true;
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			char final[PATH_MAX + 32];

			snprintf(link, sizeof(link), "%s/proc/.%s.bench", bs.dir, files[i]);
			snprintf(final, sizeof(final), "%s/proc/%s", bs.dir, files[i]);
			snprintf(target, sizeof(target), "../replay/b/%s", files[i]);
			unlink(link);
			if (symlink(target, link) < 0 || rename(link, final) < 0)
				fprintf(stderr, "benchshim: cannot swap in %s: %s\n",
					final, strerror(errno));
		}
	}
	pthread_mutex_unlock(&bs_lock);
}

/* Replayed, through umockdev or natively: sleeps pass in no time. */
static bool replaying(void)
{
	return bs.mode == MODE_REPLAY || bs.mode == MODE_NATIVE;
}

static long long ts_ns(const struct timespec *ts)
{
	return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

/* The monotonic clocks stand still but for the sleeps: the window measures
 * exactly what was asked, run after run, so the input is the same every
 * time (the real time spent reading the first sample would otherwise
 * lengthen it a little, differently each run). */
EXPORT int clock_gettime(clockid_t clk, struct timespec *ts)
{
	static long long base[16];
	int r;

	INIT();
	r = bs.clock_gettime(clk, ts);
	if (r == 0 && replaying() && monotonic(clk) && (unsigned int)clk < 16) {
		long long t;

		pthread_mutex_lock(&bs_lock);
		if (!base[clk])
			base[clk] = bs.uptime_ns > 0 ? bs.uptime_ns : ts_ns(ts);
		t = base[clk] + bs.offset_ns;
		pthread_mutex_unlock(&bs_lock);
		ts->tv_sec = (time_t)(t / 1000000000LL);
		ts->tv_nsec = (long)(t % 1000000000LL);
	}
	return r;
}

EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	INIT();
	if (!replaying() || !req)
		return bs.nanosleep(req, rem);
	pass_time(ts_ns(req));
	if (rem)
		rem->tv_sec = rem->tv_nsec = 0;
	return 0;
}

EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			   struct timespec *rem)
{
	long long ns;

	INIT();
	if (!replaying() || !req)
		return bs.clock_nanosleep(clk, flags, req, rem);
	ns = ts_ns(req);
	if (flags & TIMER_ABSTIME) {
		struct timespec now;

		if (clock_gettime(clk, &now) < 0)
			return errno;
		ns -= ts_ns(&now);
	}
	pass_time(ns);
	if (rem && !(flags & TIMER_ABSTIME))
		rem->tv_sec = rem->tv_nsec = 0;
	return 0;
}

EXPORT unsigned int sleep(unsigned int seconds)
{
	INIT();
	if (!replaying())
		return bs.sleep(seconds);
	pass_time((long long)seconds * 1000000000LL);
	return 0;
}

EXPORT int usleep(useconds_t usec)
{
	INIT();
	if (!replaying())
		return bs.usleep(usec);
	pass_time((long long)usec * 1000LL);
	return 0;
}

/* A wait with a timeout is a sleep that may end early: look once, and if
 * nothing is ready, the timeout has passed. */
EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	int r;

	INIT();
	if (!replaying() || timeout <= 0)
		return bs.poll(fds, n, timeout);
	r = bs.poll(fds, n, 0);
	if (r == 0)
		pass_time((long long)timeout * 1000000LL);
	return r;
}

EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
		 const sigset_t *sigmask)
{
	struct timespec zero = { 0, 0 };
	int r;

	INIT();
	if (!replaying() || !tmo || ts_ns(tmo) <= 0)
		return bs.ppoll(fds, n, tmo, sigmask);
	r = bs.ppoll(fds, n, &zero, sigmask);
	if (r == 0)
		pass_time(ts_ns(tmo));
	return r;
}

/* ---- affinity writes ---- */

static bool writes(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_TRUNC | O_CREAT));
}

static bool mode_writes(const char *mode)
{
	return mode && strpbrk(mode, "wa+");
}

/* A write-open of @path: counted if it is under /proc/irq; with replay,
 * *@ret_path becomes the sink when the testbed holds the file. */
static void write_open(const char *path, const char **ret_path)
{
	char tb[PATH_MAX + 32];
	struct stat st;

	if (bs.mode == MODE_OFF || !path || strncmp(path, "/proc/irq/", 10) != 0)
		return;
	pthread_mutex_lock(&bs_lock);
	bs.write_opens++;
	pthread_mutex_unlock(&bs_lock);
	if (!replaying() || bs.keep_writes)
		return;
	/* Natively /proc/irq is the testbed's. */
	if (bs.mode == MODE_NATIVE)
		snprintf(tb, sizeof(tb), "%s", path);
	else
		snprintf(tb, sizeof(tb), "%s%s", bs.dir, path);
	if (lstat(tb, &st) == 0 && S_ISREG(st.st_mode))
		*ret_path = bs.sink;
}

static int mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ?
	       va_arg(ap, int) : 0;
}

#define OPEN_BODY(call)						\
	do {							\
		va_list ap;					\
		int mode;					\
								\
		INIT();						\
		va_start(ap, flags);				\
		mode = mode_arg(flags, ap);			\
		va_end(ap);					\
		if (writes(flags))				\
			write_open(path, &path);		\
		return call;					\
	} while (0)

EXPORT int open(const char *path, int flags, ...)
{
	OPEN_BODY(bs.open(path, flags, mode));
}

EXPORT int open64(const char *path, int flags, ...)
{
	OPEN_BODY(bs.open64(path, flags, mode));
}

/* Relative names under a directory fd are not followed: irqtune and
 * irqbalance name /proc/irq files absolutely. */
EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	OPEN_BODY(bs.openat(dirfd, path, flags, mode));
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	OPEN_BODY(bs.openat64(dirfd, path, flags, mode));
}

EXPORT int __open_2(const char *path, int flags)
{
	INIT();
	if (writes(flags))
		write_open(path, &path);
	return bs.open_2(path, flags);
}

EXPORT int __open64_2(const char *path, int flags)
{
	INIT();
	if (writes(flags))
		write_open(path, &path);
	return bs.open64_2(path, flags);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	INIT();
	if (writes(flags))
		write_open(path, &path);
	return bs.openat_2(dirfd, path, flags);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	INIT();
	if (writes(flags))
		write_open(path, &path);
	return bs.openat64_2(dirfd, path, flags);
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
	INIT();
	if (mode_writes(mode))
		write_open(path, &path);
	return bs.fopen(path, mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	INIT();
	if (mode_writes(mode))
		write_open(path, &path);
	return bs.fopen64(path, mode);
}
