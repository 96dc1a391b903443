// SPDX-License-Identifier: GPL-2.0-or-later
/* fakekernel.c - LD_PRELOAD shim that plays the kernel of a simulated
 * machine (tests/sim) for a program run under umockdev:
 *
 *	UMOCKDEV_DIR=DIR \
 *	LD_PRELOAD="$PWD/tests/shims/fakekernel.so libumockdev-preload.so.0" prog
 *
 * It must come before libumockdev-preload.so.0, which then redirects /sys
 * and /proc to DIR. This library:
 *  - turns sleeps (nanosleep, clock_nanosleep, sleep, usleep) into model
 *    time steps: no real sleeping, DIR/proc is re-rendered instead;
 *  - serves CLOCK_MONOTONIC (and _RAW, _COARSE, BOOTTIME) from the model's
 *    virtual clock, so a window of N seconds measures exactly N;
 *  - takes writes to /proc/irq/N/smp_affinity{,_list} and
 *    /proc/irq/default_smp_affinity (open/openat + write, dprintf, writev,
 *    fopen/fdopen) and answers like the kernel: EIO (EPERM from 6.12) for
 *    managed IRQs, EINVAL/ERANGE for bad lists, injected faults from the
 *    model; accepted writes update the model and DIR/proc/irq/N/;
 *  - refuses write-opens of /proc/irq/... and /proc/sys/... that the
 *    testbed does not hold, so nothing reaches the host's kernel;
 *  - sends /run/irqtune* (the lock) to DIR/run, so parallel runs on
 *    different machines do not contend and the host's /run is untouched,
 *    and irqbalance's settings (/etc/default/irqbalance,
 *    /etc/sysconfig/irqbalance) and /run/irqbalance* to DIR too; a listing
 *    of /proc (opendir, or open + getdents64) lists DIR/proc, so a run
 *    finds the machine's irqbalance and application threads, not the
 *    host's; and /var/lib/kubelet/... (the kubelet's CPU manager state) is
 *    DIR/var/lib/kubelet/..., absent unless the machine has one;
 *  - plays the machine's events (tests/sim/README.md, "Events"): CPUs
 *    going offline, IRQs vanishing or appearing at a virtual time in a
 *    sleep or on the Nth affinity write, and signals to the program (a kill
 *    in the middle of its writes); and its denied paths (a container
 *    without /proc/irq): opens and stats of them fail;
 *  - plays the network path's kernel: a write-open of a testbed
 *    .../queues/tx-N/xps_cpus that is read-only (0444) fails with EACCES,
 *    as a refusing kernel would, root or not; sched_setaffinity() of a PID
 *    rewrites the Cpus_allowed_list of DIR/proc/PID/status and is ESRCH
 *    for a PID the testbed does not hold, so no host thread is ever
 *    moved; generic netlink sockets (netdev napi-get) are
 *    EPROTONOSUPPORT, so the host's NICs never answer for the machine's,
 *    unless DIR/sim.napi exists: then a socket pair plays the netdev
 *    family, its napi-get dump answered from that file, one NAPI a line:
 *    "IFINDEX ID IRQ PID THREADED DEFER-HARD-IRQS GRO-FLUSH-TIMEOUT
 *    IRQ-SUSPEND-TIMEOUT", "-" for an attribute the kernel leaves out.
 * Without UMOCKDEV_DIR it does nothing but pass every call through; it only
 * ever writes under UMOCKDEV_DIR. Without DIR/sim.state (a captured, not
 * simulated, machine) clocks and writes pass through to umockdev. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>
#include <sys/uio.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "sim/model.h"

#define EXPORT __attribute__((visibility("default")))

/* An affinity file a program opened for writing. Known by its testbed
 * inode, not by fd, so dup2() (a shell's "echo 1 > file") keeps working. */
struct tracked {
	dev_t dev;
	ino_t ino;
	long irq;		/* -1: default_smp_affinity */
	bool list;		/* _list: a cpulist, else a cpumask */
};

/* Where a write goes. */
struct target {
	long irq;
	bool list;
	bool ro;		/* the testbed file is 0444: kernel-managed */
};

struct cookie {
	int fd;			/* the testbed file: reads, and its mode */
	long irq;
	bool list;
};

static struct {
	pthread_mutex_t lock;
	pthread_once_t once;
	bool active;		/* UMOCKDEV_DIR set */
	char dir[PATH_MAX];
	size_t dirlen;
	struct sim *s;		/* cached model */
	struct stat state_st;	/* sim.state when cached */
	off_t journal_size;	/* sim.journal size when cached */
	struct tracked *t;
	unsigned int nr_t, cap_t;

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
	FILE *(*fdopen)(int, const char *);
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*writev)(int, const struct iovec *, int);
	int (*vdprintf)(int, const char *, va_list);
	int (*nanosleep)(const struct timespec *, struct timespec *);
	int (*clock_nanosleep)(clockid_t, int, const struct timespec *,
			       struct timespec *);
	int (*clock_gettime)(clockid_t, struct timespec *);
	unsigned int (*sleep)(unsigned int);
	int (*usleep)(useconds_t);
	int (*stat)(const char *, struct stat *);
	int (*stat64)(const char *, struct stat64 *);
	int (*lstat)(const char *, struct stat *);
	int (*lstat64)(const char *, struct stat64 *);
	int (*access)(const char *, int);
	DIR *(*opendir)(const char *);
	int (*socket)(int, int, int);
	int (*bind)(int, const struct sockaddr *, socklen_t);
	int (*getsockname)(int, struct sockaddr *, socklen_t *);
	int (*setsockopt)(int, int, int, const void *, socklen_t);
	ssize_t (*sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	int (*close)(int);
	/* The netdev family's sockets: the program's end and ours. */
	int nl_fd[8], nl_peer[8];
	/* libc's own, for our I/O on real paths: umockdev's wrappers would
	 * look for an emulated device under /dev (the testbed is in /dev/shm)
	 * and leave a socket open per call, in the program's fd table. */
	struct {
		int (*open)(const char *, int, ...);
		int (*open64)(const char *, int, ...);
		int (*openat)(int, const char *, int, ...);
		int (*openat64)(int, const char *, int, ...);
		FILE *(*fopen)(const char *, const char *);
		FILE *(*fopen64)(const char *, const char *);
		int (*stat)(const char *, struct stat *);
		int (*stat64)(const char *, struct stat64 *);
		int (*lstat)(const char *, struct stat *);
		int (*lstat64)(const char *, struct stat64 *);
		int (*access)(const char *, int);
		DIR *(*opendir)(const char *);
	} libc;
} fk = {
	.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
	.once = PTHREAD_ONCE_INIT,
};

static void fk_init(void);

/* The next definition: umockdev's where it has one, else libc's. */
#define REAL(name) (pthread_once(&fk.once, fk_init), fk.name)
/* libc's, skipping umockdev: for our own files (real paths under DIR). */
#define LIBC(name) (pthread_once(&fk.once, fk_init), \
		    fk.libc.name ? fk.libc.name : fk.name)
/* Passing a call on: inside our own code, straight to libc. */
#define PASS(name) (fk_depth ? LIBC(name) : REAL(name))

/* Inside our own code (the model writing DIR/proc/irq/N/smp_affinity_list,
 * say) every wrapper passes straight through. */
static __thread int fk_depth;

static void enter(void)
{
	pthread_mutex_lock(&fk.lock);
	fk_depth++;
}

static void leave(void)
{
	fk_depth--;
	pthread_mutex_unlock(&fk.lock);
}

#define RESOLVE(field, sym) (*(void **)&fk.field = dlsym(RTLD_NEXT, sym))
#define LIBC_RESOLVE(sym) (*(void **)&fk.libc.sym = dlsym(libc, #sym))

static void fk_init(void)
{
	const char *dir = getenv("UMOCKDEV_DIR");
	void *libc;
	int n;

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
	RESOLVE(fdopen, "fdopen");
	RESOLVE(write, "write");
	RESOLVE(writev, "writev");
	RESOLVE(vdprintf, "vdprintf");
	RESOLVE(nanosleep, "nanosleep");
	RESOLVE(clock_nanosleep, "clock_nanosleep");
	RESOLVE(clock_gettime, "clock_gettime");
	RESOLVE(sleep, "sleep");
	RESOLVE(usleep, "usleep");
	RESOLVE(stat, "stat");
	RESOLVE(stat64, "stat64");
	RESOLVE(lstat, "lstat");
	RESOLVE(lstat64, "lstat64");
	RESOLVE(access, "access");
	RESOLVE(opendir, "opendir");
	RESOLVE(socket, "socket");
	RESOLVE(bind, "bind");
	RESOLVE(getsockname, "getsockname");
	RESOLVE(setsockopt, "setsockopt");
	RESOLVE(sendto, "sendto");
	RESOLVE(recvmsg, "recvmsg");
	RESOLVE(close, "close");
	libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (libc) {
		LIBC_RESOLVE(open);
		LIBC_RESOLVE(open64);
		LIBC_RESOLVE(openat);
		LIBC_RESOLVE(openat64);
		LIBC_RESOLVE(fopen);
		LIBC_RESOLVE(fopen64);
		LIBC_RESOLVE(stat);
		LIBC_RESOLVE(stat64);
		LIBC_RESOLVE(lstat);
		LIBC_RESOLVE(lstat64);
		LIBC_RESOLVE(access);
		LIBC_RESOLVE(opendir);
	}

	if (!dir || dir[0] != '/')
		return;
	n = snprintf(fk.dir, sizeof(fk.dir), "%s", dir);
	if (n <= 0 || (size_t)n >= sizeof(fk.dir))
		return;
	while (n > 1 && fk.dir[n - 1] == '/')
		fk.dir[--n] = '\0';
	fk.dirlen = (size_t)n;
	fk.active = true;
}

static bool active(void)
{
	pthread_once(&fk.once, fk_init);
	return fk.active;
}

/* The model, loaded once and reloaded when someone else (irqsim) changed
 * it since. Call with fk.lock held. NULL when DIR has no model. */
static struct sim *model(void)
{
	char path[PATH_MAX + 32];
	struct stat st, jst;
	off_t jsize;

	snprintf(path, sizeof(path), "%s/%s", fk.dir, SIM_STATE_FILE);
	if (stat(path, &st) < 0) {
		sim_free(fk.s);
		fk.s = NULL;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", fk.dir, SIM_JOURNAL_FILE);
	jsize = stat(path, &jst) == 0 ? jst.st_size : 0;
	if (fk.s && st.st_ino == fk.state_st.st_ino &&
	    st.st_mtim.tv_sec == fk.state_st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == fk.state_st.st_mtim.tv_nsec &&
	    st.st_size == fk.state_st.st_size && jsize == fk.journal_size)
		return fk.s;
	sim_free(fk.s);
	fk.s = NULL;
	if (sim_load(fk.dir, &fk.s) < 0) {
		fprintf(stderr, "fakekernel: %s/%s: cannot load the model\n",
			fk.dir, SIM_STATE_FILE);
		return NULL;
	}
	fk.state_st = st;
	fk.journal_size = jsize;
	return fk.s;
}

/* After we changed the files ourselves: remember them as current. */
static void model_synced(void)
{
	char path[PATH_MAX + 32];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fk.dir, SIM_STATE_FILE);
	if (stat(path, &st) == 0)
		fk.state_st = st;
	snprintf(path, sizeof(path), "%s/%s", fk.dir, SIM_JOURNAL_FILE);
	fk.journal_size = stat(path, &st) == 0 ? st.st_size : 0;
}

/* ---- time ------------------------------------------------------------ */

static bool virtual_clock(clockid_t clk)
{
	return clk == CLOCK_MONOTONIC || clk == CLOCK_MONOTONIC_RAW ||
	       clk == CLOCK_MONOTONIC_COARSE || clk == CLOCK_BOOTTIME;
}

/* Advance the model by @dt seconds, playing the events due on the way;
 * false when there is no model. */
static bool advance(double dt)
{
	struct sim *s;
	int r, sig = 0;

	if (!active())
		return false;
	enter();
	s = model();
	if (!s) {
		leave();
		return false;
	}
	if (dt > 0) {
		r = sim_advance(s, dt, &sig);
		if (r < 0)
			fprintf(stderr, "fakekernel: %s: an event failed: %s\n",
				fk.dir, strerror(-r));
		r = sim_render_proc(s, false);
		if (r == 0)
			r = sim_save(s);
		if (r < 0)
			fprintf(stderr, "fakekernel: %s: cannot step: %s\n", fk.dir,
				strerror(-r));
		model_synced();
	}
	leave();
	/* after the save: the next program finds the event played */
	if (sig)
		raise(sig);
	return true;
}

static bool virtual_now(double *ret)
{
	struct sim *s;

	if (!active())
		return false;
	enter();
	s = model();
	if (s)
		*ret = s->time;
	leave();
	return s != NULL;
}

static double ts_seconds(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

EXPORT int clock_gettime(clockid_t clk, struct timespec *ts)
{
	double now;

	if (virtual_clock(clk) && virtual_now(&now)) {
		ts->tv_sec = (time_t)now;
		ts->tv_nsec = (long)((now - (double)ts->tv_sec) * 1e9 + 0.5);
		if (ts->tv_nsec >= 1000000000L) {
			ts->tv_sec++;
			ts->tv_nsec -= 1000000000L;
		}
		return 0;
	}
	return REAL(clock_gettime)(clk, ts);
}

EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (req && (req->tv_nsec < 0 || req->tv_nsec >= 1000000000L)) {
		errno = EINVAL;
		return -1;
	}
	if (req && advance(ts_seconds(req))) {
		if (rem)
			rem->tv_sec = rem->tv_nsec = 0;
		return 0;
	}
	return REAL(nanosleep)(req, rem);
}

EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			   struct timespec *rem)
{
	double dt, now;

	if (!req || req->tv_nsec < 0 || req->tv_nsec >= 1000000000L)
		return EINVAL;
	if ((clk == CLOCK_REALTIME && !(flags & TIMER_ABSTIME)) ||
	    virtual_clock(clk)) {
		dt = ts_seconds(req);
		if (flags & TIMER_ABSTIME) {
			if (!virtual_now(&now))
				goto out_real;
			dt -= now;
		}
		if (advance(dt)) {
			if (rem)
				rem->tv_sec = rem->tv_nsec = 0;
			return 0;
		}
	}
out_real:
	return REAL(clock_nanosleep)(clk, flags, req, rem);
}

EXPORT unsigned int sleep(unsigned int seconds)
{
	if (advance(seconds))
		return 0;
	return REAL(sleep)(seconds);
}

EXPORT int usleep(useconds_t usec)
{
	if (advance(usec / 1e6))
		return 0;
	return REAL(usleep)(usec);
}

/* ---- affinity files -------------------------------------------------- */

enum kpath { KP_OTHER, KP_AFFINITY, KP_PROTECTED };

/* What the kernel path @path is; for affinity files also which IRQ (-1:
 * default_smp_affinity) and whether it is a list. */
static enum kpath classify(const char *path, long *ret_irq, bool *ret_list)
{
	const char *p;
	unsigned long irq = 0;
	int digits = 0;

	if (strncmp(path, "/proc/sys/", 10) == 0)
		return KP_PROTECTED;
	if (strncmp(path, "/proc/irq/", 10) != 0)
		return KP_OTHER;
	p = path + 10;
	if (strcmp(p, "default_smp_affinity") == 0) {
		*ret_irq = -1;
		*ret_list = false;
		return KP_AFFINITY;
	}
	while (*p >= '0' && *p <= '9' && digits < 8) {
		irq = irq * 10 + (unsigned long)(*p++ - '0');
		digits++;
	}
	if (!digits || *p != '/')
		return KP_PROTECTED;
	p++;
	if (strcmp(p, "smp_affinity") == 0 || strcmp(p, "smp_affinity_list") == 0) {
		*ret_irq = (long)irq;
		*ret_list = p[12] == '_';
		return KP_AFFINITY;
	}
	return KP_PROTECTED;
}

/* The kernel path a program names: absolute, relative to a directory fd,
 * or the testbed's own copy of a /proc file. */
static bool kernel_path(int dirfd, const char *path, char *buf, size_t len)
{
	char dir[PATH_MAX];

	if (path[0] != '/' && dirfd != AT_FDCWD) {
		char link[64];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
		n = syscall(SYS_readlink, link, dir, sizeof(dir) - 1);
		if (n <= 0)
			return false;
		dir[n] = '\0';
		if (snprintf(buf, len, "%s/%s", dir, path) >= (int)len)
			return false;
	} else if (path[0] == '/') {
		if (snprintf(buf, len, "%s", path) >= (int)len)
			return false;
	} else {
		return false;
	}
	if (strncmp(buf, fk.dir, fk.dirlen) == 0 && buf[fk.dirlen] == '/' &&
	    strncmp(buf + fk.dirlen, "/proc/", 6) == 0)
		memmove(buf, buf + fk.dirlen, strlen(buf + fk.dirlen) + 1);
	return true;
}

static bool in_testbed(const char *kpath, char *tb, size_t len)
{
	struct stat st;

	if (snprintf(tb, len, "%s%s", fk.dir, kpath) >= (int)len)
		return false;
	return lstat(tb, &st) == 0;
}

static struct tracked *find_inode(dev_t dev, ino_t ino)
{
	for (unsigned int i = 0; i < fk.nr_t; i++)
		if (fk.t[i].dev == dev && fk.t[i].ino == ino)
			return &fk.t[i];
	return NULL;
}

static int track(const struct stat *st, long irq, bool list)
{
	struct tracked *t = find_inode(st->st_dev, st->st_ino);

	if (!t) {
		if (fk.nr_t == fk.cap_t) {
			unsigned int cap = fk.cap_t ? 2 * fk.cap_t : 64;

			t = realloc(fk.t, cap * sizeof(*t));
			if (!t)
				return -ENOMEM;
			fk.t = t;
			fk.cap_t = cap;
		}
		t = &fk.t[fk.nr_t++];
	}
	t->dev = st->st_dev;
	t->ino = st->st_ino;
	t->irq = irq;
	t->list = list;
	return 0;
}

/* Count a write; play the events it triggers, saving before any signal
 * is raised (a SIGSTOP returns here once the process is continued). Call
 * with fk.lock held; the model may be reloaded. */
static void write_events(struct sim *s)
{
	bool changed;
	int r, sig;

	r = sim_write_event(s, &sig, &changed);
	if (r < 0)
		fprintf(stderr, "fakekernel: %s: an event failed: %s\n", fk.dir,
			strerror(-r));
	if (changed) {
		r = sim_render_proc(s, false);
		if (r == 0)
			r = sim_save(s);
	} else {
		r = sim_journal_writes(s);
	}
	if (r < 0)
		fprintf(stderr, "fakekernel: %s: cannot record a write: %s\n",
			fk.dir, strerror(-r));
	model_synced();
	if (sig) {
		int depth = fk_depth;

		/* raise() outside our lock and depth: a stopped process can
		 * be inspected, and a handler may call back into us */
		fk_depth = 0;
		for (int i = 0; i < depth; i++)
			pthread_mutex_unlock(&fk.lock);
		raise(sig);
		for (int i = 0; i < depth; i++)
			pthread_mutex_lock(&fk.lock);
		fk_depth = depth;
	}
}

/* Run a write through the model. Returns write(2)'s result, errno set. */
static ssize_t model_write(const struct target *tg, const char *buf, size_t len)
{
	long irq = tg->irq;
	struct sim *s;
	long n;
	int r = 0;

	enter();
	s = model();
	if (!s) {
		leave();
		errno = EIO;
		return -1;
	}
	/* Events on this write come first: the write sees what they did. */
	write_events(s);
	s = model();
	if (!s) {
		leave();
		errno = EIO;
		return -1;
	}
	/* A read-only smp_affinity file is a managed IRQ, flagged or not. */
	if (tg->ro && irq >= 0)
		n = s->kmajor * 100 + s->kminor >= 612 ? -EPERM : -EIO;
	else
		n = sim_write_affinity(s, irq, buf, len, tg->list);
	if (s->last_fault >= 0)
		r = sim_journal_fault(s, (unsigned int)s->last_fault);
	if (n >= 0 && r == 0) {
		struct sim_irq *q = irq >= 0 ? sim_find_irq(s, (unsigned int)irq) : NULL;

		r = sim_render_irqs(s);
		if (r == 0)
			r = q ? sim_journal_irq(s, q) : sim_journal_default(s);
	}
	if (r < 0)
		fprintf(stderr, "fakekernel: %s: cannot record a write: %s\n",
			fk.dir, strerror(-r));
	model_synced();
	leave();
	if (n < 0) {
		errno = (int)-n;
		return -1;
	}
	return (ssize_t)n;
}

/* Files of the machine beside /sys and /proc that umockdev does not
 * redirect: the kubelet's state (a Kubernetes node's, absent unless the
 * description has a kubelet line: never the host's), and /proc itself,
 * whose listing, by open(2) and getdents64(2) as irqtune's source layer
 * does it, is the machine's processes (umockdev only takes "/proc/..."). */
static bool machine_path(const char *path, char *buf, size_t len)
{
	static const char kubelet[] = "/var/lib/kubelet/";

	if (strcmp(path, "/proc") == 0 ||
	    (strncmp(path, kubelet, sizeof(kubelet) - 1) == 0 && !strstr(path, "..")))
		return snprintf(buf, len, "%s%s", fk.dir, path) < (int)len;
	return false;
}

/* irqtune's own files in /run (its lock) go to DIR/run: parallel tests do
 * not contend and the host is not touched. So do irqbalance's settings
 * and pid file: the machine's, never the host's (absent unless a test
 * puts them in DIR). */
static bool run_path(const char *path, char *buf, size_t len)
{
	static const char *const ours[] = {
		"/run/irqtune", "/run/irqbalance", "/etc/default/irqbalance",
		"/etc/sysconfig/irqbalance",
	};
	char dir[PATH_MAX + 8];
	size_t i;

	for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (strncmp(path, ours[i], strlen(ours[i])) == 0)
			break;
	if (i == sizeof(ours) / sizeof(ours[0]) || strstr(path, ".."))
		return machine_path(path, buf, len);
	snprintf(dir, sizeof(dir), "%s/run", fk.dir);
	if (i < 2 && mkdir(dir, 0755) < 0 && errno != EEXIST)
		return false;
	return snprintf(buf, len, "%s%s", fk.dir, path) < (int)len;
}

/* Is @path (absolute, or relative to @dirfd) one the machine denies? Sets
 * errno when it is. */
static bool denied(int dirfd, const char *path)
{
	char kp[PATH_MAX];
	struct sim *s;
	int r = 0;

	if (fk_depth || !path || !active())
		return false;
	enter();
	s = model();
	if (s && s->nr_denies && kernel_path(dirfd, path, kp, sizeof(kp)))
		r = sim_denied(s, kp);
	leave();
	if (r < 0)
		errno = -r;
	return r < 0;
}

EXPORT int stat(const char *path, struct stat *st)
{
	if (denied(AT_FDCWD, path))
		return -1;
	return PASS(stat)(path, st);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	if (denied(AT_FDCWD, path))
		return -1;
	return PASS(stat64)(path, st);
}

EXPORT int lstat(const char *path, struct stat *st)
{
	if (denied(AT_FDCWD, path))
		return -1;
	return PASS(lstat)(path, st);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	if (denied(AT_FDCWD, path))
		return -1;
	return PASS(lstat64)(path, st);
}

EXPORT int access(const char *path, int how)
{
	if (denied(AT_FDCWD, path))
		return -1;
	return PASS(access)(path, how);
}

/* Listing /proc (irqtune looks for a running irqbalance there) lists the
 * machine's processes, DIR/proc's numbered directories: none unless a
 * test makes one, and never the host's. */
EXPORT DIR *opendir(const char *path)
{
	char tb[PATH_MAX + 8];

	if (denied(AT_FDCWD, path))
		return NULL;
	if (!fk_depth && active() &&
	    (strcmp(path, "/proc") == 0 || strcmp(path, "/proc/") == 0)) {
		snprintf(tb, sizeof(tb), "%s/proc", fk.dir);
		return LIBC(opendir)(tb);
	}
	return PASS(opendir)(path);
}

/* Common to every open: false means "not ours, pass through";
 * otherwise *@ret is the fd (or -1 with errno). */
/* A testbed xps_cpus made read-only: the kernel refusing that write. */
static bool xps_refused(int dirfd, const char *path)
{
	static const char tail[] = "/xps_cpus";
	char tb[PATH_MAX + 16];
	size_t len = strlen(path);
	struct stat st;

	if (path[0] != '/' || (dirfd != AT_FDCWD && path[0] != '/') ||
	    strncmp(path, "/sys/", 5) != 0 || len < sizeof(tail) ||
	    strcmp(path + len - (sizeof(tail) - 1), tail) != 0 ||
	    !in_testbed(path, tb, sizeof(tb)) || LIBC(stat)(tb, &st) < 0)
		return false;
	return (st.st_mode & 0222) == 0;
}

static bool fk_open(int dirfd, const char *path, int flags, int mode, int *ret)
{
	char kp[PATH_MAX], tb[PATH_MAX + 16];
	bool writing = (flags & O_ACCMODE) != O_RDONLY ||
		       (flags & (O_TRUNC | O_CREAT));
	enum kpath kind;
	struct stat st;
	long irq = 0;
	bool list = false;
	int fd;

	if (fk_depth || !path || !active())
		return false;
	if (run_path(path, tb, sizeof(tb))) {
		*ret = LIBC(openat)(AT_FDCWD, tb, flags, mode);
		return true;
	}
	if (denied(dirfd, path)) {
		*ret = -1;
		return true;
	}
	if (writing && xps_refused(dirfd, path)) {
		errno = EACCES;
		*ret = -1;
		return true;
	}
	if (!writing || !kernel_path(dirfd, path, kp, sizeof(kp)))
		return false;
	kind = classify(kp, &irq, &list);
	if (kind == KP_OTHER)
		return false;
	if (!in_testbed(kp, tb, sizeof(tb))) {
		/* never let a write reach the host's /proc */
		errno = kind == KP_AFFINITY ? ENOENT : EACCES;
		*ret = -1;
		return true;
	}
	if (kind != KP_AFFINITY)
		return false;	/* umockdev sends it to the testbed copy */
	enter();
	if (!model()) {
		leave();
		return false;	/* a captured machine: plain testbed file */
	}
	/* A read-only fd on the testbed file: reads and fstat work; writes
	 * are recognised by the file's inode. One that bypasses write(2)
	 * (glibc-internal) fails with EBADF instead of editing the file. */
	fd = LIBC(open)(tb, O_RDONLY | (flags & O_CLOEXEC) | O_NOFOLLOW);
	if (fd >= 0 && (fstat(fd, &st) < 0 || track(&st, irq, list) < 0)) {
		close(fd);
		fd = -1;
		errno = ENOMEM;
	}
	leave();
	*ret = fd;
	return true;
}

static int mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ?
	       va_arg(ap, int) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	int mode, fd;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (fk_open(AT_FDCWD, path, flags, mode, &fd))
		return fd;
	return PASS(open)(path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	int mode, fd;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (fk_open(AT_FDCWD, path, flags, mode, &fd))
		return fd;
	return PASS(open64)(path, flags, mode);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	int mode, fd;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (fk_open(dirfd, path, flags, mode, &fd))
		return fd;
	return PASS(openat)(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	int mode, fd;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (fk_open(dirfd, path, flags, mode, &fd))
		return fd;
	return PASS(openat64)(dirfd, path, flags, mode);
}

/* _FORTIFY_SOURCE variants */
EXPORT int __open_2(const char *path, int flags)
{
	int fd;

	if (fk_open(AT_FDCWD, path, flags, 0, &fd))
		return fd;
	return REAL(open_2)(path, flags);
}

EXPORT int __open64_2(const char *path, int flags)
{
	int fd;

	if (fk_open(AT_FDCWD, path, flags, 0, &fd))
		return fd;
	return REAL(open64_2)(path, flags);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	int fd;

	if (fk_open(dirfd, path, flags, 0, &fd))
		return fd;
	return REAL(openat_2)(dirfd, path, flags);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	int fd;

	if (fk_open(dirfd, path, flags, 0, &fd))
		return fd;
	return REAL(openat64_2)(dirfd, path, flags);
}

/* The tracking entry of the file @fd refers to; *@ret_ro tells whether the
 * testbed file is read-only now. Call with fk.lock held. */
static struct tracked *tracked_fd(int fd, bool *ret_ro)
{
	struct stat st;

	if (fd < 0 || !fk.nr_t || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	*ret_ro = (st.st_mode & 0222) == 0;
	return find_inode(st.st_dev, st.st_ino);
}

static bool tracked_info(int fd, struct target *tg)
{
	struct tracked *t;

	if (fk_depth || !active())
		return false;
	enter();
	t = tracked_fd(fd, &tg->ro);
	if (t) {
		tg->irq = t->irq;
		tg->list = t->list;
	}
	leave();
	return t != NULL;
}

EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	struct target tg;

	if (tracked_info(fd, &tg))
		return model_write(&tg, buf, len);
	return REAL(write)(fd, buf, len);
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	struct target tg;

	if (cnt >= 0 && tracked_info(fd, &tg)) {
		char buf[8192];
		size_t len = 0;

		for (int i = 0; i < cnt; i++) {
			if (len + iov[i].iov_len > sizeof(buf)) {
				errno = EINVAL;
				return -1;
			}
			memcpy(buf + len, iov[i].iov_base, iov[i].iov_len);
			len += iov[i].iov_len;
		}
		return model_write(&tg, buf, len);
	}
	return REAL(writev)(fd, iov, cnt);
}

EXPORT int vdprintf(int fd, const char *fmt, va_list ap)
{
	struct target tg;

	if (tracked_info(fd, &tg)) {
		char *buf;
		ssize_t n;
		int len = vasprintf(&buf, fmt, ap);

		if (len < 0)
			return -1;
		n = model_write(&tg, buf, (size_t)len);
		free(buf);
		return n < 0 ? -1 : (int)n;
	}
	return REAL(vdprintf)(fd, fmt, ap);
}

EXPORT int dprintf(int fd, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vdprintf(fd, fmt, ap);
	va_end(ap);
	return r;
}

/* stdio on an affinity file: each flush is one write(2) to the kernel. */
static ssize_t cookie_write(void *c, const char *buf, size_t len)
{
	struct cookie *ck = c;
	struct target tg = { .irq = ck->irq, .list = ck->list };
	struct stat st;

	tg.ro = fstat(ck->fd, &st) == 0 && (st.st_mode & 0222) == 0;
	return model_write(&tg, buf, len);
}

static ssize_t cookie_read(void *c, char *buf, size_t len)
{
	struct cookie *ck = c;

	return read(ck->fd, buf, len);
}

static int cookie_close(void *c)
{
	struct cookie *ck = c;
	int r = ck->fd >= 0 ? close(ck->fd) : 0;

	free(ck);
	return r;
}

static FILE *cookie_file(int fd, long irq, bool list, const char *mode)
{
	static const cookie_io_functions_t io = {
		.read = cookie_read,
		.write = cookie_write,
		.close = cookie_close,
	};
	struct cookie *ck = calloc(1, sizeof(*ck));
	FILE *f;

	if (!ck) {
		close(fd);
		return NULL;
	}
	ck->fd = fd;
	ck->irq = irq;
	ck->list = list;
	f = fopencookie(ck, mode, io);
	if (!f)
		cookie_close(ck);
	return f;
}

static bool mode_writes(const char *mode)
{
	return mode && (strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+'));
}

static bool fk_fopen(const char *path, const char *mode, FILE **ret)
{
	struct tracked *t;
	long irq;
	bool list, ro;
	int fd;

	char tb[PATH_MAX + 16];

	if (!fk_depth && path && active() && run_path(path, tb, sizeof(tb))) {
		*ret = LIBC(fopen)(tb, mode);
		return true;
	}
	if (denied(AT_FDCWD, path)) {
		*ret = NULL;
		return true;
	}
	if (!mode_writes(mode) ||
	    !fk_open(AT_FDCWD, path, strchr(mode, 'e') ? O_WRONLY | O_CLOEXEC :
		     O_WRONLY, 0, &fd))
		return false;
	if (fd < 0) {
		*ret = NULL;
		return true;
	}
	enter();
	t = tracked_fd(fd, &ro);
	irq = t ? t->irq : 0;
	list = t ? t->list : true;
	leave();
	*ret = cookie_file(fd, irq, list, mode);
	return true;
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
	FILE *f;

	if (fk_fopen(path, mode, &f))
		return f;
	return PASS(fopen)(path, mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	FILE *f;

	if (fk_fopen(path, mode, &f))
		return f;
	return PASS(fopen64)(path, mode);
}

EXPORT FILE *fdopen(int fd, const char *mode)
{
	struct target tg;

	if (mode_writes(mode) && tracked_info(fd, &tg))
		return cookie_file(fd, tg.irq, tg.list, mode);
	return REAL(fdopen)(fd, mode);
}

/* The machine's threads are the testbed's: DIR/proc/PID/status gets the
 * new Cpus_allowed_list; a PID it does not hold is no thread of it. */
EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask)
{
	char path[PATH_MAX + 64], list[4096], line[4096];
	size_t off = 0;
	char *text = NULL;
	size_t text_len = 0;
	FILE *in, *out;
	int r = 0;

	if (!active())
		return (int)syscall(SYS_sched_setaffinity, pid, size, mask);
	list[0] = '\0';
	for (int cpu = 0; (size_t)cpu < size * 8; cpu++) {
		if (!CPU_ISSET_S(cpu, size, mask))
			continue;
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d", off ? "," : "", cpu);
		if (off >= sizeof(list))
			break;
	}
	enter();
	snprintf(path, sizeof(path), "%s/proc/%d/status", fk.dir, (int)pid);
	in = pid > 0 ? LIBC(fopen)(path, "r") : NULL;
	if (!in) {
		leave();
		errno = ESRCH;
		return -1;
	}
	out = open_memstream(&text, &text_len);
	while (out && fgets(line, sizeof(line), in)) {
		if (strncmp(line, "Cpus_allowed_list:", 18) == 0)
			fprintf(out, "Cpus_allowed_list:\t%s\n", list);
		else
			fputs(line, out);
	}
	fclose(in);
	if (!out || fclose(out) != 0) {
		r = -1;
		errno = ENOMEM;
	} else {
		in = LIBC(fopen)(path, "w");
		if (!in || fwrite(text, 1, text_len, in) != text_len) {
			r = -1;
			errno = EIO;
		}
		if (in)
			fclose(in);
	}
	free(text);
	leave();
	return r;
}

/* The netdev family, played: replies written to the peer of the
 * program's socket, one datagram each, as the kernel sends them. */
#define FK_FAMILY	0x1b
#define GENL_ID_CTRL_	GENL_ID_CTRL
#define FK_PORT		4242

static int nl_slot(int fd)
{
	for (int i = 0; i < 8; i++)
		if (fk.nl_fd[i] == fd + 1)
			return i;
	return -1;
}

struct fk_msg {
	union {
		char buf[512];
		struct nlmsghdr h;
	};
};

static void fk_put(struct fk_msg *m, uint16_t type, const void *val, size_t len)
{
	struct nlattr *a = (struct nlattr *)(m->buf + NLMSG_ALIGN(m->h.nlmsg_len));

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, val, len);
	m->h.nlmsg_len = NLMSG_ALIGN(m->h.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void fk_start(struct fk_msg *m, uint16_t type, uint16_t flags, uint32_t seq)
{
	memset(m, 0, sizeof(*m));
	m->h.nlmsg_len = NLMSG_LENGTH(4);	/* a genl header */
	m->h.nlmsg_type = type;
	m->h.nlmsg_flags = flags;
	m->h.nlmsg_seq = seq;
	m->h.nlmsg_pid = FK_PORT;
	m->buf[NLMSG_HDRLEN] = 1;	/* genl cmd: a reply */
}

static void fk_send(int peer, struct fk_msg *m)
{
	(void)!send(peer, m->buf, m->h.nlmsg_len, 0);
}

/* napi-get dump of @ifindex, from DIR/sim.napi. */
static void fk_napi_dump(int peer, uint32_t seq, uint32_t ifindex)
{
	char path[PATH_MAX + 16], line[256];
	struct fk_msg m;
	/* the file's columns' attributes (netdev.yaml's napi set) */
	static const uint16_t attr[8] = { 1, 2, 3, 4, 8, 5, 6, 7 };
	FILE *f;
	int done = 0;

	snprintf(path, sizeof(path), "%s/sim.napi", fk.dir);
	f = LIBC(fopen)(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char w[8][24];
		unsigned long long v;

		if (sscanf(line, "%23s %23s %23s %23s %23s %23s %23s %23s", w[0], w[1], w[2], w[3],
			   w[4], w[5], w[6], w[7]) != 8 || strtoul(w[0], NULL, 10) != ifindex)
			continue;
		fk_start(&m, FK_FAMILY, NLM_F_MULTI, seq);
		fk_put(&m, 1, &ifindex, 4);
		for (int k = 1; k < 8; k++) {
			uint32_t u;

			if (strcmp(w[k], "-") == 0)
				continue;
			v = strtoull(w[k], NULL, 10);
			u = (uint32_t)v;
			/* "uint" (gro-flush-timeout, irq-suspend-timeout): 8
			 * bytes when it needs them */
			if ((k == 6 || k == 7) && v > UINT32_MAX)
				fk_put(&m, attr[k], &v, 8);
			else
				fk_put(&m, attr[k], &u, 4);
		}
		fk_send(peer, &m);
	}
	if (f)
		fclose(f);
	fk_start(&m, NLMSG_DONE, NLM_F_MULTI, seq);
	m.h.nlmsg_len = NLMSG_LENGTH(sizeof(done));
	memcpy(m.buf + NLMSG_HDRLEN, &done, sizeof(done));
	fk_send(peer, &m);
}

static void fk_nl_request(int peer, const struct nlmsghdr *req, size_t len)
{
	const struct nlattr *a = (const void *)((const char *)req + NLMSG_LENGTH(4));
	struct fk_msg m;
	uint16_t family = FK_FAMILY;

	if (len < NLMSG_LENGTH(4) + NLA_HDRLEN || req->nlmsg_len > len)
		return;
	if (req->nlmsg_type == GENL_ID_CTRL_ && strcmp((const char *)(a + 1), "netdev") == 0) {
		fk_start(&m, GENL_ID_CTRL_, 0, req->nlmsg_seq);
		fk_put(&m, 2, "netdev", 7);
		fk_put(&m, 1, &family, 2);
		fk_send(peer, &m);
	} else if (req->nlmsg_type == FK_FAMILY && a->nla_type == 1) {
		uint32_t ifindex;

		memcpy(&ifindex, a + 1, 4);
		fk_napi_dump(peer, req->nlmsg_seq, ifindex);
	} else {
		struct nlmsgerr e = { .error = -EOPNOTSUPP, .msg = *req };

		fk_start(&m, NLMSG_ERROR, NLM_F_CAPPED, req->nlmsg_seq);
		m.h.nlmsg_len = NLMSG_LENGTH(sizeof(e));
		e.msg.nlmsg_len = sizeof(e.msg);
		memcpy(m.buf + NLMSG_HDRLEN, &e, sizeof(e));
		fk_send(peer, &m);
	}
}

static bool napi_played(void)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/sim.napi", fk.dir);
	return LIBC(access)(path, F_OK) == 0;
}

EXPORT int socket(int domain, int type, int protocol)
{
	if (active() && domain == AF_NETLINK && protocol == NETLINK_GENERIC) {
		int sv[2], slot = nl_slot(-1);

		if (!napi_played() || slot < 0) {
			errno = EPROTONOSUPPORT;
			return -1;
		}
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | (type & SOCK_CLOEXEC), 0, sv) < 0)
			return -1;
		fk.nl_fd[slot] = sv[0] + 1;
		fk.nl_peer[slot] = sv[1];
		return sv[0];
	}
	return REAL(socket)(domain, type, protocol);
}

EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	return nl_slot(fd) >= 0 ? 0 : REAL(bind)(fd, addr, len);
}

EXPORT int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK, .nl_pid = FK_PORT };

	if (nl_slot(fd) < 0)
		return REAL(getsockname)(fd, addr, len);
	memcpy(addr, &me, *len < sizeof(me) ? *len : sizeof(me));
	*len = sizeof(me);
	return 0;
}

EXPORT int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	if (nl_slot(fd) >= 0 && level == SOL_NETLINK)
		return 0;
	return REAL(setsockopt)(fd, level, name, val, len);
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *to, socklen_t tolen)
{
	int slot = nl_slot(fd);

	if (slot < 0)
		return REAL(sendto)(fd, buf, len, flags, to, tolen);
	fk_nl_request(fk.nl_peer[slot], buf, len);
	return (ssize_t)len;
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	void *name = msg->msg_name;
	socklen_t namelen = msg->msg_namelen;
	ssize_t n;

	if (nl_slot(fd) < 0)
		return REAL(recvmsg)(fd, msg, flags);
	msg->msg_name = NULL;
	msg->msg_namelen = 0;
	n = REAL(recvmsg)(fd, msg, flags);
	msg->msg_name = name;
	if (name && namelen >= sizeof(kernel)) {
		memcpy(name, &kernel, sizeof(kernel));
		msg->msg_namelen = sizeof(kernel);
	}
	return n;
}

EXPORT int close(int fd)
{
	int slot = nl_slot(fd);

	if (slot >= 0) {
		REAL(close)(fk.nl_peer[slot]);
		fk.nl_fd[slot] = 0;
	}
	return REAL(close)(fd);
}
