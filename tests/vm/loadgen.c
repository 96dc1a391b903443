/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loadgen - the guest's loads and one probe, where busybox has no tool:
 *
 *	loadgen disk DEVICE SECONDS		4 KiB O_DIRECT|O_DSYNC writes
 *	loadgen send6 ADDR IFNAME PORT SECONDS	UDP to an IPv6 link-local peer
 *	loadgen sink PORT SECONDS		receives and drops that UDP
 *	loadgen schedmon MS SECONDS PID...	each PID's run time and runs
 *						(schedstat) every MS ms, on
 *						CLOCK_MONOTONIC
 *	loadgen spin CPULIST SECONDS [MS]	one CPU-bound thread pinned to
 *						each CPU of CPULIST ("2-3",
 *						"0,1"): the pinned application;
 *						with MS, each thread's loops so
 *						far every MS ms, on
 *						CLOCK_MONOTONIC
 *
 * Every mode stops by itself after SECONDS, and send6 after a bounded
 * number of datagrams too. Built static, for the initramfs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_DATAGRAMS	5000000L
#define DISK_SPAN	(16L << 20)	/* bytes of the device written over */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double number(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0 || v > 3600) {
		fprintf(stderr, "loadgen: '%s': not a number of seconds\n", s);
		exit(64);
	}
	return v;
}

static int disk(const char *dev, double secs)
{
	double end = now() + secs;
	void *buf;
	long off = 0, n = 0;
	int fd;

	fd = open(dev, O_WRONLY | O_DIRECT | O_DSYNC | O_CLOEXEC);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		fprintf(stderr, "loadgen: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	memset(buf, 0xa5, 4096);
	while (now() < end) {
		if (pwrite(fd, buf, 4096, off) != 4096) {
			fprintf(stderr, "loadgen: %s: write: %s\n", dev, strerror(errno));
			return 1;
		}
		off = (off + 4096) % DISK_SPAN;
		n++;
	}
	printf("disk %s %ld writes\n", dev, n);
	return 0;
}

static int send6(const char *addr, const char *ifname, int port, double secs)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	double end = now() + secs;
	char buf[1200];
	long n = 0, lost = 0;
	int fd;

	if (inet_pton(AF_INET6, addr, &sa.sin6_addr) != 1 ||
	    !(sa.sin6_scope_id = if_nametoindex(ifname))) {
		fprintf(stderr, "loadgen: %s%%%s: not an address on an interface\n", addr, ifname);
		return 64;
	}
	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 1;
	memset(buf, 0x5a, sizeof(buf));
	while (n + lost < MAX_DATAGRAMS && now() < end) {
		if (sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			lost++;		/* a full queue: ENOBUFS, try on */
		else
			n++;
	}
	printf("send6 %ld sent %ld refused\n", n, lost);
	return 0;
}

static int sink(int port, double secs)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	double end = now() + secs;
	char buf[2048];
	long n = 0;
	int fd;

	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		fprintf(stderr, "loadgen: sink: %s\n", strerror(errno));
		return 1;
	}
	while (now() < end)
		if (recv(fd, buf, sizeof(buf), 0) > 0)
			n++;
	printf("sink %ld received\n", n);
	return 0;
}

/* Field 1 of /proc/PID/schedstat: time on a CPU, in ns. */
static int schedmon(double ms, double secs, int npids, char **pids)
{
	double end = now() + secs;
	struct timespec pause = { .tv_sec = 0, .tv_nsec = (long)(ms * 1e6) };
	char path[64];

	while (now() < end) {
		double t = now();

		for (int i = 0; i < npids; i++) {
			unsigned long long run, wait, runs;
			FILE *f;

			snprintf(path, sizeof(path), "/proc/%s/schedstat", pids[i]);
			f = fopen(path, "re");
			if (!f)
				continue;
			/* run time, time waiting to run, and runs (times
			 * switched in), as sched/stats.h writes them */
			if (fscanf(f, "%llu %llu %llu", &run, &wait, &runs) == 3)
				printf("%.9f %s %llu %llu\n", t, pids[i], run, runs);
			fclose(f);
		}
		fflush(stdout);
		nanosleep(&pause, NULL);
	}
	return 0;
}

/*
 * The pinned application: threads of one process, each allowed on one CPU
 * (sched_setaffinity on its own thread id), as a database or a packet
 * poller pins its workers. They spin in user space, touching no system
 * call until the end, so that all they lose to IRQs is stolen time.
 */
#define SPIN_MAX	64

struct spinner {
	int cpu;
	double end;
	double period;		/* seconds between progress lines; 0: none */
	unsigned long long loops;
	int err;
};

static void *spin_one(void *arg)
{
	struct spinner *s = arg;
	cpu_set_t set;
	volatile unsigned long long n = 0;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	double t, next = now();

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (sched_setaffinity(tid, sizeof(set), &set)) {
		s->err = errno;
		return NULL;
	}
	/* The clock is read every 2^20 loops (vDSO, no system call); a
	 * progress line is one write a period, which the thread's rate
	 * between two lines includes. */
	do {
		for (int i = 0; i < (1 << 20); i++)
			n++;
		t = now();
		if (s->period > 0 && t >= next) {
			printf("%.6f %d %d %llu\n", t, s->cpu, (int)tid, (unsigned long long)n);
			fflush(stdout);
			next = t + s->period;
		}
	} while (t < s->end);
	s->loops = n;
	return NULL;
}

static int spin(const char *list, double secs, double ms)
{
	struct spinner s[SPIN_MAX];
	pthread_t t[SPIN_MAX];
	const char *p = list;
	int n = 0, rc = 0;

	/* "A", "A-B", comma-separated */
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0 || a >= CPU_SETSIZE)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b >= CPU_SETSIZE)
				goto bad;
		}
		for (long c = a; c <= b; c++) {
			if (n == SPIN_MAX)
				goto bad;
			s[n++] = (struct spinner){ .cpu = (int)c, .end = now() + secs,
						   .period = ms / 1e3 };
		}
		if (*end && *end != ',')
			goto bad;
		p = *end ? end + 1 : end;
	}
	if (!n)
		goto bad;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, spin_one, &s[i])) {
			fprintf(stderr, "loadgen: spin: cannot start a thread\n");
			return 1;
		}
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		if (s[i].err) {
			fprintf(stderr, "loadgen: spin: CPU %d: %s\n", s[i].cpu, strerror(s[i].err));
			rc = 1;
		} else {
			printf("spin cpu %d %llu loops\n", s[i].cpu, s[i].loops);
		}
	}
	return rc;
bad:
	fprintf(stderr, "loadgen: '%s': not a cpulist of at most %d CPUs\n", list, SPIN_MAX);
	return 64;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "disk"))
		return disk(argv[2], number(argv[3]));
	if (argc == 6 && !strcmp(argv[1], "send6"))
		return send6(argv[2], argv[3], atoi(argv[4]), number(argv[5]));
	if (argc == 4 && !strcmp(argv[1], "sink"))
		return sink(atoi(argv[2]), number(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "schedmon"))
		return schedmon(number(argv[2]), number(argv[3]), argc - 4, argv + 4);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "spin"))
		return spin(argv[2], number(argv[3]), argc == 5 ? number(argv[4]) : 0);
	fprintf(stderr, "usage: loadgen disk DEV S | send6 ADDR IF PORT S | sink PORT S | "
		"schedmon MS S PID... | spin CPULIST S [MS]\n");
	return 64;
}
